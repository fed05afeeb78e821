/**
 * A developer's earnings and usage, read from fee events (one per executed swap,
 * docs/spec/stats.md#fee-events), intents and collections. An intent keeps the developer it was
 * created for, so a rotated or revoked key's swaps still count for its developer.
 *
 * Earnings count as accrued only once their swap is `completed`: a swap still sending its output
 * can be reversed, and the reversal deletes its fee event (engine/legs.ts `failPayout`), so an
 * amount collected from it could not be taken back.
 */
import type { Amount } from '@poolparty/core';
import { read } from './columns.js';
import type { Queryable } from './database.js';
import type { PoolSide } from './fee-events.js';

export interface EarningsLine {
  readonly poolId: string;
  /** The fee's instrument: the swap's input side of the pool. */
  readonly side: PoolSide;
  /** Earnings of completed swaps. */
  readonly earned: Amount;
  /** Earnings of swaps executed but not yet completed (their payout is on its way). */
  readonly unsettled: Amount;
  readonly swapCount: number;
}

/** Only the developer's swaps through `keyId` when it is set. */
export interface EarningsScope {
  readonly developerParty: string;
  readonly keyId: string | null;
}

/** Earnings per pool and instrument from swaps executed at or after `since` (null: all). */
export async function earningsSince(
  q: Queryable,
  scope: EarningsScope,
  since: Date | null,
): Promise<EarningsLine[]> {
  const rows = await q.query(
    `SELECT f.pool_id, f.input_side,
       COALESCE(sum(f.developer_earnings) FILTER (WHERE i.status = 'completed'), 0) AS earned,
       COALESCE(sum(f.developer_earnings) FILTER (WHERE i.status <> 'completed'), 0) AS unsettled,
       count(*) AS swap_count
     FROM fee_events f JOIN intents i ON i.intent_id = f.intent_id
     WHERE i.developer_party = $1 AND ($2::text IS NULL OR f.api_key_id = $2)
       AND ($3::timestamptz IS NULL OR f.at >= $3)
     GROUP BY f.pool_id, f.input_side ORDER BY f.pool_id, f.input_side`,
    [scope.developerParty, scope.keyId, since],
  );
  return rows.map((row) => ({
    poolId: read.string(row.pool_id),
    side: read.string(row.input_side) as PoolSide,
    earned: read.amount(row.earned),
    unsettled: read.amount(row.unsettled),
    swapCount: read.safeInteger(row.swap_count),
  }));
}

export interface CollectedLine {
  readonly poolId: string;
  readonly side: PoolSide;
  /** Arrived at the developer's party. */
  readonly collected: Amount;
  /** On its way: recorded or offered, not yet confirmed. */
  readonly collecting: Amount;
}

/** What the developer collected per pool and instrument (settled at or after `since`). */
export async function collectedSince(
  q: Queryable,
  developerParty: string,
  since: Date | null,
): Promise<CollectedLine[]> {
  const rows = await q.query(
    `SELECT pool_id, side,
       COALESCE(sum(amount) FILTER (WHERE status = 'collected'
         AND ($2::timestamptz IS NULL OR settled_at >= $2)), 0) AS collected,
       COALESCE(sum(amount) FILTER (WHERE status IN ('pending', 'offered')), 0) AS collecting
     FROM developer_collections WHERE developer_party = $1
     GROUP BY pool_id, side ORDER BY pool_id, side`,
    [developerParty, since],
  );
  return rows.map((row) => ({
    poolId: read.string(row.pool_id),
    side: read.string(row.side) as PoolSide,
    collected: read.amount(row.collected),
    collecting: read.amount(row.collecting),
  }));
}

/**
 * What the developer can collect now from one pool and instrument: all earnings of completed
 * swaps less every collection not returned. Read under the pool's lock (engine/collections.ts),
 * so no other collection of the pool can be recorded between this and the caller's insert.
 */
export async function collectableEarnings(
  q: Queryable,
  developerParty: string,
  poolId: string,
  side: PoolSide,
): Promise<Amount> {
  const [row] = await q.query(
    `SELECT
       (SELECT COALESCE(sum(f.developer_earnings), 0) FROM fee_events f
          JOIN intents i ON i.intent_id = f.intent_id
        WHERE i.developer_party = $1 AND f.pool_id = $2 AND f.input_side = $3
          AND i.status = 'completed')
       -
       (SELECT COALESCE(sum(amount), 0) FROM developer_collections
        WHERE developer_party = $1 AND pool_id = $2 AND side = $3 AND status <> 'returned')
       AS collectable`,
    [developerParty, poolId, side],
  );
  return read.amount(row?.collectable ?? '0');
}

/** Earnings per time bucket, pool and instrument (completed swaps), for a chart. */
export interface EarningsPoint {
  readonly start: Date;
  readonly poolId: string;
  readonly side: PoolSide;
  readonly earned: Amount;
}

export type SeriesBucket = 'hour' | 'day' | 'month';

export async function earningsSeries(
  q: Queryable,
  scope: EarningsScope,
  bucket: SeriesBucket,
  since: Date | null,
): Promise<EarningsPoint[]> {
  const rows = await q.query(
    `SELECT date_trunc($4, f.at, 'UTC') AS start, f.pool_id, f.input_side,
       sum(f.developer_earnings) AS earned
     FROM fee_events f JOIN intents i ON i.intent_id = f.intent_id
     WHERE i.developer_party = $1 AND ($2::text IS NULL OR f.api_key_id = $2)
       AND ($3::timestamptz IS NULL OR f.at >= $3) AND i.status = 'completed'
     GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
    [scope.developerParty, scope.keyId, since, bucket],
  );
  return rows.map((row) => ({
    start: read.date(row.start),
    poolId: read.string(row.pool_id),
    side: read.string(row.input_side) as PoolSide,
    earned: read.amount(row.earned),
  }));
}

export interface UsagePoint {
  readonly start: Date;
  readonly swaps: number;
  readonly failures: number;
  /** USD volume of the swaps executed; swaps without a USD-priced side add nothing. */
  readonly volumeUsd: Amount;
}

/**
 * Swaps executed, failed swaps and USD volume per bucket from `from` (inclusive) to `to`, every
 * bucket present, empty ones as zeros. A failure counts in the bucket of its last change.
 */
export async function usageSeries(
  q: Queryable,
  scope: EarningsScope,
  bucket: SeriesBucket,
  from: Date,
  to: Date,
): Promise<UsagePoint[]> {
  const rows = await q.query(
    `WITH buckets AS (
       SELECT generate_series(date_trunc($3, $4::timestamptz, 'UTC'),
         date_trunc($3, $5::timestamptz, 'UTC'), ('1 ' || $3)::interval) AS start),
     swaps AS (
       SELECT date_trunc($3, f.at, 'UTC') AS start, count(*) AS n,
         COALESCE(sum(f.volume_usd), 0) AS volume
       FROM fee_events f JOIN intents i ON i.intent_id = f.intent_id
       WHERE i.developer_party = $1 AND ($2::text IS NULL OR f.api_key_id = $2) AND f.at >= $4
       GROUP BY 1),
     failures AS (
       SELECT date_trunc($3, i.updated_at, 'UTC') AS start, count(*) AS n
       FROM intents i
       WHERE i.developer_party = $1 AND ($2::text IS NULL OR i.api_key_id = $2)
         AND i.updated_at >= $4 AND i.status IN ('slippage_failed', 'price_impact_exceeded',
           'insufficient_amount', 'insufficient_liquidity', 'output_failed', 'no_output_holdings',
           'failed', 'refund_failed')
       GROUP BY 1)
     SELECT b.start, COALESCE(s.n, 0) AS swaps, COALESCE(x.n, 0) AS failures,
       COALESCE(s.volume, 0) AS volume
     FROM buckets b LEFT JOIN swaps s ON s.start = b.start LEFT JOIN failures x ON x.start = b.start
     ORDER BY b.start`,
    [scope.developerParty, scope.keyId, bucket, from, to],
  );
  return rows.map((row) => ({
    start: read.date(row.start),
    swaps: read.safeInteger(row.swaps),
    failures: read.safeInteger(row.failures),
    volumeUsd: read.amount(row.volume),
  }));
}

/** When the developer's first intent was created; null before any. */
export async function firstActivityAt(q: Queryable, developerParty: string): Promise<Date | null> {
  const [row] = await q.query(
    'SELECT min(created_at) AS first FROM intents WHERE developer_party = $1',
    [developerParty],
  );
  return row?.first === null || row?.first === undefined ? null : read.date(row.first);
}
