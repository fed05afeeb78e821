/**
 * Reading what an operator typed. Each function returns the value or throws `AdminError` with a
 * sentence naming the option, so a typo is refused before anything is written.
 */
import { userInfo } from 'node:os';
import type { Instrument } from '@poolparty/core';
import { AdminError } from './admin-error.js';

const BPS_FULL = 10_000;

/** A share of a fee still charged, in basis points: a whole number 0…10000. */
export function parseChargeBps(option: string, text: string): number {
  const bps = Number(text);
  if (!/^\d+$/.test(text) || bps > BPS_FULL) {
    throw new AdminError(
      'validation_error',
      `${option} must be a whole number of basis points from 0 to ${BPS_FULL} (got ${JSON.stringify(text)})`,
    );
  }
  return bps;
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** A moment as ISO 8601 (`2026-12-01`, `2026-12-01T12:00Z`); a date alone is midnight UTC. */
export function parseMoment(option: string, text: string): Date {
  const parsed = ISO_TIME.test(text) ? new Date(text) : null;
  if (parsed === null || Number.isNaN(parsed.getTime())) {
    throw new AdminError(
      'validation_error',
      `${option} must be an ISO 8601 time such as 2026-12-01 or 2026-12-01T12:00:00Z (got ${JSON.stringify(text)})`,
    );
  }
  return parsed;
}

/** A per-minute rate limit: a positive whole number, or `default` for the service's default. */
export function parseRateLimit(option: string, text: string): number | null {
  if (text === 'default') return null;
  const limit = Number(text);
  if (!/^\d+$/.test(text) || limit < 1 || limit > 2_147_483_647) {
    throw new AdminError(
      'validation_error',
      `${option} must be a positive whole number of requests per minute, or "default" (got ${JSON.stringify(text)})`,
    );
  }
  return limit;
}

/** A positive whole number, e.g. a list's `--limit`. */
export function parseCount(option: string, text: string, max: number): number {
  const count = Number(text);
  if (!/^\d+$/.test(text) || count < 1 || count > max) {
    throw new AdminError(
      'validation_error',
      `${option} must be a whole number from 1 to ${max} (got ${JSON.stringify(text)})`,
    );
  }
  return count;
}

/** An id the store numbers (a discount, a flag). */
export function parseId(what: string, text: string): number {
  const id = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(id)) {
    throw new AdminError('validation_error', `not a ${what} id: ${JSON.stringify(text)}`);
  }
  return id;
}

/** Who an audited change is attributed to: `--actor`, else the operating-system user. */
export function actorOf(given: string | undefined): string {
  if (given !== undefined) {
    if (given.trim() === '') throw new AdminError('validation_error', '--actor must not be empty');
    return given.trim();
  }
  try {
    return userInfo().username || 'unknown';
  } catch {
    return process.env.USER ?? 'unknown';
  }
}

/**
 * An instrument as `ADMIN:ID`, e.g. `DSO::1220…:Amulet`. A party id holds `::` but never ends in
 * `:`, and a symbol holds no `:`, so the last `:` separates them.
 */
export function parseInstrument(option: string, text: string): Instrument {
  const split = text.lastIndexOf(':');
  const admin = split > 0 ? text.slice(0, split) : '';
  const id = split > 0 ? text.slice(split + 1) : '';
  if (admin === '' || id === '' || admin.endsWith(':') || !admin.includes('::')) {
    throw new AdminError(
      'validation_error',
      `${option} must be ADMIN:ID, the admin's party id and the symbol, e.g. DSO::1220…:Amulet (got ${JSON.stringify(text)})`,
    );
  }
  return { admin, id };
}

/** A pool's fee in basis points: a whole number 0…9999 (the schema refuses a 100 % fee). */
export function parseFeeBps(option: string, text: string): number {
  const bps = Number(text);
  if (!/^\d+$/.test(text) || bps >= BPS_FULL) {
    throw new AdminError(
      'validation_error',
      `${option} must be a whole number of basis points from 0 to ${BPS_FULL - 1} (got ${JSON.stringify(text)})`,
    );
  }
  return bps;
}

const POOL_ID = /^[A-Za-z0-9._~-]{1,128}$/;

/** A pool id as the API carries it: URL-safe, at most 128 characters. */
export function parsePoolId(option: string, text: string): string {
  if (!POOL_ID.test(text)) {
    throw new AdminError(
      'validation_error',
      `${option} must be 1 to 128 of A-Z a-z 0-9 . _ ~ - (got ${JSON.stringify(text)})`,
    );
  }
  return text;
}
