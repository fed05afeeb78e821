/**
 * `poolparty admin pools`: pausing a pool stops new business on it — quotes and swap creation
 * answer 409 `pool_paused` and a deposit arriving for an intent created before the pause is
 * refunded at execution (core's settlement decision) — until it is resumed. Every running
 * process re-reads the pool when told of the change (admin/change-feed.ts), and within a second
 * anyway (the pool book's refresh). `show` prints a pool's books
 * (docs/spec/liquidity.md#books) and its latest reconciliation.
 */

import { Amount, type Instrument, sameInstrument } from '@poolparty/core';
import type { Database, Queryable, ReconciliationRun } from '@poolparty/store';
import {
  getPool,
  heldByLpParty,
  latestReconciliationRun,
  type PoolRecord,
  type PoolStatus,
  recordAdminAction,
  setPoolStatus,
} from '@poolparty/store';
import { AdminError } from './admin-error.js';
import type { Attribution } from './discounts.js';

export async function setPoolStatusAudited(
  db: Database,
  poolId: string,
  status: PoolStatus,
  by: Attribution & { readonly reason?: string },
): Promise<PoolRecord> {
  return db.transaction(async (tx) => {
    const before = await getPool(tx, poolId);
    if (before === null) throw new AdminError('pool_not_found', `no pool ${poolId}`);
    if (before.status === status)
      throw new AdminError('precondition_failed', `pool ${poolId} is already ${status}`);
    const after = await setPoolStatus(tx, poolId, status, by.now);
    if (after === null) throw new AdminError('pool_not_found', `no pool ${poolId}`);
    await recordAdminAction(tx, {
      actor: by.actor,
      action: status === 'paused' ? 'pools.pause' : 'pools.resume',
      subject: poolId,
      details: {
        from: before.status,
        to: status,
        ...(by.reason !== undefined && { reason: by.reason }),
      },
      at: by.now,
    });
    return after;
  });
}

export function describePool(pool: PoolRecord): string {
  return [
    pool.poolId,
    pool.status,
    `${pool.tokenA.id} (${pool.tokenA.admin}) / ${pool.tokenB.id} (${pool.tokenB.admin})`,
    `reserves ${pool.accounting.reserveA} / ${pool.accounting.reserveB}`,
    `fee ${pool.feeBps} bps`,
  ].join('\t');
}

/** One side of a pool's books, and what its LP party holds of that side in passage. */
export interface SideBooks {
  readonly side: 'a' | 'b';
  readonly instrument: Instrument;
  readonly reserve: string;
  readonly inflight: string;
  readonly outgoing: string;
  readonly fees: string;
  /** reserve + inflight + outgoing + fees: what the swap party should hold. */
  readonly total: string;
  /** Liquidity deposits the LP party holds (forwarding, returning, flagged). */
  readonly lpHeld: string;
}

export interface PoolBooksView {
  readonly pool: PoolRecord;
  readonly sides: readonly [SideBooks, SideBooks];
  readonly reconciliation: ReconciliationRun | null;
}

/** The pool's books as the store holds them, with its latest reconciliation run. */
export async function readPoolBooks(q: Queryable, poolId: string): Promise<PoolBooksView> {
  const pool = await getPool(q, poolId);
  if (pool === null) throw new AdminError('pool_not_found', `no pool ${poolId}`);
  const held = await heldByLpParty(q, poolId);
  const a = pool.accounting;
  const side = (
    name: 'a' | 'b',
    instrument: Instrument,
    buckets: readonly [Amount, Amount, Amount, Amount],
  ): SideBooks => {
    const [reserve, inflight, outgoing, fees] = buckets;
    const lp = held.find((h) =>
      sameInstrument({ id: h.instrumentId, admin: h.instrumentAdmin }, instrument),
    );
    const total = Amount.sum(buckets).toString();
    return {
      side: name,
      instrument,
      reserve: reserve.toString(),
      inflight: inflight.toString(),
      outgoing: outgoing.toString(),
      fees: fees.toString(),
      total,
      lpHeld: (lp?.amount ?? Amount.ZERO).toString(),
    };
  };
  return {
    pool,
    sides: [
      side('a', pool.tokenA, [a.reserveA, a.inflightA, a.outgoingA, a.feesA]),
      side('b', pool.tokenB, [a.reserveB, a.inflightB, a.outgoingB, a.feesB]),
    ],
    reconciliation: await latestReconciliationRun(q, poolId),
  };
}

/** `admin pools show`: the pool, one line per side's buckets, and its latest reconciliation. */
export function describePoolBooks(view: PoolBooksView): string[] {
  const { pool } = view;
  const head = [
    pool.poolId,
    pool.status,
    `fee ${pool.feeBps} bps`,
    `lp supply ${pool.lpSupply}`,
    `swap party ${pool.swapParty}`,
    `lp party ${pool.lpParty}`,
  ].join('\t');
  const sides = view.sides.map((s) =>
    [
      `side ${s.side}`,
      `${s.instrument.id} (${s.instrument.admin})`,
      `reserve ${s.reserve}`,
      `inflight ${s.inflight}`,
      `outgoing ${s.outgoing}`,
      `fees ${s.fees}`,
      `total ${s.total}`,
      `lp party holds ${s.lpHeld}`,
    ].join('\t'),
  );
  return [head, ...sides, describeReconciliation(view.reconciliation)];
}

interface RunSide {
  readonly party?: string;
  readonly side?: string;
  readonly holdings?: string;
  readonly books?: string;
  readonly difference?: string;
}

/** The run's verdict; for a mismatch, its open flag and every side that differs. */
function describeReconciliation(run: ReconciliationRun | null): string {
  if (run === null) return 'reconciliation\tnot run yet';
  const details = (run.details ?? {}) as {
    readonly openFlagId?: unknown;
    readonly sides?: readonly RunSide[];
  };
  const verdict = run.ok ? 'ok' : 'mismatch';
  const parts = ['reconciliation', verdict, run.at.toISOString()];
  if (typeof details.openFlagId === 'number') parts.push(`flag ${details.openFlagId}`);
  for (const differing of (details.sides ?? []).filter((d) => d.difference !== '0')) {
    parts.push(
      `${differing.party ?? 'swap'} party side ${differing.side ?? '?'}: holds ${differing.holdings ?? '?'}, books ${differing.books ?? '?'}`,
    );
  }
  return parts.join('\t');
}
