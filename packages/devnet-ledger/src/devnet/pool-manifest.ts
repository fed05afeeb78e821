/**
 * `GET /devnet/pools`: the pools the devnet ledger was seeded with — ids, instruments, swap and
 * LP parties, fees — so that a service on this ledger registers them in its store
 * (`poolparty admin pools import-devnet`). Reserves are not listed: they are whatever the swap
 * parties hold, which the importer reads from the ledger itself.
 */
import type { DevnetPool } from '@poolparty/ledger';

export type DevnetPoolListing = Pick<
  DevnetPool,
  'poolId' | 'tokenA' | 'tokenB' | 'swapParty' | 'lpParty' | 'feeBps'
>;

/** The answer of `GET /devnet/pools`: each pool's listing, and nothing more of it. */
export function poolManifest(pools: readonly DevnetPoolListing[]) {
  return {
    pools: pools.map(({ poolId, tokenA, tokenB, swapParty, lpParty, feeBps }) => ({
      poolId,
      tokenA: { admin: tokenA.admin, id: tokenA.id },
      tokenB: { admin: tokenB.admin, id: tokenB.id },
      swapParty,
      lpParty,
      feeBps,
    })),
  };
}
