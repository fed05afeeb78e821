/**
 * What a burst of swaps costs the store: deposits already on the ledger when the engine starts
 * (so that what it finds at once does not depend on timing) are settled end to end — deposit,
 * attribution, execution, payout, confirmation — in no more statements per swap than below, the
 * engine's start included. Every swap completes and is paid once.
 */

import { openLocalLedger, seedDevnet } from '@poolparty/ledger';
import {
  allUpdates,
  CountingDatabase,
  createPricedIntent,
  depositFor,
  fundedParties,
  registerSeed,
  TEST_ENGINE_SETTINGS,
  transfersByReason,
  waitFor,
} from '@poolparty/settlement/testing';
import { IN_MEMORY, type IntentRecord, migrate, openPglite } from '@poolparty/store';
import { describe, expect, it } from 'vitest';
import { LedgerClock, startEngine } from '../src/index.js';

/**
 * Statements per swap this burst may cost at most: 150 for 200 swaps, the engine's start
 * included. It cost 159 (0.795 a swap) before intake took a run of deposits in three statements;
 * a burst arriving while the engine runs costs less still (`bench/queries-per-swap.ts`: 0.67).
 */
const BURST_STATEMENTS_PER_SWAP_MAX = 0.75;
const SWAPS = 200;
const DEPOSIT = '50';
const POOL_ID = 'amulet-usdcx';
const SETTLE_WAIT_MS = 60_000;
const IDLE_INTERVAL_MS = 10 * 60_000;

describe('a burst of swaps', () => {
  it(`settles ${SWAPS} deposits found at once in at most ${BURST_STATEMENTS_PER_SWAP_MAX} statements a swap`, async () => {
    const db = await openPglite(IN_MEMORY);
    const ledger = await openLocalLedger({});
    try {
      await migrate(db);
      const seed = await seedDevnet(ledger);
      const clock = await LedgerClock.follow(ledger);
      await registerSeed(db, seed, clock.now());
      const { amulet, usdcx } = seed.instruments;
      const engineDeps = {
        ledger,
        clock,
        quoter: { invalidate: () => {} },
        // Work only when woken by what it ingests, not on an idle timer: the count is then the
        // burst's work, not a number of idle rounds that depends on how long the run took.
        settings: { ...TEST_ENGINE_SETTINGS, idleIntervalMs: IDLE_INTERVAL_MS },
      };
      const parties = await fundedParties(ledger, SWAPS, [amulet, usdcx], amulet, DEPOSIT);
      const intents: IntentRecord[] = [];
      for (const party of parties) {
        const request = { poolId: POOL_ID, party, input: amulet, amount: DEPOSIT };
        const developerParty = seed.developer.partyId;
        intents.push(
          await createPricedIntent(db, ledger, { ...request, developerParty, now: clock.now() }),
        );
      }
      for (const intent of intents) await depositFor(ledger, intent, amulet);

      const counting = new CountingDatabase(db);
      const engine = await startEngine({ ...engineDeps, db: counting });
      try {
        await waitFor(
          async () => {
            const rows = await db.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM intents WHERE status = 'completed'`,
            );
            return rows[0]?.n === SWAPS;
          },
          `${SWAPS} swaps to complete`,
          SETTLE_WAIT_MS,
        );
      } finally {
        await engine.stop();
      }
      expect(counting.counts.statements / SWAPS).toBeLessThanOrEqual(BURST_STATEMENTS_PER_SWAP_MAX);
      const byReason = transfersByReason(await allUpdates(ledger));
      for (const intent of intents) expect(byReason.get(`payout:${intent.intentId}`)).toBe(1);
    } finally {
      await ledger.close();
      await db.close();
    }
  });
});
