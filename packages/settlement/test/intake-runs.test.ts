/**
 * A run of deposits taken together (intake.ts `takeDeposits`) ends each deposit as taking them
 * one by one would, including when a cancel takes an intent between the read of the candidates
 * and the claim: that deposit alone goes back, the others are kept, and the books hold each
 * amount once.
 *
 * On PostgreSQL the cancel also runs in a transaction of its own, on another connection, holding
 * the intent's row while the run's claim waits for it: once it commits, the claim must see the
 * intent is no longer pending; once it rolls back, the claim takes the intent as before.
 */
import type { Amount } from '@poolparty/core';
import type { Queryable, SqlParam } from '@poolparty/store';
import {
  cancelIntent,
  type Database,
  getPool,
  type IntentRecord,
  listIntentEvents,
  listPools,
} from '@poolparty/store';
import { postgresSkipReason } from '@poolparty/store/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type IncomingDeposit, takeDeposits } from '../src/intake.js';
import { type PriceBook, readPriceBook } from '../src/prices.js';
import { type EngineHarness, type Party, useEngineWorld, waitFor } from '../testing/engine.js';
import { openPostgresHarness, type PostgresHarness } from '../testing/postgres-harness.js';

const world = useEngineWorld();

interface Run {
  readonly intents: readonly IntentRecord[];
  readonly incomings: readonly IncomingDeposit[];
  readonly prices: PriceBook;
  /** The intent a cancel takes. */
  readonly taken: IntentRecord;
  /** How much a field of the pool's books grew since the run was set up. */
  grew(field: 'inflightA' | 'outgoingA' | 'feesA'): Promise<Amount>;
}

/** Three wallets, each with a pending intent for 100 and its deposit, not yet taken in. */
async function runOfThree(h: EngineHarness): Promise<Run> {
  const parties: Party[] = [];
  const intents: IntentRecord[] = [];
  for (let i = 0; i < 3; i++) {
    const party = await h.newParty(`run-${i}`, [h.amulet, h.usdcx], [[h.amulet, '100']]);
    parties.push(party);
    intents.push(await h.createIntent(party, h.amulet, '100'));
  }
  const incomings = await Promise.all(
    intents.map((intent, i) => h.incomingDepositOf(parties[i] as Party, intent, i)),
  );
  const prices = await readPriceBook(h.ledger, await listPools(h.db), h.clock.now());
  const [, taken] = intents;
  if (taken === undefined) throw new Error('no intent');
  const before = (await getPool(h.db, 'amulet-usdcx'))?.accounting;
  if (before === undefined) throw new Error('no books');
  const grew = async (field: 'inflightA' | 'outgoingA' | 'feesA') => {
    const after = (await getPool(h.db, 'amulet-usdcx'))?.accounting;
    if (after === undefined) throw new Error('no books');
    return after[field].sub(before[field]);
  };
  return { intents, incomings, prices, taken, grew };
}

/** The cancelled intent's deposit went back once; the other two are kept, each amount once. */
async function expectOneReturned(h: EngineHarness, run: Run): Promise<void> {
  for (const intent of run.intents) {
    const now = await h.intent(intent.intentId);
    expect(now.status).toBe(intent === run.taken ? 'cancelled' : 'deposit_received');
  }
  const deposits = await h.db.query<{ intent_id: string | null; status: string }>(
    'SELECT intent_id, status FROM deposits ORDER BY update_id',
  );
  expect(deposits.map((d) => d.status)).toEqual(['attributed', 'unmatched', 'attributed']);
  expect(deposits[1]?.intent_id).toBeNull();
  const refunds = await h.db.query(`SELECT 1 FROM ledger_commands WHERE leg = 'refund'`);
  expect(refunds).toHaveLength(1);
  // Two deposits in flight, the third on its way back (refund and fee): 300 in all, once each.
  expect((await run.grew('inflightA')).toString()).toBe('200');
  expect((await run.grew('outgoingA')).add(await run.grew('feesA')).toString()).toBe('100');
}

describe('a run of deposits taken together', () => {
  it('keeps each deposit once and returns the one whose intent a cancel took mid-run', async () => {
    const h = await world.harness();
    const run = await runOfThree(h);
    const { taken } = run;

    await h.db.transaction(async (tx) => {
      // The cancel lands after the candidates were read, just before the claim.
      const racing: Queryable = {
        query: async (sql, params) => {
          if (isClaim(sql)) {
            const now = h.clock.now();
            await cancelIntent(tx, {
              intentId: taken.intentId,
              walletParty: taken.walletParty,
              now,
            });
          }
          return tx.query(sql, params);
        },
        exec: (script) => tx.exec(script),
      };
      await takeDeposits(racing, run.incomings, run.prices, h.clock.now());
      // Delivered again: every deposit is recorded already, nothing changes.
      await takeDeposits(tx, run.incomings, run.prices, h.clock.now());
    });

    await expectOneReturned(h, run);
  });
});

/** The statement that claims a run's intents and keeps their deposits (store `keepDeposits`). */
function isClaim(sql: string): boolean {
  return sql.trimStart().startsWith('WITH claims AS');
}

const skipReason = await postgresSkipReason('a run of deposits racing a cancel on PostgreSQL');

describe.skipIf(skipReason !== null)('a run of deposits racing a cancel on PostgreSQL', () => {
  let postgres: PostgresHarness;
  let db: Database;
  let h: EngineHarness;

  beforeEach(async () => {
    postgres = await openPostgresHarness('pp_intake');
    h = postgres.harness;
    db = h.db;
  }, 30_000);

  afterEach(async () => {
    await postgres?.close();
  });

  /**
   * Takes the run in one transaction while a cancel of `run.taken`, in another transaction on
   * another connection, holds the intent's row: the cancel's update is made after the run read
   * its candidates, the claim is sent, and only once PostgreSQL shows the claim waiting on the
   * cancel's transaction does that transaction end (`commit` or `rollback`).
   */
  async function takeWhileACancelHolds(run: Run, end: 'commit' | 'rollback'): Promise<void> {
    const { taken } = run;
    let cancel: Promise<void> | null = null;
    await db.transaction(async (tx) => {
      const runPid = await backendPid(tx);
      const racing: Queryable = {
        async query<T>(sql: string, params?: readonly SqlParam[]): Promise<T[]> {
          if (!isClaim(sql) || cancel !== null) return tx.query<T>(sql, params);
          const holding = signal<number>();
          const ended = signal<void>();
          cancel = db
            .transaction(async (other) => {
              const pid = await backendPid(other);
              const cancelled = await cancelIntent(other, {
                intentId: taken.intentId,
                walletParty: taken.walletParty,
                now: h.clock.now(),
              });
              if (cancelled?.status !== 'cancelled') throw new Error('the cancel took nothing');
              holding.resolve(pid);
              await ended.promise;
              if (end === 'rollback') throw new CancelRolledBack();
            })
            .catch((error: unknown) => {
              if (error instanceof CancelRolledBack) return;
              holding.reject(error);
              throw error;
            });
          const cancelPid = await holding.promise;
          const claim = tx.query<T>(sql, params);
          // Seen through if it fails before the cancel ends; the caller awaits it below.
          claim.catch(() => {});
          await waitFor(async () => {
            const rows = await db.query<{ waits: boolean }>(
              'SELECT $2::int = ANY(pg_blocking_pids($1::int)) AS waits',
              [runPid, cancelPid],
            );
            return rows[0]?.waits === true;
          }, "the claim to wait on the cancel's transaction");
          ended.resolve();
          await cancel;
          return claim;
        },
        exec: (script) => tx.exec(script),
      };
      await takeDeposits(racing, run.incomings, run.prices, h.clock.now());
    });
    expect(cancel).not.toBeNull();
  }

  it('returns the deposit whose intent a cancel committed while the claim waited, and keeps the others', async () => {
    const run = await runOfThree(h);
    await takeWhileACancelHolds(run, 'commit');

    await expectOneReturned(h, run);
    const events = await listIntentEvents(h.db, run.taken.intentId);
    expect(events.map((event) => event.status)).not.toContain('matched');
    expect(events.map((event) => event.status)).not.toContain('deposit_received');
  }, 30_000);

  it('keeps every deposit when the cancel holding an intent rolls back while the claim waits', async () => {
    const run = await runOfThree(h);
    await takeWhileACancelHolds(run, 'rollback');

    for (const intent of run.intents) {
      expect((await h.intent(intent.intentId)).status).toBe('deposit_received');
    }
    const deposits = await h.db.query<{ intent_id: string | null; status: string }>(
      'SELECT intent_id, status FROM deposits ORDER BY update_id',
    );
    expect(deposits).toEqual(
      run.intents.map((intent) => ({ intent_id: intent.intentId, status: 'attributed' })),
    );
    expect(await h.db.query(`SELECT 1 FROM ledger_commands WHERE leg = 'refund'`)).toEqual([]);
    expect((await run.grew('inflightA')).toString()).toBe('300');
    expect((await run.grew('outgoingA')).add(await run.grew('feesA')).toString()).toBe('0');
  }, 30_000);
});

class CancelRolledBack extends Error {}

async function backendPid(q: Queryable): Promise<number> {
  const rows = await q.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const pid = rows[0]?.pid;
  if (pid === undefined) throw new Error('no backend pid');
  return pid;
}

/** A promise settled from outside. */
function signal<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
