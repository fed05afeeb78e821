/**
 * The operators' record (`admin_audit`): every change `poolparty admin` makes is written with
 * who made it, when, and what, in the transaction of the change itself. Inserting a row also
 * notifies `admin_changes` (a trigger), which running processes listen to.
 */
import { jsonParam, read } from './columns.js';
import type { Queryable, Row } from './database.js';

export const ADMIN_CHANGES_CHANNEL = 'admin_changes';

export interface NewAdminAction {
  readonly actor: string;
  /** Dotted verb, e.g. `discounts.add`, `pools.pause`, `keys.limits`. */
  readonly action: string;
  /** What it was done to: a pool id, a key id, a discount id. */
  readonly subject: string;
  readonly details: Readonly<Record<string, unknown>>;
  readonly at: Date;
}

export interface AdminActionRecord extends NewAdminAction {
  readonly id: number;
}

function actionFromRow(row: Row): AdminActionRecord {
  return {
    id: read.safeInteger(row.id),
    at: read.date(row.at),
    actor: read.string(row.actor),
    action: read.string(row.action),
    subject: read.string(row.subject),
    details: (row.details ?? {}) as Record<string, unknown>,
  };
}

export async function recordAdminAction(
  q: Queryable,
  action: NewAdminAction,
): Promise<AdminActionRecord> {
  const rows = await q.query(
    `INSERT INTO admin_audit (at, actor, action, subject, details)
     VALUES ($1, $2, $3, $4, $5::jsonb)
     RETURNING id, at, actor, action, subject, details`,
    [action.at, action.actor, action.action, action.subject, jsonParam(action.details)],
  );
  return actionFromRow(rows[0] as Row);
}

/** The latest `limit` actions, oldest of them first (as a log reads). */
export async function listAdminActions(
  q: Queryable,
  limit: number,
  filter: { readonly since?: Date } = {},
): Promise<AdminActionRecord[]> {
  const rows = await q.query(
    `SELECT * FROM (
       SELECT id, at, actor, action, subject, details FROM admin_audit
       WHERE $2::timestamptz IS NULL OR at >= $2
       ORDER BY at DESC, id DESC LIMIT $1
     ) latest ORDER BY at, id`,
    [limit, filter.since ?? null],
  );
  return rows.map(actionFromRow);
}
