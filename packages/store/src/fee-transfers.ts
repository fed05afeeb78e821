/**
 * Fees set aside and sent from a swap party: a developer's collection (migration 0009) and a
 * treasury sweep (migration 0012) are each a row that follows its transfer, `pending` until the
 * ledger confirms it, `offered` while its receiver must accept an offer, then arrived or
 * `returned`. Each step is a compare-and-set, so a second delivery of the same outcome changes
 * nothing.
 */
import { read } from './columns.js';
import type { Queryable, Row } from './database.js';

/**
 * `pending`: recorded, the ledger has not confirmed it; `offered`: the transfer became an offer
 * the receiver must accept; `Arrived`: the amount arrived; `returned`: it never left the swap
 * party, or came back, and is among the fees again.
 */
export type FeeTransferState<Arrived extends string> = 'pending' | 'offered' | Arrived | 'returned';

/** A table of such rows: its name, its id column, and the state an arrived transfer ends in. */
export interface FeeTransferTable<R, Arrived extends string> {
  readonly table: string;
  readonly idColumn: string;
  readonly arrived: Arrived;
  readonly fromRow: (row: Row) => R;
}

/** What every such row records of its transfer's progress, read from its columns. */
export interface FeeTransferProgress<Arrived extends string> {
  readonly status: FeeTransferState<Arrived>;
  readonly commandId: string;
  readonly updateId: string | null;
  readonly offerId: string | null;
  readonly offerExpiresAt: Date | null;
  readonly error: string | null;
  readonly createdAt: Date;
  readonly settledAt: Date | null;
}

export function feeTransferProgressOf<Arrived extends string>(
  row: Row,
): FeeTransferProgress<Arrived> {
  return {
    status: read.string(row.status) as FeeTransferState<Arrived>,
    commandId: read.string(row.command_id),
    updateId: read.stringOrNull(row.update_id),
    offerId: read.stringOrNull(row.offer_id),
    offerExpiresAt: read.dateOrNull(row.offer_expires_at),
    error: read.stringOrNull(row.error),
    createdAt: read.date(row.created_at),
    settledAt: read.dateOrNull(row.settled_at),
  };
}

/** One step of a row, with the facts of that step. */
export interface FeeTransferStep<Arrived extends string> {
  readonly id: string;
  readonly from: readonly FeeTransferState<Arrived>[];
  readonly to: FeeTransferState<Arrived>;
  readonly updateId?: string;
  readonly offer?: { readonly offerId: string; readonly expiresAt: Date };
  readonly error?: string;
  readonly now: Date;
}

/**
 * Moves a row from one of `from` to `to`. Null when it was elsewhere: a second delivery of the
 * same outcome changes nothing.
 */
export async function moveFeeTransfer<R, Arrived extends string>(
  q: Queryable,
  table: FeeTransferTable<R, Arrived>,
  step: FeeTransferStep<Arrived>,
): Promise<R | null> {
  const settles = step.to === table.arrived || step.to === 'returned';
  // The table and column names are the constants of the two tables, never input.
  const rows = await q.query(
    `UPDATE ${table.table} SET status = $3, update_id = COALESCE($4, update_id),
       offer_id = COALESCE($5, offer_id), offer_expires_at = COALESCE($6, offer_expires_at),
       error = COALESCE($7, error), settled_at = CASE WHEN $8 THEN $9 ELSE settled_at END
     WHERE ${table.idColumn} = $1 AND status = ANY($2::text[])
     RETURNING *`,
    [
      step.id,
      [...step.from],
      step.to,
      step.updateId ?? null,
      step.offer?.offerId ?? null,
      step.offer?.expiresAt ?? null,
      step.error ?? null,
      settles,
      step.now,
    ],
  );
  return rows[0] ? table.fromRow(rows[0]) : null;
}
