/**
 * A swap on a quiet service: each deposit is sent only after the previous swap completed, so
 * every swap meets an idle engine. Batching must not make a lone swap wait for company; the
 * target is deposit → completed within 100 ms at zero ledger latency (the in-memory devnet
 * ledger). Measured on PGlite with one engine (what `npm start` runs) and, when PostgreSQL
 * answers, on it with one engine; latency as in settlement.ts (ledger clock, deposit submit →
 * the `completed` row's `at`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Database, openPglite } from '@poolparty/store';
import { inFreshSchema, postgresSkipReason } from '@poolparty/store/testing';
import { isMain, percentile, table } from './report.js';
import { deposit, engineDeps, inWorld, POOL_ID, pricedIntents } from './settlement.js';

export const IDLE_SWAP_TARGET_MS = 100;
const SWAPS = 40;
const QUICK_SWAPS = 15;
/** A swap that has not completed by then is reported as not completed, not waited for. */
const SWAP_WAIT_MS = 10_000;
/** How often completion is looked for; the figure is read from the store, not from this. */
const POLL_MS = 2;

export interface IdleSwapRun {
  readonly store: string;
  readonly swaps: number;
  readonly completed: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export interface IdleSwapBench {
  readonly runs: readonly IdleSwapRun[];
  readonly skipped: string | null;
}

/** When the intent's `completed` event was recorded (service clock, epoch ms); null before. */
export async function completedAtOf(db: Database, intentId: string): Promise<number | null> {
  const rows = await db.query<{ at: Date | string }>(
    `SELECT at FROM intent_events WHERE intent_id = $1 AND status = 'completed'`,
    [intentId],
  );
  const at = rows[0]?.at;
  return at === undefined ? null : new Date(at).getTime();
}

async function oneAtATime(label: string, db: Database, swaps: number): Promise<IdleSwapRun> {
  return inWorld([db], async (world, start) => {
    await start({ ...engineDeps(world), db });
    const intents = await pricedIntents(world, swaps, [POOL_ID]);
    // The engine takes in the seed and the set-up first: the swaps then meet an idle engine.
    await sleep(500);
    const latencies: number[] = [];
    for (const intent of intents) {
      const submittedMs = world.clock.now().getTime();
      await deposit(world, intent);
      const deadline = Date.now() + SWAP_WAIT_MS;
      let doneMs: number | null = null;
      while (doneMs === null && Date.now() < deadline) {
        doneMs = await completedAtOf(db, intent.intentId);
        if (doneMs === null) await sleep(POLL_MS);
      }
      if (doneMs !== null) latencies.push(doneMs - submittedMs);
    }
    return {
      store: label,
      swaps,
      completed: latencies.length,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      maxMs: Math.max(...latencies),
    };
  });
}

export async function benchIdleSwap(quick = false): Promise<IdleSwapBench> {
  const swaps = quick ? QUICK_SWAPS : SWAPS;
  const dataDir = mkdtempSync(join(tmpdir(), 'poolparty-idle-'));
  const runs: IdleSwapRun[] = [];
  const pglite = await openPglite(dataDir);
  try {
    runs.push(await oneAtATime('PGlite, 1 engine', pglite, swaps));
  } finally {
    await pglite.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const skipped = await postgresSkipReason('idle swap on PostgreSQL');
  if (skipped === null) {
    // openWorld migrates the schema.
    const run = await inFreshSchema('pp_bench_idle', { migrated: false }, ({ databases }) =>
      oneAtATime('PostgreSQL, 1 engine', databases[0] as Database, swaps),
    );
    runs.push(run);
  }
  return { runs, skipped };
}

/** Every swap completed, each run's p99 within the target. */
export function meetsIdleSwapTarget(result: IdleSwapBench): boolean {
  return (
    result.runs.length > 0 &&
    result.runs.every((r) => r.completed === r.swaps && r.p99Ms <= IDLE_SWAP_TARGET_MS)
  );
}

export function printIdleSwapBench(result: IdleSwapBench): void {
  console.log('a swap on a quiet service: deposit → completed, one at a time, zero ledger latency');
  const ms = (n: number) => n.toFixed(1);
  console.log(
    table([
      ['  store', 'completed', 'p50 ms', 'p99 ms', 'max ms'],
      ...result.runs.map((r) => [
        `  ${r.store}`,
        `${r.completed}/${r.swaps}`,
        ms(r.p50Ms),
        ms(r.p99Ms),
        ms(r.maxMs),
      ]),
    ]),
  );
  if (result.skipped !== null) console.log(`  PostgreSQL skipped: ${result.skipped}`);
}

if (isMain(import.meta.url)) {
  printIdleSwapBench(await benchIdleSwap(process.argv.includes('--quick')));
}
