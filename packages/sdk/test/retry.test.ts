/** The retry policy: which failures are sent again, and after how long. */
import { describe, expect, it } from 'vitest';
import {
  type AttemptFailure,
  parseRetryAfterMs,
  RETRY_AFTER_MAX_MS,
  RETRY_DELAY_MAX_MS,
  retryDelayMs,
  shouldRetry,
} from '../src/http/retry.js';

const network: AttemptFailure = { kind: 'network' };
const timeout: AttemptFailure = { kind: 'timeout' };
const status = (code: number, errorCode: string | null = null): AttemptFailure => ({
  kind: 'status',
  status: code,
  code: errorCode,
});

describe('shouldRetry', () => {
  const cases: [string, AttemptFailure, boolean, number, number | null, boolean][] = [
    // name, failure, retrySafe, retriesMade, retryAfterMs, expected
    ['network error, safe', network, true, 0, null, true],
    ['timeout, safe', timeout, true, 1, null, true],
    ['network error, unsafe POST', network, false, 0, null, false],
    ['retries used up', network, true, 2, null, false],
    ['500', status(500, 'internal_error'), true, 0, null, true],
    ['502 from a proxy', status(502), true, 0, null, true],
    ['503 ledger unavailable', status(503, 'ledger_unavailable'), true, 0, null, true],
    ['501 not implemented', status(501, 'not_implemented'), true, 0, null, false],
    ['429 rate limited', status(429, 'rate_limited'), true, 0, 1_000, true],
    ['429 asking for too long', status(429), true, 0, RETRY_AFTER_MAX_MS + 1, false],
    ['408 request timeout', status(408), true, 0, null, true],
    ['409 idempotency key in use', status(409, 'idempotency_key_in_use'), true, 0, null, true],
    ['409 active intent', status(409, 'active_intent_exists'), true, 0, null, false],
    ['400 validation', status(400, 'validation_error'), true, 0, null, false],
    ['401 invalid key', status(401, 'invalid_api_key'), true, 0, null, false],
    ['404 not found', status(404, 'not_found'), true, 0, null, false],
    ['500 on an unsafe POST', status(500), false, 0, null, false],
  ];
  it.each(cases)('%s', (_name, failure, retrySafe, retriesMade, retryAfterMs, expected) => {
    expect(shouldRetry({ failure, retrySafe, retriesMade, retriesMax: 2, retryAfterMs })).toBe(
      expected,
    );
  });
});

describe('retryDelayMs', () => {
  it('doubles per retry, with jitter between half and the whole step, up to the cap', () => {
    expect([0, 1, 2].map((n) => retryDelayMs(n, null, () => 0))).toEqual([250, 500, 1000]);
    expect([0, 1, 2].map((n) => retryDelayMs(n, null, () => 1))).toEqual([500, 1000, 2000]);
    expect(retryDelayMs(20, null, () => 1)).toBe(RETRY_DELAY_MAX_MS);
  });

  it('waits what Retry-After asked for', () => {
    expect(retryDelayMs(0, 3_000, () => 0.5)).toBe(3_000);
  });
});

describe('parseRetryAfterMs', () => {
  const now = Date.parse('2026-11-22T13:40:00.000Z');
  it('reads delay-seconds and HTTP dates, and nothing else', () => {
    expect(parseRetryAfterMs('5', now)).toBe(5_000);
    expect(parseRetryAfterMs('Sun, 22 Nov 2026 13:40:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfterMs('Sun, 22 Nov 2026 13:39:00 GMT', now)).toBe(0);
    expect(parseRetryAfterMs(null, now)).toBeNull();
    expect(parseRetryAfterMs('soon', now)).toBeNull();
  });
});
