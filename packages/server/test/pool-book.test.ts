import { Amount } from '@poolparty/core';
import { openTestDatabase } from '@poolparty/settlement/testing';
import type { Database, Queryable } from '@poolparty/store';
import {
  countIncompleteCompletedSwaps,
  countIncompleteCompletedSwapsByPool,
  hourOf,
  insertApiKey,
  insertFeeEvent,
  insertIntent,
  insertPool,
  insertReconciliationRun,
  latestReconciliationRun,
  listPoolSnapshots,
  migrate,
  type PoolSide,
  putPoolSnapshot,
  sumOutputsSince,
  upsertDeveloper,
} from '@poolparty/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PoolBook } from '../src/market/pool-book.js';

const HOUR_MS = 60 * 60 * 1000;
const NOW = new Date('2026-03-01T12:30:00Z');
const DEVELOPER = 'book-developer::1220';
const API_KEY = 'key_book';
/** Statements of one read of histories, whatever the number of pools: one per kind of history. */
const HISTORY_STATEMENTS = 4;
/** One read of the pools and one of their histories. */
const OPENING_STATEMENTS_MAX = 1 + HISTORY_STATEMENTS;

/** The database with every statement sent through it counted. */
function counted(db: Database): { q: Queryable; count: () => number } {
  let statements = 0;
  return {
    q: {
      query: (sql, params) => {
        statements += 1;
        return db.query(sql, params);
      },
      exec: (script) => {
        statements += 1;
        return db.exec(script);
      },
    },
    count: () => statements,
  };
}

/** A book over the database with its statements counted. */
async function countedBook(db: Database) {
  const store = counted(db);
  const book = await PoolBook.open({
    db: store.q,
    now: () => NOW,
    countIncompleteCompletedSwaps: countIncompleteCompletedSwapsByPool,
  });
  return { store, book };
}

async function addPools(db: Database, from: number, count: number): Promise<string[]> {
  const ids: string[] = [];
  await db.transaction(async (tx) => {
    for (let i = from; i < from + count; i++) {
      const poolId = `pool-${i}`;
      ids.push(poolId);
      await insertPool(tx, {
        poolId,
        tokenA: { admin: 'amulet-admin::1220', id: 'Amulet' },
        tokenB: { admin: 'book-admin::1220', id: `TKN${i}` },
        swapParty: `swap-${i}::1220`,
        lpParty: `lp-${i}::1220`,
        lpSupply: Amount.parse('1000'),
        reserveA: Amount.parse('1000000'),
        reserveB: Amount.parse('1000'),
        createdAt: new Date(NOW.getTime() - 2 * 24 * HOUR_MS),
      });
    }
  });
  return ids;
}

let swaps = 0;

/** A swap of the pool at `at`; with `recorded` false its payout facts and fee event are missing. */
async function swap(
  db: Database,
  poolId: string,
  input: { side: PoolSide; output: string; at: Date; recorded?: boolean },
): Promise<void> {
  swaps += 1;
  const intentId = `swp_book${String(swaps).padStart(8, '0')}`;
  await insertIntent(db, {
    intentId,
    poolId,
    apiKeyId: API_KEY,
    developerParty: DEVELOPER,
    walletParty: `wallet-${swaps}::1220`,
    depositAddress: 'swap::1220',
    depositReference: `pp-book${swaps}`,
    inputToken: 'Amulet',
    inputTokenAdmin: 'amulet-admin::1220',
    outputToken: 'TKN',
    outputTokenAdmin: 'book-admin::1220',
    expectedAmount: Amount.parse('100'),
    quotedSwapAmount: Amount.parse('100'),
    networkFeeAmount: Amount.parse('1'),
    poolFeeAmount: Amount.parse('0.3'),
    lpFeeAmount: Amount.parse('0.2'),
    platformFeeAmount: Amount.parse('0.1'),
    inputAmountAfterPoolFee: Amount.parse('98.7'),
    expectedOutput: Amount.parse(input.output),
    minOutput: Amount.ZERO,
    slippageTolerance: 0.05,
    networkFeePolicy: null,
    platformFeePolicy: null,
    outputAddress: 'wallet::1220',
    createdAt: input.at,
    expiresAt: new Date(input.at.getTime() + HOUR_MS),
  });
  await db.query(`UPDATE intents SET status = 'completed' WHERE intent_id = $1`, [intentId]);
  if (input.recorded === false) return;
  await db.query(
    `UPDATE intents SET payout_update_id = $2, actual_output = $3 WHERE intent_id = $1`,
    [intentId, `upd-${swaps}`, input.output],
  );
  await insertFeeEvent(db, {
    poolId,
    intentId,
    apiKeyId: API_KEY,
    inputSide: input.side,
    inputAmount: Amount.parse('100'),
    outputAmount: Amount.parse(input.output),
    lpFeeAmount: Amount.parse('0.2'),
    platformFeeAmount: Amount.parse('0.1'),
    networkFeeAmount: Amount.parse('1'),
    developerEarnings: Amount.ZERO,
    volumeUsd: null,
    feesUsd: null,
    lpFeesUsd: null,
    at: input.at,
  });
}

describe('pool book', () => {
  let db: Database;

  beforeAll(async () => {
    db = await openTestDatabase();
    await migrate(db);
    await upsertDeveloper(db, DEVELOPER, NOW);
    await insertApiKey(db, {
      keyId: API_KEY,
      developerParty: DEVELOPER,
      name: 'book',
      keyHash: 'b'.repeat(64),
      prefix: 'pp_book',
      environment: 'devnet',
      createdAt: NOW,
    });
  }, 60_000);

  afterAll(async () => {
    await db?.close();
  });

  it('reads each pool history as the per-pool queries of the store read it', async () => {
    const [busy, quiet, mismatched, recovered, unrecorded] = await addPools(db, 0, 5);
    if (!busy || !quiet || !mismatched || !recovered || !unrecorded) throw new Error('no pools');
    const minutesAgo = (m: number) => new Date(NOW.getTime() - m * 60_000);
    // Inside the trailing hour on both sides, and one just outside it.
    await swap(db, busy, { side: 'a', output: '7.5', at: minutesAgo(10) });
    await swap(db, busy, { side: 'a', output: '2.25', at: minutesAgo(50) });
    await swap(db, busy, { side: 'b', output: '400', at: minutesAgo(20) });
    await swap(db, busy, { side: 'b', output: '999', at: minutesAgo(61) });
    await swap(db, quiet, { side: 'a', output: '5', at: minutesAgo(300) });
    await swap(db, unrecorded, { side: 'a', output: '3', at: minutesAgo(5), recorded: false });
    // Snapshots of this hour and the previous one count; an older one does not.
    for (const hoursAgo of [0, 1, 2]) {
      await putPoolSnapshot(db, {
        poolId: busy,
        hour: hourOf(new Date(NOW.getTime() - hoursAgo * HOUR_MS)),
        reserveA: Amount.parse(`${1000 + hoursAgo}`),
        reserveB: Amount.parse(`${500 - hoursAgo}`),
        priceUsd: null,
      });
    }
    const at = (m: number) => minutesAgo(m);
    await insertReconciliationRun(db, { poolId: mismatched, ok: true, details: {}, at: at(30) });
    await insertReconciliationRun(db, { poolId: mismatched, ok: false, details: {}, at: at(3) });
    await insertReconciliationRun(db, { poolId: recovered, ok: false, details: {}, at: at(30) });
    await insertReconciliationRun(db, { poolId: recovered, ok: true, details: {}, at: at(3) });

    const book = await PoolBook.open({
      db,
      now: () => NOW,
      countIncompleteCompletedSwaps: countIncompleteCompletedSwapsByPool,
    });
    try {
      const since = new Date(NOW.getTime() - HOUR_MS);
      for (const poolId of [busy, quiet, mismatched, recovered, unrecorded]) {
        const snapshots = await listPoolSnapshots(db, poolId, hourOf(since), NOW);
        const run = await latestReconciliationRun(db, poolId);
        const history = book.historyOf(poolId)?.value;
        expect({
          tokenA: history?.trailingOutputs.tokenA.toString(),
          tokenB: history?.trailingOutputs.tokenB.toString(),
          snapshots: history?.snapshots.map((s) => [s.reserveA.toString(), s.reserveB.toString()]),
          lastReconciliationOk: history?.lastReconciliationOk,
          incompleteCompletedSwaps: history?.incompleteCompletedSwaps,
        }).toEqual({
          tokenA: (await sumOutputsSince(db, poolId, 'a', since)).toString(),
          tokenB: (await sumOutputsSince(db, poolId, 'b', since)).toString(),
          snapshots: snapshots.map((s) => [s.reserveA.toString(), s.reserveB.toString()]),
          lastReconciliationOk: run === null ? null : run.ok,
          incompleteCompletedSwaps: await countIncompleteCompletedSwaps(db, poolId),
        });
      }
      // The figures themselves, so that both readings cannot be wrong alike.
      const busyHistory = book.historyOf(busy)?.value;
      expect(busyHistory?.trailingOutputs.tokenA.toString()).toBe('400');
      expect(busyHistory?.trailingOutputs.tokenB.toString()).toBe('9.75');
      expect(busyHistory?.snapshots.map((s) => s.reserveA.toString())).toEqual(['1001', '1000']);
      expect(book.historyOf(quiet)?.value.trailingOutputs.tokenB.isZero()).toBe(true);
      expect(book.historyOf(quiet)?.value.lastReconciliationOk).toBeNull();
      expect(book.historyOf(mismatched)?.value.lastReconciliationOk).toBe(false);
      expect(book.historyOf(recovered)?.value.lastReconciliationOk).toBe(true);
      expect(book.historyOf(unrecorded)?.value.incompleteCompletedSwaps).toBe(1);

      // A writer's invalidation shows its change in that pool's history.
      await swap(db, quiet, { side: 'b', output: '12', at: minutesAgo(1) });
      await book.invalidate(quiet);
      expect(book.historyOf(quiet)?.value.trailingOutputs.tokenA.toString()).toBe('12');

      // A move of the reserves re-reads what trades change, in two statements, and keeps the
      // snapshots and the reconciliation of the last full read: a snapshot written since shows
      // only at the next full read.
      await swap(db, busy, { side: 'a', output: '1.5', at: minutesAgo(1) });
      await swap(db, busy, { side: 'a', output: '4', at: minutesAgo(1), recorded: false });
      await putPoolSnapshot(db, {
        poolId: busy,
        hour: hourOf(NOW),
        reserveA: Amount.parse('2000'),
        reserveB: Amount.parse('250'),
        priceUsd: null,
      });
      await insertReconciliationRun(db, { poolId: busy, ok: false, details: {}, at: at(1) });
      const { store, book: reread } = await countedBook(db);
      try {
        await insertReconciliationRun(db, { poolId: busy, ok: true, details: {}, at: at(0) });
        await swap(db, busy, { side: 'b', output: '30', at: minutesAgo(0) });
        const before = store.count();
        await reread.invalidate(busy, 'reserves');
        expect(store.count() - before).toBe(1 + 2);
        const moved = reread.historyOf(busy)?.value;
        expect(moved?.trailingOutputs.tokenA.toString()).toBe('430');
        expect(moved?.trailingOutputs.tokenB.toString()).toBe('11.25');
        expect(moved?.incompleteCompletedSwaps).toBe(1);
        expect(moved?.lastReconciliationOk).toBe(false);
        expect(moved?.snapshots.map((s) => s.reserveA.toString())).toEqual(['1001', '2000']);
        await reread.invalidate(busy);
        expect(reread.historyOf(busy)?.value.lastReconciliationOk).toBe(true);
      } finally {
        reread.close();
      }
    } finally {
      book.close();
    }
  });

  it('reads the histories of 2 000 pools with a handful of statements', async () => {
    const ids = await addPools(db, 100, 2_000);
    const { store, book } = await countedBook(db);
    try {
      expect(store.count()).toBeLessThanOrEqual(OPENING_STATEMENTS_MAX);
      for (const poolId of ids) expect(book.historyOf(poolId)).not.toBeNull();

      // One pool's invalidation re-reads the pools and that pool's history alone.
      const before = store.count();
      await book.invalidate(ids[7]);
      expect(store.count() - before).toBeLessThanOrEqual(OPENING_STATEMENTS_MAX);

      // Re-reading every history costs the same few statements, not one per pool.
      const beforeAll = store.count();
      await book.refreshHistories();
      expect(store.count() - beforeAll).toBeLessThanOrEqual(HISTORY_STATEMENTS);

      // Pools added later: the pools are read once, then three reads of histories (the new
      // pools', every pool's after the invalidation, and the one asked for), none per pool.
      const added = await addPools(db, 5_000, 300);
      const beforeAdded = store.count();
      await book.invalidate();
      // A quote of a pool just added must not find it without a history.
      for (const poolId of added) expect(book.historyOf(poolId)).not.toBeNull();
      await book.refreshHistories();
      expect(store.count() - beforeAdded).toBeLessThanOrEqual(1 + 3 * HISTORY_STATEMENTS);
    } finally {
      book.close();
    }
  }, 120_000);
});
