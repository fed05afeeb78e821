/**
 * `npm run chaos`: many swaps against a real multi-process deployment while the ledger misbehaves,
 * worker processes are SIGKILLed and the store's sessions are ended under the service, then a
 * check that no money went astray and that the service stayed up.
 *
 *   npm run chaos -- [--swaps 10000] [--kills 25] [--drops 25] [--seed 1] [--workers 2]
 *                    [--out chaos-report] [--keep] [--help]
 *
 * It starts the cluster (cluster.ts: devnet ledger server, one api, `--workers` workers, a fresh
 * PostgreSQL schema), funds traders (traders.ts) and turns on random ledger faults through the
 * ledger server's `/devnet/faults`. The traders run the planned swaps (schedule.ts) across every
 * pool, both directions; after the planned numbers of finished swaps a worker is SIGKILLed and
 * started again, or every PostgreSQL session of the api and the workers is ended at once
 * (disruptions.ts). Then the faults go off, the system is left to settle, and the store and the
 * ledger are read (evidence.ts) and judged (verdict.ts). The report (report.ts) is printed and
 * written to `--out` as JSON and markdown. The exit code is 0 only when every invariant holds,
 * every planned kill and drop happened, and no process exited unasked or stopped uncleanly.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { FAULTS_OFF } from '@poolparty/devnet-ledger/devnet';
import { type Cluster, startCluster } from './cluster.js';
import { Disruptions } from './disruptions.js';
import { assembleEvidence, booksAndHoldings, readLedger, readStore } from './evidence.js';
import { type ChaosReport, markdownReport, quantile, tally, writeReport } from './report.js';
import { planDrops, planKills, planSwaps } from './schedule.js';
import { makeTraders, type SwapRecord, type TraderFaults } from './traders.js';
import { judge, type Verdict } from './verdict.js';

export interface ChaosOptions {
  readonly swaps: number;
  readonly kills: number;
  /** Moments every store session of the api and the workers is ended. */
  readonly drops: number;
  readonly seed: number;
  readonly workers: number;
  /** Folder for the report; null: not written. */
  readonly out: string | null;
  /** Keep the PostgreSQL schema afterwards. */
  readonly keep: boolean;
  /** How long the system may take to settle after the last swap; default 10 minutes. */
  readonly quiesceMaxMs?: number;
}

export const DEFAULT_SWAPS = 10_000;
/** Kills per swap when `--kills` is not given: 25 for 10 000 swaps. */
const KILLS_PER_SWAP = 25 / 10_000;
/** Drops of every store session per swap when `--drops` is not given: 25 for 10 000 swaps. */
const DROPS_PER_SWAP = 25 / 10_000;
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

export class ChaosUsageError extends Error {
  override readonly name = 'ChaosUsageError';
}

/** What `npm run chaos -- --help` prints: the command line of this file's header, explained. */
export const CHAOS_USAGE = `usage: npm run chaos -- [--swaps N] [--kills N] [--drops N] [--seed N] [--workers N] [--out DIR] [--keep]

Many swaps against a multi-process deployment (devnet ledger server, one api, workers on
PostgreSQL) while the ledger misbehaves, workers are SIGKILLed and the store's sessions are
ended under the service, then a check that no money went astray. Exit code 0 only when every
invariant holds, every planned kill and drop happened and no process exited unasked.

  --swaps N     swaps to run (default ${DEFAULT_SWAPS})
  --kills N     worker kills along the way, at most half the swaps (default 25 per 10 000 swaps)
  --drops N     moments every store session of the api and workers is ended (pg_terminate_backend),
                at most half the swaps (default 25 per 10 000 swaps)
  --seed N      seed of the swap and kill plan, 0 to 2^32 - 1 (default 1)
  --workers N   worker processes, 2 to 8 (default 2)
  --out DIR     folder for the JSON and markdown report (default chaos-report)
  --keep        keep the PostgreSQL schema afterwards
  -h, --help    print this and exit`;

const CHAOS_FLAGS = {
  swaps: { type: 'string' },
  kills: { type: 'string' },
  drops: { type: 'string' },
  seed: { type: 'string' },
  workers: { type: 'string' },
  out: { type: 'string' },
  keep: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Whether the command line asks for the usage (`--help` or `-h`), whatever else it says. */
export function wantsChaosHelp(argv: readonly string[]): boolean {
  const { values } = parseArgs({ args: [...argv], strict: false, options: CHAOS_FLAGS });
  return values.help === true;
}

function integerFlag(name: string, text: string | undefined, min: number, fallback: number) {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^-?\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < min) {
    throw new ChaosUsageError(`--${name} must be a whole number of at least ${min}, not "${text}"`);
  }
  return value;
}

/** The options of `npm run chaos -- …`; a bad value throws a ChaosUsageError saying which. */
export function parseChaosArgs(argv: readonly string[]): ChaosOptions {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: CHAOS_FLAGS,
    }));
  } catch (error) {
    throw new ChaosUsageError(error instanceof Error ? error.message : String(error));
  }
  const text = (name: string) => values[name] as string | undefined;
  const swaps = integerFlag('swaps', text('swaps'), 1, DEFAULT_SWAPS);
  const kills = integerFlag('kills', text('kills'), 0, Math.round(swaps * KILLS_PER_SWAP));
  if (kills > Math.floor(swaps / 2)) {
    throw new ChaosUsageError(`--kills ${kills} is more than half of --swaps ${swaps}`);
  }
  const drops = integerFlag('drops', text('drops'), 0, Math.round(swaps * DROPS_PER_SWAP));
  if (drops > Math.floor(swaps / 2)) {
    throw new ChaosUsageError(`--drops ${drops} is more than half of --swaps ${swaps}`);
  }
  const seed = integerFlag('seed', text('seed'), 0, 1);
  if (seed > 0xffffffff) throw new ChaosUsageError(`--seed must fit 32 bits, not ${seed}`);
  const workers = integerFlag('workers', text('workers'), 2, 2);
  if (workers > 8) throw new ChaosUsageError(`--workers ${workers} is more than 8`);
  const out = text('out');
  if (out !== undefined && out.trim() === '') throw new ChaosUsageError('--out needs a folder');
  return {
    swaps,
    kills,
    drops,
    seed,
    workers,
    out: out ?? 'chaos-report',
    keep: values.keep === true,
  };
}

async function setFaults(cluster: Cluster, faults: object): Promise<void> {
  const answer = await fetch(`${cluster.devnetLedger.url}/devnet/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(faults),
  });
  if (!answer.ok)
    throw new Error(`/devnet/faults answered ${answer.status}: ${await answer.text()}`);
}

/** What is still moving in the store: unconfirmed commands, swaps and returns under way. */
async function inFlight(cluster: Cluster) {
  const [row] = await cluster.db.query<{ commands: number; moving: number; deposits: number }>(
    `SELECT
       (SELECT count(*) FROM ledger_commands WHERE status IN ('recorded', 'submitted'))::int
         AS commands,
       (SELECT count(*) FROM intents
         WHERE status IN ('matched', 'deposit_received', 'forwarded', 'processing',
                          'sending_output')
            OR payout_offer_state = 'offered' OR refund_offer_state = 'offered')::int
       + (SELECT count(*) FROM deposits WHERE status = 'unmatched')::int AS moving,
       (SELECT count(*) FROM deposits)::int AS deposits`,
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

async function gatherVerdict(cluster: Cluster, traderDeposits: readonly string[]) {
  const connection = await cluster.openLedger();
  try {
    const swapParties = cluster.welcome.pools.map((p) => p.swapParty);
    const store = await readStore(cluster.db);
    const ledger = await readLedger(connection.ledger, swapParties);
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
    const pools = cluster.welcome.pools;
    const faults: TraderFaults = { submissionRetries: 0, errors: {} };
    const traders = await makeTraders({
      devnetUrl: cluster.devnetLedger.url,
      apiUrl: cluster.api.url,
      apiKey: cluster.apiKey,
      pools,
      parties: PARTIES,
      withoutPreapproval: WITHOUT_PREAPPROVAL,
      swapsPerParty: Math.ceil(options.swaps / PARTIES),
      faults,
      tag: options.seed.toString(36),
    });
    const plan = planSwaps(options.swaps, pools.length, options.seed);
    const killPlan = planKills(options.swaps, options.kills, options.workers, options.seed);
    log(
      `chaos: ${options.swaps} swaps by ${traders.length} traders over ${pools.length} pools, ` +
        `${killPlan.length} kills and ${options.drops} store session drops planned, seed ${options.seed}; faults on`,
    );
    await setFaults(cluster, { ...FAULT_RATES, seed: options.seed });

    const records: SwapRecord[] = [];
    const disruptions = new Disruptions(
      cluster,
      killPlan,
      planDrops(options.swaps, options.drops, options.seed),
      seconds,
    );
    const ended = (record: SwapRecord) => {
      records.push(record);
      disruptions.swapsEnded(records.length);
    };
    const progress = setInterval(() => {
      log(
        `chaos: ${records.length}/${options.swaps} swaps done, ` +
          `${disruptions.kills.length}/${killPlan.length} kills, ` +
          `${disruptions.drops.length}/${options.drops} drops, ${seconds().toFixed(0)} s`,
      );
    }, PROGRESS_EVERY_MS);
    try {
      await Promise.all(
        traders.map(async (trader, t) => {
          for (const planned of plan.filter((p) => p.index % traders.length === t)) {
            const pool = pools[planned.pool];
            if (!pool) throw new Error(`no pool ${planned.pool}`);
            ended(await trader.swap(planned, pool));
          }
        }),
      );
      await disruptions.done();
    } finally {
      clearInterval(progress);
    }
    // Offers the traders' own waiting missed (a return seen late) are accepted as a wallet would.
    const swapParties = new Set(pools.map((p) => p.swapParty));
    let lateOffers = 0;
    for (const trader of traders) lateOffers += await trader.acceptPendingFrom(swapParties);
    if (lateOffers > 0) log(`chaos: accepted ${lateOffers} offers still pending to the traders`);
    const tradingSeconds = seconds();
    log(
      `chaos: ${records.length} swaps done in ${tradingSeconds.toFixed(0)} s; faults off, settling`,
    );
    await setFaults(cluster, FAULTS_OFF);

    // Settle, then judge; a deposit still on its way is judged again after another settling.
    const deadline = Date.now() + (options.quiesceMaxMs ?? QUIESCE_MAX_MS);
    const traderDeposits = records.flatMap((r) => (r.depositUpdateId ? [r.depositUpdateId] : []));
    let verdict: Verdict;
    do {
      await settle(cluster, deadline);
      verdict = await gatherVerdict(cluster, traderDeposits);
    } while (!verdict.passed && Date.now() < deadline);
    const quiesceSeconds = seconds() - tradingSeconds;

    const [resubmitted] = await cluster.db.query<{ commands: number; extra: number }>(
      `SELECT count(*) FILTER (WHERE submissions > 1)::int AS commands,
              coalesce(sum(submissions - 1) FILTER (WHERE submissions > 1), 0)::int AS extra
         FROM ledger_commands`,
    );
    const stopped = await cluster.stop();
    const fired = INJECTED.exec(cluster.devnetLedger.output());
    const timings = records.flatMap((r) =>
      r.depositToTerminalMs === null ? [] : [r.depositToTerminalMs],
    );
    const report: ChaosReport = {
      options: {
        swaps: options.swaps,
        kills: options.kills,
        drops: options.drops,
        seed: options.seed,
        workers: options.workers,
        parties: traders.length,
      },
      startedAt: startedAt.toISOString(),
      wallSeconds: seconds(),
      quiesceSeconds,
      swapsByOutcome: tally(records.map((r) => r.outcome)),
      swapsBySetup: tally(records.map((r) => r.setup)),
      kills: disruptions.kills,
      drops: disruptions.drops,
      processFailures: [
        ...cluster.unexpectedExits(),
        ...Object.entries(stopped)
          .filter(([, code]) => code !== 0)
          .map(([name, code]) => `${name} stopped with ${code}`),
      ],
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
        traderRetries: faults.submissionRetries,
        traderErrors: faults.errors,
        commandsResubmitted: resubmitted?.commands ?? 0,
        extraSubmissions: resubmitted?.extra ?? 0,
      },
      depositToTerminalMs: {
        count: timings.length,
        p50: quantile(timings, 0.5),
        p99: quantile(timings, 0.99),
        max: quantile(timings, 1),
      },
      verdict,
    };
    return report;
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    await cluster.dispose();
    if (options.keep) log(`chaos: kept schema ${cluster.schema}`);
  }
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

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (wantsChaosHelp(argv)) {
    console.log(CHAOS_USAGE);
    return 0;
  }
  let options: ChaosOptions;
  try {
    options = parseChaosArgs(argv);
  } catch (error) {
    if (!(error instanceof ChaosUsageError)) throw error;
    console.error(`chaos: ${error.message}`);
    console.error(CHAOS_USAGE.split('\n')[0]);
    return 2;
  }
  const report = await runChaos(options);
  console.log(markdownReport(report));
  if (options.out !== null) {
    const written = writeReport(options.out, report);
    console.log(`chaos: report written to ${written.json} and ${written.markdown}`);
  }
  const passed = runPassed(report);
  console.log(`chaos: ${passed ? 'PASSED' : 'FAILED'}`);
  return passed ? 0 : 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error('chaos: the run failed:', error);
      process.exit(1);
    },
  );
}
