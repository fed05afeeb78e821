/** A party's holdings of an instrument, and a pool's books held against its swap party's. */
import { Amount, type Instrument, instrumentKey } from '@poolparty/core';
import type { LedgerPort } from '@poolparty/ledger';
import { getPool, type Queryable } from '@poolparty/store';

export interface PoolBalance {
  readonly poolId: string;
  /** Per side: reserve + inflight + outgoing + fees, as the store keeps them. */
  readonly books: { readonly a: string; readonly b: string };
  /** Per side: the swap party's holdings on the ledger, locked ones included. */
  readonly holdings: { readonly a: string; readonly b: string };
}

/** The party's holdings of `instrument`, locked ones included. */
export async function balanceOf(
  ledger: LedgerPort,
  party: string,
  instrument: Instrument,
): Promise<Amount> {
  const key = instrumentKey(instrument);
  const holdings = await ledger.getHoldings(party);
  return Amount.sum(
    holdings.filter((h) => instrumentKey(h.instrument) === key).map((h) => h.amount),
  );
}

/** Per side, the swap party's holdings and the books (reserve + inflight + outgoing + fees). */
export async function booksAndHoldings(
  q: Queryable,
  ledger: LedgerPort,
  poolId: string,
): Promise<PoolBalance> {
  const pool = await getPool(q, poolId);
  if (!pool) throw new Error(`no pool ${poolId}`);
  const a = pool.accounting;
  const sum = (parts: Amount[]) => Amount.sum(parts).toString();
  return {
    poolId,
    books: {
      a: sum([a.reserveA, a.inflightA, a.outgoingA, a.feesA]),
      b: sum([a.reserveB, a.inflightB, a.outgoingB, a.feesB]),
    },
    holdings: {
      a: (await balanceOf(ledger, pool.swapParty, pool.tokenA)).toString(),
      b: (await balanceOf(ledger, pool.swapParty, pool.tokenB)).toString(),
    },
  };
}
