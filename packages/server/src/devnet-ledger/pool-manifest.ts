/**
 * `GET /devnet/pools`: the pools the devnet ledger was seeded with — ids, instruments, swap and
 * LP parties, fees — so that a service on this ledger registers them in its store
 * (`poolparty admin pools import-devnet`). Reserves are not listed: they are whatever the swap
 * parties hold, which the importer reads from the ledger itself.
 */
import type { FastifyInstance } from 'fastify';
import type { DevnetPoolInfo } from '../devnet-bootstrap.js';

export type DevnetPoolListing = Pick<
  DevnetPoolInfo,
  'poolId' | 'tokenA' | 'tokenB' | 'swapParty' | 'lpParty' | 'feeBps'
>;

export async function poolManifestRoutes(
  app: FastifyInstance,
  pools: readonly DevnetPoolListing[],
): Promise<void> {
  const listed = pools.map(({ poolId, tokenA, tokenB, swapParty, lpParty, feeBps }) => ({
    poolId,
    tokenA: { admin: tokenA.admin, id: tokenA.id },
    tokenB: { admin: tokenB.admin, id: tokenB.id },
    swapParty,
    lpParty,
    feeBps,
  }));
  app.get('/pools', async () => ({ pools: listed }));
}
