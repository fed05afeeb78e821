/**
 * `poolparty admin pools import-devnet`: the pools a `poolparty devnet-ledger` seeded, registered
 * in the store as `admin pools add` registers any pool — reserves read from each swap party's
 * holdings through the Canton adapter — so a devnet of separate processes starts with the same
 * pools `npm start` seeds for itself. The server lists them at `GET /devnet/pools`.
 */
import type { Instrument } from '@poolparty/core';
import type { PoolRecord } from '@poolparty/store';
import { AdminError } from './admin-error.js';

export type DevnetPoolEntry = Pick<
  PoolRecord,
  'poolId' | 'tokenA' | 'tokenB' | 'swapParty' | 'lpParty' | 'feeBps'
>;

export const DEVNET_POOLS_PATH = '/devnet/pools';

/** A manifest read is one small request; a server that does not answer in this long is down. */
const MANIFEST_TIMEOUT_MS = 10_000;

type Fetch = (url: string, init: { signal: AbortSignal }) => Promise<Response>;

export async function readDevnetPoolManifest(
  baseUrl: string,
  fetchManifest: Fetch = (url, init) => fetch(url, init),
): Promise<readonly DevnetPoolEntry[]> {
  const url = `${baseUrl.replace(/\/+$/, '')}${DEVNET_POOLS_PATH}`;
  let response: Response;
  try {
    response = await fetchManifest(url, { signal: AbortSignal.timeout(MANIFEST_TIMEOUT_MS) });
  } catch (error) {
    throw new AdminError('ledger_unavailable', `cannot read ${url}: ${(error as Error).message}`);
  }
  if (!response.ok) {
    throw new AdminError(
      'ledger_unavailable',
      `${url} answered ${response.status}: is it a \`poolparty devnet-ledger\` server?`,
    );
  }
  const body: unknown = await response.json().catch(() => null);
  const pools = (body as { pools?: unknown } | null)?.pools;
  if (!Array.isArray(pools) || !pools.every(isPoolEntry)) {
    throw new AdminError(
      'ledger_unavailable',
      `${url} did not answer a pool manifest ({ pools: [...] })`,
    );
  }
  return pools;
}

function isInstrument(value: unknown): value is Instrument {
  const instrument = value as Partial<Instrument> | null;
  return typeof instrument?.admin === 'string' && typeof instrument.id === 'string';
}

function isPoolEntry(value: unknown): value is DevnetPoolEntry {
  const entry = value as Partial<DevnetPoolEntry> | null;
  return (
    typeof entry?.poolId === 'string' &&
    isInstrument(entry.tokenA) &&
    isInstrument(entry.tokenB) &&
    typeof entry.swapParty === 'string' &&
    typeof entry.lpParty === 'string' &&
    Number.isSafeInteger(entry.feeBps)
  );
}
