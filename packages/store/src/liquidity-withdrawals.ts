/**
 * Withdrawals: units burned for two payouts (docs/spec/liquidity.md#withdrawals). Each side's
 * payout has its own state, moved by compare-and-set, so a confirmation delivered twice pays once.
 */
import type { Amount, Side } from '@poolparty/core';
import { amountParam, read } from './columns.js';
import type { Queryable, Row } from './database.js';

export type PayoutState = 'pending' | 'offered' | 'paid' | 'flagged' | 'none';

export const WITHDRAWAL_PAGE_SIZE_MAX = 100;

/** A withdrawal's status as its view derives it (migration 0017's `withdrawal_webhook_status`). */
export type WithdrawalStatus = 'paying' | 'completed' | 'flagged';

/** A payout that moved while the withdrawal's status stood. */
export type WithdrawalLegEvent =
  | 'payout_pending'
  | 'payout_offered'
  | 'payout_paid'
  | 'payout_flagged';

/** One row of `withdrawal_events`, the withdrawals' outbox (migration 0018). */
export interface WithdrawalEventRecord {
  readonly seq: number;
  readonly withdrawalId: string;
  readonly status: WithdrawalStatus;
  /** Null for a change of status. */
  readonly legEvent: WithdrawalLegEvent | null;
  /** The side whose payout moved; null for the burn. */
  readonly side: Side | null;
  readonly payoutA: PayoutState;
  readonly payoutB: PayoutState;
  readonly at: Date;
}

export interface NewWithdrawal {
  readonly withdrawalId: string;
  readonly poolId: string;
  readonly providerParty: string;
  readonly apiKeyId: string;
  readonly units: Amount;
  readonly amountA: Amount;
  readonly amountB: Amount;
  readonly minimumA: Amount;
  readonly minimumB: Amount;
  readonly createdAt: Date;
}

export interface WithdrawalRecord extends NewWithdrawal {
  readonly payoutA: PayoutState;
  readonly payoutB: PayoutState;
  readonly updateA: string | null;
  readonly updateB: string | null;
  readonly completedAt: Date | null;
  readonly updatedAt: Date;
}

function withdrawalFromRow(row: Row): WithdrawalRecord {
  return {
    withdrawalId: read.string(row.withdrawal_id),
    poolId: read.string(row.pool_id),
    providerParty: read.string(row.provider_party),
    apiKeyId: read.string(row.api_key_id),
    units: read.amount(row.units),
    amountA: read.amount(row.amount_a),
    amountB: read.amount(row.amount_b),
    minimumA: read.amount(row.minimum_a),
    minimumB: read.amount(row.minimum_b),
    payoutA: read.string(row.payout_a) as PayoutState,
    payoutB: read.string(row.payout_b) as PayoutState,
    updateA: read.stringOrNull(row.update_a),
    updateB: read.stringOrNull(row.update_b),
    createdAt: read.date(row.created_at),
    completedAt: read.dateOrNull(row.completed_at),
    updatedAt: read.date(row.updated_at),
  };
}

/** Records a withdrawal; a side that pays nothing starts `none`, the others `pending`. */
export async function insertWithdrawal(q: Queryable, w: NewWithdrawal): Promise<WithdrawalRecord> {
  const rows = await q.query(
    `INSERT INTO liquidity_withdrawals (withdrawal_id, pool_id, provider_party, api_key_id, units,
       amount_a, amount_b, minimum_a, minimum_b, payout_a, payout_b, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9,
       CASE WHEN $6::numeric > 0 THEN 'pending' ELSE 'none' END,
       CASE WHEN $7::numeric > 0 THEN 'pending' ELSE 'none' END, $10, $10)
     RETURNING *`,
    [
      w.withdrawalId,
      w.poolId,
      w.providerParty,
      w.apiKeyId,
      amountParam(w.units),
      amountParam(w.amountA),
      amountParam(w.amountB),
      amountParam(w.minimumA),
      amountParam(w.minimumB),
      w.createdAt,
    ],
  );
  if (!rows[0]) throw new Error(`withdrawal ${w.withdrawalId} was not recorded`);
  return withdrawalFromRow(rows[0]);
}

export async function getWithdrawal(
  q: Queryable,
  withdrawalId: string,
): Promise<WithdrawalRecord | null> {
  const rows = await q.query('SELECT * FROM liquidity_withdrawals WHERE withdrawal_id = $1', [
    withdrawalId,
  ]);
  return rows[0] ? withdrawalFromRow(rows[0]) : null;
}

/** The provider's withdrawal; null for another party's. */
export async function getWithdrawalForParty(
  q: Queryable,
  withdrawalId: string,
  providerParty: string,
): Promise<WithdrawalRecord | null> {
  const found = await getWithdrawal(q, withdrawalId);
  return found?.providerParty === providerParty ? found : null;
}

export async function listWithdrawalsForParty(
  q: Queryable,
  providerParty: string,
  limit: number,
): Promise<WithdrawalRecord[]> {
  const rows = await q.query(
    `SELECT * FROM liquidity_withdrawals WHERE provider_party = $1
     ORDER BY created_at DESC, withdrawal_id DESC LIMIT $2`,
    [providerParty, Math.min(Math.max(1, limit), WITHDRAWAL_PAGE_SIZE_MAX)],
  );
  return rows.map(withdrawalFromRow);
}

/**
 * Moves one side's payout from one of `from` to `to` (with the update that paid it); the
 * withdrawal completes when no side is left `pending` or `offered`, and is open again when a side
 * goes back to `pending` (an operator re-sending a flagged payout). Null when the side was
 * elsewhere.
 */
export async function moveWithdrawalPayout(
  q: Queryable,
  move: {
    readonly withdrawalId: string;
    readonly side: Side;
    readonly from: readonly PayoutState[];
    readonly to: PayoutState;
    readonly updateId?: string;
    readonly now: Date;
  },
): Promise<WithdrawalRecord | null> {
  const [state, update, other] =
    move.side === 'a' ? ['payout_a', 'update_a', 'payout_b'] : ['payout_b', 'update_b', 'payout_a'];
  const rows = await q.query(
    `UPDATE liquidity_withdrawals SET ${state} = $2, ${update} = COALESCE($3, ${update}),
       updated_at = $4,
       completed_at = CASE WHEN $2 IN ('pending', 'offered') THEN NULL
         WHEN ${other} NOT IN ('pending', 'offered') THEN $4 ELSE completed_at END
     WHERE withdrawal_id = $1 AND ${state} = ANY($5::text[])
     RETURNING *`,
    [move.withdrawalId, move.to, move.updateId ?? null, move.now, move.from],
  );
  if (!rows[0]) return null;
  return withdrawalFromRow(rows[0]);
}

/**
 * The offers a withdrawal's payouts became, by side (a payout sent in one step has none): of a
 * side sent again after its first offer came back, the latest attempt's.
 */
export async function payoutOffersOf(
  q: Queryable,
  withdrawalId: string,
): Promise<Partial<Record<Side, string>>> {
  const rows = await q.query(
    `SELECT payload->>'side' AS side, offer_id FROM ledger_commands
     WHERE withdrawal_id = $1 AND leg = 'lp_payout' AND offer_id IS NOT NULL
     ORDER BY attempt`,
    [withdrawalId],
  );
  return Object.fromEntries(rows.map((row) => [read.string(row.side), read.string(row.offer_id)]));
}

function withdrawalEventFromRow(row: Row): WithdrawalEventRecord {
  return {
    seq: read.safeInteger(row.seq),
    withdrawalId: read.string(row.withdrawal_id),
    status: read.string(row.status) as WithdrawalStatus,
    legEvent: read.stringOrNull(row.leg_event) as WithdrawalLegEvent | null,
    side: read.stringOrNull(row.side) as Side | null,
    payoutA: read.string(row.payout_a) as PayoutState,
    payoutB: read.string(row.payout_b) as PayoutState,
    at: read.date(row.at),
  };
}

/**
 * The withdrawal's events in order, after `afterSeq` when given. Not capped: a withdrawal has an
 * event per payout move, a handful, and more only as often as an operator sends a payout again.
 */
export async function listWithdrawalEvents(
  q: Queryable,
  withdrawalId: string,
  afterSeq = 0,
): Promise<WithdrawalEventRecord[]> {
  const rows = await q.query(
    'SELECT * FROM withdrawal_events WHERE withdrawal_id = $1 AND seq > $2 ORDER BY seq',
    [withdrawalId, afterSeq],
  );
  return rows.map(withdrawalEventFromRow);
}
