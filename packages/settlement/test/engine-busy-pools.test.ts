/**
 * Two engines on one PostgreSQL: while one executes a pool's batch, holding the pool, the other's
 * execution round leaves that pool to it, without waiting for the batch and without touching the
 * pool's swaps, and still executes the swaps of the pools nobody holds. Once the holder commits,
 * every swap settles exactly once and each pool's books equal the swap party's holdings.
 *
 * Both rounds are driven here, each on its own store (connection pool), as two processes' work
 * loops would run them; the holder is paused inside its batch's transaction, just after it locked
 * the pool, until the other round has returned.
 */

import type { Queryable } from '@poolparty/store';
import { type Database, type IntentRecord, listIntentEvents } from '@poolparty/store';
import { postgresSkipReason } from '@poolparty/store/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EngineContext } from '../src/context.js';
import { executeQueued } from '../src/execution.js';
import { DEFAULT_ENGINE_SETTINGS, SILENT_LOG } from '../src/settings.js';
import { type EngineHarness, type Party, TEST_ENGINE_SETTINGS } from '../testing/engine.js';
import { openPostgresHarness, type PostgresHarness } from '../testing/postgres-harness.js';

const HELD = 'amulet-usdcx';
const FREE = 'amulet-usdcx-bridge';
const SWAPS_PER_POOL = 3;
const POLL_MS = 10;

const skipReason = await postgresSkipReason('engines skipping a busy pool');

describe.skipIf(skipReason !== null)('two engines, one pool held by the other', () => {
  let postgres: PostgresHarness;
  let stores: readonly Database[] = [];
  let h: EngineHarness;

  beforeEach(async () => {
    postgres = await openPostgresHarness('pp_busy_pools', 2);
    stores = postgres.databases;
    h = postgres.harness;
  }, 30_000);

  afterEach(async () => {
    await postgres?.close();
  });

  /** Swaps of both pools taken in (by an engine that executes nothing), the held pool's first. */
  async function queuedSwaps(): Promise<Map<string, IntentRecord[]>> {
    const { amulet, usdcx } = h;
    const usdcxBridged = h.seed.instruments.usdcxBridged;
    const queued = new Map<string, IntentRecord[]>();
    await h.startEngine({ settings: { executionBatchMax: 0 } });
    for (const poolId of [HELD, FREE]) {
      const intents: IntentRecord[] = [];
      for (let i = 0; i < SWAPS_PER_POOL; i++) {
        const party: Party = await h.newParty(
          `${poolId}-${i}`,
          [amulet, usdcx, usdcxBridged],
          [[amulet, '100']],
        );
        const intent = await h.createIntent(party, amulet, '100', { poolId });
        await h.deposit(party, amulet, '100', { reference: intent.depositReference, poolId });
        intents.push(await h.waitForStatus(intent.intentId, 'deposit_received'));
        // Each its own ledger second: both engines list the held pool's swaps first.
        await h.advanceClock(1000);
      }
      queued.set(poolId, intents);
    }
    await h.stopEngine();
    return queued;
  }

  function contextOn(db: Database): EngineContext {
    return {
      db,
      ledger: h.ledger,
      clock: h.clock,
      quoter: { invalidate: () => {} },
      log: SILENT_LOG,
      settings: { ...DEFAULT_ENGINE_SETTINGS, ...TEST_ENGINE_SETTINGS },
      step: () => {},
    };
  }

  it("leaves a pool another engine is executing to it, executes the others', and every swap settles once", async () => {
    const queued = await queuedSwaps();
    const held = queued.get(HELD) ?? [];
    const free = queued.get(FREE) ?? [];
    const eventsBefore = await eventsOf(h.db, held);

    const holder = pausedAfterLocking(stores[0] as Database, HELD);
    const holding = executeQueued(contextOn(holder.db));
    try {
      const holderPid = await holder.locked;
      const other = await withoutWaitingOn(
        h.db,
        holderPid,
        executeQueued(contextOn(stores[1] as Database)),
      );
      // It looked at the free pool's swaps only.
      expect(other).toBe(free.length);
      for (const intent of held) {
        expect((await h.intent(intent.intentId)).status).toBe('deposit_received');
      }
      expect(await eventsOf(h.db, held)).toEqual(eventsBefore);
      for (const intent of free) {
        expect((await h.intent(intent.intentId)).status).toBe('sending_output');
      }
    } finally {
      holder.release();
      await holding;
    }
    for (const intent of held) {
      expect((await h.intent(intent.intentId)).status).toBe('sending_output');
    }

    await h.startEngine();
    for (const intent of [...held, ...free]) {
      await h.waitForStatus(intent.intentId, 'completed');
      expect(await h.transfersWithReason(`payout:${intent.intentId}`)).toBe(1);
      const events = (await listIntentEvents(h.db, intent.intentId)).filter(
        (event) => event.legEvent === null,
      );
      const statuses = events.map((event) => event.status);
      expect(new Set(statuses).size).toBe(statuses.length);
    }
    await h.caughtUp();
    await h.booksMatchLedger(HELD);
    await h.booksMatchLedger(FREE);
  }, 60_000);
});

/**
 * The store, whose transaction that locks `poolId`'s accounting row pauses right after the lock
 * until `release()`; `locked` gives that transaction's backend pid once it holds the lock.
 */
function pausedAfterLocking(db: Database, poolId: string) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let holds!: (pid: number) => void;
  const locked = new Promise<number>((resolve) => {
    holds = resolve;
  });
  let paused = false;
  const holder: Database = {
    kind: db.kind,
    query: (sql, params) => db.query(sql, params),
    exec: (script) => db.exec(script),
    listen: (channel, onPayload, onLost) => db.listen(channel, onPayload, onLost),
    close: () => db.close(),
    transaction: (fn) =>
      db.transaction((tx) => {
        const pausing: Queryable = {
          async query<T>(sql: string, params?: Parameters<Queryable['query']>[1]) {
            const rows = await tx.query<T>(sql, params);
            if (!paused && locksPool(sql) && params?.[0] === poolId) {
              paused = true;
              const pid = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
              holds(pid[0]?.pid ?? -1);
              await released;
            }
            return rows;
          },
          exec: (script) => tx.exec(script),
        };
        return fn(pausing);
      }),
  };
  return { db: holder, locked, release };
}

function locksPool(sql: string): boolean {
  return /FROM pool_accounting\b[\s\S]*FOR UPDATE/.test(sql);
}

/**
 * The work's result, provided it never waited on a lock of `holderPid` while running: PostgreSQL
 * is asked, until the work ends, whether any session waits on that backend.
 */
async function withoutWaitingOn<T>(q: Queryable, holderPid: number, work: Promise<T>): Promise<T> {
  let ended = false;
  const result = work.finally(() => {
    ended = true;
  });
  // Seen through below; a failure while the waiting is checked is not left unhandled.
  result.catch(() => {});
  while (!ended) {
    const waiting = await q.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid))',
      [holderPid],
    );
    if ((waiting[0]?.n ?? 0) > 0) {
      throw new Error('the round waited for the pool the other engine holds');
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return result;
}

async function eventsOf(q: Queryable, intents: readonly IntentRecord[]) {
  const events = [];
  for (const intent of intents) events.push(...(await listIntentEvents(q, intent.intentId)));
  return events;
}
