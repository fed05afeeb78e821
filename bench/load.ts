/**
 * HTTP load through autocannon, the same tool and settings for every target so their request
 * rates can be compared. The requests are fired from a worker thread: the server under test keeps
 * the main thread's event loop to itself.
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
}

const LOAD_WORKERS = 1;

/** Warms `url` up, then measures it; throws when any answer was not 2xx (the rate would lie). */
export async function measureLoad(
  url: string,
  headers: Record<string, string>,
  settings: LoadSettings = DEFAULT_LOAD,
): Promise<LoadResult> {
  const base = { url, headers, connections: settings.connections, workers: LOAD_WORKERS };
  await autocannon({ ...base, duration: settings.warmUpS });
  const result = await autocannon({ ...base, duration: settings.durationS });
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
  };
}
