/** Reconciliation runs: the last one per pool decides whether the guard blocks it. */
import type { Instrument } from '@poolparty/core';
import { jsonParam, read } from './columns.js';
import type { Queryable, Row } from './database.js';

export interface ReconciliationRun {
  readonly id: number;
  readonly poolId: string;
  readonly ok: boolean;
  readonly details: unknown;
  readonly at: Date;
}

function runFromRow(row: Row): ReconciliationRun {
  return {
    id: read.safeInteger(row.id),
    poolId: read.string(row.pool_id),
    ok: row.ok === true,
    details: row.details,
    at: read.date(row.at),
  };
}

export async function insertReconciliationRun(
  q: Queryable,
  run: Omit<ReconciliationRun, 'id'>,
): Promise<ReconciliationRun> {
  const rows = await q.query(
    `INSERT INTO reconciliation_runs (pool_id, ok, details, at) VALUES ($1, $2, $3::jsonb, $4)
     RETURNING *`,
    [run.poolId, run.ok, jsonParam(run.details), run.at],
  );
  return runFromRow(rows[0] as Row);
}

export async function latestReconciliationRun(
  q: Queryable,
  poolId: string,
): Promise<ReconciliationRun | null> {
  const rows = await q.query(
    `SELECT * FROM reconciliation_runs WHERE pool_id = $1 ORDER BY at DESC, id DESC LIMIT 1`,
    [poolId],
  );
  return rows[0] ? runFromRow(rows[0]) : null;
}

/**
 * The latest run of each of `poolIds` that has one, in one statement: one step down each pool's
 * index (`reconciliation_runs_latest`). Runs are kept, one a minute per pool; a DISTINCT ON over
 * them read every run of every pool asked for, in every execution round.
 */
export async function latestReconciliationRunByPool(
  q: Queryable,
  poolIds: readonly string[],
): Promise<Map<string, ReconciliationRun>> {
  const rows = await q.query(
    `SELECT r.* FROM unnest($1::text[]) AS p(pool_id)
     CROSS JOIN LATERAL (
       SELECT * FROM reconciliation_runs WHERE pool_id = p.pool_id
       ORDER BY at DESC, id DESC LIMIT 1
     ) r`,
    [poolIds],
  );
  return new Map(rows.map((row) => [read.string(row.pool_id), runFromRow(row)]));
}

/** A pool's books summed per side, as reconciliation compares them with the ledger's holdings. */
export interface PoolBooksAtCheckpoint {
  readonly poolId: string;
  readonly swapParty: string;
  readonly lpParty: string;
  /** The offset the pool's books begin after (`admin pools add`); null: the ledger's start. */
  readonly booksFromOffset: number | null;
  /** Its atomic swaps `executing`: their ledger commit may be in the holdings, not in the books. */
  readonly atomicExecuting: number;
  /** The updates of its atomic swaps completed since the time asked: in the books already. */
  readonly atomicRecorded: readonly string[];
  readonly sides: readonly {
    readonly side: 'a' | 'b';
    readonly instrument: Instrument;
    books: bigint;
    /** What the LP party should hold: liquidity deposits not yet forwarded or returned. */
    lpBooks: bigint;
  }[];
}

export interface BooksAtCheckpoint {
  readonly checkpoint: number | null;
  readonly pools: readonly PoolBooksAtCheckpoint[];
}

/** The side's liquidity deposits the LP party holds (docs/spec/liquidity.md#deposits). */
const LP_HELD = (side: 'a' | 'b') => `(SELECT coalesce(sum(d.amount), 0) FROM liquidity_deposits d
   WHERE d.pool_id = p.pool_id AND d.status IN ('forwarding', 'returning', 'flagged')
     AND d.instrument_id = p.token_${side}_id AND d.instrument_admin = p.token_${side}_admin)`;

/**
 * Every pool's books and the checkpoint, in one snapshot; with each pool's atomic swaps
 * `executing`, and the updates of those completed since `atomicRecordedSince` (an atomic swap's
 * books move at its execution, not with the checkpoint of its update).
 */
export async function readBooksAtCheckpoint(
  q: Queryable,
  stream: string,
  atomicRecordedSince: Date,
): Promise<BooksAtCheckpoint> {
  // One statement, one snapshot: the books exactly as of the checkpoint read beside them.
  const rows = await q.query(
    `SELECT p.pool_id, p.swap_party, p.lp_party, p.token_a_id, p.token_a_admin, p.token_b_id,
       p.token_b_admin, p.books_from_offset,
       ${LP_HELD('a')} AS lp_books_a,
       ${LP_HELD('b')} AS lp_books_b,
       a.reserve_a + a.inflight_a + a.outgoing_a + a.fees_a AS books_a,
       a.reserve_b + a.inflight_b + a.outgoing_b + a.fees_b AS books_b,
       (SELECT o.last_offset FROM ledger_offsets o WHERE o.stream = $1) AS checkpoint,
       (SELECT count(*) FROM atomic_swaps s
         WHERE s.pool_id = p.pool_id AND s.status = 'executing') AS atomic_executing,
       (SELECT coalesce(json_agg(s.update_id), '[]'::json) FROM atomic_swaps s
         WHERE s.pool_id = p.pool_id AND s.status = 'completed' AND s.completed_at >= $2)
         AS atomic_recorded
     FROM pools p JOIN pool_accounting a ON a.pool_id = p.pool_id
     ORDER BY p.pool_id`,
    [stream, atomicRecordedSince],
  );
  const first = rows[0];
  const checkpoint =
    first === undefined || first.checkpoint === null ? null : read.safeInteger(first.checkpoint);
  return { checkpoint, pools: rows.map(poolBooksFromRow) };
}

function poolBooksFromRow(row: Row): PoolBooksAtCheckpoint {
  return {
    poolId: read.string(row.pool_id),
    swapParty: read.string(row.swap_party),
    lpParty: read.string(row.lp_party),
    booksFromOffset: read.integerOrNull(row.books_from_offset),
    atomicExecuting: read.safeInteger(row.atomic_executing),
    atomicRecorded: read.strings(row.atomic_recorded),
    sides: [
      {
        side: 'a',
        instrument: { id: read.string(row.token_a_id), admin: read.string(row.token_a_admin) },
        books: read.amount(row.books_a).units,
        lpBooks: read.amount(row.lp_books_a).units,
      },
      {
        side: 'b',
        instrument: { id: read.string(row.token_b_id), admin: read.string(row.token_b_admin) },
        books: read.amount(row.books_b).units,
        lpBooks: read.amount(row.lp_books_b).units,
      },
    ],
  };
}

/**
 * Completed swaps of the pool whose accounting is incomplete: no payout update id or output, no
 * fee event, a fee event that disagrees with the deposit or the output, or no committed payout.
 * A payout made as an offer commits in two updates: the command's (the offer) and the receiver's
 * acceptance, which is the one the intent records; the offer links the two.
 */
export async function incompleteCompletedSwaps(
  q: Queryable,
  poolId: string,
  sampleMax: number,
): Promise<{ readonly count: number; readonly intentIds: readonly string[] }> {
  const rows = await q.query(
    `SELECT i.intent_id, count(*) OVER () AS total FROM intents i
     LEFT JOIN fee_events f ON f.intent_id = i.intent_id
     WHERE i.pool_id = $1 AND i.status = 'completed'
       AND (i.payout_update_id IS NULL OR i.actual_output IS NULL OR f.id IS NULL
            OR f.output_amount <> i.actual_output OR f.input_amount <> i.deposit_amount
            OR NOT EXISTS (SELECT 1 FROM ledger_commands c
                           WHERE c.intent_id = i.intent_id AND c.leg = 'payout'
                             AND c.status = 'committed'
                             AND (c.update_id = i.payout_update_id
                                  OR (c.offer_id = i.payout_offer_id
                                      AND i.payout_offer_state = 'committed'
                                      AND i.payout_offer_update_id = i.payout_update_id))))
     ORDER BY i.intent_id LIMIT $2`,
    [poolId, sampleMax],
  );
  return {
    count: rows[0] ? read.safeInteger(rows[0].total) : 0,
    intentIds: rows.map((row) => read.string(row.intent_id)),
  };
}

/** The open operator flag of `kind` whose details name the pool, if any. */
export async function openFlagIdOfPool(
  q: Queryable,
  kind: string,
  poolId: string,
): Promise<number | null> {
  const rows = await q.query(
    `SELECT id FROM operator_flags
     WHERE kind = $1 AND resolved_at IS NULL AND details ->> 'poolId' = $2
     ORDER BY id LIMIT 1`,
    [kind, poolId],
  );
  return rows[0] ? read.safeInteger(rows[0].id) : null;
}
