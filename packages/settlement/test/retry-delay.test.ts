import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  backoffMs,
  CONTENDED_INPUTS_ATTEMPTS_MAX,
  CONTENDED_INPUTS_RETRY_MS,
  retriesAfter,
  retryDelayMs,
} from '../src/settings.js';

const settings = { retryBaseDelayMs: 1_000, retryDelayMaxMs: 30_000 };

describe('the pause before a command is tried again', () => {
  it('is short and drawn at random when another transfer of the sender spent its inputs', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, r) => {
          const delay = retryDelayMs('invalid_inputs', attempt, settings, () => r);
          expect(delay).toBeGreaterThanOrEqual(CONTENDED_INPUTS_RETRY_MS.min);
          expect(delay).toBeLessThanOrEqual(CONTENDED_INPUTS_RETRY_MS.max);
        },
      ),
    );
    expect(retryDelayMs('invalid_inputs', 1, settings, () => 0)).not.toBe(
      retryDelayMs('invalid_inputs', 1, settings, () => 0.99),
    );
  });

  it('backs off exponentially, capped, for every other refusal', () => {
    for (const code of ['rejected', 'timeout', 'insufficient_holdings', null]) {
      for (let attempt = 1; attempt <= 8; attempt += 1) {
        expect(retryDelayMs(code, attempt, settings)).toBe(backoffMs(attempt, 1_000, 30_000));
      }
    }
    expect(retryDelayMs('rejected', 8, settings)).toBe(30_000);
  });
});

describe('how many times a refused command is tried', () => {
  it('keeps to the leg’s budget for every refusal but contended inputs', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 20 }),
        (attempts, max) => {
          for (const code of ['rejected', 'timeout', 'insufficient_holdings', null]) {
            expect(retriesAfter(code, attempts, max)).toBe(attempts < max);
          }
        },
      ),
    );
  });

  it('gives contended inputs a larger budget, still bounded', () => {
    expect(retriesAfter('invalid_inputs', 8, 8)).toBe(true);
    expect(retriesAfter('invalid_inputs', CONTENDED_INPUTS_ATTEMPTS_MAX - 1, 8)).toBe(true);
    expect(retriesAfter('invalid_inputs', CONTENDED_INPUTS_ATTEMPTS_MAX, 8)).toBe(false);
    // A leg whose own budget is larger keeps it.
    expect(retriesAfter('invalid_inputs', 80, 100)).toBe(true);
  });
});
