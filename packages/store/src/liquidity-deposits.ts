/**
 * Transfers that reached a pool's LP party (docs/spec/liquidity.md#deposits). Each row's status
 * says where its amount is, so the LP party's holdings can be compared with the rows still
 * `forwarding`, `returning` or `flagged` there.
 */
import type { Amount, Side } from '@poolparty/core';
import { amountParam, read } from './columns.js';
import type { Queryable, Row } from './database.js';
import { firstRowOf } from './sql.js';

export type LiquidityDepositStatus =
  | 'accepting'
  | 'forwarding'
  | 'forwarded'
  | 'returning'
  | 'returned'
  | 'flagged';

/** The statuses in which a deposit's amount is held by the LP party. */
export const HELD_BY_LP_PARTY: readonly LiquidityDepositStatus[] = [
  'forwarding',
  'returning',
  'flagged',
];

export interface NewLiquidityDeposit {
  readonly depositId: string;
  readonly updateId: string;
  readonly eventIndex: number;
  readonly offset: number;
  readonly poolId: string;
  readonly liquidityIntentId: string | null;
  readonly sender: string;
  readonly side: Side | null;
  readonly instrument: { readonly id: string; readonly admin: string };
  readonly amount: Amount;
  readonly reference: string | null;
  readonly offerId: string | null;
  readonly status: LiquidityDepositStatus;
  readonly unmatchedReason: string | null;
  readonly receivedAt: Date;
}

export interface LiquidityDepositRecord extends NewLiquidityDeposit {
  readonly updatedAt: Date;
}

function depositFromRow(row: Row): LiquidityDepositRecord {
  const side = read.stringOrNull(row.side);
  return {
    depositId: read.string(row.deposit_id),
    updateId: read.string(row.update_id),
    eventIndex: read.safeInteger(row.event_index),
    offset: read.safeInteger(row.ledger_offset),
    poolId: read.string(row.pool_id),
    liquidityIntentId: read.stringOrNull(row.liquidity_intent_id),
    sender: read.string(row.sender),
    side: side === null ? null : (side as Side),
    instrument: { id: read.string(row.instrument_id), admin: read.string(row.instrument_admin) },
    amount: read.amount(row.amount),
    reference: read.stringOrNull(row.reference),
    offerId: read.stringOrNull(row.offer_id),
    status: read.string(row.status) as LiquidityDepositStatus,
    unmatchedReason: read.stringOrNull(row.unmatched_reason),
    receivedAt: read.date(row.received_at),
    updatedAt: read.date(row.updated_at),
  };
}

/**
 * Records the deposit; false when the same ledger event was recorded before (a second delivery),
 * which then changes nothing.
 */
export async function insertLiquidityDeposit(
  q: Queryable,
  deposit: NewLiquidityDeposit,
): Promise<boolean> {
  const rows = await q.query(
    `INSERT INTO liquidity_deposits (deposit_id, update_id, event_index, ledger_offset, pool_id,
       liquidity_intent_id, sender, side, instrument_id, instrument_admin, amount, reference,
       offer_id, status, unmatched_reason, received_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16)
     ON CONFLICT (update_id, event_index) DO NOTHING
     RETURNING deposit_id`,
    [
      deposit.depositId,
      deposit.updateId,
      deposit.eventIndex,
      deposit.offset,
      deposit.poolId,
      deposit.liquidityIntentId,
      deposit.sender,
      deposit.side,
      deposit.instrument.id,
      deposit.instrument.admin,
      amountParam(deposit.amount),
      deposit.reference,
      deposit.offerId,
      deposit.status,
      deposit.unmatchedReason,
      deposit.receivedAt,
    ],
  );
  return rows.length > 0;
}

export async function getLiquidityDeposit(
  q: Queryable,
  depositId: string,
): Promise<LiquidityDepositRecord | null> {
  return firstRowOf(
    q,
    'SELECT * FROM liquidity_deposits WHERE deposit_id = $1',
    [depositId],
    depositFromRow,
  );
}

export async function liquidityDepositByOffer(
  q: Queryable,
  offerId: string,
): Promise<LiquidityDepositRecord | null> {
  return firstRowOf(
    q,
    'SELECT * FROM liquidity_deposits WHERE offer_id = $1',
    [offerId],
    depositFromRow,
  );
}

/** The deposits attributed to the intent, oldest first. */
export async function depositsOfLiquidityIntent(
  q: Queryable,
  liquidityIntentId: string,
): Promise<LiquidityDepositRecord[]> {
  const rows = await q.query(
    `SELECT * FROM liquidity_deposits WHERE liquidity_intent_id = $1
     ORDER BY received_at, deposit_id`,
    [liquidityIntentId],
  );
  return rows.map(depositFromRow);
}

/** Compare-and-set of a deposit's status; null when it was not in one of `from`. */
export async function moveLiquidityDeposit(
  q: Queryable,
  move: {
    readonly depositId: string;
    readonly from: readonly LiquidityDepositStatus[];
    readonly to: LiquidityDepositStatus;
    readonly now: Date;
  },
): Promise<LiquidityDepositRecord | null> {
  return firstRowOf(
    q,
    `UPDATE liquidity_deposits SET status = $2, updated_at = $3
     WHERE deposit_id = $1 AND status = ANY($4::text[]) RETURNING *`,
    [move.depositId, move.to, move.now, move.from],
    depositFromRow,
  );
}

/** What the pool's LP party should hold now, per instrument: the deposits it has not passed on. */
export async function heldByLpParty(
  q: Queryable,
  poolId: string,
): Promise<
  { readonly instrumentId: string; readonly instrumentAdmin: string; readonly amount: Amount }[]
> {
  const rows = await q.query(
    `SELECT instrument_id, instrument_admin, sum(amount) AS amount FROM liquidity_deposits
     WHERE pool_id = $1 AND status = ANY($2::text[])
     GROUP BY instrument_id, instrument_admin ORDER BY instrument_id, instrument_admin`,
    [poolId, HELD_BY_LP_PARTY],
  );
  return rows.map((row) => ({
    instrumentId: read.string(row.instrument_id),
    instrumentAdmin: read.string(row.instrument_admin),
    amount: read.amount(row.amount),
  }));
}
