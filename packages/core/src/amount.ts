/**
 * Exact token amounts with Daml `Numeric 10` semantics (docs/spec/amounts-and-fees.md#amounts).
 *
 * An amount is a non-negative scaled integer: `units / 10^10`. Money never passes through
 * floating point; every operation that can lose precision takes an explicit `Rounding`, and the
 * callers choose the direction that favours the pool (outputs down, fees up).
 */
import { BaseError } from './base-error.js';

/** Fractional digits of Daml `Numeric 10`. */
export const AMOUNT_DECIMALS = 10;
/** Integer digits a Daml `Decimal` can hold. */
export const AMOUNT_INTEGER_DIGITS_MAX = 28;

const SCALE = 10n ** BigInt(AMOUNT_DECIMALS);
/** One more than the largest representable number of units (28 integer + 10 fractional digits). */
const UNITS_LIMIT = 10n ** BigInt(AMOUNT_INTEGER_DIGITS_MAX + AMOUNT_DECIMALS);

export type Rounding = 'down' | 'up';

/** Why a string is not a valid wire amount; stable, for error details. */
export type AmountParseProblem =
  | 'not_a_string'
  | 'empty'
  | 'malformed'
  | 'too_many_decimals'
  | 'too_many_integer_digits';

export class AmountParseError extends BaseError<'amount_unparsable'> {
  override readonly name = 'AmountParseError';
  constructor(
    readonly problem: AmountParseProblem,
    readonly input: unknown,
  ) {
    super(
      'amount_unparsable',
      `invalid amount ${describe(input)}: ${problem.replaceAll('_', ' ')}`,
    );
  }
}

/** Raised when arithmetic would leave the representable range (negative or > 28 digits). */
export class AmountRangeError extends BaseError<'amount_beyond_range'> {
  override readonly name = 'AmountRangeError';
  constructor(message: string) {
    super('amount_beyond_range', message);
  }
}

function describe(input: unknown): string {
  return typeof input === 'string' ? JSON.stringify(input) : `of type ${typeof input}`;
}

// Plain digits, an optional fraction with at least one digit. No sign, exponent, spaces, or
// bare leading/trailing dot: the wire form is what Daml prints, nothing looser.
const WIRE_AMOUNT = /^(\d+)(?:\.(\d+))?$/;

/** Any value but an `Amount`, for the parsers' parameter. */
type NotAnAmount<T> = T extends Amount ? never : T;

export class Amount {
  private constructor(readonly units: bigint) {}

  static readonly ZERO = new Amount(0n);

  /** Builds an amount from scaled units (`units / 10^10`); refuses values out of range. */
  static fromUnits(units: bigint): Amount {
    if (units < 0n) throw new AmountRangeError(`amount would be negative (${units} units)`);
    if (units >= UNITS_LIMIT) throw new AmountRangeError('amount exceeds 28 integer digits');
    return units === 0n ? Amount.ZERO : new Amount(units);
  }

  /**
   * Like `fromUnits`, but null for units out of range instead of throwing: for decisions that
   * answer an amount past 28 integer digits as a refusal rather than a failure.
   */
  static tryFromUnits(units: bigint): Amount | null {
    return units < 0n || units >= UNITS_LIMIT ? null : Amount.fromUnits(units);
  }

  /**
   * Parses the wire form strictly. Throws `AmountParseError`. An `Amount` is refused by the type:
   * parsing one again is always a mistake (it would throw at run time, not being text).
   */
  static parse<T>(input: NotAnAmount<T>): Amount {
    const result = Amount.tryParse(input);
    if (result instanceof AmountParseError) throw result;
    return result;
  }

  /** Like `parse`, but returns the error instead of throwing. */
  static tryParse<T>(input: NotAnAmount<T>): Amount | AmountParseError {
    if (typeof input !== 'string') return new AmountParseError('not_a_string', input);
    if (input.length === 0) return new AmountParseError('empty', input);
    const match = WIRE_AMOUNT.exec(input);
    if (!match) return new AmountParseError('malformed', input);
    const integer = match[1] as string;
    const fraction = match[2] ?? '';
    if (fraction.length > AMOUNT_DECIMALS) return new AmountParseError('too_many_decimals', input);
    const significant = integer.replace(/^0+(?=\d)/, '');
    if (significant.length > AMOUNT_INTEGER_DIGITS_MAX) {
      return new AmountParseError('too_many_integer_digits', input);
    }
    const units = BigInt(integer) * SCALE + BigInt(fraction.padEnd(AMOUNT_DECIMALS, '0'));
    return Amount.fromUnits(units);
  }

  /** Whole tokens, e.g. `Amount.of(100n)`; for seeds and tests. */
  static of(whole: bigint | number): Amount {
    if (typeof whole === 'number' && !Number.isSafeInteger(whole)) {
      throw new AmountRangeError(`not a whole number: ${whole}`);
    }
    return Amount.fromUnits(BigInt(whole) * SCALE);
  }

  /** The wire form: shortest exact decimal, no trailing zeros, no exponent. */
  toString(): string {
    const integer = this.units / SCALE;
    const fraction = (this.units % SCALE).toString().padStart(AMOUNT_DECIMALS, '0');
    const trimmed = fraction.replace(/0+$/, '');
    return trimmed.length > 0 ? `${integer}.${trimmed}` : `${integer}`;
  }

  toJSON(): string {
    return this.toString();
  }

  isZero(): boolean {
    return this.units === 0n;
  }

  isPositive(): boolean {
    return this.units > 0n;
  }

  compare(other: Amount): -1 | 0 | 1 {
    return this.units < other.units ? -1 : this.units > other.units ? 1 : 0;
  }

  eq(other: Amount): boolean {
    return this.units === other.units;
  }
  lt(other: Amount): boolean {
    return this.units < other.units;
  }
  lte(other: Amount): boolean {
    return this.units <= other.units;
  }
  gt(other: Amount): boolean {
    return this.units > other.units;
  }
  gte(other: Amount): boolean {
    return this.units >= other.units;
  }

  add(other: Amount): Amount {
    return Amount.fromUnits(this.units + other.units);
  }

  /** Throws `AmountRangeError` when the result would be negative: amounts are quantities. */
  sub(other: Amount): Amount {
    return Amount.fromUnits(this.units - other.units);
  }

  /** `this − other`, or zero when `other` is larger. */
  subOrZero(other: Amount): Amount {
    return this.units > other.units ? new Amount(this.units - other.units) : Amount.ZERO;
  }

  mul(other: Amount, rounding: Rounding): Amount {
    return Amount.fromUnits(divide(this.units * other.units, SCALE, rounding));
  }

  div(other: Amount, rounding: Rounding): Amount {
    if (other.units === 0n) throw new AmountRangeError('division by zero');
    return Amount.fromUnits(divide(this.units * SCALE, other.units, rounding));
  }

  /** `this × numerator / denominator` with one rounding step, e.g. a share in basis points. */
  mulDiv(numerator: bigint, denominator: bigint, rounding: Rounding): Amount {
    if (numerator < 0n || denominator <= 0n) {
      throw new AmountRangeError('mulDiv needs a non-negative numerator and positive denominator');
    }
    return Amount.fromUnits(divide(this.units * numerator, denominator, rounding));
  }

  static min(a: Amount, b: Amount): Amount {
    return a.units <= b.units ? a : b;
  }

  static max(a: Amount, b: Amount): Amount {
    return a.units >= b.units ? a : b;
  }

  static sum(amounts: readonly Amount[]): Amount {
    return Amount.fromUnits(amounts.reduce((total, a) => total + a.units, 0n));
  }
}

/** Integer division of non-negative numbers with an explicit rounding direction. */
export function divide(numerator: bigint, denominator: bigint, rounding: Rounding): bigint {
  const quotient = numerator / denominator;
  if (rounding === 'up' && quotient * denominator !== numerator) return quotient + 1n;
  return quotient;
}

/** The scale factor of `Numeric 10`, for modules that do their own fixed-point ratios. */
export const AMOUNT_SCALE = SCALE;
