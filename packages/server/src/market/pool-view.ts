/**
 * Pools and tokens as clients see them (docs/spec/protocol.md#tokens-and-pools).
 *
 * A pool's reserves on the wire are its effective reserves: the accounting's
 * `reserve` per side. Amounts in flight, being paid out or collected as fees are kept apart in
 * the accounting and never shown as liquidity.
 *
 * The token list is the set of instruments some pool trades: a token no pool trades cannot be
 * quoted or swapped, so listing it (as the ledger's instrument list would) only invites a 404.
 */
import {
  type Instrument,
  instrumentKey,
  nominalFeeRate,
  type Pool,
  type Token,
} from '@poolparty/core';
import type { PoolRecord } from '@poolparty/store';

export function poolToWire(pool: PoolRecord): Pool {
  const { accounting } = pool;
  return {
    poolId: pool.poolId,
    tokenA: {
      name: pool.tokenA.id,
      admin: pool.tokenA.admin,
      reserve: accounting.reserveA.toString(),
    },
    tokenB: {
      name: pool.tokenB.id,
      admin: pool.tokenB.admin,
      reserve: accounting.reserveB.toString(),
    },
    fee: nominalFeeRate(pool.feeBps),
    lpSupply: pool.lpSupply.toString(),
    swapAddress: pool.swapParty,
    lpAddress: pool.lpParty,
    status: pool.status,
  };
}

/** The instruments the pools trade, each once, ordered by symbol then admin. */
export function tokensOf(pools: readonly Pick<PoolRecord, 'tokenA' | 'tokenB'>[]): Token[] {
  const byKey = new Map<string, Instrument>();
  for (const pool of pools) {
    for (const instrument of [pool.tokenA, pool.tokenB])
      byKey.set(instrumentKey(instrument), instrument);
  }
  return [...byKey.values()]
    .sort((a, b) => compareText(a.id, b.id) || compareText(a.admin, b.admin))
    .map((instrument) => ({ name: instrument.id, admin: instrument.admin }));
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
