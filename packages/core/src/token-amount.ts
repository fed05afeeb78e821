/**
 * An amount of one instrument. `Amount` is a bare quantity: nothing stops `deposit.add(fee)` from
 * adding Amulet to USDCx. A `TokenAmount` carries its instrument, and adding, subtracting or
 * comparing two of different instruments throws `InstrumentMismatchError` instead of answering a
 * number that means nothing. Use it where both instruments are known, e.g. a deposit against the
 * intent it pays for.
 */
import { Amount } from './amount.js';
import { BaseError } from './base-error.js';
import { type Instrument, instrumentKey, sameInstrument } from './instrument.js';

/** Two amounts of different instruments were added, subtracted or compared. */
export class InstrumentMismatchError extends BaseError<'instrument_mismatch'> {
  override readonly name = 'InstrumentMismatchError';
  constructor(operation: string, left: Instrument, right: Instrument) {
    super(
      'instrument_mismatch',
      `cannot ${operation} ${instrumentKey(left)} and ${instrumentKey(right)}`,
      { details: { operation, left, right } },
    );
  }
}

export class TokenAmount {
  private constructor(
    readonly instrument: Instrument,
    readonly amount: Amount,
  ) {}

  static of(instrument: Instrument, amount: Amount): TokenAmount {
    return new TokenAmount({ id: instrument.id, admin: instrument.admin }, amount);
  }

  static zero(instrument: Instrument): TokenAmount {
    return TokenAmount.of(instrument, Amount.ZERO);
  }

  isZero(): boolean {
    return this.amount.isZero();
  }

  isPositive(): boolean {
    return this.amount.isPositive();
  }

  add(other: TokenAmount): TokenAmount {
    return this.with(this.amount.add(this.same('add', other)));
  }

  /** Throws `AmountRangeError` when the result would be negative, as `Amount#sub`. */
  sub(other: TokenAmount): TokenAmount {
    return this.with(this.amount.sub(this.same('subtract', other)));
  }

  subOrZero(other: TokenAmount): TokenAmount {
    return this.with(this.amount.subOrZero(this.same('subtract', other)));
  }

  compare(other: TokenAmount): -1 | 0 | 1 {
    return this.amount.compare(this.same('compare', other));
  }

  eq(other: TokenAmount): boolean {
    return this.compare(other) === 0;
  }

  lte(other: TokenAmount): boolean {
    return this.compare(other) <= 0;
  }

  /** `12.5 Amulet`: for messages and logs, not for the wire. */
  toString(): string {
    return `${this.amount} ${this.instrument.id}`;
  }

  private with(amount: Amount): TokenAmount {
    return new TokenAmount(this.instrument, amount);
  }

  /** The other's amount, once it is known to be of this instrument. */
  private same(operation: string, other: TokenAmount): Amount {
    if (!sameInstrument(this.instrument, other.instrument)) {
      throw new InstrumentMismatchError(operation, this.instrument, other.instrument);
    }
    return other.amount;
  }
}
