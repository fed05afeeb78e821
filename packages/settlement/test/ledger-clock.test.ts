/**
 * The service clock that follows the ledger's: on a participant it re-reads the ledger's time,
 * since another process moves it, and never runs behind the system clock, since a participant's
 * time stands still while nothing commits.
 */
import { describe, expect, it } from 'vitest';
import { LedgerClock } from '../src/clock.js';
import { waitFor } from '../testing/engine.js';

const HOUR_MS = 3_600_000;

/** A ledger whose time the test sets. */
function ledgerAt(offsetMs: number) {
  const ledger = { offsetMs, reads: 0 };
  return Object.assign(ledger, {
    now: async () => {
      ledger.reads += 1;
      return new Date(Date.now() + ledger.offsetMs);
    },
  });
}

describe('LedgerClock', () => {
  it('follows a ledger ahead of the system clock, and one behind it unless told not to', async () => {
    const ahead = await LedgerClock.follow(ledgerAt(HOUR_MS));
    expect(ahead.now().getTime()).toBeGreaterThanOrEqual(Date.now() + HOUR_MS - 1_000);

    const behind = ledgerAt(-HOUR_MS);
    const following = await LedgerClock.follow(behind);
    expect(following.now().getTime()).toBeLessThan(Date.now() - HOUR_MS + 1_000);
    const floored = await LedgerClock.follow(behind, { notBehindSystemClock: true });
    const before = Date.now();
    expect(floored.now().getTime()).toBeGreaterThanOrEqual(before);
  });

  it('re-reads the ledger on its own when asked to', async () => {
    const ledger = ledgerAt(0);
    const clock = await LedgerClock.follow(ledger, {
      resyncEveryMs: 10,
      notBehindSystemClock: true,
    });
    ledger.offsetMs = 2 * HOUR_MS;
    await waitFor(
      async () => clock.now().getTime() > Date.now() + HOUR_MS || null,
      'the clock to take in the ledger moving on',
    );
    clock.stop();
  });

  it('keeps its time when a re-read fails', async () => {
    const ledger = ledgerAt(HOUR_MS);
    const clock = await LedgerClock.follow(ledger, { resyncEveryMs: 10 });
    ledger.now = async () => {
      ledger.reads += 1;
      throw new Error('participant unreachable');
    };
    const readsBefore = ledger.reads;
    await waitFor(async () => ledger.reads > readsBefore + 2 || null, 'failed re-reads');
    clock.stop();
    expect(clock.now().getTime()).toBeGreaterThan(Date.now() + HOUR_MS - 1_000);
  });
});
