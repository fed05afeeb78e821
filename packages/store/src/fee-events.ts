/**
 * One fee event per executed swap (docs/spec/stats.md#fee-events): the source of pool stats,
 * developer earnings and the output-velocity guard. An intent has at most one, so a retried
 * execution cannot count twice.
 */
import type { Amount } from '@poolparty/core';
import { amountParam, amountParamOrNull, jsonParam, read } from './columns.js';
import type { Queryable, Row } from './database.js';

export type PoolSide = 'a' | 'b';

export interface NewFeeEvent {
  readonly poolId: string;
  readonly intentId: string;
  readonly apiKeyId: string;
  readonly inputSide: PoolSide;
  readonly inputAmount: Amount;
  readonly outputAmount: Amount;
  readonly lpFeeAmount: Amount;
  readonly platformFeeAmount: Amount;
  readonly networkFeeAmount: Amount;
  readonly developerEarnings: Amount;
  /** USD values at execution; null without a USD-priced side. */
  readonly volumeUsd: Amount | null;
  readonly feesUsd: Amount | null;
  readonly lpFeesUsd: Amount | null;
  readonly at: Date;
}

export interface FeeEventRecord extends NewFeeEvent {
  readonly id: number;
}

export interface FeeSummary {
  readonly swapCount: number;
  readonly volumeUsd: Amount;
  readonly feesUsd: Amount;
  readonly lpFeesUsd: Amount;
}

function feeEventFromRow(row: Row): FeeEventRecord {
  return {
    id: read.safeInteger(row.id),
    poolId: read.string(row.pool_id),
    intentId: read.string(row.intent_id),
    apiKeyId: read.string(row.api_key_id),
    inputSide: read.string(row.input_side) as PoolSide,
    inputAmount: read.amount(row.input_amount),
    outputAmount: read.amount(row.output_amount),
    lpFeeAmount: read.amount(row.lp_fee_amount),
    platformFeeAmount: read.amount(row.platform_fee_amount),
    networkFeeAmount: read.amount(row.network_fee_amount),
    developerEarnings: read.amount(row.developer_earnings),
    volumeUsd: read.amountOrNull(row.volume_usd),
    feesUsd: read.amountOrNull(row.fees_usd),
    lpFeesUsd: read.amountOrNull(row.lp_fees_usd),
    at: read.date(row.at),
  };
}

export async function insertFeeEvent(q: Queryable, event: NewFeeEvent): Promise<FeeEventRecord> {
  const rows = await q.query(
    `INSERT INTO fee_events (pool_id, intent_id, api_key_id, input_side, input_amount,
       output_amount, lp_fee_amount, platform_fee_amount, network_fee_amount, developer_earnings,
       volume_usd, fees_usd, lp_fees_usd, at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
     RETURNING *`,
    [
      event.poolId,
      event.intentId,
      event.apiKeyId,
      event.inputSide,
      amountParam(event.inputAmount),
      amountParam(event.outputAmount),
      amountParam(event.lpFeeAmount),
      amountParam(event.platformFeeAmount),
      amountParam(event.networkFeeAmount),
      amountParam(event.developerEarnings),
      amountParamOrNull(event.volumeUsd),
      amountParamOrNull(event.feesUsd),
      amountParamOrNull(event.lpFeesUsd),
      event.at,
    ],
  );
  return feeEventFromRow(rows[0] as Row);
}

/** Inserts the fee events of several executed swaps in one statement. */
export async function insertFeeEvents(q: Queryable, events: readonly NewFeeEvent[]): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map((event) => ({
    pool_id: event.poolId,
    intent_id: event.intentId,
    api_key_id: event.apiKeyId,
    input_side: event.inputSide,
    input_amount: amountParam(event.inputAmount),
    output_amount: amountParam(event.outputAmount),
    lp_fee_amount: amountParam(event.lpFeeAmount),
    platform_fee_amount: amountParam(event.platformFeeAmount),
    network_fee_amount: amountParam(event.networkFeeAmount),
    developer_earnings: amountParam(event.developerEarnings),
    volume_usd: amountParamOrNull(event.volumeUsd),
    fees_usd: amountParamOrNull(event.feesUsd),
    lp_fees_usd: amountParamOrNull(event.lpFeesUsd),
    at: event.at.toISOString(),
  }));
  await q.query(
    `INSERT INTO fee_events (pool_id, intent_id, api_key_id, input_side, input_amount,
       output_amount, lp_fee_amount, platform_fee_amount, network_fee_amount, developer_earnings,
       volume_usd, fees_usd, lp_fees_usd, at)
     SELECT pool_id, intent_id, api_key_id, input_side, input_amount::numeric,
       output_amount::numeric, lp_fee_amount::numeric, platform_fee_amount::numeric,
       network_fee_amount::numeric, developer_earnings::numeric, volume_usd::numeric,
       fees_usd::numeric, lp_fees_usd::numeric, at::timestamptz
     FROM jsonb_to_recordset($1::jsonb) AS f(pool_id text, intent_id text, api_key_id text,
       input_side text, input_amount text, output_amount text, lp_fee_amount text,
       platform_fee_amount text, network_fee_amount text, developer_earnings text,
       volume_usd text, fees_usd text, lp_fees_usd text, at text)`,
    [jsonParam(rows)],
  );
}

/** Totals of the pool's fee events in [from, to); events without USD values add zero. */
export async function summarizeFeeEvents(
  q: Queryable,
  poolId: string,
  from: Date,
  to: Date,
): Promise<FeeSummary> {
  const [row] = await q.query(
    `SELECT count(*) AS swap_count, COALESCE(sum(volume_usd), 0) AS volume_usd,
       COALESCE(sum(fees_usd), 0) AS fees_usd, COALESCE(sum(lp_fees_usd), 0) AS lp_fees_usd
     FROM fee_events WHERE pool_id = $1 AND at >= $2 AND at < $3`,
    [poolId, from, to],
  );
  const totals = row as Row;
  return {
    swapCount: read.safeInteger(totals.swap_count),
    volumeUsd: read.amount(totals.volume_usd),
    feesUsd: read.amount(totals.fees_usd),
    lpFeesUsd: read.amount(totals.lp_fees_usd),
  };
}

/** Output paid from `outputSide` of the pool since `since` (the velocity guard's window). */
export async function sumOutputsSince(
  q: Queryable,
  poolId: string,
  outputSide: PoolSide,
  since: Date,
): Promise<Amount> {
  const [row] = await q.query(
    `SELECT COALESCE(sum(output_amount), 0) AS total FROM fee_events
     WHERE pool_id = $1 AND input_side <> $2 AND at >= $3`,
    [poolId, outputSide, since],
  );
  return read.amount((row as Row).total);
}

/**
 * Output paid from each side of each of `poolIds` since `since`, in one statement: the same sums
 * as `sumOutputsSince`, for a whole book of pools. Pools without fee events in the window are
 * absent from the map.
 */
export async function sumOutputsSinceByPool(
  q: Queryable,
  poolIds: readonly string[],
  since: Date,
): Promise<Map<string, Record<PoolSide, Amount>>> {
  const rows = await q.query(
    `SELECT pool_id,
       COALESCE(sum(output_amount) FILTER (WHERE input_side <> 'a'), 0) AS output_a,
       COALESCE(sum(output_amount) FILTER (WHERE input_side <> 'b'), 0) AS output_b
     FROM fee_events WHERE pool_id = ANY($1::text[]) AND at >= $2 GROUP BY pool_id`,
    [poolIds, since],
  );
  return new Map(
    rows.map((row) => [
      read.string(row.pool_id),
      { a: read.amount(row.output_a), b: read.amount(row.output_b) },
    ]),
  );
}

/** A reversed swap did not happen: it leaves stats, earnings and the velocity window. */
export async function deleteFeeEvent(tx: Queryable, intentId: string): Promise<void> {
  await tx.query('DELETE FROM fee_events WHERE intent_id = $1', [intentId]);
}

/** What the settlement-safety guard reads of a pool's recent swaps, per input side. */
export interface GuardWindowFigures {
  /** What the window's swaps with input side a (b) added to that side's reserve. */
  readonly addedA: string;
  readonly addedB: string;
  /** What the window's swaps with input side a (b) paid out of the other side. */
  readonly paidA: string;
  readonly paidB: string;
  readonly incompleteCompletedSwaps: number;
  readonly lastReconciliationMismatch: boolean;
}

/** The pool's guard figures for the window starting at `since`, in one round trip. */
export async function guardWindowFigures(
  q: Queryable,
  poolId: string,
  since: Date,
): Promise<GuardWindowFigures> {
  const rows = await q.query(
    `SELECT
       COALESCE(sum(input_amount - network_fee_amount - platform_fee_amount)
         FILTER (WHERE input_side = 'a'), 0) AS added_a,
       COALESCE(sum(input_amount - network_fee_amount - platform_fee_amount)
         FILTER (WHERE input_side = 'b'), 0) AS added_b,
       COALESCE(sum(output_amount) FILTER (WHERE input_side = 'a'), 0) AS paid_a,
       COALESCE(sum(output_amount) FILTER (WHERE input_side = 'b'), 0) AS paid_b,
       (SELECT count(*) FROM intents i
        WHERE i.pool_id = $1 AND i.status = 'completed'
          AND (i.payout_update_id IS NULL OR i.actual_output IS NULL
               OR NOT EXISTS (SELECT 1 FROM fee_events f WHERE f.intent_id = i.intent_id))
       ) AS incomplete,
       (SELECT NOT r.ok FROM reconciliation_runs r WHERE r.pool_id = $1
        ORDER BY r.at DESC, r.id DESC LIMIT 1) AS mismatch
     FROM fee_events WHERE pool_id = $1 AND at >= $2`,
    [poolId, since],
  );
  const row = rows[0] ?? {};
  const amount = (value: unknown) =>
    value === undefined || value === null ? '0' : read.string(value);
  return {
    addedA: amount(row.added_a),
    addedB: amount(row.added_b),
    paidA: amount(row.paid_a),
    paidB: amount(row.paid_b),
    incompleteCompletedSwaps: read.safeInteger(row.incomplete ?? '0'),
    lastReconciliationMismatch: row.mismatch === true,
  };
}

/** One hour of a pool's executed swaps: their number and USD volume. */
export interface HourlyVolume {
  readonly hour: Date;
  readonly swapCount: number;
  readonly volumeUsd: Amount;
}

/** The pool's fee events in [from, to), summed per hour (UTC); hours without swaps are absent. */
export async function hourlyVolumes(
  q: Queryable,
  poolId: string,
  from: Date,
  to: Date,
): Promise<HourlyVolume[]> {
  const rows = await q.query(
    `SELECT date_trunc('hour', at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour,
       count(*) AS swap_count, COALESCE(sum(volume_usd), 0) AS volume_usd
     FROM fee_events WHERE pool_id = $1 AND at >= $2 AND at < $3
     GROUP BY 1 ORDER BY 1`,
    [poolId, from, to],
  );
  return rows.map((row) => ({
    hour: read.date(row.hour),
    swapCount: read.safeInteger(row.swap_count),
    volumeUsd: read.amount(row.volume_usd),
  }));
}

/** The pool's latest `limit` fee events, newest first. */
export async function latestFeeEvents(
  q: Queryable,
  poolId: string,
  limit: number,
): Promise<FeeEventRecord[]> {
  const rows = await q.query(
    'SELECT * FROM fee_events WHERE pool_id = $1 ORDER BY at DESC, id DESC LIMIT $2',
    [poolId, limit],
  );
  return rows.map(feeEventFromRow);
}
