/**
 * Hourly pool snapshots (docs/spec/stats.md#snapshots): reserves and the USD price of the pool's
 * base token.
 */
import type { Amount } from '@poolparty/core';
import { amountParam, amountParamOrNull, read } from './columns.js';
import type { Queryable, Row } from './database.js';

export interface PoolSnapshot {
  readonly poolId: string;
  /** Start of the hour (UTC) the snapshot stands for. */
  readonly hour: Date;
  readonly reserveA: Amount;
  readonly reserveB: Amount;
  readonly priceUsd: Amount | null;
}

const HOUR_MS = 60 * 60 * 1000;

export function hourOf(at: Date): Date {
  return new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);
}

function snapshotFromRow(row: Row): PoolSnapshot {
  return {
    poolId: read.string(row.pool_id),
    hour: read.date(row.hour),
    reserveA: read.amount(row.reserve_a),
    reserveB: read.amount(row.reserve_b),
    priceUsd: read.amountOrNull(row.price_usd),
  };
}

/** Stores the snapshot of its hour; a later snapshot of the same hour replaces it. */
export async function putPoolSnapshot(q: Queryable, snapshot: PoolSnapshot): Promise<void> {
  await q.query(
    `INSERT INTO pool_snapshots (pool_id, hour, reserve_a, reserve_b, price_usd)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (pool_id, hour) DO UPDATE SET reserve_a = EXCLUDED.reserve_a,
       reserve_b = EXCLUDED.reserve_b, price_usd = EXCLUDED.price_usd`,
    [
      snapshot.poolId,
      hourOf(snapshot.hour),
      amountParam(snapshot.reserveA),
      amountParam(snapshot.reserveB),
      amountParamOrNull(snapshot.priceUsd),
    ],
  );
}

/** Snapshots of hours in [from, to), oldest first. */
export async function listPoolSnapshots(
  q: Queryable,
  poolId: string,
  from: Date,
  to: Date,
): Promise<PoolSnapshot[]> {
  const rows = await q.query(
    `SELECT * FROM pool_snapshots WHERE pool_id = $1 AND hour >= $2 AND hour < $3 ORDER BY hour`,
    [poolId, from, to],
  );
  return rows.map(snapshotFromRow);
}

/** Snapshots of hours in [from, to) of each of `poolIds`, in one statement, oldest first. */
export async function listPoolSnapshotsByPool(
  q: Queryable,
  poolIds: readonly string[],
  from: Date,
  to: Date,
): Promise<Map<string, PoolSnapshot[]>> {
  const rows = await q.query(
    `SELECT * FROM pool_snapshots WHERE pool_id = ANY($1::text[]) AND hour >= $2 AND hour < $3
     ORDER BY pool_id, hour`,
    [poolIds, from, to],
  );
  const byPool = new Map<string, PoolSnapshot[]>();
  for (const row of rows) {
    const snapshot = snapshotFromRow(row);
    const list = byPool.get(snapshot.poolId);
    if (list) list.push(snapshot);
    else byPool.set(snapshot.poolId, [snapshot]);
  }
  return byPool;
}
