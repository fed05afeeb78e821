/**
 * Constant-product pricing (docs/spec/amounts-and-fees.md#constant-product-pricing).
 *
 * `x` is the reserve of the input side, `y` of the output side, `a` the priced input
 * (`inputAmountAfterPoolFee`). The output is rounded down so the pool never pays out more than
 * the curve allows: `x·y` cannot decrease through a trade.
 */
import { Amount, AmountRangeError, divide } from './amount.js';
import { type Ratio, ratio } from './ratio.js';

export interface Reserves {
  readonly input: Amount;
  readonly output: Amount;
}

/** `floor(y · a / (x + a))`, exact at 10 decimals. Zero when nothing is priced in. */
export function constantProductOutput(reserves: Reserves, pricedInput: Amount): Amount {
  const x = reserves.input.units;
  const y = reserves.output.units;
  const a = pricedInput.units;
  if (x + a === 0n) return Amount.ZERO;
  return Amount.fromUnits(divide(y * a, x + a, 'down'));
}

/** Spot price before the trade, `p0 = y / x` (output per unit of input). */
export function spotPrice(reserves: Reserves): Ratio {
  if (!reserves.input.isPositive()) throw new AmountRangeError('input reserve must be positive');
  return ratio(reserves.output.units, reserves.input.units);
}

/** Rate of the priced swap, `out / a`. */
export function executionRate(output: Amount, pricedInput: Amount): Ratio {
  if (!pricedInput.isPositive()) throw new AmountRangeError('priced input must be positive');
  return ratio(output.units, pricedInput.units);
}

/**
 * `priceImpact = 1 − (out / a) / p0 = (a·y − out·x) / (a·y)`, fees excluded.
 * Constant-product rounding down means it is never negative.
 */
export function priceImpact(reserves: Reserves, pricedInput: Amount, output: Amount): Ratio {
  const x = reserves.input.units;
  const y = reserves.output.units;
  const a = pricedInput.units;
  if (a === 0n || y === 0n)
    throw new AmountRangeError('price impact needs a priced input and reserve');
  const ideal = a * y;
  const actual = output.units * x;
  return ratio(ideal > actual ? ideal - actual : 0n, ideal);
}

/**
 * Reserves after a trade: what joins the input side (the priced input plus the LP fee, which
 * stays in the pool) and the output that leaves it.
 */
export function reservesAfterTrade(
  reserves: Reserves,
  inputAdded: Amount,
  output: Amount,
): Reserves {
  return { input: reserves.input.add(inputAdded), output: reserves.output.sub(output) };
}

/**
 * LP supply minted when a pool is first funded: `floor(sqrt(x·y))` in 10-decimal units, so the
 * supply does not depend on which side is called A (as in Uniswap v2).
 */
export function initialLpSupply(reserveA: Amount, reserveB: Amount): Amount {
  return Amount.fromUnits(integerSqrt(reserveA.units * reserveB.units));
}

/** `floor(sqrt(value))` of a non-negative integer, by Newton's method. */
export function integerSqrt(value: bigint): bigint {
  if (value < 2n) return value;
  let x = value;
  let y = (x + 1n) / 2n;
  while (y < x) {
    x = y;
    y = (x + value / x) / 2n;
  }
  return x;
}
