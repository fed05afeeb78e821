/**
 * Reading request bodies the Canton way: members are checked where they are used, and anything
 * missing or of the wrong type is an INVALID_ARGUMENT naming the member. Members the server does
 * not use are ignored, as Canton ignores fields it does not need for a request.
 */
import { invalidArgument } from './canton-errors.js';

export type Json = Readonly<Record<string, unknown>>;

export function objectAt(value: unknown, path: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidArgument(`${path} must be an object`, { field: path });
  }
  return value as Json;
}

export function optionalObjectAt(value: unknown, path: string): Json | undefined {
  return value === undefined || value === null ? undefined : objectAt(value, path);
}

export function stringAt(value: unknown, path: string): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw invalidArgument(`${path} must be a non-empty string`, { field: path });
  }
  return value;
}

export function optionalStringAt(value: unknown, path: string): string | undefined {
  return value === undefined || value === null || value === '' ? undefined : stringAt(value, path);
}

export function stringsAt(value: unknown, path: string): string[] {
  if (!Array.isArray(value)) throw invalidArgument(`${path} must be an array`, { field: path });
  return value.map((item, index) => stringAt(item, `${path}[${index}]`));
}

/** An offset: a non-negative integer (JSON number; a numeric string is accepted too). */
export function offsetAt(value: unknown, path: string): number {
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 0) {
    throw invalidArgument(`${path} must be a non-negative integer offset`, { field: path });
  }
  return number;
}

export function optionalOffsetAt(value: unknown, path: string): number | undefined {
  return value === undefined || value === null ? undefined : offsetAt(value, path);
}

export function arrayAt(value: unknown, path: string): readonly unknown[] {
  if (!Array.isArray(value)) throw invalidArgument(`${path} must be an array`, { field: path });
  return value;
}
