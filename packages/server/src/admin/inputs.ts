/**
 * Reading what an operator typed. Each function returns the value or throws `AdminError` with a
 * sentence naming the option, so a typo is refused before anything is written.
 */
import { userInfo } from 'node:os';
import { AdminError } from './refunds.js';

export const BPS_FULL = 10_000;

/** A share of a fee still charged, in basis points: a whole number 0…10000. */
export function parseChargeBps(option: string, text: string): number {
  const bps = Number(text);
  if (!/^\d+$/.test(text) || bps > BPS_FULL) {
    throw new AdminError(
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
      `${option} must be a whole number from 1 to ${max} (got ${JSON.stringify(text)})`,
    );
  }
  return count;
}

/** An id the store numbers (a discount, a flag). */
export function parseId(what: string, text: string): number {
  const id = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(id)) {
    throw new AdminError(`not a ${what} id: ${JSON.stringify(text)}`);
  }
  return id;
}

/** Who an audited change is attributed to: `--actor`, else the operating-system user. */
export function actorOf(given: string | undefined): string {
  if (given !== undefined) {
    if (given.trim() === '') throw new AdminError('--actor must not be empty');
    return given.trim();
  }
  try {
    return userInfo().username || 'unknown';
  } catch {
    return process.env.USER ?? 'unknown';
  }
}
