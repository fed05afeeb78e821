/**
 * Settlement on the path operators run: `poolparty devnet-ledger` (Canton's JSON Ledger API over
 * HTTP and WebSocket), one `api` and two `worker` processes with `LEDGER=canton` on PostgreSQL
 * (the chaos run's cluster, without faults).
 *
 * Wallets create their swaps through the API with the SDK and send their deposits through the
 * JSON Ledger API, as a wallet does. The bench follows the swap parties' updates on a WebSocket
 * stream of its own and LISTENs to the store's intent events, so each swap's moments are read on
 * one clock: deposit submitted, deposit on the stream, payout on the stream, completed. The
 * ledger's own latency (a deposit, submit → on the stream) is measured in the same run, and
 * PoolParty's time is what the swap took beyond two such transactions (canton-timing.ts).
 *
 * - lone: one swap at a time, each on an idle deployment;
 * - at 50 swaps/s: deposits paced at that rate, each from a wallet with no other swap running,
 *   with the CPU of the api, the workers and their PostgreSQL sessions per swap;
 * - atomic lone and atomic at 50 swaps/s: the same for atomic swaps (canton-atomic.ts), the
 *   figures printed beside the deposit flow's;
 * - drain: N deposits already on the ledger while both workers are down, then both started;
 *   swaps/s until the last one completed, with each process's CPU over the drain.
 *
 *   node --import tsx bench/canton.ts [--quick] [--phase lone,rate,atomic-lone,atomic-rate,drain]
 */
import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { Amount } from '@poolparty/core';
import { REASON_META_KEY } from '@poolparty/ledger';
import type { DevnetWallet } from '@poolparty/sdk/devnet';
import type { Cluster } from '@poolparty/server/testing';
import { createPricedIntent, registerApiKey } from '@poolparty/settlement/testing';
import {
  type AtomicBench,
  atomicLonePhase,
  atomicRatePhase,
  printAtomicBench,
} from './canton-atomic.js';
import {
  type CpuPerSwap,
  cpuLine,
  cpuPerSwapLine,
  type DevnetPoolInfo,
  deploymentProcesses,
  inBatches,
  makeWallets,
  openStage,
  PhaseCpu,
  paced,
  progress,
  RATE_WALLETS,
  RATE_WARM_UP_S,
  type Stage,
  SWAP_RESERVE_SHARE,
  swapAmuletOf,
  type Trader,
  tradersOf,
  walletPoolSlots,
} from './canton-stage.js';
import { drainRate, type PhaseFigures, phaseFigures, type SwapMoments } from './canton-timing.js';
import { cpuOf, sampleCpu } from './process-cpu.js';
import { isMain, table } from './report.js';

export const CANTON_ON_TOP_TARGET_MS = 100;
export const CANTON_RATE_TARGET_MS = 250;
export const CANTON_RATE_PER_S = 50;

export interface CantonSizes {
  readonly loneSwaps: number;
  readonly rateSeconds: number;
  readonly drainSwaps: number;
}

export const FULL_SIZES: CantonSizes = { loneSwaps: 40, rateSeconds: 10, drainSwaps: 600 };
export const QUICK_SIZES: CantonSizes = { loneSwaps: 10, rateSeconds: 3, drainSwaps: 120 };

/**
 * What a drained swap puts in, as a share of its pool's Amulet reserve (30 Amulet in a pool of
 * 1 000 000): every intent of the drain is priced before any settles, all one way.
 */
const DRAIN_RESERVE_SHARE = { numerator: 3n, denominator: 100_000n };

/** A lone swap not completed by then is counted as not completed. */
const SWAP_WAIT_MS = 15_000;
/** A drain not finished by then is reported with what completed. */
const DRAIN_WAIT_MS = 300_000;
/** Pause between lone swaps, so each meets an idle deployment. */
const LONE_GAP_MS = 100;
const PROGRESS_EVERY_MS = 2_000;
/** Above this share of all cores together, the machine itself is what limits a run. */
const MACHINE_BUSY_SHARE = 0.8;

export interface DrainFigures {
  readonly swaps: number;
  readonly completed: number;
  /** How the drained intents ended, by state. */
  readonly endings: Readonly<Record<string, number>>;
  /** Why those that ended otherwise than completed did, by failure code (or state, without one). */
  readonly notCompletedWhy: Readonly<Record<string, number>>;
  readonly swapsPerS: number;
  readonly settlingSwapsPerS: number;
  readonly elapsedMs: number;
  /** Each process's CPU over the drain, as a share of one core. */
  readonly cpu: readonly { readonly name: string; readonly coreShare: number }[];
  /** Ledger transactions per swap over the drain (deposits excluded: they came before). */
  readonly ledgerUpdatesPerSwap: number;
  /** PostgreSQL transactions per swap over the drain. */
  readonly storeTransactionsPerSwap: number;
}

export interface CantonBench {
  readonly lone: PhaseFigures | null;
  readonly rate: RateFigures | null;
  readonly atomic: AtomicBench;
  readonly drain: DrainFigures | null;
}

/** A new intent of `trader` to swap Amulet on `pool`. */
function createSwap(trader: Trader, pool: DevnetPoolInfo) {
  return trader.pp.swaps.create({
    fromToken: pool.tokenA.id,
    fromAdmin: pool.tokenA.admin,
    toToken: pool.tokenB.id,
    toAdmin: pool.tokenB.admin,
    amount: swapAmuletOf(pool, SWAP_RESERVE_SHARE),
    poolId: pool.poolId,
  });
}

/** What a deposit needs of its intent (an SDK swap or a stored intent). */
interface DepositFor {
  readonly depositAddress: string;
  readonly depositReference: string;
  readonly inputToken: string;
  readonly inputTokenAdmin: string;
  /** Text as the swaps API answers it, or the store's amount. */
  readonly expectedAmount: Amount | string;
}

/** The wallet's deposit through the JSON Ledger API, as a wallet sends it. */
function sendDeposit(stage: Stage, sender: string, swap: DepositFor) {
  return stage.ledger.submitTransfer({
    commandId: `bench-deposit-${randomUUID()}`,
    sender,
    receiver: swap.depositAddress,
    instrument: { admin: swap.inputTokenAdmin, id: swap.inputToken },
    amount:
      typeof swap.expectedAmount === 'string'
        ? Amount.parse(swap.expectedAmount)
        : swap.expectedAmount,
    meta: { [REASON_META_KEY]: swap.depositReference },
  });
}

/**
 * Creates a swap, sends its deposit and answers its moments once it ended (or the wait did).
 * `onLeftPending` is told once the intent is no longer pending: its wallet may then make another
 * for the same pool.
 */
async function oneSwap(
  stage: Stage,
  trader: Trader,
  pool: DevnetPoolInfo,
  onLeftPending: () => void = () => {},
): Promise<SwapMoments> {
  const swap = await createSwap(trader, pool);
  const depositSubmitted = Date.now();
  await sendDeposit(stage, trader.wallet.partyId, swap);
  void stage.observer.leftPending(swap.intentId, SWAP_WAIT_MS).then(onLeftPending);
  await stage.observer.completion(swap.intentId, SWAP_WAIT_MS);
  return stage.observer.momentsOf(swap.intentId, swap.depositReference, depositSubmitted);
}

async function lonePhase(stage: Stage, swaps: number): Promise<PhaseFigures> {
  const [trader] = await tradersOf(stage, 'lone', 1);
  if (!trader) throw new Error('no trader');
  const moments: SwapMoments[] = [];
  for (let i = 0; i < swaps; i += 1) {
    moments.push(
      await oneSwap(stage, trader, stage.pools[i % stage.pools.length] as DevnetPoolInfo),
    );
    await sleep(LONE_GAP_MS);
  }
  return phaseFigures(moments);
}

/** A phase at the rate: its figures, and the CPU of PoolParty's processes per swap. */
export interface RateFigures extends PhaseFigures {
  readonly cpu: CpuPerSwap;
}

async function ratePhase(stage: Stage, seconds: number): Promise<RateFigures> {
  const warmUp = RATE_WARM_UP_S * CANTON_RATE_PER_S;
  const count = warmUp + seconds * CANTON_RATE_PER_S;
  const slots = walletPoolSlots(await tradersOf(stage, 'rate', RATE_WALLETS), stage.pools);
  let cpu: Promise<PhaseCpu> | null = null;
  const { results, lateMs } = await paced(
    { count, warmUp, perS: CANTON_RATE_PER_S },
    slots,
    (slot, _, release) => oneSwap(stage, slot.trader, slot.pool, release),
    () => {
      cpu = PhaseCpu.start(stage.cluster);
    },
  );
  progress(
    `${warmUp} deposits to warm up (not counted), then ${count - warmUp} sent at ${CANTON_RATE_PER_S}/s (at most ${lateMs.toFixed(0)} ms late)`,
  );
  const spent = await (await (cpu ?? PhaseCpu.start(stage.cluster))).end(count - warmUp);
  progress(`CPU over the phase (share of one core): ${spent.line}`);
  progress(`CPU per swap: ${cpuPerSwapLine(spent.perSwap)}`);
  return { ...phaseFigures(results.slice(warmUp)), cpu: spent.perSwap };
}

/**
 * `count` intents (one per wallet and pool), recorded in the store as the API would record
 * them: the drain measures settlement, and the API's sign-in limit per address would make
 * hundreds of wallets sign in for minutes.
 */
async function drainIntents(stage: Stage, count: number) {
  const { cluster } = stage;
  const perWallet = stage.pools.length;
  const wallets = await makeWallets(stage, Math.ceil(count / perWallet), 'drain');
  await registerApiKey(cluster.db, cluster.welcome.developer.partyId, new Date());
  const plans = [...Array(count).keys()].map((i) => ({
    wallet: wallets[Math.floor(i / perWallet)] as DevnetWallet,
    pool: stage.pools[i % perWallet] as DevnetPoolInfo,
  }));
  const intents = await inBatches(plans, (plan) =>
    createPricedIntent(cluster.db, stage.ledger, {
      poolId: plan.pool.poolId,
      party: plan.wallet.partyId,
      input: plan.pool.tokenA,
      amount: swapAmuletOf(plan.pool, DRAIN_RESERVE_SHARE),
      developerParty: cluster.welcome.developer.partyId,
      now: new Date(),
    }),
  );
  progress(`${count} intents recorded`);
  return intents;
}

async function drainPhase(stage: Stage, count: number): Promise<DrainFigures> {
  const { cluster } = stage;
  const intents = await drainIntents(stage, count);
  await Promise.all(cluster.workers.map((_, index) => cluster.killWorker(index)));
  progress('both workers stopped; sending the deposits');
  await inBatches(intents, (intent) => sendDeposit(stage, intent.walletParty, intent));
  progress(`${count} deposits on the ledger; starting both workers`);
  const ledgerEndBefore = await stage.ledger.ledgerEnd();
  const storeBefore = await stage.observer.storeTransactions();
  const cpuBefore = sampleCpu(
    deploymentProcesses(cluster).filter((p) => !p.name.startsWith('worker')),
  );
  const startedMs = Date.now();
  const workers = await Promise.all(
    cluster.workers.map((_, index) => cluster.restartWorker(index)),
  );
  const ids = intents.map((intent) => intent.intentId);
  await stage.observer.allCompleted(
    ids,
    DRAIN_WAIT_MS,
    (done) => progress(`drain: ${done} / ${count} ended after ${Date.now() - startedMs} ms`),
    PROGRESS_EVERY_MS,
  );
  const cpuEnd = sampleCpu(deploymentProcesses({ ...cluster, workers }));
  const completions = ids.map((id) => stage.observer.completedAt(id)).filter((at) => at !== null);
  const rate = drainRate(startedMs, completions);
  return {
    swaps: count,
    completed: completions.length,
    endings: stage.observer.endings(ids),
    notCompletedWhy: await notCompletedWhy(cluster, ids),
    ...rate,
    cpu: cpuOf(cpuBefore, cpuEnd),
    ledgerUpdatesPerSwap: ((await stage.ledger.ledgerEnd()) - ledgerEndBefore) / count,
    storeTransactionsPerSwap: ((await stage.observer.storeTransactions()) - storeBefore) / count,
  };
}

/** Why the intents among `ids` that did not complete did not, as the store recorded it. */
async function notCompletedWhy(cluster: Cluster, ids: readonly string[]) {
  const rows = await cluster.db.query(
    `SELECT COALESCE(failure_code, status) AS why, count(*) AS n FROM intents
     WHERE intent_id = ANY($1::text[]) AND status <> 'completed' GROUP BY 1 ORDER BY 1`,
    [ids],
  );
  return Object.fromEntries(rows.map((row) => [String(row.why), Number(row.n)]));
}

/** The machine's cores when the processes together use nearly all of them, else the busiest. */
export function drainLimit(cpu: readonly { readonly name: string; readonly coreShare: number }[]) {
  const cores = availableParallelism();
  const used = cpu.reduce((sum, p) => sum + p.coreShare, 0);
  const busiest = cpu[0];
  const share = (value: number) => `${(100 * value).toFixed(0)} %`;
  if (used >= MACHINE_BUSY_SHARE * cores) {
    return `the machine: its ${cores} cores at ${share(used / cores)}, ${busiest?.name} the busiest at ${share(busiest?.coreShare ?? 0)} of a core`;
  }
  return `${busiest?.name}, at ${share(busiest?.coreShare ?? 0)} of a core`;
}

export type CantonPhase = 'lone' | 'rate' | 'atomic-lone' | 'atomic-rate' | 'drain';

export const CANTON_PHASES: readonly CantonPhase[] = [
  'lone',
  'rate',
  'atomic-lone',
  'atomic-rate',
  'drain',
];

export async function benchCanton(
  sizes: CantonSizes = FULL_SIZES,
  phases: readonly CantonPhase[] = CANTON_PHASES,
): Promise<CantonBench> {
  const stage = await openStage();
  const has = (phase: CantonPhase) => phases.includes(phase);
  try {
    const lone = has('lone') ? await lonePhase(stage, sizes.loneSwaps) : null;
    const rate = has('rate') ? await ratePhase(stage, sizes.rateSeconds) : null;
    const atomic = {
      lone: has('atomic-lone') ? await atomicLonePhase(stage, sizes.loneSwaps) : null,
      rate: has('atomic-rate') ? await atomicRatePhase(stage, sizes.rateSeconds) : null,
    };
    // Last: it stops and restarts the workers.
    const drain = has('drain') ? await drainPhase(stage, sizes.drainSwaps) : null;
    return { lone, rate, atomic, drain };
  } finally {
    await stage.observer.close();
    // Stopped as an operator stops them (their profiles, when asked for, are written then).
    await stage.cluster.stop().catch(() => {});
    await stage.cluster.dispose();
  }
}

export function meetsCantonLoneTarget(lone: PhaseFigures): boolean {
  return lone.completed === lone.swaps && lone.onTop.p99 <= CANTON_ON_TOP_TARGET_MS;
}

export function meetsCantonRateTarget(rate: PhaseFigures): boolean {
  return rate.completed === rate.swaps && rate.total.p99 <= CANTON_RATE_TARGET_MS;
}

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : '—');

function phaseRows(name: string, figures: PhaseFigures): string[][] {
  const spreads = [
    ['ledger (deposit submit → on stream)', figures.ledger],
    ['deposit → completed', figures.total],
    ['PoolParty on top (total − 2 × ledger)', figures.onTop],
    ['deposit on stream → payout on stream', figures.react],
    ['payout on stream → completed', figures.finish],
  ] as const;
  return spreads.map(([what, spread], i) => [
    i === 0 ? `${name} (${figures.completed}/${figures.swaps})` : '',
    what,
    ms(spread.p50),
    ms(spread.p99),
    ms(spread.max),
  ]);
}

export function printCantonBench(result: CantonBench): void {
  console.log('canton path: devnet ledger server, 1 api + 2 workers on PostgreSQL, LEDGER=canton');
  const rows = [['phase', 'span', 'p50 ms', 'p99 ms', 'max ms']];
  if (result.lone) rows.push(...phaseRows('lone', result.lone));
  if (result.rate) rows.push(...phaseRows(`${CANTON_RATE_PER_S}/s`, result.rate));
  console.log(table(rows).replace(/^/gm, '  '));
  if (result.lone) {
    const met = meetsCantonLoneTarget(result.lone);
    console.log(
      `  lone: PoolParty on top p99 ${ms(result.lone.onTop.p99)} ms (target ≤ ${CANTON_ON_TOP_TARGET_MS}: ${met ? 'met' : 'NOT met'})`,
    );
  }
  if (result.rate) {
    const met = meetsCantonRateTarget(result.rate);
    console.log(
      `  ${CANTON_RATE_PER_S}/s: deposit → completed p99 ${ms(result.rate.total.p99)} ms (target ≤ ${CANTON_RATE_TARGET_MS}: ${met ? 'met' : 'NOT met'})`,
    );
  }
  for (const [name, phase] of [
    ['lone', result.lone],
    ['50/s', result.rate],
  ] as const) {
    const missing = Object.entries(phase?.incomplete ?? {}).map(([why, n]) => `${n} ${why}`);
    if (missing.length > 0) console.log(`  ${name}: not completed in time: ${missing.join(', ')}`);
  }
  if (result.atomic.lone || result.atomic.rate) {
    console.log('canton path, atomic swaps (prepared, signed by the wallet, executed):');
    printAtomicBench(result.atomic, result.rate);
  }
  if (result.drain) printDrain(result.drain);
}

function printDrain(drain: DrainFigures): void {
  console.log(
    `  drain: ${drain.completed}/${drain.swaps} completed in ${ms(drain.elapsedMs)} ms from the workers' start: ${drain.swapsPerS.toFixed(0)} swaps/s (${drain.settlingSwapsPerS.toFixed(0)}/s from first to last completion)`,
  );
  const endings = Object.entries(drain.endings).map(([state, n]) => `${n} ${state}`);
  const why = Object.entries(drain.notCompletedWhy).map(([code, n]) => `${n} ${code}`);
  const reasons = why.length === 0 ? '' : ` (not completed: ${why.join(', ')})`;
  console.log(`  drain endings: ${endings.join(', ')}${reasons}`);
  console.log(`  drain CPU (share of one core): ${cpuLine(drain.cpu)}`);
  console.log(
    `  drain: ${drain.ledgerUpdatesPerSwap.toFixed(2)} ledger updates and ${drain.storeTransactionsPerSwap.toFixed(1)} store transactions per swap`,
  );
  console.log(`  drain limit: ${drainLimit(drain.cpu)}`);
}

if (isMain(import.meta.url)) {
  const quick = process.argv.includes('--quick');
  const at = process.argv.indexOf('--phase');
  // One phase or several, comma-separated, run in the bench's own order.
  const asked = at >= 0 ? (process.argv[at + 1] ?? '').split(',') : null;
  const unknown = asked?.filter((phase) => !CANTON_PHASES.includes(phase as CantonPhase)) ?? [];
  if (unknown.length > 0) throw new Error(`--phase takes ${CANTON_PHASES.join(', ')}`);
  const phases = asked === null ? CANTON_PHASES : CANTON_PHASES.filter((p) => asked.includes(p));
  printCantonBench(await benchCanton(quick ? QUICK_SIZES : FULL_SIZES, phases));
}
