/**
 * Quotes from live, in-memory state (docs/spec/protocol.md#quotes): the pool book, the ledger's
 * prices and the discount policies are all read in the background, so pricing a quote never waits
 * on the store.
 *
 * Staleness bounds: pools ≤ `POOLS_REFRESH_MS` (1 s), pool history ≤ `HISTORY_REFRESH_MS` (5 s),
 * ledger prices ≤ `LEDGER_PRICES_REFRESH_MS` (5 s), discount policies ≤ `DISCOUNTS_REFRESH_MS`
 * (10 s). `invalidate()` re-reads at once, and quotes asked after it wait for that re-read: a
 * writer that changed a pool (or a policy) and invalidated sees its change in the next quote. A
 * quote waits only for re-reads of its own pool or of everything, never for another pool's.
 *
 * Choices made here:
 * - an input token with no USD price (neither USDCx nor Amulet, and no pool with Amulet) cannot
 *   have its network fee computed: 400 `validation_error` naming the token;
 * - a pool `priceImpactCap` overrides `DEFAULT_MAX_PRICE_IMPACT` (0.15).
 */
import {
  Amount,
  AmountParseError,
  AmountRangeError,
  assembleQuote,
  type DiscountPolicy,
  DomainError,
  evaluateSettlementSafety,
  type Instrument,
  inputPriceUsd,
  type PricedTrade,
  priceTrade,
  type Ratio,
  type SelectedDiscounts,
  type SettlementSafety,
  selectDiscounts,
  type TradeBelowMinimum,
  type WirePoolGuard,
  type WireQuote,
} from '@poolparty/core';
import type { LedgerPort } from '@poolparty/ledger';
import type { PoolChange, ServiceClock } from '@poolparty/settlement';
import type { Database, PoolRecord } from '@poolparty/store';
import { listDiscountPoliciesInForce } from '@poolparty/store';
import { LedgerPriceCache, type LedgerPrices } from './ledger-prices.js';
import { type PairRequest, resolvePair } from './pair-resolution.js';
import { type BookedPool, type IncompleteSwapCounter, PoolBook } from './pool-book.js';
import { guardSnapshotOf, referenceOf } from './quote-guard-inputs.js';
import type { PricedQuote, QuoteAudience, QuoteRequest, Quoter } from './quoter.js';
import { Refreshed } from './refreshed.js';
import { type RememberedTrade, TradeMemo } from './trade-memo.js';
import { usdPriceSourceOf } from './usd-prices.js';

const DISCOUNTS_REFRESH_MS = 10_000;

export interface LiveQuoterDeps {
  readonly db: Database;
  readonly ledger: LedgerPort;
  readonly clock: ServiceClock;
  /** Completed swaps with incomplete accounting of each pool; zero when absent. */
  readonly countIncompleteCompletedSwaps?: IncompleteSwapCounter;
  /** A background re-read failed; the last good state stays in use. */
  readonly onError?: (error: unknown) => void;
}

export async function createLiveQuoter(deps: LiveQuoterDeps): Promise<Quoter> {
  const onError = deps.onError ?? warnRefreshFailed;
  const book = await PoolBook.open({
    db: deps.db,
    now: () => deps.clock.now(),
    onError,
    ...(deps.countIncompleteCompletedSwaps && {
      countIncompleteCompletedSwaps: deps.countIncompleteCompletedSwaps,
    }),
  });
  const prices = new LedgerPriceCache(deps.ledger, onError);
  const policies = new Refreshed(() => listDiscountPoliciesInForce(deps.db, deps.clock.now()), {
    intervalMs: DISCOUNTS_REFRESH_MS,
    onError,
  });
  await Promise.all([prices.start(), policies.start()]);
  return new LiveQuoter(book, prices, policies, deps.clock);
}

function warnRefreshFailed(error: unknown): void {
  process.emitWarning(`quoter state re-read failed: ${String(error)}`);
}

/** Invalidations not yet re-read, by pool; `ALL_POOLS` for those that name none. */
const ALL_POOLS = Symbol('all pools');
type InvalidationScope = string | typeof ALL_POOLS;

class LiveQuoter implements Quoter {
  private readonly invalidations = new Map<InvalidationScope, Set<Promise<void>>>();
  private readonly trades = new TradeMemo();

  constructor(
    private readonly book: PoolBook,
    private readonly prices: LedgerPriceCache,
    private readonly policies: Refreshed<readonly DiscountPolicy[]>,
    private readonly clock: ServiceClock,
  ) {}

  async quote(request: QuoteRequest, audience: QuoteAudience): Promise<PricedQuote> {
    // A quote waits for re-reads it could see the result of: of every pool, or of its own pool;
    // never for a re-read of another pool.
    await this.invalidated(ALL_POOLS);
    const amount = parseAmount(request.amount);
    let resolved = resolveBooked(this.book.list(), request);
    if (await this.invalidated(resolved.booked.poolId)) {
      resolved = resolveBooked(this.book.list(), request);
    }
    refuseIfPaused(resolved.booked.record);
    const now = this.clock.now();
    const settled = this.prices.settled(now);
    const market = settled === null ? await this.marketPrices(now) : usableMarket(settled);
    return this.price(resolved, request.amount, amount, market, audience, now);
  }

  quoteSettled(request: QuoteRequest, audience: QuoteAudience): PricedQuote | null {
    // The same steps as `quote` when nothing is pending: no invalidation to wait for (of any
    // pool: the map is empty) and ledger prices that need no re-read.
    if (this.invalidations.size > 0) return null;
    const amount = parseAmount(request.amount);
    const resolved = resolveBooked(this.book.list(), request);
    refuseIfPaused(resolved.booked.record);
    const now = this.clock.now();
    const settled = this.prices.settled(now);
    if (settled === null) return null;
    return this.price(resolved, request.amount, amount, usableMarket(settled), audience, now);
  }

  /**
   * Prices a resolved, unpaused pool's trade: no waiting, everything is in memory. The trade is
   * priced once per read of the book and of the ledger's prices (trade-memo.ts); the discounts in
   * force and the settlement-safety guard are worked out for this moment.
   */
  private price(
    { booked, inputSide }: ResolvedPool,
    amountText: string,
    amount: Amount,
    market: LedgerPrices,
    audience: QuoteAudience,
    now: Date,
  ): PricedQuote {
    const pool = booked.record;
    const { snapshot } = booked;
    const input = snapshot[inputSide].instrument;
    const book = this.book.list();
    const discounts = this.discountsFor(pool.poolId, input, book, market, audience, now);
    const inputs = {
      book,
      snapshot,
      poolId: pool.poolId,
      inputSide,
      amountText,
      traffic: market.traffic,
      round: market.round,
      discounts,
    };
    const { trade, wire } = this.trades.priced(inputs, () =>
      this.tradeOf(booked, inputSide, amount, market, book, discounts),
    );
    const priced = refuseBelowMinimum(trade, input);
    const settlementSafety = this.settlementSafetyOf(booked, inputSide, priced, market, now);
    const poolGuard = this.poolGuardOf(booked, now);
    return {
      // The remembered wire fields with this moment's verdict and guard state in their places.
      quote:
        wire === null
          ? assembleQuote(priced, settlementSafety, poolGuard)
          : { ...wire, settlementSafety, poolGuard },
      pool,
      inputSide,
      trade: priced,
      settlementSafety,
    };
  }

  /** The discounts in force for this caller, pool and moment. */
  private discountsFor(
    poolId: string,
    input: Instrument,
    book: readonly BookedPool[],
    market: LedgerPrices,
    audience: QuoteAudience,
    now: Date,
  ): SelectedDiscounts {
    try {
      return selectDiscounts(this.discountPolicies(), {
        ...(audience.apiKeyId !== null && { apiKeyId: audience.apiKeyId }),
        ...(audience.walletParty !== null && { walletParty: audience.walletParty }),
        poolId,
        now,
      });
    } catch (error) {
      // An input without a USD price is refused first, as when it was priced before the
      // discounts were selected; only then does a discount failure answer.
      this.usdPriceOf(input, book, market);
      throw error;
    }
  }

  /** The trade and its wire fields, as the memo keeps them: everything but the verdict. */
  private tradeOf(
    booked: BookedPool,
    inputSide: 'tokenA' | 'tokenB',
    amount: Amount,
    market: LedgerPrices,
    book: readonly BookedPool[],
    discounts: SelectedDiscounts,
  ): RememberedTrade {
    const { snapshot } = booked;
    const priced = priceTrade({
      pool: snapshot,
      inputSide,
      amount,
      traffic: {
        bytes: market.traffic.transferBytes,
        extraTrafficPriceUsdPerMb: market.traffic.extraTrafficPriceUsdPerMb,
        amuletPriceUsd: market.round.amuletPriceUsd,
      },
      inputPriceUsd: this.usdPriceOf(snapshot[inputSide].instrument, book, market),
      outputPriceUsd: this.optionalUsdPriceOf(
        snapshot[inputSide === 'tokenA' ? 'tokenB' : 'tokenA'].instrument,
        book,
        market,
      ),
      discounts,
      maxPriceImpact: booked.maxPriceImpact,
    });
    return { trade: priced, wire: priced.kind === 'priced' ? frozenWire(priced) : null };
  }

  /** The settlement-safety guard's verdict on the trade at this moment. */
  private settlementSafetyOf(
    booked: BookedPool,
    inputSide: 'tokenA' | 'tokenB',
    trade: PricedTrade,
    market: LedgerPrices,
    now: Date,
  ): SettlementSafety | null {
    const { snapshot } = booked;
    const input = snapshot[inputSide].instrument;
    const output = snapshot[inputSide === 'tokenA' ? 'tokenB' : 'tokenA'].instrument;
    const guardSnapshot = guardSnapshotOf({
      inputSide,
      referencePrice: this.book.referencePriceOf(booked.record.poolId, now),
      reserves: trade.reserves,
      reservesLoadedAtMs: this.book.loadedAtMs(),
      history: this.book.historyOf(booked.record.poolId),
      reference: referenceOf(input, output, market.round, now),
      wallNowMs: Date.now(),
    });
    return evaluateSettlementSafety(
      guardSnapshot,
      { output: trade.outputAmount, pricedInput: trade.fees.inputAmountAfterPoolFee },
      booked.thresholds,
    );
  }

  poolGuard(poolId: string): WirePoolGuard | null {
    const booked = this.book.get(poolId);
    return booked === null ? null : this.poolGuardOf(booked, this.clock.now());
  }

  private poolGuardOf(booked: BookedPool, now: Date): WirePoolGuard | null {
    return this.book.guardStateOf(booked, now);
  }

  pools(): readonly PoolRecord[] {
    return this.book.list().map((booked) => booked.record);
  }

  invalidate(poolId?: string, change: PoolChange = 'any'): void {
    const rereads = [this.book.invalidate(poolId, change)];
    if (poolId === undefined) rereads.push(this.policies.refresh(), this.prices.refresh());
    const scope = poolId ?? ALL_POOLS;
    const pending = this.invalidations.get(scope) ?? new Set<Promise<void>>();
    this.invalidations.set(scope, pending);
    const done: Promise<void> = Promise.all(rereads).then(() => {
      pending.delete(done);
      if (pending.size === 0 && this.invalidations.get(scope) === pending) {
        this.invalidations.delete(scope);
      }
    });
    pending.add(done);
  }

  async close(): Promise<void> {
    this.book.close();
    this.prices.close();
    this.policies.close();
  }

  /** Waits for the re-reads pending for `scope`; true when there were any. */
  private async invalidated(scope: InvalidationScope): Promise<boolean> {
    const pending = this.invalidations.get(scope);
    if (pending === undefined || pending.size === 0) return false;
    await Promise.all(pending);
    return true;
  }

  private async marketPrices(now: Date): Promise<LedgerPrices> {
    return usableMarket(await this.prices.current(now));
  }

  private discountPolicies(): readonly DiscountPolicy[] {
    const loaded = this.policies.current();
    // Pricing without the policies would overcharge discounted callers; refuse instead.
    if (loaded === null) throw new Error('discount policies have not been read from the store');
    return loaded.value;
  }

  /** The output's USD price for the quote's `usd` figures; null when it has none. */
  private optionalUsdPriceOf(
    instrument: Instrument,
    book: readonly BookedPool[],
    market: LedgerPrices,
  ): Ratio | null {
    const source = usdPriceSourceOf(instrument, book);
    if (source === null) return null;
    try {
      return inputPriceUsd(source, market.round.amuletPriceUsd);
    } catch (error) {
      if (error instanceof AmountRangeError) return null;
      throw error;
    }
  }

  private usdPriceOf(
    instrument: Instrument,
    book: readonly BookedPool[],
    market: LedgerPrices,
  ): Ratio {
    const source = usdPriceSourceOf(instrument, book);
    try {
      if (source !== null) return inputPriceUsd(source, market.round.amuletPriceUsd);
    } catch (error) {
      if (!(error instanceof AmountRangeError)) throw error;
    }
    throw new DomainError(
      'validation_error',
      `${instrument.id} has no USD price (no funded pool with Amulet), so the network fee of a swap from it cannot be computed.`,
    );
  }
}

/** A trade's wire fields, shared by the quotes that reuse it: frozen, so none can alter another's. */
function frozenWire(trade: PricedTrade): WireQuote {
  const wire = assembleQuote(trade, null);
  Object.freeze(wire.estimatedTrafficCost);
  return Object.freeze(wire);
}

/** The priced trade; one below the minimum is refused, naming the least amount accepted. */
function refuseBelowMinimum(
  trade: PricedTrade | TradeBelowMinimum,
  input: Instrument,
): PricedTrade {
  if (trade.kind !== 'amount_below_minimum') return trade;
  const minimumAmount = trade.minimumAmount.toString();
  const networkFeeAmount = trade.networkFeeAmount.toString();
  throw new DomainError(
    'amount_below_minimum',
    `The amount does not cover the network fee of ${networkFeeAmount} ${input.id}; send at least ${minimumAmount} ${input.id}.`,
    { minimumAmount, networkFeeAmount, inputToken: input.id },
  );
}

function usableMarket(market: LedgerPrices | null): LedgerPrices {
  if (market === null || !market.round.amuletPriceUsd.isPositive()) {
    throw new DomainError(
      'ledger_unavailable',
      'The Amulet price and traffic parameters could not be read from the ledger yet; retry shortly.',
    );
  }
  return market;
}

/** Callers ask for the same few amounts over and over; beyond this many the memo starts over. */
const PARSED_AMOUNTS_MAX = 1_024;
const parsedAmounts = new Map<string, Amount>();

/** Amounts are immutable and parsing is a pure function: valid readings are remembered. */
function parseAmount(text: string): Amount {
  const known = parsedAmounts.get(text);
  if (known !== undefined) return known;
  const amount = Amount.tryParse(text);
  if (amount instanceof AmountParseError) {
    throw new DomainError(
      'validation_error',
      `amount: ${amount.message}; send a plain decimal string with at most 10 decimals.`,
    );
  }
  if (parsedAmounts.size >= PARSED_AMOUNTS_MAX) parsedAmounts.clear();
  parsedAmounts.set(text, amount);
  return amount;
}

interface ResolvedPool {
  readonly booked: BookedPool;
  readonly inputSide: 'tokenA' | 'tokenB';
}

function refuseIfPaused(pool: PoolRecord): void {
  if (pool.status === 'paused') {
    throw new DomainError(
      'pool_paused',
      `Pool ${pool.poolId} is paused by its operator; it neither quotes nor takes swaps until resumed.`,
    );
  }
}

function resolveBooked(pools: readonly BookedPool[], request: PairRequest): ResolvedPool {
  const resolution = resolvePair(pools, request);
  switch (resolution.kind) {
    case 'resolved':
      return { booked: resolution.pool, inputSide: resolution.inputSide };
    case 'token_not_found': {
      const under = resolution.admin === null ? '' : ` under admin ${resolution.admin}`;
      throw new DomainError(
        'token_not_found',
        `${resolution.role}: no pool trades a token ${resolution.token}${under}.`,
      );
    }
    case 'pool_not_found':
      throw new DomainError(
        'pool_not_found',
        resolution.poolId === null
          ? `No pool trades ${describeSide(request.from, request.fromAdmin)} for ${describeSide(request.to, request.toAdmin)}.`
          : `No pool ${resolution.poolId}.`,
      );
    case 'pool_mismatch': {
      const { poolId, tokenA, tokenB } = resolution.pool;
      throw new DomainError(
        'validation_error',
        `Pool ${poolId} trades ${tokenA.id} (${tokenA.admin}) and ${tokenB.id} (${tokenB.admin}), not ${describeSide(request.from, request.fromAdmin)} for ${describeSide(request.to, request.toAdmin)}.`,
      );
    }
    case 'ambiguous':
      throw new DomainError(
        'ambiguous_pool_pair',
        `${request.from}/${request.to} matches ${resolution.candidates.length} pools; pass poolId, or both fromAdmin and toAdmin.`,
        { candidates: resolution.candidates },
      );
  }
}

function describeSide(token: string, admin: string | undefined): string {
  return admin === undefined ? token : `${token} (${admin})`;
}
