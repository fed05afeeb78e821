/**
 * HTTP load through autocannon, the same tool and settings for every target so their request
 * rates can be compared. The requests are fired from a worker thread: the server under test keeps
 * the main thread's event loop to itself, and the main thread's CPU time over a load is the
 * server's, not the load generator's.
 */
import autocannon from 'autocannon';

export interface LoadSettings {
  readonly connections: number;
  readonly durationS: number;
  /** Discarded run before the measured one: JIT, connection set-up, caches. */
  readonly warmUpS: number;
}

export const DEFAULT_LOAD: LoadSettings = { connections: 10, durationS: 5, warmUpS: 2 };

export interface LoadResult {
  readonly requestsPerS: number;
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  readonly requests: number;
  /**
   * CPU time (user + system, µs) of this process's main thread over the measured load: the
   * server's when the server under test runs there, as in quotes.ts. On a shared machine a
   * steadier figure than requests/s, since it does not count time spent waiting for a core.
   */
  readonly mainThreadCpuUs: number;
}

const LOAD_WORKERS = 1;

/** The main thread's CPU time per answer, in µs. */
export function cpuUsPerAnswer(result: LoadResult): number {
  return result.mainThreadCpuUs / result.requests;
}

/** Warms `url` up, then measures it; throws when any answer was not 2xx (the rate would lie). */
export async function measureLoad(
  url: string,
  headers: Record<string, string>,
  settings: LoadSettings = DEFAULT_LOAD,
): Promise<LoadResult> {
  const base = { url, headers, connections: settings.connections, workers: LOAD_WORKERS };
  if (settings.warmUpS > 0) await autocannon({ ...base, duration: settings.warmUpS });
  const cpuBefore = process.threadCpuUsage();
  const result = await autocannon({ ...base, duration: settings.durationS });
  const cpu = process.threadCpuUsage(cpuBefore);
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed > 0) {
    throw new Error(
      `${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts`,
    );
  }
  return {
    requestsPerS: result.requests.average,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    requests: result['2xx'],
    mainThreadCpuUs: cpu.user + cpu.system,
  };
}

/** Routes loaded in turns, so a busy moment of the machine falls on all of them alike. */
export interface RoundLoadSettings {
  readonly connections: number;
  /** Discarded run of each route before the measured rounds. */
  readonly warmUpS: number;
  /** Each round loads every route once, in order, this long each. */
  readonly roundS: number;
  readonly rounds: number;
}

export const DEFAULT_ROUND_LOAD: RoundLoadSettings = {
  connections: 10,
  warmUpS: 2,
  roundS: 2,
  // Nine, not five: a slow stretch of the machine lasting three rounds decided a median of five.
  rounds: 9,
};

/** A fast pass (`--quick`): enough to see the figures come out, too few rounds for a verdict. */
export const QUICK_ROUND_LOAD: RoundLoadSettings = {
  connections: 10,
  warmUpS: 1,
  roundS: 1,
  rounds: 3,
};

export interface LoadTarget {
  readonly url: string;
  readonly headers: Record<string, string>;
}

export interface PairedRound {
  readonly baseline: LoadResult;
  readonly subject: LoadResult;
}

/**
 * Warms every route up, then measures them one after the other (in the order `targets` names
 * them), `rounds` times: each round holds one result per name.
 */
export async function measureRounds<Name extends string>(
  targets: Readonly<Record<Name, LoadTarget>>,
  settings: RoundLoadSettings = DEFAULT_ROUND_LOAD,
): Promise<Record<Name, LoadResult>[]> {
  const once = (target: LoadTarget, durationS: number) =>
    measureLoad(target.url, target.headers, {
      connections: settings.connections,
      warmUpS: 0,
      durationS,
    });
  const named = Object.entries(targets) as [Name, LoadTarget][];
  for (const [, target] of named) await once(target, settings.warmUpS);
  const rounds: Record<Name, LoadResult>[] = [];
  for (let i = 0; i < settings.rounds; i++) {
    const round: Partial<Record<Name, LoadResult>> = {};
    for (const [name, target] of named) round[name] = await once(target, settings.roundS);
    rounds.push(round as Record<Name, LoadResult>);
  }
  return rounds;
}

/**
 * The subject's rate as a share of the baseline's: the median of the rounds' ratios, each taken
 * from two loads seconds apart, so one slow moment moves one round, not the figure.
 */
export function pairedRatio(rounds: readonly PairedRound[]): number {
  const ratios = rounds
    .map((round) => round.subject.requestsPerS / round.baseline.requestsPerS)
    .sort((a, b) => a - b);
  if (ratios.length === 0) return Number.NaN;
  const middle = Math.floor(ratios.length / 2);
  return ratios.length % 2 === 1
    ? (ratios[middle] as number)
    : ((ratios[middle - 1] as number) + (ratios[middle] as number)) / 2;
}

/** One side's rounds as one result: its mean rate, median p50, worst p99 and all its CPU time. */
export function combinedLoad(results: readonly LoadResult[]): LoadResult {
  const requests = results.reduce((sum, r) => sum + r.requests, 0);
  const p50s = results.map((r) => r.latencyP50Ms).sort((a, b) => a - b);
  return {
    requestsPerS: results.reduce((sum, r) => sum + r.requestsPerS, 0) / results.length,
    latencyP50Ms: p50s[Math.floor(p50s.length / 2)] ?? Number.NaN,
    latencyP99Ms: Math.max(...results.map((r) => r.latencyP99Ms)),
    requests,
    mainThreadCpuUs: results.reduce((sum, r) => sum + r.mainThreadCpuUs, 0),
  };
}
