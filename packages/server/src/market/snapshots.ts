/**
 * Hourly USD snapshots of every pool, and the stats and ticker figures read beside them
 * (docs/spec/stats.md).
 *
 * Choices made here:
 * - The canonical Amulet/USDCx pool is the oldest pool pairing Amulet with USDCx (ties by pool id:
 *   the pool book's order). On devnet that is the seeded `amulet-usdcx`.
 * - The ticker prices Amulet at the canonical pool's spot price (USDCx = 1 USD); without a funded
 *   canonical pool it falls back to the ledger's open-mining-round price. Other tokens go through
 *   their pool with Amulet (usd-prices.ts), and a base token with no USD price of its own through
 *   the pool's spot price against its priced side. A pool with neither side priced has no ticker
 *   (404 `not_found`).
 * - TVL and APR value Amulet at the open-mining-round price, the price at which fee events record
 *   their USD values, so fees and TVL are in the same dollars.
 * - The ticker's `volume24h` is the same fee-event sum as the stats' `volume24h`.
 * - Snapshots are taken once per hour of the service clock (the devnet ledger's clock on devnet):
 *   at start, then at the first check (every `SNAPSHOT_CHECK_MS` of wall time) in each new hour.
 *   Hours the service skipped (it was down, or the devnet clock jumped) are not backfilled: prices
 *   of hours nobody saw would be made up. A snapshot taken again within its hour replaces it.
 * - Stats and tickers are computed on request and kept for `FIGURES_CACHE_MS` of service time, or
 *   until any pool's accounting changes, whichever comes first.
 */
import {
  type Amount,
  AmountRangeError,
  basePriceUsdOf,
  DAY_MS,
  DomainError,
  type FeeTotals,
  type Instrument,
  inputPriceUsd,
  type PoolStats,
  type PoolValuation,
  poolStatsOf,
  type Ratio,
  ratio,
  type Ticker,
  tickerOf,
  usdAmountOf,
  usdPriceRatio,
} from '@poolparty/core';
import type { LedgerPort } from '@poolparty/ledger';
import type { ServiceClock } from '@poolparty/settlement';
import type { Queryable } from '@poolparty/store';
import {
  hourOf,
  listPoolSnapshots,
  listPools,
  type PoolRecord,
  putPoolSnapshot,
  summarizeFeeEvents,
} from '@poolparty/store';
import { AMULET_SYMBOL, type PricingPool, USDCX_SYMBOL, usdPriceSourceOf } from './usd-prices.js';

/** How often the job looks whether the service clock has entered a new hour, wall time. */
const SNAPSHOT_CHECK_MS = 30_000;
/** How long a computed stats or ticker answer is served again, service time. */
const FIGURES_CACHE_MS = 5_000;

export interface MarketDeps {
  readonly db: Queryable;
  readonly ledger: Pick<LedgerPort, 'openMiningRound'>;
  readonly clock: ServiceClock;
}

// --- prices ------------------------------------------------------------------------------------

function canonicalPoolOf(pools: readonly PoolRecord[]): PoolRecord | null {
  return pools.find((pool) => amuletUsdcxSides(pool) !== null) ?? null;
}

function amuletUsdcxSides(pool: PoolRecord): { amulet: Amount; usdcx: Amount } | null {
  const { tokenA, tokenB, accounting } = pool;
  if (tokenA.id === AMULET_SYMBOL && tokenB.id === USDCX_SYMBOL) {
    return { amulet: accounting.reserveA, usdcx: accounting.reserveB };
  }
  if (tokenA.id === USDCX_SYMBOL && tokenB.id === AMULET_SYMBOL) {
    return { amulet: accounting.reserveB, usdcx: accounting.reserveA };
  }
  return null;
}

/** Amulet in USD at the canonical pool's spot price; null without a funded canonical pool. */
function canonicalAmuletPriceOf(pools: readonly PoolRecord[]): Ratio | null {
  const canonical = canonicalPoolOf(pools);
  const sides = canonical && amuletUsdcxSides(canonical);
  if (!sides) return null;
  const { amulet, usdcx } = sides;
  if (!amulet.isPositive() || !usdcx.isPositive()) return null;
  return ratio(usdcx.units, amulet.units);
}

/** The pool's reserves and each side's USD price, Amulet priced at `amuletUsd`. */
function valuationOf(
  pool: PoolRecord,
  pools: readonly PoolRecord[],
  amuletUsd: Ratio,
): PoolValuation {
  const pricing = pools.map(pricingPoolOf);
  return {
    reserveA: pool.accounting.reserveA,
    reserveB: pool.accounting.reserveB,
    priceA: usdPriceOf(pool.tokenA, pricing, amuletUsd),
    priceB: usdPriceOf(pool.tokenB, pricing, amuletUsd),
  };
}

function pricingPoolOf(pool: PoolRecord): PricingPool {
  return {
    tokenA: pool.tokenA,
    tokenB: pool.tokenB,
    reserveA: pool.accounting.reserveA,
    reserveB: pool.accounting.reserveB,
  };
}

function usdPriceOf(
  instrument: Instrument,
  pools: readonly PricingPool[],
  amuletUsd: Ratio,
): Ratio | null {
  const source = usdPriceSourceOf(instrument, pools);
  if (source === null) return null;
  try {
    return inputPriceUsd(source, amuletUsd);
  } catch (error) {
    // An empty Amulet pool prices nothing.
    if (error instanceof AmountRangeError) return null;
    throw error;
  }
}

/** The token the pool's USD figures rest on: USDCx when it trades it, else Amulet. */
function quoteTokenOf(pool: PoolRecord, valuation: PoolValuation): string {
  if (pool.tokenA.id === USDCX_SYMBOL || pool.tokenB.id === USDCX_SYMBOL) return USDCX_SYMBOL;
  if (valuation.priceA !== null || valuation.priceB !== null) return AMULET_SYMBOL;
  return pool.tokenB.id;
}

async function oracleAmuletPrice(deps: MarketDeps): Promise<Ratio> {
  try {
    return usdPriceRatio((await deps.ledger.openMiningRound()).amuletPriceUsd);
  } catch {
    throw new DomainError(
      'ledger_unavailable',
      'The Amulet price could not be read from the ledger; retry shortly.',
    );
  }
}

/** Amulet in USD as the ticker and the snapshots see it (module comment). */
async function tickerAmuletPrice(deps: MarketDeps, pools: readonly PoolRecord[]): Promise<Ratio> {
  return canonicalAmuletPriceOf(pools) ?? oracleAmuletPrice(deps);
}

/**
 * Each side's USD price per whole token, as the ticker values the pool (Amulet at the canonical
 * pool's spot, else the ledger's round); nulls when no price can be read, so a figure beside the
 * prices still answers.
 */
export async function sidePricesUsdOf(
  deps: MarketDeps,
  pool: PoolRecord,
  pools: readonly PoolRecord[],
): Promise<{ readonly priceA: Ratio | null; readonly priceB: Ratio | null }> {
  try {
    const valuation = valuationOf(pool, pools, await tickerAmuletPrice(deps, pools));
    return { priceA: valuation.priceA, priceB: valuation.priceB };
  } catch (error) {
    if (error instanceof DomainError) return { priceA: null, priceB: null };
    throw error;
  }
}

/** The base token's USD price cut to 10 decimals, as stored and shown; null without one. */
function tickerPriceOf(
  pool: PoolRecord,
  pools: readonly PoolRecord[],
  amuletUsd: Ratio,
): Amount | null {
  const price = basePriceUsdOf(valuationOf(pool, pools, amuletUsd));
  return price === null ? null : usdAmountOf(price);
}

// --- hourly snapshots --------------------------------------------------------------------------

export class SnapshotJob {
  private timer: NodeJS.Timeout | null = null;
  private lastHourMs: number | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly deps: MarketDeps & { readonly onError?: (error: unknown) => void },
  ) {}

  /** Takes this hour's snapshots now, then those of every new hour of the service clock. */
  async start(): Promise<void> {
    await this.tick();
    this.timer = setInterval(() => void this.tick(), SNAPSHOT_CHECK_MS);
    this.timer.unref();
  }

  /** Stops checking and waits for a snapshot in progress, so the store can close after it. */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Writes every pool's reserves and base-token USD price for the hour of `now`. */
  async takeSnapshots(now: Date): Promise<number> {
    const pools = await listPools(this.deps.db);
    const amuletUsd = await tickerAmuletPrice(this.deps, pools).catch(() => null);
    for (const pool of pools) {
      await putPoolSnapshot(this.deps.db, {
        poolId: pool.poolId,
        hour: hourOf(now),
        reserveA: pool.accounting.reserveA,
        reserveB: pool.accounting.reserveB,
        priceUsd: amuletUsd === null ? null : (tickerPriceOf(pool, pools, amuletUsd) ?? null),
      });
    }
    return pools.length;
  }

  private async tick(): Promise<void> {
    if (this.running !== null) return;
    const now = this.deps.clock.now();
    const hourMs = hourOf(now).getTime();
    if (hourMs === this.lastHourMs) return;
    this.running = this.takeSnapshots(now)
      .then(() => {
        this.lastHourMs = hourMs;
      })
      .catch((error: unknown) => this.deps.onError?.(error) ?? warnSnapshotFailed(error))
      .finally(() => {
        this.running = null;
      });
    await this.running;
  }
}

function warnSnapshotFailed(error: unknown): void {
  process.emitWarning(`pool snapshots failed; retrying at the next check: ${String(error)}`);
}

// --- stats and ticker --------------------------------------------------------------------------

interface CachedFigure {
  readonly atMs: number;
  readonly poolVersions: string;
  readonly value: Promise<unknown>;
}

export class PoolFigures {
  private readonly cache = new Map<string, CachedFigure>();

  constructor(
    private readonly deps: MarketDeps & {
      /** The pools with their effective reserves, as the quoter last read them. */
      readonly pools: () => readonly PoolRecord[];
    },
  ) {}

  /** `GET /v1/pools/{poolId}/stats`: `days` is an integer from 1 to 365. */
  stats(pool: PoolRecord, days: number): Promise<PoolStats> {
    return this.cached(`stats:${pool.poolId}:${days}`, async (now, pools) => {
      const valuation = valuationOf(pool, pools, await oracleAmuletPrice(this.deps));
      const last24h = await this.feeTotals(pool.poolId, now, 1);
      const lookback = days === 1 ? last24h : await this.feeTotals(pool.poolId, now, days);
      const quoteToken = quoteTokenOf(pool, valuation);
      return poolStatsOf({
        poolId: pool.poolId,
        days,
        now,
        last24h,
        lookback,
        valuation,
        quoteToken,
      });
    });
  }

  /** `GET /v1/pools/{poolId}/ticker`. */
  ticker(pool: PoolRecord): Promise<Ticker> {
    return this.cached(`ticker:${pool.poolId}`, async (now, pools) => {
      const priceUsd = tickerPriceOf(pool, pools, await tickerAmuletPrice(this.deps, pools));
      if (priceUsd === null) {
        throw new DomainError(
          'not_found',
          `Pool ${pool.poolId} has no USD price: neither ${pool.tokenA.id} nor ${pool.tokenB.id} is USDCx, Amulet or traded against Amulet.`,
        );
      }
      const snapshots = await listPoolSnapshots(
        this.deps.db,
        pool.poolId,
        hourOf(new Date(now.getTime() - DAY_MS)),
        new Date(now.getTime() + 1),
      );
      const volume = await this.feeTotals(pool.poolId, now, 1);
      return tickerOf({
        poolId: pool.poolId,
        pair: `${pool.tokenA.id}/${pool.tokenB.id}`,
        priceUsd,
        history: snapshots.map((s) => ({
          hour: s.hour,
          priceUsd: s.priceUsd === null ? null : s.priceUsd,
        })),
        volume24hUsd: volume.volumeUsd,
        now,
      });
    });
  }

  /** Fee-event totals of the `days` days up to and including `now`. */
  private async feeTotals(poolId: string, now: Date, days: number): Promise<FeeTotals> {
    const from = new Date(now.getTime() - days * DAY_MS);
    const summary = await summarizeFeeEvents(
      this.deps.db,
      poolId,
      from,
      new Date(now.getTime() + 1),
    );
    return {
      swapCount: summary.swapCount,
      volumeUsd: summary.volumeUsd,
      feesUsd: summary.feesUsd,
      lpFeesUsd: summary.lpFeesUsd,
    };
  }

  /** Serves a recent answer again; a concurrent request for the same figure shares one reading. */
  private cached<T>(
    key: string,
    compute: (now: Date, pools: readonly PoolRecord[]) => Promise<T>,
  ): Promise<T> {
    const now = this.deps.clock.now();
    const pools = this.deps.pools();
    const poolVersions = pools.map((p) => `${p.poolId}@${p.accounting.version}`).join(',');
    const hit = this.cache.get(key);
    const ageMs = hit ? now.getTime() - hit.atMs : Number.NaN;
    if (hit && hit.poolVersions === poolVersions && ageMs >= 0 && ageMs < FIGURES_CACHE_MS) {
      return hit.value as Promise<T>;
    }
    const value = compute(now, pools);
    this.cache.set(key, { atMs: now.getTime(), poolVersions, value });
    value.catch(() => {
      if (this.cache.get(key)?.value === value) this.cache.delete(key);
    });
    return value;
  }
}
