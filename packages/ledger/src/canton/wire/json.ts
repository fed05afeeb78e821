/**
 * Reading untyped JSON (Daml records in `createArgument`, `viewValue`, `choiceArgument`,
 * `exerciseResult`) with a clear `CantonWireError('malformed')` naming the path of what is
 * wrong. A participant writes `null` for an absent optional field, so `null` reads as absent.
 */
import type { Instrument } from '@poolparty/core';
import type { Meta } from '../../port.js';
import { CantonWireError } from './errors.js';

export type JsonRecord = Readonly<Record<string, unknown>>;

function malformed(path: string, expected: string, value: unknown): CantonWireError {
  const found = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
  return new CantonWireError('malformed', `${path}: expected ${expected}, found ${found}`);
}

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function record(value: unknown, path: string): JsonRecord {
  if (!isRecord(value)) throw malformed(path, 'an object', value);
  return value;
}

export function text(value: unknown, path: string): string {
  if (typeof value !== 'string') throw malformed(path, 'a string', value);
  return value;
}

export function optionalText(value: unknown, path: string): string | null {
  return value === null || value === undefined ? null : text(value, path);
}

export function integer(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw malformed(path, 'an integer', value);
  }
  return value;
}

export function list(value: unknown, path: string): readonly unknown[] {
  if (!Array.isArray(value)) throw malformed(path, 'an array', value);
  return value;
}

/** A Daml `Metadata` (`{values: {key: text}}`); null or absent reads as empty. */
export function metaValues(value: unknown, path: string): Meta {
  if (value === null || value === undefined) return {};
  const values = record(value, path).values;
  if (values === null || values === undefined) return {};
  const entries = Object.entries(record(values, `${path}.values`));
  for (const [key, item] of entries) text(item, `${path}.values[${JSON.stringify(key)}]`);
  return Object.fromEntries(entries) as Meta;
}

/** A Token Standard `InstrumentId` (`{admin, id}`). */
export function instrumentId(value: unknown, path: string): Instrument {
  const fields = record(value, path);
  return { admin: text(fields.admin, `${path}.admin`), id: text(fields.id, `${path}.id`) };
}
