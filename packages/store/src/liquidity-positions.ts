/**
 * Liquidity positions and the pool's unit supply (docs/spec/liquidity.md#positions). Units are
 * credited and debited under the pool's lock, together with the supply, so the supply always
 * equals the positions' units plus the units locked by the first deposit.
 */
import type { Amount, PositionFeeState } from '@poolparty/core';
import { amountParam, feeGrowthParam, read, readFeeGrowth } from './columns.js';
import type { Queryable, Row } from './database.js';

export interface PositionRecord {
  readonly poolId: string;
  readonly providerParty: string;
  readonly units: Amount;
  /** What went in for the units held now (reduced in proportion by each burn). */
  readonly basisA: Amount;
  readonly basisB: Amount;
  /** The LP fees counted when the units last changed (core's `PositionFeeState`). */
  readonly fees: PositionFeeState;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

function positionFromRow(row: Row): PositionRecord {
  return {
    poolId: read.string(row.pool_id),
    providerParty: read.string(row.provider_party),
    units: read.amount(row.units),
    basisA: read.amount(row.basis_a),
    basisB: read.amount(row.basis_b),
    fees: {
      growthLast: readFeeGrowth(row.fee_growth_last_a, row.fee_growth_last_b),
      accruedA: read.amount(row.fees_accrued_a),
      accruedB: read.amount(row.fees_accrued_b),
    },
    createdAt: read.date(row.created_at),
    updatedAt: read.date(row.updated_at),
  };
}

export async function getPosition(
  q: Queryable,
  poolId: string,
  providerParty: string,
): Promise<PositionRecord | null> {
  const rows = await q.query(
    'SELECT * FROM liquidity_positions WHERE pool_id = $1 AND provider_party = $2',
    [poolId, providerParty],
  );
  return rows[0] ? positionFromRow(rows[0]) : null;
}

/** The provider's positions with units left, by pool. */
export async function listPositionsOfProvider(
  q: Queryable,
  providerParty: string,
): Promise<PositionRecord[]> {
  const rows = await q.query(
    `SELECT * FROM liquidity_positions WHERE provider_party = $1 AND units > 0 ORDER BY pool_id`,
    [providerParty],
  );
  return rows.map(positionFromRow);
}

/** The pool's positions with units left, largest first (`limit` at most). */
export async function listPositionsOfPool(
  q: Queryable,
  poolId: string,
  limit: number,
): Promise<PositionRecord[]> {
  const rows = await q.query(
    `SELECT * FROM liquidity_positions WHERE pool_id = $1 AND units > 0
     ORDER BY units DESC, provider_party LIMIT $2`,
    [poolId, limit],
  );
  return rows.map(positionFromRow);
}

/**
 * Adds units and what went in to the provider's position (creating it), and `supplyAdded` (the
 * units plus any locked ones) to the pool's supply, in one statement. `fees` is the position's
 * fee state settled at the pool's growth now (core's `settlePositionFees`, `freshPositionFees`
 * for a new one), so the units that join take no share of earlier fees. The caller holds the
 * pool's lock.
 */
export async function creditPosition(
  q: Queryable,
  credit: {
    readonly poolId: string;
    readonly providerParty: string;
    readonly units: Amount;
    readonly basisA: Amount;
    readonly basisB: Amount;
    readonly supplyAdded: Amount;
    readonly fees: PositionFeeState;
    readonly now: Date;
  },
): Promise<void> {
  await q.query(
    `WITH position AS (
       INSERT INTO liquidity_positions (pool_id, provider_party, units, basis_a, basis_b,
         fee_growth_last_a, fee_growth_last_b, fees_accrued_a, fees_accrued_b,
         created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $8, $9, $10, $11, $7, $7)
       ON CONFLICT (pool_id, provider_party) DO UPDATE SET
         units = liquidity_positions.units + EXCLUDED.units,
         basis_a = liquidity_positions.basis_a + EXCLUDED.basis_a,
         basis_b = liquidity_positions.basis_b + EXCLUDED.basis_b,
         fee_growth_last_a = EXCLUDED.fee_growth_last_a,
         fee_growth_last_b = EXCLUDED.fee_growth_last_b,
         fees_accrued_a = EXCLUDED.fees_accrued_a,
         fees_accrued_b = EXCLUDED.fees_accrued_b,
         updated_at = EXCLUDED.updated_at
     )
     UPDATE pools SET lp_supply = lp_supply + $6, updated_at = $7 WHERE pool_id = $1`,
    [
      credit.poolId,
      credit.providerParty,
      amountParam(credit.units),
      amountParam(credit.basisA),
      amountParam(credit.basisB),
      amountParam(credit.supplyAdded),
      credit.now,
      ...feeParams(credit.fees),
    ],
  );
}

/**
 * Takes units and their share of what went in from the position, and the units from the pool's
 * supply; false, changing nothing, when the position holds fewer units. `fees` is the position's
 * fee state settled before the burn: what the units earned stays the position's. The caller holds
 * the pool's lock.
 */
export async function debitPosition(
  q: Queryable,
  debit: Pick<
    PositionRecord,
    'poolId' | 'providerParty' | 'units' | 'basisA' | 'basisB' | 'fees'
  > & {
    readonly now: Date;
  },
): Promise<boolean> {
  const rows = await q.query(
    `WITH position AS (
       UPDATE liquidity_positions SET units = units - $3, basis_a = basis_a - $4,
         basis_b = basis_b - $5, updated_at = $6, fee_growth_last_a = $7,
         fee_growth_last_b = $8, fees_accrued_a = $9, fees_accrued_b = $10
       WHERE pool_id = $1 AND provider_party = $2 AND units >= $3
         AND basis_a >= $4 AND basis_b >= $5
       RETURNING pool_id
     )
     UPDATE pools p SET lp_supply = lp_supply - $3, updated_at = $6
     FROM position WHERE p.pool_id = position.pool_id
     RETURNING p.pool_id`,
    [
      debit.poolId,
      debit.providerParty,
      amountParam(debit.units),
      amountParam(debit.basisA),
      amountParam(debit.basisB),
      debit.now,
      ...feeParams(debit.fees),
    ],
  );
  return rows.length > 0;
}

/** The pool's unit supply, read under the caller's lock. */
export async function getLpSupply(q: Queryable, poolId: string): Promise<Amount | null> {
  const rows = await q.query('SELECT lp_supply FROM pools WHERE pool_id = $1', [poolId]);
  return rows[0] ? read.amount(rows[0].lp_supply) : null;
}

/** A fee state's four columns, in the order the statements above number them. */
function feeParams(fees: PositionFeeState): string[] {
  return [
    feeGrowthParam(fees.growthLast.a),
    feeGrowthParam(fees.growthLast.b),
    amountParam(fees.accruedA),
    amountParam(fees.accruedB),
  ];
}
