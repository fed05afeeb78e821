/** Situations only an operator can resolve (e.g. `refund_failed`: funds parked). */
import { jsonParam, read } from './columns.js';
import type { Queryable, Row } from './database.js';

export interface NewOperatorFlag {
  readonly intentId: string | null;
  readonly depositId: string | null;
  readonly kind: string;
  readonly details: unknown;
  readonly createdAt: Date;
}

export interface OperatorFlag extends NewOperatorFlag {
  readonly id: number;
  readonly resolvedAt: Date | null;
  readonly resolution: string | null;
}

/** The store's reading of an `operator_flags` row. */
export function flagFromRow(row: Row): OperatorFlag {
  return {
    id: read.safeInteger(row.id),
    intentId: read.stringOrNull(row.intent_id),
    depositId: read.stringOrNull(row.deposit_id),
    kind: read.string(row.kind),
    details: row.details,
    createdAt: read.date(row.created_at),
    resolvedAt: read.dateOrNull(row.resolved_at),
    resolution: read.stringOrNull(row.resolution),
  };
}

export async function raiseOperatorFlag(
  q: Queryable,
  flag: NewOperatorFlag,
): Promise<OperatorFlag> {
  const rows = await q.query(
    `INSERT INTO operator_flags (intent_id, deposit_id, kind, details, created_at)
     VALUES ($1, $2, $3, $4::jsonb, $5) RETURNING *`,
    [flag.intentId, flag.depositId, flag.kind, jsonParam(flag.details), flag.createdAt],
  );
  return flagFromRow(rows[0] as Row);
}

/** The flag, resolved or not; null when there is none with this id. */
export async function getOperatorFlag(q: Queryable, id: number): Promise<OperatorFlag | null> {
  const rows = await q.query('SELECT * FROM operator_flags WHERE id = $1', [id]);
  return rows[0] ? flagFromRow(rows[0]) : null;
}

/** Unresolved flags, oldest first. */
export async function listOpenOperatorFlags(q: Queryable, limit: number): Promise<OperatorFlag[]> {
  const rows = await q.query(
    `SELECT * FROM operator_flags WHERE resolved_at IS NULL ORDER BY created_at, id LIMIT $1`,
    [limit],
  );
  return rows.map(flagFromRow);
}

/** Marks the flag resolved; null when it does not exist or was resolved already. */
export async function resolveOperatorFlag(
  q: Queryable,
  input: { readonly id: number; readonly resolution: string; readonly now: Date },
): Promise<OperatorFlag | null> {
  const rows = await q.query(
    `UPDATE operator_flags SET resolved_at = $2, resolution = $3
     WHERE id = $1 AND resolved_at IS NULL RETURNING *`,
    [input.id, input.now, input.resolution],
  );
  return rows[0] ? flagFromRow(rows[0]) : null;
}

/**
 * The open flags of `kind`, oldest first, at most `limit`: of one subject (an intent, or a
 * deposit with no intent) when `subjectId` is given, else of every subject.
 */
export async function openFlagsOfSubject(
  q: Queryable,
  kind: string,
  subjectId: string | null,
  limit: number,
): Promise<OperatorFlag[]> {
  const rows = await q.query(
    `SELECT * FROM operator_flags
     WHERE kind = $1 AND resolved_at IS NULL
       AND ($2::text IS NULL OR intent_id = $2 OR (intent_id IS NULL AND deposit_id = $2))
     ORDER BY created_at, id LIMIT $3`,
    [kind, subjectId, limit],
  );
  return rows.map(flagFromRow);
}
