/**
 * Daml values on the JSON wire: `Numeric 10` amounts and `Time` timestamps.
 *
 * Canton prints a `Numeric 10` with all ten decimals (`1000.0000000000`) and accepts any
 * shorter form; metadata values written by Daml code use `show` (`14.0`). Timestamps are
 * RFC 3339 in UTC with up to microseconds; JavaScript dates hold milliseconds, so decoding
 * truncates below that (the port only ever writes whole milliseconds).
 */
import { AMOUNT_DECIMALS, Amount, AmountParseError } from '@poolparty/core';
import { CantonWireError } from './errors.js';

/** The amount as Canton prints a `Numeric 10`: every decimal written out. */
export function damlDecimal(amount: Amount): string {
  const [integer, fraction = ''] = amount.toString().split('.');
  return `${integer}.${fraction.padEnd(AMOUNT_DECIMALS, '0')}`;
}

/** Reads a non-negative `Numeric 10`; throws `CantonWireError('invalid_decimal')`. */
export function parseDamlDecimal(text: string): Amount {
  const amount = Amount.tryParse(text);
  if (amount instanceof AmountParseError) {
    throw new CantonWireError('invalid_decimal', `not a Daml Numeric 10 amount: ${amount.message}`);
  }
  return amount;
}

/** A Daml `Time` as Canton writes it: RFC 3339, UTC. */
export function damlTime(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new RangeError('not a valid date');
  return date.toISOString();
}

// Date and time with `T`, optional fraction of any length, `Z` or a numeric offset.
const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/i;

/** Reads a Daml `Time`; throws `CantonWireError('invalid_time')`. Sub-milliseconds are dropped. */
export function parseDamlTime(text: string): Date {
  const match = typeof text === 'string' ? RFC3339.exec(text) : null;
  if (match) {
    const millis = (match[2] ?? '').slice(0, 3).padEnd(3, '0');
    const date = new Date(`${match[1]}.${millis}${match[3]}`);
    if (!Number.isNaN(date.getTime())) return date;
  }
  throw new CantonWireError('invalid_time', `not an RFC 3339 timestamp: ${JSON.stringify(text)}`);
}
