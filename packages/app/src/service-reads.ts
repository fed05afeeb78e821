/**
 * The pages' reads of the service that the SDK leaves out: a pool's hourly history and latest
 * trades, any swap's progress by its id (an atomic swap's too), and who is signed in to the
 * developer portal. The SDK is published with a size budget of its own and these serve the pages
 * only, so they are plain `fetch` calls here, with the service's problems turned into the SDK's
 * error class.
 */
import type {
  AtomicSwapProgress,
  PoolHistory,
  PoolHistoryPeriod,
  PoolTrades,
  PortalSessionState,
  SwapProgress,
} from '@poolparty/core';
import { PoolPartyError } from '@poolparty/sdk';

/**
 * One call of the service: JSON in and out, a refusal thrown as the SDK's error with the
 * service's code.
 */
async function callService<T>(
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, {
      method: init.method ?? 'GET',
      headers,
      ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
      credentials: 'same-origin',
    });
  } catch (caught) {
    throw new PoolPartyError('The service could not be reached.', {
      code: 'network_error',
      cause: caught,
    });
  }
  const body = (await response.json().catch(() => null)) as Record<string, unknown> | null;
  if (!response.ok) {
    throw new PoolPartyError(String(body?.detail ?? body?.title ?? response.statusText), {
      code: typeof body?.code === 'string' ? body.code : 'http_error',
      status: response.status,
      body,
    });
  }
  return body as T;
}

/** Reads of `/v1` with the pages' API key. */
export class ServiceReads {
  readonly #apiKey: string;

  constructor(apiKey: string) {
    this.#apiKey = apiKey;
  }

  poolHistory(poolId: string, period: PoolHistoryPeriod): Promise<PoolHistory> {
    return this.#get(`/v1/pools/${encodeURIComponent(poolId)}/history?period=${period}`);
  }

  poolTrades(poolId: string, limit = 20): Promise<PoolTrades> {
    return this.#get(`/v1/pools/${encodeURIComponent(poolId)}/trades?limit=${limit}`);
  }

  swapProgress(intentId: string): Promise<SwapProgress> {
    return this.#get(`/v1/swaps/${encodeURIComponent(intentId)}/progress`);
  }

  /** An atomic swap's progress: the same route, answered for its `atm_…` id. */
  atomicSwapProgress(atomicSwapId: string): Promise<AtomicSwapProgress> {
    return this.#get(`/v1/swaps/${encodeURIComponent(atomicSwapId)}/progress`);
  }

  #get<T>(path: string): Promise<T> {
    return callService<T>(path, { headers: { 'x-api-key': this.#apiKey } });
  }
}

/** Who this browser's portal cookie signs in: answered without an error status when no one. */
export function portalSessionState(): Promise<PortalSessionState> {
  return callService<PortalSessionState>('/api/sdk/session');
}
