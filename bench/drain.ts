/**
 * Settlement capacity as a drain: N deposits (20 000 by default) already sit on the embedded
 * ledger, each from its own pre-approving wallet with a priced intent, before any engine starts;
 * then two engines on PostgreSQL (separate stores, sharing the stream through the advisory lock)
 * are started and the clock runs until the last swap is `completed`. swaps/s = N / elapsed.
 *
 * Why a drain: the paced settlement bench (settlement.ts) offers deposits from the engines' own
 * thread, so its swaps/s tops out near the offered rate; here nothing is offered during the
 * window, so what is measured is what the deployment can settle — ingest, execution, payouts and
 * their confirmations — and nothing else.
 *
 * And what limits it, over the drain window: this process's CPU (engines and embedded ledger
 * share its thread), PostgreSQL's CPU (its processes' utime + stime from /proc), the machine's,
 * the statements each swap cost (each engine's store wrapped in `CountingDatabase`) and the
 * ledger calls each swap cost (each engine's ledger port wrapped in a counter).
 *
 *   node --import tsx bench/drain.ts [--quick] [--swaps N]
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { IN_PROGRESS_STATES } from '@poolparty/core';
import type { LedgerPort } from '@poolparty/ledger';
import { type Engine, startEngine } from '@poolparty/settlement';
import {
  CountingDatabase,
  createPricedIntent,
  fundedParties,
  type StoreCounts,
} from '@poolparty/settlement/testing';
import {
  advisoryLockLeadership,
  applicationName,
  type Database,
  type IntentRecord,
  listPools,
  openPostgres,
} from '@poolparty/store';
import {
  checkpoint,
  createSchema,
  dropSchema,
  POSTGRES_URL,
  postgresSkipReason,
} from '@poolparty/store/testing';
import { postgresTicks, postgresTicksSpent, TICKS_PER_S } from './process-cpu.js';
import { isMain, table } from './report.js';
import { deposit, engineDeps, openWorld, type World } from './settlement.js';

export const DRAIN_SWAPS = 20_000;
export const QUICK_DRAIN_SWAPS = 2_000;
export const DRAIN_TARGET_SWAPS_PER_S = 1_000;
const ENGINES = 2;
/**
 * Amulet per deposit: just above the network fee (8.28 Amulet at the devnet's price), so each
 * swap puts about 0.72 Amulet into its pool and 20 000 of them move no pool's price by more than
 * about 1.5 %, well inside the intents' 5 % slippage and the guard's 5 % price deviation: every
 * one completes as a swap, none as a refund.
 */
export const DRAIN_DEPOSIT = '9';
/** The seeded pools weighted by their Amulet reserve (1 M, 0.4 M, 1 M): each moves as far. */
const POOL_ROTATION = [
  'amulet-usdcx',
  'amulet-cbtc',
  'amulet-usdcx-bridge',
  'amulet-usdcx',
  'amulet-cbtc',
] as const;
/** Above this planned move of a pool's spot price the set-up stops: swaps would end refunded. */
const PLANNED_PRICE_MOVE_MAX = 0.03;
/** Wallets set up at once: each is a few ledger calls and store statements, mostly waiting. */
const SETUP_LANES = 16;
const SETUP_PROGRESS_INTERVAL_MS = 3_000;
/** A set-up not done by then stops the run: something is wrong, not slow. */
const SETUP_DEADLINE_MS = 10 * 60_000;
/** How often the drain's end is looked for; the elapsed time comes from the events, not this. */
const POLL_INTERVAL_MS = 100;
const PROGRESS_INTERVAL_MS = 1_000;
/** A drain not finished this long after the engines started reports what completed and fails. */
export const DRAIN_DEADLINE_MS = 180_000;
/** Stopping the engines after the drain: a stop that hangs is reported, not waited on forever. */
const STOP_DEADLINE_MS = 30_000;
const LOCK_RECONNECT_DELAY_MS = 50;
/** A resource at or above this share of its capacity counts as saturated in the verdict. */
const SATURATED_SHARE = 0.9;
/** Other processes using this much of a core over the window make its figures contended ones. */
const CONTENDED_OTHERS_PCT_OF_CORE = 25;

export interface DrainOptions {
  readonly swaps?: number;
  readonly deadlineMs?: number;
}

/** Times from the engines' start (ms) to the first and last intent reaching each stage. */
export interface DrainStages {
  /** `deposit_received`: the deposit ingested and attributed. */
  readonly ingested: StageSpan | null;
  /** `sending_output`: executed against the pool, the payout recorded. */
  readonly executed: StageSpan | null;
  /** `completed`: the payout's update ingested. */
  readonly completed: StageSpan | null;
}

export interface StageSpan {
  readonly firstMs: number;
  readonly lastMs: number;
}

export interface DrainCpu {
  /** This process (engines, embedded ledger, the bench's watcher), % of one core. */
  readonly processPctOfCore: number;
  /** Every process named `postgres`, other sessions on the server included, % of one core. */
  readonly postgresPctOfCore: number;
  /** The backends of this drain's engines (their pools, listeners, leader locks), % of one core. */
  readonly drainSessionsPctOfCore: number;
  /** The busiest of those backends alone: near 100 %, one session is a serial bottleneck. */
  readonly busiestBackendPctOfCore: number;
  /** Everything on the machine, % of all its cores together (100 = every core busy). */
  readonly machinePctOfCores: number;
  readonly cores: number;
}

export interface DrainResult {
  readonly swaps: number;
  readonly completed: number;
  /** Every intent's status at the end, by status. */
  readonly statuses: Readonly<Record<string, number>>;
  readonly setupMs: number;
  /** Engines started → last swap completed (or the deadline). */
  readonly elapsedMs: number;
  readonly swapsPerS: number;
  readonly deadlineHit: boolean;
  readonly stages: DrainStages;
  readonly cpu: DrainCpu;
  readonly store: StoreCounts;
  readonly ledgerCalls: Readonly<Record<string, number>>;
  /** The engines' pooled PostgreSQL sessions sampled at every poll, by what each was doing. */
  readonly sessions: Readonly<Record<string, number>>;
  /** How far each pool's spot price (output per Amulet) moved over the drain, as a fraction. */
  readonly priceMoves: Readonly<Record<string, number>>;
}

/** The ledger port with every call counted by method: what the engines asked of the ledger. */
function countingLedger(ledger: LedgerPort): { port: LedgerPort; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const port = new Proxy(ledger, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      return (...args: unknown[]) => {
        calls.set(property, (calls.get(property) ?? 0) + 1);
        return value.apply(target, args);
      };
    },
  });
  return { port, calls };
}

/** The machine's busy and total ticks over all cores, from /proc/stat's first line. */
function machineTicks(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const ticks = line.trim().split(/\s+/).slice(1).map(Number);
  const total = ticks.reduce((sum, n) => sum + n, 0);
  // idle and iowait are the 4th and 5th figures.
  return { busy: total - (ticks[3] ?? 0) - (ticks[4] ?? 0), total };
}

interface CpuMark {
  readonly atMs: number;
  readonly process: NodeJS.CpuUsage;
  readonly postgres: ReadonlyMap<number, number>;
  readonly machine: { busy: number; total: number };
}

function markCpu(): CpuMark {
  return {
    atMs: performance.now(),
    process: process.cpuUsage(),
    postgres: postgresTicks(),
    machine: machineTicks(),
  };
}

/**
 * The backends of this drain's sessions: each names the schema in its application name. The
 * watcher asking is left out: its polls are the bench's, not the engines'.
 */
async function drainBackends(watcher: Database, schema: string): Promise<Set<number>> {
  const suffix = `:${schema}`;
  const rows = await watcher.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity
      WHERE right(application_name, length($1)) = $1 AND pid <> pg_backend_pid()`,
    [suffix],
  );
  return new Set(rows.map((row) => Number(row.pid)));
}

/**
 * CPU since `start`. A postgres process's time counts from its value at `start` (0 for one born
 * since); a backend that ended in the window takes its time with it, so PostgreSQL's figures are
 * a floor.
 */
function cpuSince(start: CpuMark, drainPids: ReadonlySet<number>): DrainCpu {
  const end = markCpu();
  const wallS = (end.atMs - start.atMs) / 1000;
  const used = process.cpuUsage(start.process);
  const postgres = postgresTicksSpent(start.postgres, end.postgres);
  const drain = postgresTicksSpent(start.postgres, end.postgres, (pid) => drainPids.has(pid));
  const spentBy = (pid: number) =>
    postgresTicksSpent(start.postgres, end.postgres, (p) => p === pid);
  const busiest = Math.max(0, ...[...drainPids].map(spentBy));
  const pctOfCore = (ticks: number) => (ticks / TICKS_PER_S / wallS) * 100;
  const machineTotal = Math.max(1, end.machine.total - start.machine.total);
  return {
    processPctOfCore: ((used.user + used.system) / 1e6 / wallS) * 100,
    postgresPctOfCore: pctOfCore(postgres),
    drainSessionsPctOfCore: pctOfCore(drain),
    busiestBackendPctOfCore: pctOfCore(busiest),
    machinePctOfCores: ((end.machine.busy - start.machine.busy) / machineTotal) * 100,
    cores: availableParallelism(),
  };
}

/** 20000 → "20 000", as the progress lines print counts. */
function count(n: number): string {
  return Math.round(n).toLocaleString('en-US').replaceAll(',', ' ');
}

/**
 * `swaps` wallets, each funded and pre-approving every output, each with an intent priced as
 * `POST /v1/swaps` would price it and its deposit submitted: all on the ledger before any engine
 * runs. Lanes run side by side, since each wallet mostly waits on the ledger or the store.
 */
async function depositAll(world: World, swaps: number): Promise<IntentRecord[]> {
  const { amulet, usdcx, usdcxBridged, cbtc } = world.seed.instruments;
  const preapproved = [amulet, usdcx, usdcxBridged, cbtc];
  const db = world.stores[0] as Database;
  const intents: IntentRecord[] = [];
  const deadlineMs = Date.now() + SETUP_DEADLINE_MS;
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < swaps; i = next++) {
      if (Date.now() > deadlineMs) {
        throw new Error(`set-up not done within ${SETUP_DEADLINE_MS} ms: ${intents.length}`);
      }
      const [party] = await fundedParties(world.ledger, 1, preapproved, amulet, DRAIN_DEPOSIT);
      const intent = await createPricedIntent(db, world.ledger, {
        poolId: POOL_ROTATION[i % POOL_ROTATION.length] as string,
        party: party as string,
        input: amulet,
        amount: DRAIN_DEPOSIT,
        developerParty: world.seed.developer.partyId,
        now: world.clock.now(),
      });
      await deposit(world, intent);
      intents.push(intent);
    }
  };
  const progress = setInterval(
    () => console.log(`setup: ${count(intents.length)} / ${count(swaps)} intents deposited`),
    SETUP_PROGRESS_INTERVAL_MS,
  );
  try {
    await Promise.all(Array.from({ length: SETUP_LANES }, lane));
  } finally {
    clearInterval(progress);
  }
  return intents;
}

/** Each pool's spot price: output per Amulet (tokenA is Amulet in every seeded pool). */
async function spotPrices(db: Database): Promise<Map<string, number>> {
  const pools = await listPools(db);
  return new Map(
    pools.map((pool) => [
      pool.poolId,
      Number(pool.accounting.reserveB) / Number(pool.accounting.reserveA),
    ]),
  );
}

/**
 * Refuses a set-up whose swaps would move a pool's price far enough to end some as refunds
 * (slippage, the guard's deviation): constant product, Δ Amulet into x moves y/x by
 * 1 − (x / (x + Δ))². Every intent was priced at the books before the drain.
 */
async function checkPriceImpact(db: Database, intents: readonly IntentRecord[]): Promise<void> {
  const inflow = new Map<string, number>();
  for (const intent of intents) {
    const added = Number(intent.inputAmountAfterPoolFee);
    inflow.set(intent.poolId, (inflow.get(intent.poolId) ?? 0) + added);
  }
  const moves: string[] = [];
  for (const pool of await listPools(db)) {
    const x = Number(pool.accounting.reserveA);
    const move = 1 - (x / (x + (inflow.get(pool.poolId) ?? 0))) ** 2;
    moves.push(`${pool.poolId} ${(move * 100).toFixed(2)} %`);
    if (move > PLANNED_PRICE_MOVE_MAX) {
      throw new Error(`the swaps would move ${pool.poolId}'s price ${(move * 100).toFixed(1)} %`);
    }
  }
  console.log(`setup: planned price moves ${moves.join(', ')}`);
}

/** Two engines, each on its own store, sharing the stream through PostgreSQL's advisory lock. */
async function startEngines(
  world: World,
  schema: string,
  stores: readonly Database[],
  ledger: LedgerPort,
): Promise<Engine[]> {
  const engines: Engine[] = [];
  for (const db of stores) {
    const leadership = advisoryLockLeadership({
      url: POSTGRES_URL,
      schema,
      reconnectDelayMs: LOCK_RECONNECT_DELAY_MS,
    });
    engines.push(await startEngine({ ...engineDeps(world), ledger, db, leadership }));
  }
  return engines;
}

/** Every engine stopped, or the stop given up on after STOP_DEADLINE_MS (said, not hidden). */
async function stopEngines(engines: readonly Engine[]): Promise<void> {
  const stopped = Promise.all(engines.map((engine) => engine.stop())).then(() => true);
  const late = sleep(STOP_DEADLINE_MS, false, { ref: false });
  if (!(await Promise.race([stopped, late]))) {
    console.log(`  the engines did not stop within ${STOP_DEADLINE_MS} ms`);
  }
}

async function statusCounts(db: Database): Promise<Record<string, number>> {
  const rows = await db.query<{ status: string; n: string | number }>(
    `SELECT status, count(*) AS n FROM intents GROUP BY status`,
  );
  return Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]));
}

const inProgress: ReadonlySet<string> = new Set(IN_PROGRESS_STATES);

function sumOf(statuses: Record<string, number>, which: (status: string) => boolean): number {
  return Object.entries(statuses).reduce((sum, [status, n]) => sum + (which(status) ? n : 0), 0);
}

/** One progress line: completed so far, the rate over the last second and overall, the stages. */
function progressLine(statuses: Record<string, number>, elapsedMs: number, rate: number): string {
  const completed = statuses.completed ?? 0;
  const queued = (statuses.deposit_received ?? 0) + (statuses.forwarded ?? 0);
  const refunded = sumOf(statuses, (s) => !inProgress.has(s) && s !== 'completed');
  const s = elapsedMs / 1000;
  return (
    `drain ${s.toFixed(1)} s: ${count(completed)} completed (${count(rate)}/s now, ` +
    `${count(completed / s)}/s overall); not ingested ${count(statuses.pending ?? 0)}, ` +
    `queued ${count(queued)}, processing ${count(statuses.processing ?? 0)}, ` +
    `paying out ${count(statuses.sending_output ?? 0)}, other ends ${count(refunded)}`
  );
}

/** What a pooled session of the engines was doing when sampled. */
function sessionKind(row: SessionRow): string {
  if (row.state === 'idle') return 'idle';
  if (row.state === 'idle in transaction') return 'in a transaction, waiting for the engine';
  if (row.wait_event_type === null) return 'running';
  return `waiting on ${row.wait_event_type} ${row.wait_event}`;
}

interface SessionRow {
  readonly state: string | null;
  readonly wait_event_type: string | null;
  readonly wait_event: string | null;
}

/**
 * Samples what the engines' pooled sessions are doing (their pools' application name; not the
 * listeners, the leader locks or the watcher asking), adding to `into` by kind.
 */
async function sampleSessions(watcher: Database, schema: string, into: Map<string, number>) {
  const rows = await watcher.query<SessionRow>(
    `SELECT state, wait_event_type, wait_event FROM pg_stat_activity
      WHERE application_name = $1 AND pid <> pg_backend_pid()`,
    [applicationName('poolparty', schema)],
  );
  for (const row of rows) {
    const kind = sessionKind(row);
    into.set(kind, (into.get(kind) ?? 0) + 1);
  }
}

interface Watch {
  readonly schema: string;
  readonly startedMs: number;
  readonly deadlineMs: number;
}

/**
 * Waits until no intent is in progress any more, or the deadline; prints progress every second
 * and samples the engines' sessions at every poll. Polled on the watcher's own connection, so it
 * takes none of the engines'.
 */
async function watchDrain(watcher: Database, watch: Watch) {
  const sessions = new Map<string, number>();
  let lastPrint = { atMs: watch.startedMs, completed: 0 };
  for (;;) {
    const statuses = await statusCounts(watcher);
    await sampleSessions(watcher, watch.schema, sessions);
    const nowMs = Date.now();
    const finished = sumOf(statuses, (s) => inProgress.has(s)) === 0;
    const ended = finished || nowMs >= watch.deadlineMs;
    if (ended || nowMs - lastPrint.atMs >= PROGRESS_INTERVAL_MS) {
      const completed = statuses.completed ?? 0;
      const rate = ((completed - lastPrint.completed) * 1000) / Math.max(1, nowMs - lastPrint.atMs);
      console.log(progressLine(statuses, nowMs - watch.startedMs, rate));
      lastPrint = { atMs: nowMs, completed };
    }
    if (ended) return { statuses, deadlineHit: !finished, sessions: Object.fromEntries(sessions) };
    await sleep(POLL_INTERVAL_MS);
  }
}

/** From the intents' events: when the first and last intent reached each stage. */
async function stageTimes(db: Database, startedMs: number) {
  const rows = await db.query<{ status: string; first: Date | string; last: Date | string }>(
    `SELECT status, min(at) AS first, max(at) AS last FROM intent_events
      WHERE status IN ('deposit_received', 'sending_output', 'completed') GROUP BY status`,
  );
  const span = (status: string): StageSpan | null => {
    const row = rows.find((r) => r.status === status);
    if (row === undefined) return null;
    const firstMs = new Date(row.first).getTime() - startedMs;
    return { firstMs, lastMs: new Date(row.last).getTime() - startedMs };
  };
  const ended = await db.query<{ last: Date | string | null }>(
    `SELECT max(at) AS last FROM intent_events
      WHERE status <> ALL ($1::text[])`,
    [[...IN_PROGRESS_STATES]],
  );
  const last = ended[0]?.last;
  const stages: DrainStages = {
    ingested: span('deposit_received'),
    executed: span('sending_output'),
    completed: span('completed'),
  };
  return { stages, lastEndMs: last == null ? null : new Date(last).getTime() - startedMs };
}

interface DrainWindow {
  readonly statuses: Record<string, number>;
  readonly sessions: Record<string, number>;
  readonly deadlineHit: boolean;
  readonly elapsedMs: number;
  readonly stages: DrainStages;
  readonly cpu: DrainCpu;
  readonly store: StoreCounts;
  readonly ledgerCalls: Record<string, number>;
}

/**
 * Starts the engines and waits for the drain, counting over its window: CPU, the engines'
 * statements (each store wrapped) and ledger calls (the port wrapped). The window is the engines'
 * start to the last intent's end (from its event), or the deadline.
 */
async function measureDrain(
  world: World,
  schema: string,
  watcher: Database,
  deadlineMs: number,
): Promise<DrainWindow> {
  const stores = world.stores.map((db) => new CountingDatabase(db));
  const ledger = countingLedger(world.ledger);
  const cpuStart = markCpu();
  const startedMs = world.clock.now().getTime();
  const startedWallMs = Date.now();
  const engines = await startEngines(world, schema, stores, ledger.port);
  let watched: Awaited<ReturnType<typeof watchDrain>>;
  let cpu: DrainCpu;
  try {
    const watch = { schema, startedMs: startedWallMs, deadlineMs: startedWallMs + deadlineMs };
    watched = await watchDrain(watcher, watch);
    cpu = cpuSince(cpuStart, await drainBackends(watcher, schema));
  } finally {
    await stopEngines(engines);
  }
  const { stages, lastEndMs } = await stageTimes(watcher, startedMs);
  const store: StoreCounts = { statements: 0, transactions: 0 };
  for (const db of stores) {
    store.statements += db.counts.statements;
    store.transactions += db.counts.transactions;
  }
  return {
    ...watched,
    elapsedMs: watched.deadlineHit || lastEndMs === null ? deadlineMs : lastEndMs,
    stages,
    cpu,
    store,
    ledgerCalls: Object.fromEntries(ledger.calls),
  };
}

/** The drain on a fresh schema: set up (not timed), drained, dropped. */
export async function benchDrain(options: DrainOptions = {}): Promise<DrainResult> {
  const swaps = options.swaps ?? DRAIN_SWAPS;
  const schema = await createSchema('pp_drain');
  const stores = Array.from({ length: ENGINES }, () => openPostgres(POSTGRES_URL, { schema }));
  const watcher = openPostgres(POSTGRES_URL, { schema, connectionsMax: 1 });
  let world: World | null = null;
  try {
    const setupStart = performance.now();
    world = await openWorld(stores);
    const intents = await depositAll(world, swaps);
    await checkPriceImpact(watcher, intents);
    // The set-up's dirty pages written out now, not by the background writer during the drain.
    await checkpoint();
    const setupMs = performance.now() - setupStart;
    console.log(
      `setup: ${count(swaps)} deposits on the ledger in ${(setupMs / 1000).toFixed(1)} s`,
    );
    const pricesBefore = await spotPrices(watcher);
    const window = await measureDrain(
      world,
      schema,
      watcher,
      options.deadlineMs ?? DRAIN_DEADLINE_MS,
    );
    const pricesAfter = await spotPrices(watcher);
    const priceMoves = Object.fromEntries(
      [...pricesBefore].map(([poolId, before]) => [
        poolId,
        ((pricesAfter.get(poolId) ?? before) - before) / before,
      ]),
    );
    const completed = window.statuses.completed ?? 0;
    const swapsPerS = completed / (window.elapsedMs / 1000);
    return { swaps, completed, setupMs, swapsPerS, priceMoves, ...window };
  } finally {
    await world?.ledger.close();
    await Promise.all([...stores, watcher].map((db) => db.close()));
    await dropSchema(schema);
  }
}

/** ≥ DRAIN_TARGET_SWAPS_PER_S with at least DRAIN_SWAPS deposits, every one completed in time. */
export function meetsDrainTarget(result: DrainResult): boolean {
  return (
    result.swaps >= DRAIN_SWAPS &&
    !result.deadlineHit &&
    result.completed === result.swaps &&
    result.swapsPerS >= DRAIN_TARGET_SWAPS_PER_S
  );
}

/** What the rest of the machine used meanwhile (other processes), % of one core. */
function othersPctOfCore(cpu: DrainCpu): number {
  const all = cpu.machinePctOfCores * cpu.cores;
  return Math.max(0, all - cpu.processPctOfCore - cpu.postgresPctOfCore);
}

/**
 * The stage that took longest: ingesting the deposits (one engine leads the stream), executing
 * after the last deposit was in, or confirming the payouts after the last swap executed.
 */
function longestStage(stages: DrainStages): string {
  const { ingested, executed, completed } = stages;
  if (ingested === null || executed === null || completed === null) return 'a stage never ended';
  const spans = [
    { name: 'ingesting the deposits', ms: ingested.lastMs },
    { name: 'executing after the last deposit', ms: executed.lastMs - ingested.lastMs },
    {
      name: 'confirming the payouts after the last execution',
      ms: completed.lastMs - executed.lastMs,
    },
  ];
  const longest = spans.reduce((a, b) => (b.ms > a.ms ? b : a));
  return `${longest.name} took longest (${seconds(longest.ms)} of ${seconds(completed.lastMs)})`;
}

/**
 * Which resource limits the drain: the one nearest saturation. This process runs the engines and
 * the embedded ledger on one JavaScript thread, so one core is its ceiling; PostgreSQL and the
 * machine as a whole can use every core, but one backend only one. A busy machine is blamed on
 * whoever used it: should other processes take a quarter of a core, the run was contended.
 */
export function drainVerdict(result: DrainResult): string {
  const { cpu } = result;
  const resources = [
    {
      name: 'this process (engines + embedded ledger, one thread)',
      share: cpu.processPctOfCore / 100,
    },
    { name: 'PostgreSQL', share: cpu.postgresPctOfCore / 100 / cpu.cores },
    { name: "the drain's busiest PostgreSQL backend", share: cpu.busiestBackendPctOfCore / 100 },
    { name: `the machine's ${cpu.cores} cores`, share: cpu.machinePctOfCores / 100 },
  ];
  const nearest = resources.reduce((a, b) => (b.share > a.share ? b : a));
  const at = `${nearest.name} at ${(nearest.share * 100).toFixed(0)} % of its capacity`;
  const contended =
    othersPctOfCore(cpu) >= CONTENDED_OTHERS_PCT_OF_CORE
      ? `; contended: other processes took ${othersPctOfCore(cpu).toFixed(0)} % of a core`
      : '';
  const stage = longestStage(result.stages);
  if (nearest.share >= SATURATED_SHARE) return `limit: ${at}; ${stage}${contended}`;
  const busy = sessionShares(result.sessions).filter(([kind]) => kind !== 'idle');
  const waits = busy
    .slice(0, 2)
    .map(([kind, share]) => `${kind} ${(share * 100).toFixed(0)} %`)
    .join(', ');
  return (
    `limit: no CPU saturated (nearest: ${at}), so waits bound it — the engines' sessions, ` +
    `when busy, mostly ${waits || 'never seen busy'}; ${stage}${contended}`
  );
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function stageLine(stages: DrainStages): string {
  const span = (name: string, s: StageSpan | null) =>
    s === null ? `${name} none` : `${name} ${seconds(s.firstMs)} → ${seconds(s.lastMs)}`;
  return [
    span('ingested', stages.ingested),
    span('executed', stages.executed),
    span('completed', stages.completed),
  ].join(', ');
}

export function printDrainBench(result: DrainResult): void {
  const { cpu, swaps } = result;
  console.log(
    `drain: ${count(swaps)} deposits of ${DRAIN_DEPOSIT} Amulet over the seeded pools on the ledger before ${ENGINES} engines start (PostgreSQL, embedded ledger)`,
  );
  const met = meetsDrainTarget(result) ? 'met' : 'NOT met';
  const deadline = result.deadlineHit ? ' (deadline reached)' : '';
  const rows = [
    ['completed', `${count(result.completed)} / ${count(swaps)}${deadline}`],
    ['elapsed', `${seconds(result.elapsedMs)} (setup, not timed: ${seconds(result.setupMs)})`],
    [
      'swaps/s',
      `${result.swapsPerS.toFixed(0)} (target ≥ ${DRAIN_TARGET_SWAPS_PER_S} with ${count(DRAIN_SWAPS)}: ${met})`,
    ],
    ['stages', `${stageLine(result.stages)} (first → last, from the engines' start)`],
    [
      'CPU, this process',
      `${cpu.processPctOfCore.toFixed(0)} % of a core (${(cpu.processPctOfCore / cpu.cores).toFixed(0)} % of ${cpu.cores})`,
    ],
    [
      'CPU, PostgreSQL',
      `${cpu.postgresPctOfCore.toFixed(0)} % of a core (${(cpu.postgresPctOfCore / cpu.cores).toFixed(0)} % of ${cpu.cores}); the drain's own sessions ${cpu.drainSessionsPctOfCore.toFixed(0)} % of a core, the busiest one ${cpu.busiestBackendPctOfCore.toFixed(0)} %`,
    ],
    [
      'CPU, machine',
      `${cpu.machinePctOfCores.toFixed(0)} % of ${cpu.cores} cores; other processes ${othersPctOfCore(cpu).toFixed(0)} % of a core`,
    ],
    [
      'statements/swap',
      `${(result.store.statements / swaps).toFixed(2)} (${(result.store.transactions / swaps).toFixed(3)} transactions/swap)`,
    ],
    ['ledger calls/swap', ledgerCallsLine(result.ledgerCalls, swaps)],
    ['engine sessions', sessionsLine(result.sessions)],
    [
      'price moves',
      Object.entries(result.priceMoves)
        .map(([pool, move]) => `${pool} ${(move * 100).toFixed(2)} %`)
        .join(', '),
    ],
  ];
  console.log(table(rows).replace(/^/gm, '  '));
  const others = Object.entries(result.statuses).filter(([status]) => status !== 'completed');
  if (others.length > 0)
    console.log(`  not completed: ${others.map(([s, n]) => `${s} ${n}`).join(', ')}`);
  console.log(`  ${drainVerdict(result)}`);
}

/** The sampled sessions by kind, as shares of all samples, largest first. */
function sessionShares(sessions: Readonly<Record<string, number>>): [string, number][] {
  const total = Object.values(sessions).reduce((sum, n) => sum + n, 0);
  return Object.entries(sessions)
    .map(([kind, n]): [string, number] => [kind, n / Math.max(1, total)])
    .sort(([, a], [, b]) => b - a);
}

function sessionsLine(sessions: Readonly<Record<string, number>>): string {
  const shares = sessionShares(sessions).map(
    ([kind, share]) => `${kind} ${(share * 100).toFixed(0)} %`,
  );
  return `${shares.join(', ')} (of samples every ${POLL_INTERVAL_MS} ms)`;
}

function ledgerCallsLine(calls: Readonly<Record<string, number>>, swaps: number): string {
  const total = Object.values(calls).reduce((sum, n) => sum + n, 0);
  const each = Object.entries(calls)
    .sort(([, a], [, b]) => b - a)
    .map(([method, n]) => `${method} ${(n / swaps).toFixed(2)}`);
  return `${(total / swaps).toFixed(2)} (${each.join(', ')})`;
}

function swapsOption(): number {
  const at = process.argv.indexOf('--swaps');
  if (at === -1) return process.argv.includes('--quick') ? QUICK_DRAIN_SWAPS : DRAIN_SWAPS;
  const swaps = Number(process.argv[at + 1]);
  if (!Number.isSafeInteger(swaps) || swaps < 1) {
    throw new RangeError(`--swaps: ${process.argv[at + 1]}`);
  }
  return swaps;
}

if (isMain(import.meta.url)) {
  const skipped = await postgresSkipReason('drain bench');
  if (skipped !== null) console.log(`drain: skipped, ${skipped}`);
  else {
    const result = await benchDrain({ swaps: swapsOption() });
    printDrainBench(result);
    process.exitCode = meetsDrainTarget(result) ? 0 : 1;
  }
}
