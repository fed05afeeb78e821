/**
 * Reading column values into the store's record types, and writing JSON parameters. Amounts cross
 * this boundary as `Amount`, never as text: a column is parsed once here, strictly, whatever its
 * scale (`"100.0000000000"` and `"100"` read alike), and written in the canonical wire form.
 *
 * Store modules read columns through one object, `read.string(row.id)`, so one import names every
 * reader a module needs, where a list of up to eight readers stood again at the top of each. The
 * four parameter writers stay functions: a module needs at most four of them, which one import line
 * holds.
 */
import { Amount, type FeeGrowth, feeGrowthFromDecimal, feeGrowthToDecimal } from '@poolparty/core';

export function readAmount(value: unknown): Amount {
  return Amount.parse(value);
}

export function readAmountOrNull(value: unknown): Amount | null {
  return value === null || value === undefined ? null : readAmount(value);
}

/** An amount as a SQL parameter, in its wire form. */
export function amountParam(value: Amount): string {
  return value.toString();
}

/** A pool's or a position's fee growth, per side, from its two columns. */
export function readFeeGrowth(a: unknown, b: unknown): FeeGrowth {
  return { a: feeGrowthFromDecimal(readString(a)), b: feeGrowthFromDecimal(readString(b)) };
}

/** One side of a fee growth as a SQL parameter, exact. */
export function feeGrowthParam(value: bigint): string {
  return feeGrowthToDecimal(value);
}

export function amountParamOrNull(value: Amount | null | undefined): string | null {
  return value === null || value === undefined ? null : amountParam(value);
}

export function readDate(value: unknown): Date {
  if (value instanceof Date) return value;
  throw new TypeError(`expected a timestamp, got ${typeof value}`);
}

export function readDateOrNull(value: unknown): Date | null {
  return value === null || value === undefined ? null : readDate(value);
}

export function readString(value: unknown): string {
  if (typeof value === 'string') return value;
  throw new TypeError(`expected text, got ${typeof value}`);
}

export function readStringOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : readString(value);
}

/** A BIGINT that must fit a JS number exactly (counts, offsets). */
export function readSafeInteger(value: unknown): number {
  const parsed = typeof value === 'number' ? value : Number(readString(value));
  if (!Number.isSafeInteger(parsed)) throw new RangeError(`not a safe integer: ${String(value)}`);
  return parsed;
}

export function readIntegerOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : readSafeInteger(value);
}

export function jsonParam(value: unknown): string {
  return JSON.stringify(value);
}

export function jsonParamOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/** A JSON array of strings (a `jsonb` or `json_agg` column); an absent one is empty. */
export function readStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.map((item) => readString(item)) : [];
}

/** A column's value as a record's field; each throws on a value of another type. */
export const read = {
  amount: readAmount,
  amountOrNull: readAmountOrNull,
  date: readDate,
  dateOrNull: readDateOrNull,
  string: readString,
  stringOrNull: readStringOrNull,
  safeInteger: readSafeInteger,
  integerOrNull: readIntegerOrNull,
  strings: readStrings,
} as const;
