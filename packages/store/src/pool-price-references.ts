/**
 * Each pool's reference price as its latest execution left it (migration 0019,
 * docs/spec/guard.md#reference): read and written by the executor under the pool's lock.
 */
import type { PoolPriceReference, Ratio } from '@poolparty/core';
import { read } from './columns.js';
import type { Queryable, Row } from './database.js';

function readRatio(numerator: unknown, denominator: unknown): Ratio {
  return {
    numerator: BigInt(read.string(numerator)),
    denominator: BigInt(read.string(denominator)),
  };
}

function referenceFromRow(row: Row): PoolPriceReference {
  return {
    price: readRatio(row.price_numerator, row.price_denominator),
    spot: readRatio(row.spot_numerator, row.spot_denominator),
    atMs: read.date(row.observed_at).getTime(),
    limitedSinceMs: read.dateOrNull(row.limited_since)?.getTime() ?? null,
  };
}

/** The pool's reference as last written; null before its first execution. */
export async function getPoolPriceReference(
  q: Queryable,
  poolId: string,
): Promise<PoolPriceReference | null> {
  const rows = await q.query('SELECT * FROM pool_price_references WHERE pool_id = $1', [poolId]);
  return rows[0] ? referenceFromRow(rows[0]) : null;
}

/** Writes the pool's reference, replacing the one before. */
export async function putPoolPriceReference(
  q: Queryable,
  poolId: string,
  reference: PoolPriceReference,
): Promise<void> {
  const { price, spot, atMs, limitedSinceMs } = reference;
  await q.query(
    `INSERT INTO pool_price_references (pool_id, price_numerator, price_denominator,
       spot_numerator, spot_denominator, observed_at, limited_since)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (pool_id) DO UPDATE SET price_numerator = EXCLUDED.price_numerator,
       price_denominator = EXCLUDED.price_denominator, spot_numerator = EXCLUDED.spot_numerator,
       spot_denominator = EXCLUDED.spot_denominator, observed_at = EXCLUDED.observed_at,
       limited_since = EXCLUDED.limited_since`,
    [
      poolId,
      price.numerator.toString(),
      price.denominator.toString(),
      spot.numerator.toString(),
      spot.denominator.toString(),
      new Date(atMs),
      limitedSinceMs === null ? null : new Date(limitedSinceMs),
    ],
  );
}
