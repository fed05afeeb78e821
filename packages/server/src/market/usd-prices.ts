/**
 * USD prices of instruments (docs/spec/amounts-and-fees.md#usd-prices): what the network fee is
 * converted through, and the reference a pool's price is checked against.
 *
 * - USDCx is one USD and Amulet is the open mining round's price, whatever their admin: pools are
 *   listed by the operator, so a symbol in a pool is one the operator vouches for.
 * - Any other token is priced through its canonical Amulet pool: the first pool (in the pool
 *   book's order, oldest first) pairing Amulet with exactly that instrument.
 * - A pool has a USD reference only when both sides are priced directly (USDCx or Amulet); a
 *   price taken from a pool would check the pool against itself.
 */
import {
  type Amount,
  type InputPriceSource,
  type Instrument,
  inputPriceUsd,
  type Ratio,
  ratio,
  type UsdPrice,
} from '@poolparty/core';

export const AMULET_SYMBOL = 'Amulet';
export const USDCX_SYMBOL = 'USDCx';

/** A pool as far as pricing through it is concerned: instruments and effective reserves. */
export interface PricingPool {
  readonly tokenA: Instrument;
  readonly tokenB: Instrument;
  readonly reserveA: Amount;
  readonly reserveB: Amount;
}

function directSource(instrument: Instrument): InputPriceSource | null {
  if (instrument.id === USDCX_SYMBOL) return { kind: 'usdcx' };
  if (instrument.id === AMULET_SYMBOL) return { kind: 'amulet' };
  return null;
}

/** Where the instrument's USD price comes from; null when it has none. */
export function usdPriceSourceOf(
  instrument: Instrument,
  pools: readonly PricingPool[],
): InputPriceSource | null {
  const direct = directSource(instrument);
  if (direct) return direct;
  for (const pool of pools) {
    const reserves = amuletPoolReserves(pool, instrument);
    if (reserves) return { kind: 'amulet_pool', reserves };
  }
  return null;
}

function amuletPoolReserves(
  pool: PricingPool,
  instrument: Instrument,
): { amulet: Amount; token: Amount } | null {
  const { tokenA, tokenB } = pool;
  if (tokenA.id === AMULET_SYMBOL && sameAs(tokenB, instrument)) {
    return { amulet: pool.reserveA, token: pool.reserveB };
  }
  if (tokenB.id === AMULET_SYMBOL && sameAs(tokenA, instrument)) {
    return { amulet: pool.reserveB, token: pool.reserveA };
  }
  return null;
}

function sameAs(a: Instrument, b: Instrument): boolean {
  return a.id === b.id && a.admin === b.admin;
}

/**
 * The USD reference of trading `input` for `output`, as output per unit of input; null when the
 * pair has no USD reference on both sides. Throws `AmountRangeError` for a non-positive price.
 */
export function referencePriceOf(
  input: Instrument,
  output: Instrument,
  amuletPriceUsd: UsdPrice,
): Ratio | null {
  const inputSource = directSource(input);
  const outputSource = directSource(output);
  if (inputSource === null || outputSource === null) return null;
  const inputUsd = inputPriceUsd(inputSource, amuletPriceUsd);
  const outputUsd = inputPriceUsd(outputSource, amuletPriceUsd);
  return ratio(
    inputUsd.numerator * outputUsd.denominator,
    inputUsd.denominator * outputUsd.numerator,
  );
}

/** Whether both sides have a direct USD price, so the pool can be checked against USD. */
export function hasUsdReference(input: Instrument, output: Instrument): boolean {
  return directSource(input) !== null && directSource(output) !== null;
}

/** Whether the pair's reference depends on the Amulet price (and so on the round's age). */
export function referenceUsesAmulet(input: Instrument, output: Instrument): boolean {
  return input.id === AMULET_SYMBOL || output.id === AMULET_SYMBOL;
}
