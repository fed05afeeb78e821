/**
 * End-to-end settlement at zero ledger latency (the in-memory devnet ledger): N wallets deposit
 * into one pool at an offered rate, the engine attributes, executes and pays each out, and every
 * swap's deposit → completed latency is read from the store's `intent_events`.
 *
 * The baseline is PGlite with one engine; when PostgreSQL answers, the same load runs on it with
 * two engines, each with its own connection pool, sharing the stream through the advisory lock
 * as two workers of a deployment do (test/multi-worker.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type DevnetSeed,
  type LocalLedger,
  openLocalLedger,
  REASON_META_KEY,
  seedDevnet,
} from '@poolparty/ledger';
import { type Engine, LedgerClock, startEngine } from '@poolparty/settlement';
import { createPricedIntent, fundedParties, registerSeed } from '@poolparty/settlement/testing';
import {
  advisoryLockLeadership,
  type Database,
  type IntentRecord,
  migrate,
  openPglite,
} from '@poolparty/store';
import { inFreshSchema, POSTGRES_URL, postgresSkipReason } from '@poolparty/store/testing';
import { isMain, percentile, table } from './report.js';

export const SWAPS = 300;
/** Deposits arrive at the target rate: a service that keeps up settles them as fast, with low latency. */
export const OFFERED_SWAPS_PER_S = 300;
export const TARGET_SWAPS_PER_S = 300;
/**
 * Capacity is measured apart: at 300 offered per second a service that keeps up settles 300 per
 * second and no more, so swaps/s there tops out near 300 / (1 s + latency) whatever the engine
 * could do. Twice the target rate for two seconds overloads an engine below 600/s, whose
 * swaps/s is then what it can settle.
 */
export const CAPACITY_SWAPS = 1_200;
export const CAPACITY_OFFERED_PER_S = 600;
/** Four times the swaps of the target run, each a fifth as large: the pool moves as far. */
const CAPACITY_DEPOSIT = '10';
export const TARGET_P99_MS = 250;
export const DEPOSIT = '50';
export const POOL_ID = 'amulet-usdcx';
/** Each run stops waiting this long after its first deposit, settled or not. */
const SETTLE_WAIT_MS = 20_000;
const POLL_INTERVAL_MS = 100;
const LOCK_RECONNECT_DELAY_MS = 50;

export interface SettlementRun {
  readonly label: string;
  readonly engines: number;
  readonly swaps: number;
  readonly completed: number;
  /** The deposit rate reached: below the offered one when the engine shares the thread (PGlite). */
  readonly depositsPerS: number;
  readonly swapsPerS: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface SettlementBench {
  readonly baseline: SettlementRun;
  /** Null when no PostgreSQL answered; `skipped` says why. */
  readonly postgres: SettlementRun | null;
  /** The same deployment overloaded (CAPACITY_LOAD): its swaps/s is what it can settle. */
  readonly capacity: SettlementRun | null;
  readonly skipped: string | null;
}

/** The ledger, its clock and seed, and the stores engines settle on (the first is set up). */
export interface World {
  readonly stores: readonly Database[];
  readonly ledger: LocalLedger;
  readonly clock: LedgerClock;
  readonly seed: DevnetSeed;
}

export async function openWorld(stores: readonly Database[]): Promise<World> {
  const [first] = stores;
  if (!first) throw new Error('no store');
  await migrate(first);
  const ledger = await openLocalLedger({});
  const seed = await seedDevnet(ledger);
  const clock = await LedgerClock.follow(ledger);
  await registerSeed(first, seed, clock.now());
  return { stores, ledger, clock, seed };
}

/** Starts an engine that `inWorld` stops at the end of its run. */
export type StartEngine = (deps: Parameters<typeof startEngine>[0]) => Promise<Engine>;

/**
 * Runs `measure` on a new world over `stores`, then stops every engine it started through
 * `start` and closes the ledger, whether it returned or threw: the set-up and tear-down every
 * in-process benchmark shares, so none leaves an engine polling a closed ledger.
 */
export async function inWorld<T>(
  stores: readonly Database[],
  measure: (world: World, start: StartEngine) => Promise<T>,
): Promise<T> {
  const engines: Engine[] = [];
  let ledger: LocalLedger | null = null;
  try {
    const world = await openWorld(stores);
    ledger = world.ledger;
    return await measure(world, async (deps) => {
      const engine = await startEngine(deps);
      engines.push(engine);
      return engine;
    });
  } finally {
    await Promise.all(engines.map((engine) => engine.stop()));
    await ledger?.close();
  }
}

/** The seeded pools, in the order a curve adds them; each takes Amulet in. */
export const SEEDED_POOL_IDS = ['amulet-usdcx', 'amulet-usdcx-bridge', 'amulet-cbtc'] as const;

/** `count` funded parties, each with an intent to swap `amount` Amulet on one of `poolIds`. */
export async function pricedIntents(
  world: World,
  count: number,
  poolIds: readonly string[],
  amount: string = DEPOSIT,
): Promise<IntentRecord[]> {
  const { amulet, usdcx, usdcxBridged, cbtc } = world.seed.instruments;
  // Every output pre-approved, so each payout settles at once rather than as an offer.
  const preapproved = [amulet, usdcx, usdcxBridged, cbtc];
  const parties = await fundedParties(world.ledger, count, preapproved, amulet, amount);
  const intents: IntentRecord[] = [];
  for (const [i, party] of parties.entries()) {
    intents.push(
      await createPricedIntent(world.stores[0] as Database, world.ledger, {
        poolId: poolIds[i % poolIds.length] as string,
        party,
        input: amulet,
        amount,
        developerParty: world.seed.developer.partyId,
        now: world.clock.now(),
      }),
    );
  }
  return intents;
}

/** Sends the deposits evenly spaced at the offered rate; the submit time of each, by intent. */
async function depositPaced(world: World, intents: readonly IntentRecord[], perS: number) {
  const submittedAt = new Map<string, number>();
  const startMs = Date.now();
  for (const [i, intent] of intents.entries()) {
    const dueInMs = startMs + (i * 1000) / perS - Date.now();
    if (dueInMs > 1) await sleep(dueInMs);
    submittedAt.set(intent.intentId, world.clock.now().getTime());
    await deposit(world, intent);
  }
  return submittedAt;
}

/** The intent's wallet sends its Amulet deposit, as a wallet would. */
export function deposit(world: World, intent: IntentRecord) {
  return world.ledger.submitTransfer({
    commandId: `bench-deposit-${randomUUID()}`,
    sender: intent.walletParty,
    receiver: intent.depositAddress,
    instrument: world.seed.instruments.amulet,
    amount: intent.expectedAmount,
    meta: { [REASON_META_KEY]: intent.depositReference },
  });
}

async function completedAt(db: Database): Promise<Map<string, number>> {
  const rows = await db.query<{ intent_id: string; at: Date | string }>(
    `SELECT intent_id, at FROM intent_events WHERE status = 'completed'`,
  );
  return new Map(rows.map((row) => [row.intent_id, new Date(row.at).getTime()]));
}

async function waitForSettlement(db: Database, count: number, deadlineMs: number) {
  for (;;) {
    const rows = await db.query<{ n: string | number }>(
      `SELECT count(*) AS n FROM intents WHERE status = 'completed'`,
    );
    if (Number(rows[0]?.n) >= count || Date.now() > deadlineMs) return;
    await sleep(POLL_INTERVAL_MS);
  }
}

interface Load {
  readonly swaps: number;
  readonly poolIds: readonly string[];
  readonly offeredPerS: number;
  /** Amulet per deposit: every swap goes one way, so many large ones would move the price past
   * the later intents' slippage bounds and end as refunds rather than swaps. */
  readonly amount: string;
}

const DEFAULT_SETTLEMENT_LOAD: Load = {
  swaps: SWAPS,
  poolIds: [POOL_ID],
  offeredPerS: OFFERED_SWAPS_PER_S,
  amount: DEPOSIT,
};
const CAPACITY_LOAD: Load = {
  swaps: CAPACITY_SWAPS,
  poolIds: [POOL_ID],
  offeredPerS: CAPACITY_OFFERED_PER_S,
  amount: CAPACITY_DEPOSIT,
};

async function settle(label: string, world: World, engines: readonly Engine[], load: Load) {
  const intents = await pricedIntents(world, load.swaps, load.poolIds, load.amount);
  const startedMs = Date.now();
  const submittedAt = await depositPaced(world, intents, load.offeredPerS);
  const db = world.stores[0] as Database;
  await waitForSettlement(db, intents.length, startedMs + SETTLE_WAIT_MS);
  return summarise(label, engines.length, submittedAt, await completedAt(db));
}

/** Rates and latencies from each swap's deposit time and completion time (ledger clock, ms). */
export function summarise(
  label: string,
  engines: number,
  submittedAt: ReadonlyMap<string, number>,
  completedAt: ReadonlyMap<string, number>,
): SettlementRun {
  const latencies: number[] = [];
  let lastDoneMs = 0;
  for (const [intentId, submitMs] of submittedAt) {
    const doneMs = completedAt.get(intentId);
    if (doneMs === undefined) continue;
    latencies.push(doneMs - submitMs);
    lastDoneMs = Math.max(lastDoneMs, doneMs);
  }
  const firstMs = Math.min(...submittedAt.values());
  const lastSubmitMs = Math.max(...submittedAt.values());
  return {
    label,
    engines,
    swaps: submittedAt.size,
    completed: latencies.length,
    depositsPerS: (submittedAt.size - 1) / ((lastSubmitMs - firstMs) / 1000),
    swapsPerS: latencies.length / ((lastDoneMs - firstMs) / 1000),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}

async function runOnPglite(): Promise<SettlementRun> {
  const dataDir = mkdtempSync(join(tmpdir(), 'poolparty-bench-'));
  const db = await openPglite(dataDir);
  try {
    return await inWorld([db], async (world, start) => {
      const engine = await start({ ...engineDeps(world), db });
      return settle('PGlite, 1 engine', world, [engine], DEFAULT_SETTLEMENT_LOAD);
    });
  } finally {
    await db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function runOnPostgres(
  workers = 2,
  load: Load = DEFAULT_SETTLEMENT_LOAD,
): Promise<SettlementRun> {
  // One pool per worker, as separate processes open it; openWorld migrates the schema.
  const fresh = { processes: workers, migrated: false };
  return inFreshSchema('pp_bench', fresh, async ({ schema, databases: stores }) =>
    inWorld(stores, async (world, start) => {
      const engines: Engine[] = [];
      for (const db of stores) {
        const leadership = advisoryLockLeadership({
          url: POSTGRES_URL,
          schema,
          reconnectDelayMs: LOCK_RECONNECT_DELAY_MS,
        });
        engines.push(await start({ ...engineDeps(world), db, leadership }));
      }
      const pools = load.poolIds.length === 1 ? '' : `, ${load.poolIds.length} pools`;
      const offered = `, ${load.swaps} at ${load.offeredPerS}/s`;
      return settle(`PostgreSQL, ${workers} engines${pools}${offered}`, world, engines, load);
    }),
  );
}

/** What an engine needs of the world besides its store; the bench has no quoter to refresh. */
export function engineDeps(world: World) {
  return { ledger: world.ledger, clock: world.clock, quoter: { invalidate: () => {} } };
}

export async function benchSettlement(): Promise<SettlementBench> {
  const baseline = await runOnPglite();
  const skipped = await postgresSkipReason('settlement bench on PostgreSQL');
  const postgres = skipped === null ? await runOnPostgres() : null;
  const capacity = skipped === null ? await runOnPostgres(2, CAPACITY_LOAD) : null;
  return { baseline, postgres, capacity, skipped };
}

export interface SettlementPoint {
  readonly workers: number;
  readonly pools: number;
  readonly run: SettlementRun;
}

/**
 * Settlement throughput as workers and pools grow, on PostgreSQL (each worker an engine with its
 * own connection pool); `swaps` deposits at the overloading rate of the capacity run, spread
 * round-robin over the pools, so swaps/s is what each deployment can settle (up to that rate).
 */
export async function benchSettlementCurve(
  workerCounts: readonly number[],
  poolCounts: readonly number[],
  swaps: number,
): Promise<{ points: SettlementPoint[]; skipped: string | null }> {
  const skipped = await postgresSkipReason('settlement curve on PostgreSQL');
  if (skipped !== null) return { points: [], skipped };
  const points: SettlementPoint[] = [];
  for (const pools of poolCounts) {
    for (const workers of workerCounts) {
      const poolIds = SEEDED_POOL_IDS.slice(0, pools);
      const load = { ...CAPACITY_LOAD, swaps, poolIds };
      points.push({ workers, pools, run: await runOnPostgres(workers, load) });
    }
  }
  return { points, skipped: null };
}

/** Capacity from the overloaded run, latency from the run at the target rate; all completed. */
export function meetsSettlementTargets(
  atTarget: SettlementRun,
  overloaded: SettlementRun,
): boolean {
  return (
    atTarget.completed === atTarget.swaps &&
    atTarget.p99Ms <= TARGET_P99_MS &&
    overloaded.completed === overloaded.swaps &&
    overloaded.swapsPerS >= TARGET_SWAPS_PER_S
  );
}

export function printSettlementBench(result: SettlementBench): void {
  console.log(
    `settlement: swaps of ${DEPOSIT} Amulet on ${POOL_ID}, deposits offered at a steady rate, zero ledger latency`,
  );
  const runs = [
    result.baseline,
    ...(result.postgres ? [result.postgres] : []),
    ...(result.capacity ? [result.capacity] : []),
  ];
  console.log(runsTable(runs));
  console.log(
    `  targets: deposit → completed p99 ≤ ${TARGET_P99_MS} ms at ${OFFERED_SWAPS_PER_S}/s offered, and ≥ ${TARGET_SWAPS_PER_S} swaps/s at ${CAPACITY_OFFERED_PER_S}/s offered, 2 workers on PostgreSQL`,
  );
  if (result.postgres === null || result.capacity === null) {
    console.log(`  PostgreSQL run skipped: ${result.skipped}`);
    return;
  }
  const ratio = result.postgres.swapsPerS / result.baseline.swapsPerS;
  console.log(`  PostgreSQL / PGlite swaps/s = ${ratio.toFixed(2)}×`);
  const met = meetsSettlementTargets(result.postgres, result.capacity);
  console.log(`  PostgreSQL run: targets ${met ? 'met' : 'NOT met'}`);
}

/** One row per run, indented under its heading. */
function runsTable(runs: readonly SettlementRun[]): string {
  const rows = runs.map((run) => [
    run.label,
    `${run.completed}/${run.swaps}`,
    run.depositsPerS.toFixed(0),
    run.swapsPerS.toFixed(0),
    run.p50Ms.toFixed(0),
    run.p99Ms.toFixed(0),
  ]);
  const header = ['run', 'completed', 'deposits/s', 'swaps/s', 'p50 ms', 'p99 ms'];
  return table([header, ...rows]).replace(/^/gm, '  ');
}

if (isMain(import.meta.url)) {
  // `--postgres-only` / `--capacity`: one PostgreSQL run alone (at the target rate / overloaded),
  // for profiling the target's configuration.
  const capacity = process.argv.includes('--capacity');
  if (capacity || process.argv.includes('--postgres-only')) {
    const run = await runOnPostgres(2, capacity ? CAPACITY_LOAD : DEFAULT_SETTLEMENT_LOAD);
    console.log(runsTable([run]));
  } else {
    printSettlementBench(await benchSettlement());
  }
}
