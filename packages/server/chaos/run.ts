/**
 * `npm run chaos`: many swaps against a real multi-process deployment while the ledger misbehaves,
 * worker processes are SIGKILLed and the store's sessions are ended under the service, then a
 * check that no money went astray and that the service stayed up.
 *
 *   npm run chaos -- [--swaps 10000] [--kills 25] [--drops 25] [--liquidity 500] [--atomic 1000]
 *                    [--seed 1] [--workers 2] [--out chaos-report] [--keep] [--help]
 *
 * It starts the cluster (cluster.ts: devnet ledger server, one api, `--workers` workers, a fresh
 * PostgreSQL schema), funds traders (traders.ts), atomic traders (atomic.ts) and liquidity
 * providers (liquidity.ts) and turns on random ledger faults through the ledger server's
 * `/devnet/faults`. The traders run the planned swaps (schedule.ts) across every pool, both
 * directions; beside them the atomic traders prepare, sign and execute the planned atomic swaps
 * (the cluster's ledger is a participant's JSON API, which prepares transactions for wallets to
 * sign), and the providers run the planned liquidity rounds: deposits to LP parties nobody asked
 * for, and cancels raced against their own intents' deposits. After the planned numbers of finished swaps a worker is
 * SIGKILLed and started again, or every PostgreSQL session of the api and the workers is ended at
 * once (disruptions.ts). Then the faults go off, the system is left to settle, and the store and
 * the ledger are read (evidence.ts) and judged (verdict.ts). The report (report.ts) is printed and
 * written to `--out` as JSON and markdown. The exit code is 0 only when every invariant holds,
 * every planned kill and drop happened, and no process exited unasked or stopped uncleanly.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { FAULTS_OFF } from '@poolparty/devnet-ledger/devnet';
import {
  ATOMIC_TRADERS,
  type AtomicTradeRecord,
  type AtomicTrader,
  makeAtomicTraders,
  runAtomicSwaps,
} from './atomic.js';
import { type Cluster, startCluster } from './cluster.js';
import { Disruptions } from './disruptions.js';
import {
  assembleEvidence,
  atomicCommandsOf,
  booksAndHoldings,
  type RunParties,
  readLedger,
  readStore,
} from './evidence.js';
import {
  type LiquidityProvider,
  type LiquidityRecord,
  makeProviders,
  PROVIDERS,
  runLiquidity,
  SwapMilestones,
} from './liquidity.js';
import type { ChaosOptions } from './options.js';
import { type ChaosReport, tally, timingsOf } from './report.js';
import { planAtomicSwaps, planDrops, planKills, planLiquidity, planSwaps } from './schedule.js';
import {
  makeTraders,
  SignInQueue,
  type SwapRecord,
  type Trader,
  type TraderFaults,
} from './traders.js';
import { judge, type Verdict } from './verdict.js';

/** Traders; odd, so that each one's swaps alternate direction under the round-robin plan. */
export const PARTIES = 15;
/** Of the traders, these many pre-approve nothing: payouts and refunds come as offers. */
export const WITHOUT_PREAPPROVAL = 4;

/** The ledger faults of a run: every kind on, at rates the system must ride through. */
export const FAULT_RATES = {
  latencyMs: 2,
  rejectRate: 0.02,
  timeoutAfterCommitRate: 0.02,
  dropStreamRate: 0.002,
  duplicateDeliveryRate: 0.01,
} as const;

const PROGRESS_EVERY_MS = 15_000;
const QUIESCE_POLL_MS = 2_000;
/** Polls in a row with nothing in flight and no new deposit before the system counts as settled. */
const QUIET_POLLS = 3;
const QUIESCE_MAX_MS = 10 * 60_000;

async function setFaults(cluster: Cluster, faults: object): Promise<void> {
  const answer = await fetch(`${cluster.devnetLedger.url}/devnet/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(faults),
  });
  if (!answer.ok)
    throw new Error(`/devnet/faults answered ${answer.status}: ${await answer.text()}`);
}

/**
 * What is still moving in the store: unconfirmed commands, swaps and returns under way, liquidity
 * deposits on their way in or back, intents joining or refunding, and atomic swaps not ended.
 */
async function inFlight(cluster: Cluster) {
  const [row] = await cluster.db.query<{ commands: number; moving: number; deposits: number }>(
    `SELECT
       (SELECT count(*) FROM ledger_commands WHERE status IN ('recorded', 'submitted'))::int
         AS commands,
       (SELECT count(*) FROM intents
         WHERE status IN ('matched', 'deposit_received', 'forwarded', 'processing',
                          'sending_output')
            OR payout_offer_state = 'offered' OR refund_offer_state = 'offered')::int
       + (SELECT count(*) FROM deposits WHERE status = 'unmatched')::int
       + (SELECT count(*) FROM liquidity_deposits
           WHERE status IN ('accepting', 'forwarding', 'returning'))::int
       + (SELECT count(*) FROM liquidity_intents WHERE status IN ('joining', 'refunding'))::int
       + (SELECT count(*) FROM atomic_swaps WHERE status IN ('prepared', 'executing'))::int
         AS moving,
       (SELECT count(*) FROM deposits)::int
       + (SELECT count(*) FROM liquidity_deposits)::int AS deposits`,
  );
  return row ?? { commands: 0, moving: 0, deposits: 0 };
}

/** Waits until nothing is in flight and no deposit arrives for a few polls in a row. */
async function settle(cluster: Cluster, deadline: number): Promise<void> {
  let quiet = 0;
  let deposits = -1;
  while (quiet < QUIET_POLLS && Date.now() < deadline) {
    await sleep(QUIESCE_POLL_MS);
    const now = await inFlight(cluster);
    quiet = now.commands === 0 && now.moving === 0 && now.deposits === deposits ? quiet + 1 : 0;
    deposits = now.deposits;
  }
}

/** The run's parties: the pools', the providers, and the traders with the seeded ones. */
function runParties(cluster: Cluster, cast: Cast): RunParties {
  const { traders, atomicTraders, providers } = cast;
  const { pools, developer, users, treasury } = cluster.welcome;
  return {
    swap: pools.map((p) => p.swapParty),
    lp: pools.map((p) => p.lpParty),
    providers: providers.map((p) => p.party),
    others: [
      ...traders.map((t) => t.party),
      ...atomicTraders.map((t) => t.party),
      developer.partyId,
      ...users.map((u) => u.partyId),
      ...(treasury ? [treasury.partyId] : []),
    ],
  };
}

async function gatherVerdict(
  cluster: Cluster,
  parties: RunParties,
  traderDeposits: readonly string[],
) {
  const connection = await cluster.openLedger();
  try {
    const store = await readStore(cluster.db);
    const ledger = await readLedger(connection.ledger, parties, atomicCommandsOf(store));
    const pools = [];
    for (const { poolId } of cluster.welcome.pools) {
      pools.push(await booksAndHoldings(cluster.db, connection.ledger, poolId));
    }
    return judge(assembleEvidence(store, ledger, pools, traderDeposits));
  } finally {
    await connection.close();
  }
}

const INJECTED =
  /faults injected: (\d+) rejections, (\d+) timeouts after commit, (\d+) dropped streams, (\d+) duplicate deliveries/;

export async function runChaos(
  options: ChaosOptions,
  log: (line: string) => void = console.log,
): Promise<ChaosReport> {
  const startedAt = new Date();
  const began = Date.now();
  const seconds = () => (Date.now() - began) / 1000;
  log(`chaos: starting the cluster (${options.workers} workers) …`);
  const cluster = await startCluster({
    workers: options.workers,
    schemaPrefix: 'pp_chaos',
    keepSchema: options.keep,
  });
  // Interrupted (Ctrl-C, a CI timeout): the cluster's processes and schema go with the run.
  const interrupted = (signal: NodeJS.Signals) => {
    log(`chaos: ${signal}: stopping the cluster`);
    void cluster.dispose().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    const cast = await castOf(cluster, options);
    log(
      `chaos: ${options.swaps} swaps by ${cast.traders.length} traders, ` +
        `${options.atomic} atomic swaps by ${cast.atomicTraders.length} wallets that sign them and ` +
        `${options.liquidity} liquidity rounds by ${cast.providers.length} providers over ` +
        `${cluster.welcome.pools.length} pools, ${options.kills} kills and ${options.drops} ` +
        `store session drops planned, seed ${options.seed}; faults on`,
    );
    await setFaults(cluster, { ...FAULT_RATES, seed: options.seed });
    const traded = await trade(cluster, options, cast, seconds, log);
    const tradingSeconds = seconds();
    log(
      `chaos: ${traded.swaps.length} swaps, ${traded.atomic.length} atomic swaps and ` +
        `${traded.rounds.length} liquidity rounds done in ` +
        `${tradingSeconds.toFixed(0)} s; faults off, settling`,
    );
    await setFaults(cluster, FAULTS_OFF);
    const verdict = await settleAndJudge(cluster, options, cast, traded.swaps, log);
    const quiesceSeconds = seconds() - tradingSeconds;
    const [resubmitted] = await cluster.db.query<{ commands: number; extra: number }>(
      `SELECT count(*) FILTER (WHERE submissions > 1)::int AS commands,
              coalesce(sum(submissions - 1) FILTER (WHERE submissions > 1), 0)::int AS extra
         FROM ledger_commands`,
    );
    const stopped = await cluster.stop();
    return reportOf({
      options,
      cast,
      traded,
      verdict,
      startedAt,
      wallSeconds: seconds(),
      quiesceSeconds,
      resubmitted: resubmitted ?? { commands: 0, extra: 0 },
      processFailures: [
        ...cluster.unexpectedExits(),
        ...Object.entries(stopped)
          .filter(([, code]) => code !== 0)
          .map(([name, code]) => `${name} stopped with ${code}`),
      ],
      ledgerOutput: cluster.devnetLedger.output(),
    });
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    await cluster.dispose();
    if (options.keep) log(`chaos: kept schema ${cluster.schema}`);
  }
}

/** The wallets of a run, funded and signed in, and what their calls met of the faults. */
interface Cast {
  readonly traders: readonly Trader[];
  readonly atomicTraders: readonly AtomicTrader[];
  readonly providers: readonly LiquidityProvider[];
  readonly traderFaults: TraderFaults;
  readonly providerFaults: TraderFaults;
  readonly atomicFaults: TraderFaults;
}

async function castOf(cluster: Cluster, options: ChaosOptions): Promise<Cast> {
  const { pools } = cluster.welcome;
  const common = {
    devnetUrl: cluster.devnetLedger.url,
    apiUrl: cluster.api.url,
    apiKey: cluster.apiKey,
    pools,
    signIns: new SignInQueue(),
    tag: options.seed.toString(36),
  };
  const traderFaults: TraderFaults = { submissionRetries: 0, errors: {} };
  const providerFaults: TraderFaults = { submissionRetries: 0, errors: {} };
  const traders = await makeTraders({
    ...common,
    parties: PARTIES,
    withoutPreapproval: WITHOUT_PREAPPROVAL,
    swapsPerParty: Math.ceil(options.swaps / PARTIES),
    faults: traderFaults,
  });
  const atomicFaults: TraderFaults = { submissionRetries: 0, errors: {} };
  const [amulet] = pools.map((p) => p.tokenA);
  const atomicTraders =
    options.atomic === 0 || amulet === undefined
      ? []
      : await makeAtomicTraders({
          ...common,
          swapsPerTrader: Math.ceil(options.atomic / ATOMIC_TRADERS),
          amulet,
          faults: atomicFaults,
        });
  const providers =
    options.liquidity === 0
      ? []
      : await makeProviders({
          ...common,
          roundsPerProvider: Math.ceil(options.liquidity / PROVIDERS),
          faults: providerFaults,
        });
  return { traders, atomicTraders, providers, traderFaults, providerFaults, atomicFaults };
}

interface Traded {
  readonly swaps: readonly SwapRecord[];
  readonly atomic: readonly AtomicTradeRecord[];
  readonly rounds: readonly LiquidityRecord[];
  readonly disruptions: Disruptions;
}

/** The run's plans, from its options and the number of pools. */
function plansOf(options: ChaosOptions, pools: number) {
  const { swaps, seed } = options;
  return {
    swaps: planSwaps(swaps, pools, seed),
    kills: planKills(swaps, options.kills, options.workers, seed),
    drops: planDrops(swaps, options.drops, seed),
    liquidity: planLiquidity(swaps, options.liquidity, PROVIDERS, pools, seed),
    atomic: planAtomicSwaps(swaps, options.atomic, ATOMIC_TRADERS, pools, seed),
  };
}

/**
 * The trading phase: the traders' swaps and, beside them, the atomic swaps and the providers'
 * liquidity rounds, each at its planned number of ended swaps; kills and drops as swaps end.
 */
async function trade(
  cluster: Cluster,
  options: ChaosOptions,
  cast: Cast,
  seconds: () => number,
  log: (line: string) => void,
): Promise<Traded> {
  const { pools } = cluster.welcome;
  const plans = plansOf(options, pools.length);
  const killPlan = plans.kills;
  const swaps: SwapRecord[] = [];
  const atomic: AtomicTradeRecord[] = [];
  const rounds: LiquidityRecord[] = [];
  const disruptions = new Disruptions(cluster, killPlan, plans.drops, seconds);
  const milestones = new SwapMilestones();
  const ended = (record: SwapRecord) => {
    swaps.push(record);
    disruptions.swapsEnded(swaps.length);
    milestones.reached(swaps.length);
  };
  const progress = setInterval(() => {
    log(
      `chaos: ${swaps.length}/${options.swaps} swaps done, ` +
        `${atomic.length}/${options.atomic} atomic swaps, ` +
        `${rounds.length}/${options.liquidity} liquidity rounds, ` +
        `${disruptions.kills.length}/${killPlan.length} kills, ` +
        `${disruptions.drops.length}/${options.drops} drops, ${seconds().toFixed(0)} s`,
    );
  }, PROGRESS_EVERY_MS);
  const scene = {
    pools,
    poolParties: new Set(pools.flatMap((p) => [p.swapParty, p.lpParty])),
    references: [],
  };
  try {
    const trading = Promise.all(
      cast.traders.map(async (trader, t) => {
        for (const planned of plans.swaps.filter((p) => p.index % cast.traders.length === t)) {
          const pool = pools[planned.pool];
          if (!pool) throw new Error(`no pool ${planned.pool}`);
          ended(await trader.swap(planned, pool));
        }
      }),
    ).finally(() => milestones.finish());
    const signing = runAtomicSwaps(cast.atomicTraders, plans.atomic, pools, milestones, (r) =>
      atomic.push(r),
    );
    const providing = runLiquidity(cast.providers, plans.liquidity, scene, milestones, (r) =>
      rounds.push(r),
    );
    await Promise.all([trading, signing, providing]);
    await disruptions.done();
  } finally {
    clearInterval(progress);
  }
  await acceptLateOffers(cluster, cast, log);
  return { swaps, atomic, rounds, disruptions };
}

/**
 * Offers the wallets' own waiting missed (a return seen late) are accepted as a wallet's user
 * would: the traders' from the swap parties, the providers' from the swap and LP parties.
 */
async function acceptLateOffers(
  cluster: Cluster,
  cast: Cast,
  log: (line: string) => void,
): Promise<void> {
  const { pools } = cluster.welcome;
  const swapParties = new Set(pools.map((p) => p.swapParty));
  const poolParties = new Set(pools.flatMap((p) => [p.swapParty, p.lpParty]));
  let late = 0;
  for (const trader of cast.traders) late += await trader.acceptPendingFrom(swapParties);
  for (const provider of cast.providers) {
    late += await provider.acceptPendingFrom(poolParties).catch(() => 0);
  }
  if (late > 0) log(`chaos: accepted ${late} offers still pending to the wallets`);
}

/** Settles, then judges; a deposit still on its way is judged again after another settling. */
async function settleAndJudge(
  cluster: Cluster,
  options: ChaosOptions,
  cast: Cast,
  swaps: readonly SwapRecord[],
  log: (line: string) => void,
): Promise<Verdict> {
  const deadline = Date.now() + (options.quiesceMaxMs ?? QUIESCE_MAX_MS);
  const traderDeposits = swaps.flatMap((r) => (r.depositUpdateId ? [r.depositUpdateId] : []));
  const parties = runParties(cluster, cast);
  let verdict: Verdict;
  do {
    await settle(cluster, deadline);
    verdict = await gatherVerdict(cluster, parties, traderDeposits);
    // A return the service offered while the run settled waits for its wallet to accept it.
    if (!verdict.passed) await acceptLateOffers(cluster, cast, log);
  } while (!verdict.passed && Date.now() < deadline);
  return verdict;
}

interface ReportInputs {
  readonly options: ChaosOptions;
  readonly cast: Cast;
  readonly traded: Traded;
  readonly verdict: Verdict;
  readonly startedAt: Date;
  readonly wallSeconds: number;
  readonly quiesceSeconds: number;
  readonly resubmitted: { readonly commands: number; readonly extra: number };
  readonly processFailures: readonly string[];
  /** Everything the devnet ledger server printed: its closing line counts the faults. */
  readonly ledgerOutput: string;
}

function reportOf(inputs: ReportInputs): ChaosReport {
  const { options, cast, traded, verdict } = inputs;
  const fired = INJECTED.exec(inputs.ledgerOutput);
  const timings = traded.swaps.flatMap((r) =>
    r.depositToTerminalMs === null ? [] : [r.depositToTerminalMs],
  );
  const atomicTimings = traded.atomic.flatMap((r) =>
    r.signedToEndMs === null ? [] : [r.signedToEndMs],
  );
  return {
    options: {
      swaps: options.swaps,
      kills: options.kills,
      drops: options.drops,
      seed: options.seed,
      workers: options.workers,
      parties: cast.traders.length,
      liquidity: options.liquidity,
      providers: cast.providers.length,
      atomic: options.atomic,
      atomicTraders: cast.atomicTraders.length,
    },
    startedAt: inputs.startedAt.toISOString(),
    wallSeconds: inputs.wallSeconds,
    quiesceSeconds: inputs.quiesceSeconds,
    swapsByOutcome: tally(traded.swaps.map((r) => r.outcome)),
    swapsBySetup: tally(traded.swaps.map((r) => r.setup)),
    liquidityRounds: [...traded.rounds].sort((a, b) => a.index - b.index),
    atomic: {
      byOutcome: tally(traded.atomic.map((r) => r.outcome)),
      bySetup: tally(traded.atomic.map((r) => r.setup)),
      preparedAgain: traded.atomic.filter((r) => r.signatures > 1).length,
      errors: cast.atomicFaults.errors,
      signedToEndMs: timingsOf(atomicTimings),
    },
    kills: traded.disruptions.kills,
    drops: traded.disruptions.drops,
    processFailures: inputs.processFailures,
    faults: {
      settings: FAULT_RATES,
      injected: fired
        ? {
            rejections: Number(fired[1]),
            timeoutsAfterCommit: Number(fired[2]),
            droppedStreams: Number(fired[3]),
            duplicateDeliveries: Number(fired[4]),
          }
        : null,
      traderRetries: cast.traderFaults.submissionRetries,
      traderErrors: cast.traderFaults.errors,
      providerRetries: cast.providerFaults.submissionRetries,
      providerErrors: cast.providerFaults.errors,
      commandsResubmitted: inputs.resubmitted.commands,
      extraSubmissions: inputs.resubmitted.extra,
    },
    depositToTerminalMs: timingsOf(timings),
    verdict,
  };
}

/**
 * Whether the run counts as a pass: every invariant holds, every planned kill and drop happened,
 * and no process of the deployment exited unasked or failed to stop cleanly.
 */
export function runPassed(report: ChaosReport): boolean {
  return (
    report.verdict.passed &&
    report.kills.length === report.options.kills &&
    report.drops.length === report.options.drops &&
    report.processFailures.length === 0
  );
}
