/**
 * Store round trips per swap: N swaps settled end to end (deposit → attribution → execution →
 * payout → confirmation) by one engine on PGlite in a temporary data folder, at zero ledger
 * latency, with every statement the engine sends counted by a wrapper around the store.
 *
 * Two loads:
 * - one at a time: each deposit is made once the previous swap completed, so nothing can share a
 *   transaction with anything else: the cost of a swap on a quiet service;
 * - burst: every deposit is made at once, so the engine finds many updates and many queued swaps
 *   per round: the cost of a swap under load.
 *
 * Counted: every `query` and `exec` on the store or inside a transaction, and the transactions
 * themselves (their BEGIN and COMMIT are not in the statement count). Setup (pools, funded
 * parties, priced intents) goes through the store directly and is not counted.
 *
 *   node --import tsx bench/queries-per-swap.ts [swaps]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CountingDatabase, type StoreCounts } from '@poolparty/settlement/testing';
import { type Database, openPglite } from '@poolparty/store';
import { isMain, table } from './report.js';
import {
  DEPOSIT,
  deposit,
  engineDeps,
  inWorld,
  POOL_ID,
  pricedIntents,
  type StartEngine,
  type World,
} from './settlement.js';

const DEFAULT_SWAPS = 200;
const POLL_INTERVAL_MS = 5;
/** A run stops waiting this long after its last deposit, settled or not (the output shows it). */
const SETTLE_WAIT_MS = 60_000;

export interface QueriesRun {
  readonly load: string;
  readonly swaps: number;
  readonly completed: number;
  readonly counts: StoreCounts;
  /** Wall time from the first deposit to the last swap completed. */
  readonly elapsedMs: number;
}

async function completedCount(db: Database): Promise<number> {
  const rows = await db.query<{ n: string | number }>(
    `SELECT count(*) AS n FROM intents WHERE status = 'completed'`,
  );
  return Number(rows[0]?.n);
}

async function waitForCompleted(db: Database, count: number, deadlineMs: number): Promise<void> {
  while ((await completedCount(db)) < count && Date.now() < deadlineMs) {
    await sleep(POLL_INTERVAL_MS);
  }
}

async function run(load: 'one at a time' | 'burst', swaps: number): Promise<QueriesRun> {
  const dataDir = mkdtempSync(join(tmpdir(), 'poolparty-queries-'));
  const db = await openPglite(dataDir);
  try {
    return await inWorld([db], (world, start) => measure(world, start, db, load, swaps));
  } finally {
    await db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** One run's swaps on a started world: the engine's statements counted from the first deposit. */
async function measure(
  world: World,
  start: StartEngine,
  db: Database,
  load: 'one at a time' | 'burst',
  swaps: number,
): Promise<QueriesRun> {
  const counting = new CountingDatabase(db);
  await start({ ...engineDeps(world), db: counting });
  const intents = await pricedIntents(world, swaps, [POOL_ID]);
  // Let the engine take in the seed and the set-up before counting starts.
  await sleep(500);
  counting.counts.statements = 0;
  counting.counts.transactions = 0;
  const startedMs = Date.now();
  if (load === 'burst') {
    await Promise.all(intents.map((intent) => deposit(world, intent)));
    await waitForCompleted(db, intents.length, Date.now() + SETTLE_WAIT_MS);
  } else {
    for (const [i, intent] of intents.entries()) {
      await deposit(world, intent);
      await waitForCompleted(db, i + 1, Date.now() + SETTLE_WAIT_MS);
    }
  }
  const counts = { ...counting.counts };
  const elapsedMs = Date.now() - startedMs;
  return { load, swaps, completed: await completedCount(db), counts, elapsedMs };
}

export async function benchQueriesPerSwap(swaps = DEFAULT_SWAPS): Promise<QueriesRun[]> {
  return [await run('one at a time', swaps), await run('burst', swaps)];
}

export function printQueriesPerSwap(runs: readonly QueriesRun[]): void {
  console.log(
    `store round trips per swap: ${runs[0]?.swaps} swaps of ${DEPOSIT} Amulet on ${POOL_ID}, one engine, PGlite, zero ledger latency`,
  );
  const rows = runs.map((r) => [
    r.load,
    `${r.completed}/${r.swaps}`,
    String(r.counts.statements),
    (r.counts.statements / r.swaps).toFixed(1),
    (r.counts.transactions / r.swaps).toFixed(2),
    (r.elapsedMs / r.swaps).toFixed(1),
  ]);
  const header = [
    'load',
    'completed',
    'statements',
    'statements/swap',
    'transactions/swap',
    'ms/swap',
  ];
  console.log(table([header, ...rows]).replace(/^/gm, '  '));
}

if (isMain(import.meta.url)) {
  const swaps = Number(process.argv[2] ?? DEFAULT_SWAPS);
  if (!Number.isSafeInteger(swaps) || swaps < 1) throw new RangeError(`swaps: ${process.argv[2]}`);
  printQueriesPerSwap(await benchQueriesPerSwap(swaps));
}
