/**
 * The stage of the canton-path benchmarks (canton.ts for the deposit flow, canton-atomic.ts for
 * atomic swaps): the deployment operators run, the wallets and their signed-in clients, the
 * bench's own ledger connection and observer, and what the phases share — pacing at a rate, the
 * (wallet, pool) slots, and the CPU each of PoolParty's processes spent per swap.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Amount } from '@poolparty/core';
import type { ExternalSigner, LedgerPort } from '@poolparty/ledger';
import { PoolParty } from '@poolparty/sdk';
import { Devnet, type DevnetWallet } from '@poolparty/sdk/devnet';
import { type Cluster, clusterApplicationName, startCluster } from '@poolparty/server/testing';
import { CantonObserver } from './canton-observer.js';
import {
  type CpuSample,
  cpuOf,
  postgresTicksSpent,
  sampleCpu,
  TICKS_PER_S,
} from './process-cpu.js';

/**
 * What a swap of the lone and 50/s phases puts in, as a share of its pool's Amulet reserve (50
 * Amulet in a pool of 1 000 000, 20 in one of 400 000). Every swap of the bench goes one way, and
 * a quote is refused once a trade would end the pool's price beyond its band around the slowly
 * following reference (5 %): over a full run (40 lone, 600 at the rate and 600 drained swaps, a
 * third to each pool) these shares move each pool's price about 3.4 %. A fixed 80 Amulet moved
 * the 400 000 pool past the band in the 50/s phase.
 */
export const SWAP_RESERVE_SHARE = { numerator: 1n, denominator: 20_000n };

/** The Amulet a swap on `pool` puts in: `share` of the pool's seeded Amulet reserve. */
export function swapAmuletOf(pool: DevnetPoolInfo, share: typeof SWAP_RESERVE_SHARE): string {
  return Amount.parse(pool.reserveA).mulDiv(share.numerator, share.denominator, 'down').toString();
}

/** Amulet each wallet is given: its swaps' inputs and their fees, with room. */
export const WALLET_FUNDING = '8000';
/** Wallets of the rate phase: with three pools each, 36 swaps can be under way at once. Each
 * sign-in is two requests of the 30 a minute the API allows one address. */
export const RATE_WALLETS = 12;
/**
 * Seconds of deposits at the rate before the measured ones, not counted. A deployment that has
 * only served lone swaps opens database connections, prepares statements and grows its HTTP
 * connection pools in its first second at 50/s: the swaps of that second took up to 0.3 s longer
 * and, five of five hundred, set the p99 on their own.
 */
export const RATE_WARM_UP_S = 2;

/** Wallets set up (or deposits sent) at once. */
const SETUP_CONCURRENCY = 8;

export type DevnetPoolInfo = Cluster['welcome']['pools'][number];

export interface Trader {
  readonly wallet: DevnetWallet;
  readonly pp: PoolParty;
}

/** The deployment and what the bench holds open against it. */
export interface Stage {
  readonly cluster: Cluster;
  /** Submits as the wallets, each command signed with its wallet's key. */
  readonly ledger: LedgerPort;
  readonly signers: Map<string, ExternalSigner>;
  readonly devnet: Devnet;
  readonly observer: CantonObserver;
  /** The pools an Amulet deposit settles in one step (the swap party pre-approves Amulet). */
  readonly pools: readonly DevnetPoolInfo[];
  /** Signed-in traders by the phase tag that made them, for the phases that share them. */
  readonly traders: Map<string, readonly Trader[]>;
}

export function progress(line: string): void {
  console.log(`  ${line}`);
}

export async function inBatches<T, R>(items: readonly T[], work: (item: T) => Promise<R>) {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += SETUP_CONCURRENCY) {
    results.push(...(await Promise.all(items.slice(i, i + SETUP_CONCURRENCY).map(work))));
  }
  return results;
}

/** `count` new wallets pre-approving every instrument, funded with Amulet, their keys known. */
export async function makeWallets(
  stage: Stage,
  count: number,
  tag: string,
): Promise<DevnetWallet[]> {
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
export async function makeTraders(stage: Stage, count: number, tag: string): Promise<Trader[]> {
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
export function externalSignerOf(wallet: DevnetWallet): ExternalSigner {
  return {
    publicKey: Buffer.from(wallet.signer.publicKey, 'base64'),
    sign: (message) => wallet.signer.sign(message),
  };
}

/**
 * Slots the phases at a rate hand out, each back once its swap no longer needs it: the deposit
 * flow's are (wallet, pool) pairs — a wallet may hold one pending intent per pool and input
 * token, so a slot is back once its intent left `pending` (its deposit arrived; held until the
 * swap ended, 36 slots could not keep 50 deposits a second going once a swap took over 0.7 s,
 * and the deposits went out late and in bunches). The atomic swaps' are wallets: a wallet's
 * swaps prepared at once would spend one holding, and all but the first be prepared again.
 */
export class Slots<S> {
  private readonly free: S[];
  private readonly waiting: (() => void)[] = [];

  constructor(slots: readonly S[]) {
    this.free = [...slots];
  }

  async take(): Promise<S> {
    for (;;) {
      const slot = this.free.shift();
      if (slot !== undefined) return slot;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  give(slot: S): void {
    this.free.push(slot);
    this.waiting.shift()?.();
  }
}

/** The deposit flow's slots: every (wallet, pool) pair. */
export function walletPoolSlots(traders: readonly Trader[], pools: readonly DevnetPoolInfo[]) {
  return new Slots(pools.flatMap((pool) => traders.map((trader) => ({ trader, pool }))));
}

/**
 * Starts `count` swaps at `perS` a second, each once a slot is free (`run` is given a release
 * to call when its slot may go to the next swap; it is released when the swap ends anyway).
 * `measuring` is called as the first swap past `warmUp` starts. Answers every swap's result and
 * how late the latest measured start was.
 */
export async function paced<S, T>(
  plan: { readonly count: number; readonly warmUp: number; readonly perS: number },
  slots: Slots<S>,
  run: (slot: S, index: number, release: () => void) => Promise<T>,
  measuring: () => void,
): Promise<{ readonly results: T[]; readonly lateMs: number }> {
  const running: Promise<T>[] = [];
  const startMs = Date.now();
  let lateMs = 0;
  for (let i = 0; i < plan.count; i += 1) {
    const dueMs = startMs + (i * 1000) / plan.perS;
    if (dueMs - Date.now() > 1) await sleep(dueMs - Date.now());
    const slot = await slots.take();
    if (i === plan.warmUp) measuring();
    if (i >= plan.warmUp) lateMs = Math.max(lateMs, Date.now() - dueMs);
    let given = false;
    const release = () => {
      if (given) return;
      given = true;
      slots.give(slot);
    };
    running.push(run(slot, i, release).finally(release));
  }
  return { results: await Promise.all(running), lateMs };
}

/** The deployment's processes, named for a CPU report. */
export function deploymentProcesses(cluster: Pick<Cluster, 'devnetLedger' | 'api' | 'workers'>) {
  return [
    { name: 'devnet-ledger', pid: cluster.devnetLedger.child.pid },
    { name: 'api', pid: cluster.api.child.pid },
    ...cluster.workers.map((worker, i) => ({ name: `worker-${i}`, pid: worker.child.pid })),
  ];
}

export function cpuLine(
  cpu: readonly { readonly name: string; readonly coreShare: number }[],
): string {
  return cpu.map((p) => `${p.name} ${(100 * p.coreShare).toFixed(0)} %`).join(', ');
}

/**
 * CPU of PoolParty's own processes per swap over a phase, in milliseconds of one core: the api,
 * the workers together, and their PostgreSQL sessions (the backends of the deployment's
 * `application_name`; a session that ended within the phase takes its time with it: a floor).
 * The ledger's process is beside them, not among them.
 */
export interface CpuPerSwap {
  readonly api: number;
  readonly workers: number;
  readonly sessions: number;
  readonly ledger: number;
}

/** The PostgreSQL backends of the deployment's processes now. */
async function sessionPids(cluster: Cluster): Promise<number[]> {
  const rows = await cluster.db.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
    [clusterApplicationName(cluster.schema)],
  );
  return rows.map((row) => Number(row.pid));
}

/** A phase's CPU, from its start: `perSwap` at its end. */
export class PhaseCpu {
  private constructor(
    private readonly cluster: Cluster,
    private readonly before: CpuSample,
    private readonly sessions: ReadonlySet<number>,
  ) {}

  static async start(cluster: Cluster): Promise<PhaseCpu> {
    const sessions = new Set(await sessionPids(cluster));
    return new PhaseCpu(cluster, sampleCpu(deploymentProcesses(cluster)), sessions);
  }

  /** Per swap of the phase's `swaps`, and each process's share of a core over the phase. */
  async end(swaps: number): Promise<{ readonly perSwap: CpuPerSwap; readonly line: string }> {
    const ended = new Set([...this.sessions, ...(await sessionPids(this.cluster))]);
    const after = sampleCpu(deploymentProcesses(this.cluster));
    return { perSwap: this.perSwap(after, ended, swaps), line: cpuLine(cpuOf(this.before, after)) };
  }

  private perSwap(after: CpuSample, ended: ReadonlySet<number>, swaps: number): CpuPerSwap {
    const ticks = (only: (name: string) => boolean) =>
      [...after.ticks]
        .filter(([name]) => only(name))
        .reduce((sum, [name, t]) => sum + t - (this.before.ticks.get(name) ?? 0), 0);
    const msPerSwap = (spent: number) => (1000 * spent) / TICKS_PER_S / Math.max(1, swaps);
    return {
      api: msPerSwap(ticks((name) => name === 'api')),
      workers: msPerSwap(ticks((name) => name.startsWith('worker'))),
      sessions: msPerSwap(
        postgresTicksSpent(this.before.postgres, after.postgres, (pid) => ended.has(pid)),
      ),
      ledger: msPerSwap(ticks((name) => name === 'devnet-ledger')),
    };
  }
}

/** What a phase's CPU per swap reads as, for people. */
export function cpuPerSwapLine(cpu: CpuPerSwap): string {
  const of = (ms: number) => `${ms.toFixed(2)} ms`;
  const own = cpu.api + cpu.workers + cpu.sessions;
  return `api ${of(cpu.api)}, workers ${of(cpu.workers)}, their PostgreSQL sessions ${of(cpu.sessions)} (PoolParty ${of(own)}); devnet ledger ${of(cpu.ledger)}`;
}

/** The traders of `tag`, made and signed in once, shared by the phases that use them. */
export async function tradersOf(stage: Stage, tag: string, count: number): Promise<Trader[]> {
  const made = stage.traders.get(tag);
  if (made !== undefined && made.length >= count) return made.slice(0, count);
  const traders = await makeTraders(stage, count, tag);
  stage.traders.set(tag, traders);
  return traders;
}

export async function openStage(): Promise<Stage> {
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
    return { cluster, ledger, signers, devnet, observer, pools, traders: new Map() };
  } catch (error) {
    await cluster.dispose();
    throw error;
  }
}
