/**
 * Exact non-negative fractions for rates, shares and price comparisons.
 *
 * Prices, impacts and guard shares are compared as fractions of big integers so that a limit
 * such as "10 % of the reserve" is decided exactly; they are turned into decimal strings only at
 * the edge, with an explicit rounding direction.
 */
import { AmountRangeError, divide, type Rounding } from './amount.js';

export interface Ratio {
  readonly numerator: bigint;
  readonly denominator: bigint;
}

export function ratio(numerator: bigint, denominator: bigint): Ratio {
  if (denominator <= 0n) throw new AmountRangeError('ratio denominator must be positive');
  if (numerator < 0n) throw new AmountRangeError('ratio numerator must be non-negative');
  return { numerator, denominator };
}

export function compareRatio(a: Ratio, b: Ratio): -1 | 0 | 1 {
  const left = a.numerator * b.denominator;
  const right = b.numerator * a.denominator;
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Limits come from a handful of configured values; beyond this many the memo starts over. */
const NUMBER_RATIOS_MAX = 1_024;
const numberRatios = new Map<number, Ratio>();

/**
 * A limit given as a JavaScript number (e.g. `0.1`), read exactly to 10 decimals. The same few
 * limits are read for every quote, so readings are remembered (ratios are never mutated).
 */
export function ratioFromNumber(value: number): Ratio {
  const known = numberRatios.get(value);
  if (known !== undefined) return known;
  if (!Number.isFinite(value) || value < 0) {
    throw new AmountRangeError(`not a non-negative finite number: ${value}`);
  }
  const fixed = value.toFixed(10);
  const [integer, fraction = ''] = fixed.split('.');
  const read = Object.freeze(ratio(BigInt(`${integer}${fraction}`), 10n ** 10n));
  if (numberRatios.size >= NUMBER_RATIOS_MAX) numberRatios.clear();
  numberRatios.set(value, read);
  return read;
}

/**
 * Decimal string of a ratio with at most `decimals` fractional digits, trailing zeros removed.
 * `negative` lets callers print signed quantities (a deviation below 1) without signed ratios.
 */
export function formatRatio(
  value: Ratio,
  rounding: Rounding,
  decimals = 10,
  negative = false,
): string {
  const scale = decimalScale(decimals);
  const scaled = divide(value.numerator * scale, value.denominator, rounding);
  const integer = scaled / scale;
  const fraction = withoutTrailingZeros((scaled % scale).toString().padStart(decimals, '0'));
  const body = fraction.length > 0 ? `${integer}.${fraction}` : `${integer}`;
  return negative && scaled !== 0n ? `-${body}` : body;
}

const DECIMAL_SCALES = Array.from({ length: 19 }, (_, decimals) => 10n ** BigInt(decimals));

function decimalScale(decimals: number): bigint {
  return DECIMAL_SCALES[decimals] ?? 10n ** BigInt(decimals);
}

function withoutTrailingZeros(digits: string): string {
  let end = digits.length;
  while (end > 0 && digits.charCodeAt(end - 1) === 48) end--;
  return digits.slice(0, end);
}

/** A ratio as a JavaScript number, for display fields typed `number` on the wire. */
export function ratioToNumber(value: Ratio): number {
  return Number(formatRatio(value, 'down', 12));
}
