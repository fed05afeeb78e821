/**
 * Treasury sweeps (migration 0012): the platform's fees of one pool side on their way to (or
 * arrived at) the operator's treasury party. The rows are written by settlement's treasury.ts
 * only, under the pool's lock, so the amounts they move and the books always move together.
 */
import type { Amount, Instrument } from '@poolparty/core';
import { amountParam, read } from './columns.js';
import type { Queryable, Row } from './database.js';
import type { PoolSide } from './fee-events.js';
import {
  type FeeTransferProgress,
  type FeeTransferState,
  type FeeTransferTable,
  feeTransferProgressOf,
} from './fee-transfers.js';

/** A sweep's transfer (fee-transfers.ts) ends `swept`; one `returned` is among the fees again. */
export type SweepStatus = FeeTransferState<'swept'>;
export const SWEEP_STATUSES: readonly SweepStatus[] = ['pending', 'offered', 'swept', 'returned'];

/** `automatic`: the worker's schedule; `operator`: `poolparty admin treasury sweep`. */
export type SweepTrigger = 'automatic' | 'operator';

export interface NewSweep {
  readonly sweepId: string;
  readonly poolId: string;
  readonly side: PoolSide;
  readonly instrument: Instrument;
  readonly treasuryParty: string;
  readonly amount: Amount;
  readonly trigger: SweepTrigger;
  readonly commandId: string;
  readonly createdAt: Date;
}

export interface SweepRecord extends NewSweep, FeeTransferProgress<'swept'> {}

function sweepFromRow(row: Row): SweepRecord {
  return {
    sweepId: read.string(row.sweep_id),
    poolId: read.string(row.pool_id),
    side: read.string(row.side) as PoolSide,
    instrument: { id: read.string(row.instrument_id), admin: read.string(row.instrument_admin) },
    treasuryParty: read.string(row.treasury_party),
    amount: read.amount(row.amount),
    trigger: read.string(row.trigger) as SweepTrigger,
    ...feeTransferProgressOf<'swept'>(row),
  };
}

/** The sweeps' rows, for the steps of their transfers (`moveFeeTransfer`). */
export const SWEEP_TRANSFERS: FeeTransferTable<SweepRecord, 'swept'> = {
  table: 'treasury_sweeps',
  idColumn: 'sweep_id',
  arrived: 'swept',
  fromRow: sweepFromRow,
};

export async function insertSweep(q: Queryable, sweep: NewSweep): Promise<SweepRecord> {
  const rows = await q.query(
    `INSERT INTO treasury_sweeps (sweep_id, pool_id, side, instrument_id, instrument_admin,
       treasury_party, amount, trigger, status, command_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9, $10)
     RETURNING *`,
    [
      sweep.sweepId,
      sweep.poolId,
      sweep.side,
      sweep.instrument.id,
      sweep.instrument.admin,
      sweep.treasuryParty,
      amountParam(sweep.amount),
      sweep.trigger,
      sweep.commandId,
      sweep.createdAt,
    ],
  );
  return sweepFromRow(rows[0] as Row);
}

export async function getSweep(q: Queryable, sweepId: string): Promise<SweepRecord | null> {
  const rows = await q.query('SELECT * FROM treasury_sweeps WHERE sweep_id = $1', [sweepId]);
  return rows[0] ? sweepFromRow(rows[0]) : null;
}

/** Sweeps, newest first; of one pool when `poolId` is set. */
export async function listSweeps(
  q: Queryable,
  input: { readonly poolId: string | null; readonly limit: number },
): Promise<SweepRecord[]> {
  const rows = await q.query(
    `SELECT * FROM treasury_sweeps WHERE ($1::text IS NULL OR pool_id = $1)
     ORDER BY created_at DESC, sweep_id DESC LIMIT $2`,
    [input.poolId, input.limit],
  );
  return rows.map(sweepFromRow);
}

/** When the side was last swept (any sweep recorded, whatever became of it); null: never. */
export async function lastSweptAt(
  q: Queryable,
  poolId: string,
  side: PoolSide,
): Promise<Date | null> {
  const rows = await q.query(
    `SELECT max(created_at) AS last FROM treasury_sweeps WHERE pool_id = $1 AND side = $2`,
    [poolId, side],
  );
  return read.dateOrNull(rows[0]?.last);
}

/**
 * What a side's `fees` bucket holds that a sweep must leave: every developer's earnings of
 * completed swaps less their collections not returned (those on their way left `fees` already),
 * and the platform fees of swaps executed but not completed, which a reversed payout takes back.
 * Read under the pool's lock, so no collection or execution of the pool comes between.
 */
export async function feesHeldBack(
  q: Queryable,
  poolId: string,
  side: PoolSide,
): Promise<{ readonly owedToDevelopers: Amount; readonly releasable: Amount }> {
  const [row] = await q.query(
    `SELECT
       (SELECT COALESCE(sum(f.developer_earnings) FILTER (WHERE i.status = 'completed'), 0)
        FROM fee_events f JOIN intents i ON i.intent_id = f.intent_id
        WHERE f.pool_id = $1 AND f.input_side = $2)
       -
       (SELECT COALESCE(sum(amount), 0) FROM developer_collections
        WHERE pool_id = $1 AND side = $2 AND status <> 'returned') AS owed,
       (SELECT COALESCE(sum(f.platform_fee_amount), 0)
        FROM fee_events f JOIN intents i ON i.intent_id = f.intent_id
        WHERE f.pool_id = $1 AND f.input_side = $2 AND i.status <> 'completed') AS releasable`,
    [poolId, side],
  );
  return {
    owedToDevelopers: read.amount(row?.owed ?? '0'),
    releasable: read.amount(row?.releasable ?? '0'),
  };
}

/** Sweeps per pool, side and status: how many, and their amount. */
export interface SweepTotal {
  readonly poolId: string;
  readonly side: PoolSide;
  readonly status: SweepStatus;
  readonly count: number;
  readonly amount: Amount;
}

export async function sweepTotals(q: Queryable): Promise<SweepTotal[]> {
  const rows = await q.query(
    `SELECT pool_id, side, status, count(*) AS n, sum(amount) AS amount FROM treasury_sweeps
     GROUP BY pool_id, side, status ORDER BY pool_id, side, status`,
  );
  return rows.map((row) => ({
    poolId: read.string(row.pool_id),
    side: read.string(row.side) as PoolSide,
    status: read.string(row.status) as SweepStatus,
    count: read.safeInteger(row.n),
    amount: read.amount(row.amount),
  }));
}

/**
 * The ids of `limit` pools, those swept least recently first (never swept before any): a round
 * of the schedule that reaches only some pools reaches the others next time.
 */
export async function poolsLeastRecentlySwept(q: Queryable, limit: number): Promise<string[]> {
  const rows = await q.query(
    `SELECT p.pool_id FROM pools p
     LEFT JOIN (SELECT pool_id, max(created_at) AS last FROM treasury_sweeps GROUP BY pool_id) s
       ON s.pool_id = p.pool_id
     ORDER BY s.last NULLS FIRST, p.created_at, p.pool_id LIMIT $1`,
    [limit],
  );
  return rows.map((row) => read.string(row.pool_id));
}
