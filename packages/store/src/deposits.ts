/**
 * Every transfer that reached a pool swap party (docs/spec/lifecycle.md#unmatched-deposits). A
 * deposit is recorded once per ledger event, whatever happens to it next: the stream may deliver an
 * update twice, and the record is what guarantees no deposit is kept without trace.
 */
import type { Amount } from '@poolparty/core';
import { assert, type Instrument } from '@poolparty/core';
import { amountParam, read } from './columns.js';
import type { Queryable, Row } from './database.js';
import { firstRowOf } from './sql.js';

/**
 * `attributed`: paired with an intent, which carries it from here. `unmatched`: no intent takes
 * it; it must be returned. `returned`: refunded or rejected back to the sender. `flagged`: left to
 * an operator.
 */
export type DepositStatus = 'attributed' | 'unmatched' | 'returned' | 'flagged';

export interface NewDeposit {
  readonly updateId: string;
  /** Position of the transfer among the update's events. */
  readonly eventIndex: number;
  readonly ledgerOffset: number;
  readonly poolId: string;
  readonly sender: string;
  readonly receiver: string;
  readonly instrument: Instrument;
  readonly amount: Amount;
  readonly reference: string | null;
  readonly offerId: string | null;
  readonly intentId: string | null;
  readonly status: DepositStatus;
  readonly unmatchedReason: string | null;
  readonly receivedAt: Date;
}

export interface DepositRecord extends NewDeposit {
  readonly depositId: string;
  readonly updatedAt: Date;
}

export function depositIdOf(updateId: string, eventIndex: number): string {
  return `${updateId}:${eventIndex}`;
}

function depositFromRow(row: Row): DepositRecord {
  return {
    depositId: read.string(row.deposit_id),
    updateId: read.string(row.update_id),
    eventIndex: read.safeInteger(row.event_index),
    ledgerOffset: read.safeInteger(row.ledger_offset),
    poolId: read.string(row.pool_id),
    sender: read.string(row.sender),
    receiver: read.string(row.receiver),
    instrument: { id: read.string(row.instrument_id), admin: read.string(row.instrument_admin) },
    amount: read.amount(row.amount),
    reference: read.stringOrNull(row.reference),
    offerId: read.stringOrNull(row.offer_id),
    intentId: read.stringOrNull(row.intent_id),
    status: read.string(row.status) as DepositStatus,
    unmatchedReason: read.stringOrNull(row.unmatched_reason),
    receivedAt: read.date(row.received_at),
    updatedAt: read.date(row.updated_at),
  };
}

/**
 * Records the deposit. `inserted` is false when this ledger event was recorded before (a
 * duplicate delivery); `deposit` is then the first record, unchanged.
 */
export async function recordDeposit(
  q: Queryable,
  deposit: NewDeposit,
): Promise<{ readonly inserted: boolean; readonly deposit: DepositRecord }> {
  const depositId = depositIdOf(deposit.updateId, deposit.eventIndex);
  const rows = await q.query(
    `INSERT INTO deposits (deposit_id, update_id, event_index, ledger_offset, pool_id, sender,
       receiver, instrument_id, instrument_admin, amount, reference, offer_id, intent_id, status,
       unmatched_reason, received_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16)
     ON CONFLICT (deposit_id) DO NOTHING
     RETURNING *`,
    [
      depositId,
      deposit.updateId,
      deposit.eventIndex,
      deposit.ledgerOffset,
      deposit.poolId,
      deposit.sender,
      deposit.receiver,
      deposit.instrument.id,
      deposit.instrument.admin,
      amountParam(deposit.amount),
      deposit.reference,
      deposit.offerId,
      deposit.intentId,
      deposit.status,
      deposit.unmatchedReason,
      deposit.receivedAt,
    ],
  );
  if (rows[0]) return { inserted: true, deposit: depositFromRow(rows[0]) };
  const existing = await getDeposit(q, depositId);
  assert(existing, `deposit ${depositId} vanished while being recorded`, { depositId });
  return { inserted: false, deposit: existing };
}

export async function getDeposit(q: Queryable, depositId: string): Promise<DepositRecord | null> {
  return firstRowOf(q, 'SELECT * FROM deposits WHERE deposit_id = $1', [depositId], depositFromRow);
}

export async function getDepositOfIntent(
  q: Queryable,
  intentId: string,
): Promise<DepositRecord | null> {
  return firstRowOf(q, 'SELECT * FROM deposits WHERE intent_id = $1', [intentId], depositFromRow);
}

/** Moves the deposit from `from` to `to`; null when it was not in `from`. */
export async function setDepositStatus(
  q: Queryable,
  input: {
    readonly depositId: string;
    readonly from: DepositStatus;
    readonly to: DepositStatus;
    readonly now: Date;
  },
): Promise<DepositRecord | null> {
  return firstRowOf(
    q,
    `UPDATE deposits SET status = $3, updated_at = $4 WHERE deposit_id = $1 AND status = $2
     RETURNING *`,
    [input.depositId, input.from, input.to, input.now],
    depositFromRow,
  );
}

/** Deposits in `status`, oldest first (e.g. the unmatched ones still to return). */
export async function listDepositsInStatus(
  q: Queryable,
  status: DepositStatus,
  limit: number,
): Promise<DepositRecord[]> {
  const rows = await q.query(
    `SELECT * FROM deposits WHERE status = $1 ORDER BY received_at, deposit_id LIMIT $2`,
    [status, limit],
  );
  return rows.map(depositFromRow);
}

export async function depositByOffer(q: Queryable, offerId: string): Promise<DepositRecord | null> {
  const rows = await q.query('SELECT deposit_id FROM deposits WHERE offer_id = $1 LIMIT 1', [
    offerId,
  ]);
  const id = rows[0]?.deposit_id;
  return typeof id === 'string' ? getDeposit(q, id) : null;
}

export async function setDepositFlagged(
  q: Queryable,
  depositId: string,
  now: Date,
): Promise<boolean> {
  const rows = await q.query(
    `UPDATE deposits SET status = 'flagged', updated_at = $2
     WHERE deposit_id = $1 AND status = 'unmatched' RETURNING deposit_id`,
    [depositId, now],
  );
  return rows.length > 0;
}

/** The deposit that funded each of the intents, by intent id; intents without one are absent. */
export async function depositIdsOfIntents(
  q: Queryable,
  intentIds: readonly string[],
): Promise<Map<string, string>> {
  const rows = await q.query<{ deposit_id: string; intent_id: string }>(
    'SELECT deposit_id, intent_id FROM deposits WHERE intent_id = ANY($1::text[])',
    [intentIds],
  );
  return new Map(rows.map((row) => [row.intent_id, row.deposit_id]));
}
