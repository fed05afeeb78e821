/**
 * Liquidity on a quiet service, one operation at a time at zero ledger latency (the in-memory
 * devnet ledger), on PGlite with one engine and, when PostgreSQL answers, on it with one engine:
 *
 * - A lone liquidity intent: the first side is deposited and taken all the way to the swap party
 *   before the second is sent; the figure is the second deposit's submit time → the intent's
 *   `completed` row's `at` in `liquidity_events`. The seeded LP and swap parties pre-approve
 *   Amulet only, so an Amulet second side is one transfer and a forward, while a USDCx second
 *   side is an offer the LP party accepts, a forward that becomes an offer, and the swap party's
 *   accept of it: the two orders are reported apart.
 * - A withdrawal: `recordWithdrawal` (what the route calls) → `liquidity_withdrawals.completed_at`,
 *   both payouts paid. Once as the service runs it (nothing wakes the engine after the record,
 *   so withdrawals come at random moments of its idle wait), and once with the engine poked
 *   right after the record: what the engine's own path costs.
 *
 * Times are read on the ledger clock the engine uses (1 ms resolution). Each run also counts the
 * engine's statements per operation and, from `ledger_commands`, when each leg was recorded and
 * confirmed, to say where the time goes.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Amount, type Instrument } from '@poolparty/core';
import { REASON_META_KEY } from '@poolparty/ledger';
import {
  DEFAULT_ENGINE_SETTINGS,
  type Engine,
  openLiquidityIntent,
  recordWithdrawal,
} from '@poolparty/settlement';
import {
  CountingDatabase,
  SCALE_OUT_API_KEY_ID,
  type StoreCounts,
} from '@poolparty/settlement/testing';
import { type Database, type LiquidityIntentRecord, openPglite } from '@poolparty/store';
import { inFreshSchema, postgresSkipReason } from '@poolparty/store/testing';
import { isMain, percentile, table } from './report.js';
import { engineDeps, inWorld, POOL_ID, type World } from './settlement.js';

export const LIQUIDITY_INTENT_TARGET_MS = 100;
export const WITHDRAWAL_TARGET_MS = 200;
/** Intents per order of the sides (Amulet second, USDCx second), alternating. */
const INTENTS_PER_ORDER = 20;
const QUICK_INTENTS_PER_ORDER = 6;
/** Withdrawals per way of starting them (as served, engine poked). */
const WITHDRAWALS = 30;
const QUICK_WITHDRAWALS = 8;
/** Amulet each intent adds; the USDCx side follows the pool's ratio. */
const INTENT_AMOUNT_A = '100';
/** The position the withdrawals burn from, and the share each burns. */
const POSITION_AMOUNT_A = '20000';
const WITHDRAWAL_SHARE_BPS = 100;
/** What the provider holds of each token: enough for every intent and the position. */
const PROVIDER_FUNDS = '1000000';
/** An operation not done by then is reported as not completed, not waited for. */
const STEP_WAIT_MS = 10_000;
/** How often completion is looked for; the figure is read from the store, not from this. */
const POLL_MS = 2;
/** The engine takes in the seed and the provider's set-up before anything is measured. */
const SETTLE_MS = 500;
/**
 * Withdrawals as served arrive at a random moment of the engine's idle wait: right after its
 * last round, every one would wait the whole interval, which no real caller lines up with.
 */
const ARRIVAL_SPREAD_MS = DEFAULT_ENGINE_SETTINGS.idleIntervalMs;

export type LiquidityMeasure = 'intent' | 'withdrawal';

/** When a leg's command was recorded and confirmed, in ms after the operation began. */
export interface LegTiming {
  readonly leg: string;
  readonly recordedMs: number;
  readonly confirmedMs: number;
}

export interface LiquidityRun {
  readonly store: string;
  readonly measure: LiquidityMeasure;
  readonly variant: string;
  readonly count: number;
  readonly completed: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** The engine's statements and transactions per operation (BEGIN and COMMIT not counted). */
  readonly statements: number;
  readonly transactions: number;
  /** Per leg, in order: the median times it was recorded and confirmed. */
  readonly legs: readonly LegTiming[];
  /** The most common sequence of engine steps, each at its median ms after the start. */
  readonly steps: readonly StepMark[];
}

export interface LiquidityBench {
  readonly runs: readonly LiquidityRun[];
  readonly skipped: string | null;
}

/** An engine step boundary passed, on the process's monotonic clock. */
interface StepMark {
  readonly step: string;
  readonly atMs: number;
}

interface Sample {
  readonly latencyMs: number;
  /** The engine's steps from the start to the confirmation that ended the operation. */
  readonly steps: readonly StepMark[];
  readonly statements: number;
  readonly transactions: number;
  readonly legs: readonly LegTiming[];
}

interface Bed {
  readonly world: World;
  /** The store the bench reads with; the engine's own goes through `counting`. */
  readonly db: Database;
  readonly counting: CountingDatabase;
  readonly engine: Engine;
  readonly provider: string;
  /** Every step boundary the engine passed, in order. */
  readonly trace: StepMark[];
}

/** Polls `probe` until it answers, or null once `STEP_WAIT_MS` passed. */
async function waitUntil<T>(probe: () => Promise<T | null>): Promise<T | null> {
  const deadline = Date.now() + STEP_WAIT_MS;
  for (;;) {
    const value = await probe();
    if (value !== null || Date.now() > deadline) return value;
    await sleep(POLL_MS);
  }
}

const msOf = (at: Date | string) => new Date(at).getTime();

async function eventAt(db: Database, intentId: string, status: string): Promise<number | null> {
  const rows = await db.query<{ at: Date | string }>(
    'SELECT at FROM liquidity_events WHERE liquidity_intent_id = $1 AND status = $2',
    [intentId, status],
  );
  return rows[0] ? msOf(rows[0].at) : null;
}

/** True once the intent's one deposit is with the swap party: nothing of it is left to do. */
async function firstSideForwarded(db: Database, intentId: string): Promise<true | null> {
  const rows = await db.query<{ status: string }>(
    'SELECT status FROM liquidity_deposits WHERE liquidity_intent_id = $1',
    [intentId],
  );
  return rows.length === 1 && rows[0]?.status === 'forwarded' ? true : null;
}

async function withdrawalDoneAt(db: Database, withdrawalId: string): Promise<number | null> {
  const rows = await db.query<{ completed_at: Date | string | null }>(
    'SELECT completed_at FROM liquidity_withdrawals WHERE withdrawal_id = $1',
    [withdrawalId],
  );
  const at = rows[0]?.completed_at;
  return at === null || at === undefined ? null : msOf(at);
}

/** The legs recorded for `column` = `id` since `sinceMs`, each timed from `sinceMs`. */
async function legsSince(
  bed: Bed,
  column: 'liquidity_intent_id' | 'withdrawal_id',
  id: string,
  sinceMs: number,
): Promise<LegTiming[]> {
  const rows = await bed.db.query<{
    leg: string;
    payload: { actor?: string; side?: string | null };
    created_at: Date | string;
    updated_at: Date | string;
  }>(
    `SELECT leg, payload, created_at, updated_at FROM ledger_commands
     WHERE ${column} = $1 AND created_at >= $2 ORDER BY created_at, command_id`,
    [id, new Date(sinceMs)],
  );
  const { lpParty } = poolOf(bed.world);
  return rows.map((row) => ({
    leg: legName(row.leg, row.payload, lpParty),
    recordedMs: msOf(row.created_at) - sinceMs,
    confirmedMs: msOf(row.updated_at) - sinceMs,
  }));
}

function legName(leg: string, payload: { actor?: string; side?: string | null }, lp: string) {
  if (leg === 'lp_accept') return payload.actor === lp ? 'LP party accepts' : 'swap party accepts';
  if (leg === 'lp_payout') return `payout ${payload.side ?? '?'}`;
  return leg;
}

function poolOf(world: World) {
  const pool = world.seed.pools.find((p) => p.poolId === POOL_ID);
  if (!pool) throw new Error(`no seeded pool ${POOL_ID}`);
  return pool;
}

function instrumentOf(world: World, side: 'a' | 'b'): Instrument {
  const { amulet, usdcx } = world.seed.instruments;
  return side === 'a' ? amulet : usdcx;
}

function openIntent(bed: Bed, amountA: string): Promise<LiquidityIntentRecord> {
  return openLiquidityIntent(bed.db, {
    liquidityIntentId: `liq_${randomUUID().replaceAll('-', '').slice(0, 26).toUpperCase()}`,
    depositReference: `pp-${randomUUID().slice(0, 12)}`,
    poolId: POOL_ID,
    amountA,
    providerParty: bed.provider,
    apiKeyId: SCALE_OUT_API_KEY_ID,
    developerParty: bed.world.seed.developer.partyId,
    now: bed.world.clock.now(),
  });
}

/** The provider sends one side of the intent to the pool's LP party, as a wallet would. */
function depositSide(bed: Bed, intent: LiquidityIntentRecord, side: 'a' | 'b') {
  return bed.world.ledger.submitTransfer({
    commandId: `bench-liquidity-${randomUUID()}`,
    sender: bed.provider,
    receiver: intent.depositAddress,
    instrument: instrumentOf(bed.world, side),
    amount: side === 'a' ? intent.expectedA : intent.expectedB,
    meta: { [REASON_META_KEY]: intent.depositReference },
  });
}

/**
 * The steps since `from` in the trace, timed from `startMs`, up to the last ingest seen: the
 * confirmation that ended the operation (a leg recorded after it, e.g. an excess returned, is
 * the next operation's business).
 */
function stepsSince(bed: Bed, from: number, startMs: number): StepMark[] {
  const steps = bed.trace.slice(from).map((m) => ({ step: m.step, atMs: m.atMs - startMs }));
  const last = steps.findLastIndex((m) => m.step === 'update_ingested');
  return steps.slice(0, last + 1);
}

/**
 * One intent: the first side in and forwarded (not timed), then the second side, timed to the
 * `completed` event. Null when a step did not happen within its limit.
 */
async function oneIntent(bed: Bed, second: 'a' | 'b'): Promise<Sample | null> {
  const intent = await openIntent(bed, INTENT_AMOUNT_A);
  const id = intent.liquidityIntentId;
  await depositSide(bed, intent, second === 'a' ? 'b' : 'a');
  if ((await waitUntil(() => eventAt(bed.db, id, 'partial'))) === null) return null;
  if ((await waitUntil(() => firstSideForwarded(bed.db, id))) === null) return null;
  const start = sampleStart(bed);
  await depositSide(bed, intent, second);
  const doneMs = await waitUntil(() => eventAt(bed.db, id, 'completed'));
  return doneMs === null ? null : sampleEnd(bed, start, doneMs, 'liquidity_intent_id', id);
}

/** One withdrawal of a share of the position, timed to both payouts paid. */
async function oneWithdrawal(bed: Bed, poke: boolean): Promise<Sample | null> {
  const start = sampleStart(bed);
  const withdrawal = await recordWithdrawal(bed.db, {
    poolId: POOL_ID,
    providerParty: bed.provider,
    apiKeyId: SCALE_OUT_API_KEY_ID,
    burn: { shareBps: WITHDRAWAL_SHARE_BPS },
    minimum: { a: Amount.ZERO, b: Amount.ZERO },
    now: new Date(start.submittedMs),
  });
  if (poke) bed.engine.poke();
  const id = withdrawal.withdrawalId;
  const doneMs = await waitUntil(() => withdrawalDoneAt(bed.db, id));
  return doneMs === null ? null : sampleEnd(bed, start, doneMs, 'withdrawal_id', id);
}

/** Where a sample starts: the engine's counts, its step trace and the ledger's time then. */
interface SampleStart {
  readonly counts: StoreCounts;
  readonly traceFrom: number;
  readonly startMs: number;
  readonly submittedMs: number;
}

/** Marks a sample's start just before its submission, so only its own work is counted. */
function sampleStart(bed: Bed): SampleStart {
  return {
    counts: { ...bed.counting.counts },
    traceFrom: bed.trace.length,
    startMs: performance.now(),
    submittedMs: bed.world.clock.now().getTime(),
  };
}

/**
 * An intent's or a withdrawal's sample once it ended at `doneMs`: the same figures for both, its
 * legs read by the column that names it (`liquidity_intent_id` or `withdrawal_id`).
 */
async function sampleEnd(
  bed: Bed,
  start: SampleStart,
  doneMs: number,
  column: 'liquidity_intent_id' | 'withdrawal_id',
  id: string,
): Promise<Sample> {
  const after = { ...bed.counting.counts };
  return {
    latencyMs: doneMs - start.submittedMs,
    steps: stepsSince(bed, start.traceFrom, start.startMs),
    statements: after.statements - start.counts.statements,
    transactions: after.transactions - start.counts.transactions,
    legs: await legsSince(bed, column, id, start.submittedMs),
  };
}

/** Each leg's median times over the samples that had it, in the order they happen. */
function medianLegs(samples: readonly Sample[]): LegTiming[] {
  const byLeg = new Map<string, LegTiming[]>();
  for (const sample of samples) {
    for (const leg of sample.legs) byLeg.set(leg.leg, [...(byLeg.get(leg.leg) ?? []), leg]);
  }
  return [...byLeg.entries()]
    .map(([leg, timings]) => ({
      leg,
      recordedMs: percentile(
        timings.map((t) => t.recordedMs),
        50,
      ),
      confirmedMs: percentile(
        timings.map((t) => t.confirmedMs),
        50,
      ),
    }))
    .sort((x, y) => x.recordedMs - y.recordedMs || x.confirmedMs - y.confirmedMs);
}

/** The sequence of steps most samples went through, each step at its median time. */
function medianSteps(samples: readonly Sample[]): StepMark[] {
  const bySequence = new Map<string, Sample[]>();
  for (const sample of samples) {
    const key = sample.steps.map((m) => m.step).join(',');
    bySequence.set(key, [...(bySequence.get(key) ?? []), sample]);
  }
  const common = [...bySequence.values()].sort((x, y) => y.length - x.length)[0] ?? [];
  return (common[0]?.steps ?? []).map((mark, i) => ({
    step: mark.step,
    atMs: percentile(
      common.map((s) => s.steps[i]?.atMs ?? Number.NaN),
      50,
    ),
  }));
}

function summarise(
  head: { store: string; measure: LiquidityMeasure; variant: string; count: number },
  samples: readonly Sample[],
): LiquidityRun {
  const latencies = samples.map((s) => s.latencyMs);
  const mean = (pick: (s: Sample) => number) =>
    samples.reduce((sum, s) => sum + pick(s), 0) / Math.max(samples.length, 1);
  return {
    ...head,
    completed: samples.length,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    maxMs: latencies.length > 0 ? Math.max(...latencies) : Number.NaN,
    statements: mean((s) => s.statements),
    transactions: mean((s) => s.transactions),
    legs: medianLegs(samples),
    steps: medianSteps(samples),
  };
}

/** A provider pre-approving both tokens and funded with both; then the engine goes quiet. */
async function newProvider(world: World): Promise<string> {
  const tokens = [instrumentOf(world, 'a'), instrumentOf(world, 'b')];
  const { partyId } = await world.ledger.createParty({
    hint: `bench-lp-${randomUUID().slice(0, 8)}`,
    preapprovals: tokens,
  });
  for (const instrument of tokens) {
    await world.ledger.mint({ owner: partyId, instrument, amount: Amount.parse(PROVIDER_FUNDS) });
  }
  return partyId;
}

async function intentRuns(bed: Bed, store: string, perOrder: number): Promise<LiquidityRun[]> {
  const samples: Record<'a' | 'b', Sample[]> = { a: [], b: [] };
  // Alternating, so both orders meet the engine equally warm.
  for (let i = 0; i < perOrder * 2; i++) {
    const second = i % 2 === 0 ? 'a' : 'b';
    const sample = await oneIntent(bed, second);
    if (sample !== null) samples[second].push(sample);
  }
  const head = { store, measure: 'intent' as const, count: perOrder };
  return [
    summarise({ ...head, variant: 'Amulet second (one-step)' }, samples.a),
    summarise({ ...head, variant: 'USDCx second (offer)' }, samples.b),
  ];
}

async function withdrawalRuns(bed: Bed, store: string, count: number): Promise<LiquidityRun[]> {
  const position = await openIntent(bed, POSITION_AMOUNT_A);
  await depositSide(bed, position, 'a');
  await depositSide(bed, position, 'b');
  const minted = await waitUntil(() => eventAt(bed.db, position.liquidityIntentId, 'completed'));
  if (minted === null) throw new Error('the position the withdrawals burn from did not mint');
  const runs: LiquidityRun[] = [];
  for (const poke of [false, true]) {
    const samples: Sample[] = [];
    for (let i = 0; i < count; i++) {
      if (!poke) await sleep(Math.random() * ARRIVAL_SPREAD_MS);
      const sample = await oneWithdrawal(bed, poke);
      if (sample !== null) samples.push(sample);
    }
    const variant = poke ? 'engine poked after the record' : 'as served (woken by the store)';
    runs.push(summarise({ store, measure: 'withdrawal', variant, count }, samples));
  }
  return runs;
}

interface Sizes {
  readonly intentsPerOrder: number;
  readonly withdrawals: number;
}

async function measureStore(store: string, db: Database, sizes: Sizes): Promise<LiquidityRun[]> {
  return inWorld([db], async (world, start) => {
    // The engine's statements are counted; the bench's own reads go around the counter.
    const counting = new CountingDatabase(db);
    // The engine calls this hook at every step boundary so a test can crash it there; one that
    // never throws only notes when each step passed.
    const trace: StepMark[] = [];
    const crashAt = (step: string) => {
      trace.push({ step, atMs: performance.now() });
    };
    const engine = await start({ ...engineDeps(world), db: counting, faults: { crashAt } });
    const provider = await newProvider(world);
    await sleep(SETTLE_MS);
    const bed: Bed = { world, db, counting, engine, provider, trace };
    return [
      ...(await intentRuns(bed, store, sizes.intentsPerOrder)),
      ...(await withdrawalRuns(bed, store, sizes.withdrawals)),
    ];
  });
}

export async function benchLiquidity(quick = false): Promise<LiquidityBench> {
  const sizes: Sizes = quick
    ? { intentsPerOrder: QUICK_INTENTS_PER_ORDER, withdrawals: QUICK_WITHDRAWALS }
    : { intentsPerOrder: INTENTS_PER_ORDER, withdrawals: WITHDRAWALS };
  const dataDir = mkdtempSync(join(tmpdir(), 'poolparty-liquidity-'));
  const runs: LiquidityRun[] = [];
  const pglite = await openPglite(dataDir);
  try {
    runs.push(...(await measureStore('PGlite, 1 engine', pglite, sizes)));
  } finally {
    await pglite.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const skipped = await postgresSkipReason('liquidity on PostgreSQL');
  if (skipped === null) {
    // openWorld migrates the schema.
    const measured = await inFreshSchema(
      'pp_bench_liquidity',
      { migrated: false },
      ({ databases }) => measureStore('PostgreSQL, 1 engine', databases[0] as Database, sizes),
    );
    runs.push(...measured);
  }
  return { runs, skipped };
}

/** The runs a target is judged on: every intent run; withdrawals as the service starts them. */
function judged(result: LiquidityBench, measure: LiquidityMeasure): LiquidityRun[] {
  return result.runs.filter(
    (r) => r.measure === measure && !(measure === 'withdrawal' && r.variant.startsWith('engine')),
  );
}

function meets(runs: readonly LiquidityRun[], targetMs: number): boolean {
  return runs.length > 0 && runs.every((r) => r.completed === r.count && r.p99Ms <= targetMs);
}

/** Every intent completed, each order's p99 within the target, on each store. */
export function meetsLiquidityIntentTarget(result: LiquidityBench): boolean {
  return meets(judged(result, 'intent'), LIQUIDITY_INTENT_TARGET_MS);
}

/** Every withdrawal paid, the p99 as served within the target, on each store. */
export function meetsWithdrawalTarget(result: LiquidityBench): boolean {
  return meets(judged(result, 'withdrawal'), WITHDRAWAL_TARGET_MS);
}

/** The figures the targets table shows for `measure`, one per judged run. */
export function liquidityFigures(result: LiquidityBench, measure: LiquidityMeasure): string {
  return judged(result, measure)
    .map((r) => `${r.store}, ${r.variant}: p99 ${r.p99Ms.toFixed(1)} ms, ${r.completed}/${r.count}`)
    .join('; ');
}

export function printLiquidityBench(result: LiquidityBench): void {
  console.log('liquidity on a quiet service, one at a time, zero ledger latency');
  console.log('  intent: second deposit → completed; withdrawal: record → both payouts paid');
  const ms = (n: number) => n.toFixed(1);
  console.log(
    table([
      ['  store', 'measure', 'done', 'p50 ms', 'p99 ms', 'max ms', 'stmts/op', 'tx/op'],
      ...result.runs.map((r) => [
        `  ${r.store}`,
        `${r.measure}: ${r.variant}`,
        `${r.completed}/${r.count}`,
        ms(r.p50Ms),
        ms(r.p99Ms),
        ms(r.maxMs),
        r.statements.toFixed(1),
        r.transactions.toFixed(1),
      ]),
    ]),
  );
  console.log('  legs (median ms after the start: recorded → confirmed)');
  for (const r of result.runs) {
    const legs = r.legs.map((l) => `${l.leg} ${l.recordedMs} → ${l.confirmedMs}`).join(', ');
    console.log(`    ${r.store}, ${r.measure}: ${r.variant}: ${legs}`);
  }
  console.log('  engine steps (median ms after the start, the most common sequence)');
  for (const r of result.runs) {
    const steps = r.steps.map((m) => `${m.step} ${m.atMs.toFixed(1)}`).join(', ');
    console.log(`    ${r.store}, ${r.measure}: ${r.variant}: ${steps}`);
  }
  if (result.skipped !== null) console.log(`  PostgreSQL skipped: ${result.skipped}`);
}

if (isMain(import.meta.url)) {
  printLiquidityBench(await benchLiquidity(process.argv.includes('--quick')));
}
