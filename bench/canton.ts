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
 * - at 50 swaps/s: deposits paced at that rate, each from a wallet with no other swap running;
 * - drain: N deposits already on the ledger while both workers are down, then both started;
 *   swaps/s until the last one completed, with each process's CPU over the drain.
 *
 *   node --import tsx bench/canton.ts [--quick] [--phase lone|rate|drain]
 */
import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { Amount } from '@poolparty/core';
import { type ExternalSigner, type LedgerPort, REASON_META_KEY } from '@poolparty/ledger';
import { PoolParty } from '@poolparty/sdk';
import { Devnet, type DevnetWallet } from '@poolparty/sdk/devnet';
import { type Cluster, startCluster } from '@poolparty/server/testing';
import { createPricedIntent, registerApiKey } from '@poolparty/settlement/testing';
import { CantonObserver } from './canton-observer.js';
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
 * What a swap of the lone and 50/s phases puts in, as a share of its pool's Amulet reserve (50
 * Amulet in a pool of 1 000 000, 20 in one of 400 000). Every swap of the bench goes one way, and
 * a quote is refused once a trade would end the pool's price beyond its band around the slowly
 * following reference (5 %): over a full run (40 lone, 600 at the rate and 600 drained swaps, a
 * third to each pool) these shares move each pool's price about 3.4 %. A fixed 80 Amulet moved
 * the 400 000 pool past the band in the 50/s phase.
 */
const SWAP_RESERVE_SHARE = { numerator: 1n, denominator: 20_000n };
/**
 * What a drained swap puts in, as a share of its pool's Amulet reserve (30 Amulet in a pool of
 * 1 000 000): every intent of the drain is priced before any settles, all one way.
 */
const DRAIN_RESERVE_SHARE = { numerator: 3n, denominator: 100_000n };

/** The Amulet a swap on `pool` puts in: `share` of the pool's seeded Amulet reserve. */
function swapAmuletOf(pool: DevnetPoolInfo, share: typeof SWAP_RESERVE_SHARE): string {
  return Amount.parse(pool.reserveA).mulDiv(share.numerator, share.denominator, 'down').toString();
}
/** Amulet each wallet is given: its swaps' inputs and their fees, with room. */
const WALLET_FUNDING = '8000';
/** Wallets of the rate phase: with three pools each, 36 swaps can be under way at once. Each
 * sign-in is two requests of the 30 a minute the API allows one address. */
const RATE_WALLETS = 12;
/**
 * Seconds of deposits at the rate before the measured ones, not counted. A deployment that has
 * only served lone swaps opens database connections, prepares statements and grows its HTTP
 * connection pools in its first second at 50/s: the swaps of that second took up to 0.3 s longer
 * and, five of five hundred, set the p99 on their own.
 */
const RATE_WARM_UP_S = 2;
/** A lone swap not completed by then is counted as not completed. */
const SWAP_WAIT_MS = 15_000;
/** A drain not finished by then is reported with what completed. */
const DRAIN_WAIT_MS = 300_000;
/** Pause between lone swaps, so each meets an idle deployment. */
const LONE_GAP_MS = 100;
/** Wallets set up (or deposits sent) at once. */
const SETUP_CONCURRENCY = 8;
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
  readonly rate: PhaseFigures | null;
  readonly drain: DrainFigures | null;
}

type DevnetPoolInfo = Cluster['welcome']['pools'][number];

interface Trader {
  readonly wallet: DevnetWallet;
  readonly pp: PoolParty;
}

/** The deployment and what the bench holds open against it. */
interface Stage {
  readonly cluster: Cluster;
  /** Submits as the wallets, each command signed with its wallet's key. */
  readonly ledger: LedgerPort;
  readonly signers: Map<string, ExternalSigner>;
  readonly devnet: Devnet;
  readonly observer: CantonObserver;
  /** The pools an Amulet deposit settles in one step (the swap party pre-approves Amulet). */
  readonly pools: readonly DevnetPoolInfo[];
}

function progress(line: string): void {
  console.log(`  ${line}`);
}

async function inBatches<T, R>(items: readonly T[], work: (item: T) => Promise<R>) {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += SETUP_CONCURRENCY) {
    results.push(...(await Promise.all(items.slice(i, i + SETUP_CONCURRENCY).map(work))));
  }
  return results;
}

/** `count` new wallets pre-approving every instrument, funded with Amulet, their keys known. */
async function makeWallets(stage: Stage, count: number, tag: string): Promise<DevnetWallet[]> {
  const amulet = stage.pools[0]?.tokenA;
  if (!amulet) throw new Error('no Amulet pool');
  const started = Date.now();
  const wallets = await inBatches([...Array(count).keys()], async (index) => {
    const wallet = await stage.devnet.createWallet({
      partyHint: `bench-${tag}-${index}`,
      preapproval: true,
    });
    await wallet.fund(amulet.id, WALLET_FUNDING, amulet.admin);
    stage.signers.set(wallet.partyId, externalSignerOf(wallet));
    return wallet;
  });
  progress(`${count} ${tag} wallets funded (${Date.now() - started} ms)`);
  return wallets;
}

/**
 * Wallets signed in to the API, as an app's users are. The service allows
 * `LOGIN_ATTEMPTS_PER_ADDRESS` sign-ins a minute from one address: the phases stay within it.
 */
async function makeTraders(stage: Stage, count: number, tag: string): Promise<Trader[]> {
  const { cluster } = stage;
  return inBatches(await makeWallets(stage, count, tag), async (wallet) => {
    let token = '';
    const pp = new PoolParty({
      apiKey: cluster.apiKey,
      environment: 'devnet',
      baseUrl: cluster.api.url,
      walletToken: () => token,
    });
    ({ token } = await wallet.authenticate(pp));
    return { wallet, pp };
  });
}

/** The wallet's key as the ledger adapter signs with it. */
function externalSignerOf(wallet: DevnetWallet): ExternalSigner {
  return {
    publicKey: Buffer.from(wallet.signer.publicKey, 'base64'),
    sign: (message) => wallet.signer.sign(message),
  };
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
  const [trader] = await makeTraders(stage, 1, 'lone');
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

/**
 * A wallet may hold one pending intent per pool and input token: the rate phase hands out
 * (wallet, pool) slots, each back once its intent left `pending` (its deposit arrived). Held until
 * the swap ended, 36 slots could not keep 50 deposits a second going once a swap took over 0.7 s,
 * and the deposits went out late and in bunches.
 */
class Slots {
  private readonly free: { readonly trader: Trader; readonly pool: DevnetPoolInfo }[] = [];
  private readonly waiting: (() => void)[] = [];

  constructor(traders: readonly Trader[], pools: readonly DevnetPoolInfo[]) {
    for (const pool of pools) for (const trader of traders) this.free.push({ trader, pool });
  }

  async take() {
    for (;;) {
      const slot = this.free.shift();
      if (slot) return slot;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  give(slot: { readonly trader: Trader; readonly pool: DevnetPoolInfo }): void {
    this.free.push(slot);
    this.waiting.shift()?.();
  }
}

async function ratePhase(stage: Stage, seconds: number): Promise<PhaseFigures> {
  const warmUp = RATE_WARM_UP_S * CANTON_RATE_PER_S;
  const swaps = warmUp + seconds * CANTON_RATE_PER_S;
  const slots = new Slots(await makeTraders(stage, RATE_WALLETS, 'rate'), stage.pools);
  const running: Promise<SwapMoments>[] = [];
  let cpuBefore = sampleCpu(deploymentProcesses(stage.cluster));
  const startMs = Date.now();
  let lateMs = 0;
  for (let i = 0; i < swaps; i += 1) {
    const dueMs = startMs + (i * 1000) / CANTON_RATE_PER_S;
    if (dueMs - Date.now() > 1) await sleep(dueMs - Date.now());
    const slot = await slots.take();
    if (i === warmUp) cpuBefore = sampleCpu(deploymentProcesses(stage.cluster));
    if (i >= warmUp) lateMs = Math.max(lateMs, Date.now() - dueMs);
    let given = false;
    const give = () => {
      if (given) return;
      given = true;
      slots.give(slot);
    };
    running.push(oneSwap(stage, slot.trader, slot.pool, give).finally(give));
  }
  progress(
    `${warmUp} deposits to warm up (not counted), then ${swaps - warmUp} sent at ${CANTON_RATE_PER_S}/s (at most ${lateMs.toFixed(0)} ms late)`,
  );
  const moments = await Promise.all(running);
  const cpu = cpuOf(cpuBefore, sampleCpu(deploymentProcesses(stage.cluster)));
  progress(`CPU over the phase (share of one core): ${cpuLine(cpu)}`);
  return phaseFigures(moments.slice(warmUp));
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

/** The deployment's processes, named for a CPU report. */
function deploymentProcesses(cluster: Pick<Cluster, 'devnetLedger' | 'api' | 'workers'>) {
  return [
    { name: 'devnet-ledger', pid: cluster.devnetLedger.child.pid },
    { name: 'api', pid: cluster.api.child.pid },
    ...cluster.workers.map((worker, i) => ({ name: `worker-${i}`, pid: worker.child.pid })),
  ];
}

function cpuLine(cpu: readonly { readonly name: string; readonly coreShare: number }[]): string {
  return cpu.map((p) => `${p.name} ${(100 * p.coreShare).toFixed(0)} %`).join(', ');
}

async function openStage(): Promise<Stage> {
  const cluster = await startCluster({
    workers: 2,
    schemaPrefix: 'pp_bench_canton',
    keepSchema: process.env.KEEP === '1',
  });
  try {
    const signers = new Map<string, ExternalSigner>();
    const ledger = await cluster.openWalletLedger((party) => signers.get(party));
    const pools = cluster.welcome.pools.filter((pool) => pool.tokenA.id === 'Amulet');
    const parties = pools.map((pool) => pool.swapParty);
    const observer = await CantonObserver.open(ledger, parties, cluster.postgresUrl);
    const devnet = new Devnet(cluster.devnetLedger.url);
    return { cluster, ledger, signers, devnet, observer, pools };
  } catch (error) {
    await cluster.dispose();
    throw error;
  }
}

export type CantonPhase = 'lone' | 'rate' | 'drain';

export async function benchCanton(
  sizes: CantonSizes = FULL_SIZES,
  phases: readonly CantonPhase[] = ['lone', 'rate', 'drain'],
): Promise<CantonBench> {
  const stage = await openStage();
  try {
    const lone = phases.includes('lone') ? await lonePhase(stage, sizes.loneSwaps) : null;
    const rate = phases.includes('rate') ? await ratePhase(stage, sizes.rateSeconds) : null;
    // Last: it stops and restarts the workers.
    const drain = phases.includes('drain') ? await drainPhase(stage, sizes.drainSwaps) : null;
    return { lone, rate, drain };
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
  const phase = at >= 0 ? (process.argv[at + 1] as CantonPhase) : null;
  const result = await benchCanton(quick ? QUICK_SIZES : FULL_SIZES, phase ? [phase] : undefined);
  printCantonBench(result);
}
