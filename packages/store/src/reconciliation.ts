/** Reconciliation runs: the last one per pool decides whether the guard blocks it. */
import { jsonParam, readDate, readSafeInteger, readString } from './columns.js';
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
    id: readSafeInteger(row.id),
    poolId: readString(row.pool_id),
    ok: row.ok === true,
    details: row.details,
    at: readDate(row.at),
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

/** The latest run of each of `poolIds` that has one, in one statement. */
export async function latestReconciliationRunByPool(
  q: Queryable,
  poolIds: readonly string[],
): Promise<Map<string, ReconciliationRun>> {
  const rows = await q.query(
    `SELECT DISTINCT ON (pool_id) * FROM reconciliation_runs WHERE pool_id = ANY($1::text[])
     ORDER BY pool_id, at DESC, id DESC`,
    [poolIds],
  );
  return new Map(rows.map((row) => [readString(row.pool_id), runFromRow(row)]));
}
