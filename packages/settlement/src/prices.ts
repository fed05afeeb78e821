/**
 * Prices the engine reads from the ledger at the moment it decides
 * (docs/spec/amounts-and-fees.md#network-fee): the Amulet USD price of the open mining round, the
 * traffic parameters, and from them each instrument's USD price and the network fee of one transfer
 * in that instrument.
 *
 * USD prices: USDCx is one USD, Amulet the open round's price, any other instrument goes through
 * its pool with Amulet (spot, effective reserves). An instrument with no such path has no price,
 * and its network fee cannot be estimated; callers then keep the fee the intent was quoted with.
 */
import {
  Amount,
  type Instrument,
  networkFeeInInput,
  type Ratio,
  ratio,
  sameInstrument,
  USDCX_PRICE_USD,
  usdPriceRatio,
  usdPriceThroughAmuletPool,
} from '@poolparty/core';
import type { LedgerPort, MiningRound, TrafficParameters } from '@poolparty/ledger';
import type { PoolRecord } from '@poolparty/store';

const AMULET_ID = 'Amulet';
const USDCX_ID = 'USDCx';

export interface PriceBook {
  readonly amuletPriceUsd: Amount;
  /** When the open mining round (the price's source) opened. */
  readonly observedAt: Date;
  /** USD per whole token, or null without a price path. */
  usdPrice(instrument: Instrument): Ratio | null;
  /** The network fee of one transfer paid in `instrument`, rounded up; null without a price. */
  networkFee(instrument: Instrument, chargeBps?: number): Amount | null;
}

/**
 * How long, in service-clock time, the ledger's network terms (the open round's Amulet price and
 * the traffic parameters) read for one decision serve the next ones. A round lasts minutes, so a
 * second's reuse changes no price; what it saves on a remote ledger is the reads of every ingest
 * and execution round in between, each a round trip to a ledger busy with the swaps themselves.
 * The service clock, not the wall's: moving the ledger's clock past a round makes the next
 * decision read the new one.
 */
export const NETWORK_TERMS_REUSE_MS = 1_000;

interface NetworkTerms {
  readonly round: MiningRound;
  readonly traffic: TrafficParameters;
}

type TermsLedger = Pick<LedgerPort, 'openMiningRound' | 'trafficParameters'>;

/** The last reading of each ledger's terms (or the one under way) and when it was taken. */
const readings = new WeakMap<
  TermsLedger,
  { readonly atMs: number; readonly terms: Promise<NetworkTerms> }
>();

/** The ledger's terms, read again once the last reading is `NETWORK_TERMS_REUSE_MS` old. */
function networkTerms(ledger: TermsLedger, nowMs: number): Promise<NetworkTerms> {
  const last = readings.get(ledger);
  if (last !== undefined && nowMs >= last.atMs && nowMs - last.atMs < NETWORK_TERMS_REUSE_MS) {
    return last.terms;
  }
  // Two independent reads: asked together, a remote ledger answers in one round trip's time.
  const terms = Promise.all([ledger.openMiningRound(), ledger.trafficParameters()]).then(
    ([round, traffic]) => ({ round, traffic }),
  );
  readings.set(ledger, { atMs: nowMs, terms });
  // A failed reading is not kept: the next decision asks again.
  terms.catch(() => {
    if (readings.get(ledger)?.terms === terms) readings.delete(ledger);
  });
  return terms;
}

/** The engine's price book now: the ledger's terms (reused for a second), the pools' reserves. */
export async function readPriceBook(
  ledger: TermsLedger,
  pools: readonly PoolRecord[],
  now: Date,
): Promise<PriceBook> {
  const { round, traffic } = await networkTerms(ledger, now.getTime());
  const amuletPriceUsd = round.amuletPriceUsd;
  const usdPrice = (instrument: Instrument): Ratio | null => {
    if (instrument.id === USDCX_ID) return USDCX_PRICE_USD;
    if (instrument.id === AMULET_ID) return usdPriceRatio(amuletPriceUsd);
    const pool = pools.find(
      (p) => p.tokenA.id === AMULET_ID && sameInstrument(p.tokenB, instrument),
    );
    if (!pool) return null;
    const amulet = pool.accounting.reserveA;
    const token = pool.accounting.reserveB;
    if (!amulet.isPositive() || !token.isPositive()) return null;
    return usdPriceThroughAmuletPool(amuletPriceUsd, { amulet, token });
  };
  return {
    amuletPriceUsd,
    observedAt: round.opensAt,
    usdPrice,
    networkFee(instrument, chargeBps) {
      const price = usdPrice(instrument);
      if (price === null || price.numerator === 0n) return null;
      const fee = networkFeeInInput(
        {
          bytes: traffic.transferBytes,
          extraTrafficPriceUsdPerMb: traffic.extraTrafficPriceUsdPerMb,
          amuletPriceUsd,
        },
        price,
      );
      return chargeBps === undefined ? fee : fee.mulDiv(BigInt(chargeBps), 10_000n, 'up');
    },
  };
}

/** `amount` in USD at `price`, rounded down; null without a price. */
export function usdValue(amount: Amount, price: Ratio | null): Amount | null {
  if (price === null) return null;
  return Amount.fromUnits((amount.units * price.numerator) / price.denominator);
}

/**
 * Output per unit of input at USD prices: the guard's reference, for pools whose two sides both
 * have a USD reference of their own (Amulet through the mining round, USDCx = 1); else null.
 */
export function referencePrice(
  book: PriceBook,
  input: Instrument,
  output: Instrument,
): Ratio | null {
  const referenced = [AMULET_ID, USDCX_ID];
  if (!referenced.includes(input.id) || !referenced.includes(output.id)) return null;
  const inputUsd = book.usdPrice(input);
  const outputUsd = book.usdPrice(output);
  if (inputUsd === null || outputUsd === null || outputUsd.numerator === 0n) return null;
  return ratio(
    inputUsd.numerator * outputUsd.denominator,
    inputUsd.denominator * outputUsd.numerator,
  );
}

/** The charged share of the network fee the intent was quoted with, if a discount applied. */
export function networkChargeBps(policy: unknown): number | undefined {
  if (typeof policy !== 'object' || policy === null) return undefined;
  const bps = (policy as { chargeBps?: unknown }).chargeBps;
  return typeof bps === 'number' && Number.isInteger(bps) && bps >= 0 && bps <= 10_000
    ? bps
    : undefined;
}
