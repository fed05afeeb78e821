/**
 * Pools, their parameters, and their accounting
 * (docs/spec/amounts-and-fees.md#effective-reserves). The accounting row is what the
 * executor changes when a swap moves reserves; it carries a version so a writer that read an
 * older state cannot overwrite a newer one.
 */
import type { BookDeltas, FeeGrowth, Instrument, PoolBooks } from '@poolparty/core';
import { AccountingError, Amount, freshPositionFees, NO_FEE_GROWTH } from '@poolparty/core';
import {
  amountParam,
  amountParamOrNull,
  feeGrowthParam,
  jsonParam,
  read,
  readFeeGrowth,
} from './columns.js';
import type { Queryable, Row } from './database.js';
import { creditPosition } from './liquidity-positions.js';

export type PoolStatus = 'active' | 'paused';

/** Per side: holdings of the swap party are expected to be reserve + inflight + outgoing + fees. */
/** A pool's books as the store keeps them (core's `PoolBooks`). */
export type PoolBalances = PoolBooks;

export interface PoolAccounting extends PoolBalances {
  readonly version: number;
  readonly updatedAt: Date;
}

export interface PoolRecord {
  readonly poolId: string;
  readonly tokenA: Instrument;
  readonly tokenB: Instrument;
  readonly swapParty: string;
  readonly lpParty: string;
  readonly feeBps: number;
  readonly lpSupply: Amount;
  /** Per side, the LP fee per unit accrued since the pool opened (core's `FeeGrowth`). */
  readonly lpFeeGrowth: FeeGrowth;
  readonly status: PoolStatus;
  /** Overrides of the settlement-safety thresholds; empty means the service defaults. */
  readonly guard: Readonly<Record<string, unknown>>;
  /** Null means the service-wide cap. */
  readonly priceImpactCap: Amount | null;
  /**
   * The ledger offset the reserves were read at: updates up to it are in the books already.
   * Null: the books begin with the ledger.
   */
  readonly booksFromOffset: number | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly accounting: PoolAccounting;
}

export interface NewPool {
  readonly poolId: string;
  readonly tokenA: Instrument;
  readonly tokenB: Instrument;
  readonly swapParty: string;
  readonly lpParty: string;
  readonly feeBps?: number;
  readonly lpSupply: Amount;
  readonly reserveA: Amount;
  readonly reserveB: Amount;
  readonly guard?: Readonly<Record<string, unknown>>;
  readonly priceImpactCap?: Amount | null;
  readonly booksFromOffset?: number | null;
  readonly createdAt: Date;
  /** Who funded the opening reserves, and the units of the supply that are theirs. */
  readonly openingPosition?: { readonly providerParty: string; readonly units: Amount };
}

const ACCOUNTING_COLUMNS = `a.reserve_a, a.reserve_b, a.inflight_a, a.inflight_b, a.outgoing_a,
  a.outgoing_b, a.fees_a, a.fees_b, a.version, a.updated_at AS accounting_updated_at`;

const POOL_SELECT = `SELECT p.pool_id, p.token_a_id, p.token_a_admin, p.token_b_id,
  p.token_b_admin, p.swap_party, p.lp_party, p.fee_bps, p.lp_supply, p.lp_fee_growth_a,
  p.lp_fee_growth_b, p.status, p.guard,
  p.price_impact_cap, p.books_from_offset, p.created_at, p.updated_at, ${ACCOUNTING_COLUMNS}
  FROM pools p JOIN pool_accounting a ON a.pool_id = p.pool_id`;

function accountingFromRow(row: Row): PoolAccounting {
  return {
    reserveA: read.amount(row.reserve_a),
    reserveB: read.amount(row.reserve_b),
    inflightA: read.amount(row.inflight_a),
    inflightB: read.amount(row.inflight_b),
    outgoingA: read.amount(row.outgoing_a),
    outgoingB: read.amount(row.outgoing_b),
    feesA: read.amount(row.fees_a),
    feesB: read.amount(row.fees_b),
    version: read.safeInteger(row.version),
    updatedAt: read.date(row.accounting_updated_at),
  };
}

function poolFromRow(row: Row): PoolRecord {
  return {
    poolId: read.string(row.pool_id),
    tokenA: { id: read.string(row.token_a_id), admin: read.string(row.token_a_admin) },
    tokenB: { id: read.string(row.token_b_id), admin: read.string(row.token_b_admin) },
    swapParty: read.string(row.swap_party),
    lpParty: read.string(row.lp_party),
    feeBps: read.safeInteger(row.fee_bps),
    lpSupply: read.amount(row.lp_supply),
    lpFeeGrowth: readFeeGrowth(row.lp_fee_growth_a, row.lp_fee_growth_b),
    status: read.string(row.status) as PoolStatus,
    guard: (row.guard ?? {}) as Record<string, unknown>,
    priceImpactCap: read.amountOrNull(row.price_impact_cap),
    booksFromOffset: read.integerOrNull(row.books_from_offset),
    createdAt: read.date(row.created_at),
    updatedAt: read.date(row.updated_at),
    accounting: accountingFromRow(row),
  };
}

/** Creates the pool and its accounting with the initial reserves, in one statement. */
export async function insertPool(q: Queryable, pool: NewPool): Promise<PoolRecord> {
  await q.query(
    `WITH p AS (
       INSERT INTO pools (pool_id, token_a_id, token_a_admin, token_b_id, token_b_admin,
         swap_party, lp_party, fee_bps, lp_supply, guard, price_impact_cap, created_at,
         updated_at, books_from_offset)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, $12, $12, $15)
       RETURNING pool_id
     )
     INSERT INTO pool_accounting (pool_id, reserve_a, reserve_b, updated_at)
     SELECT pool_id, $13, $14, $12 FROM p`,
    [
      pool.poolId,
      pool.tokenA.id,
      pool.tokenA.admin,
      pool.tokenB.id,
      pool.tokenB.admin,
      pool.swapParty,
      pool.lpParty,
      pool.feeBps ?? 30,
      amountParam(pool.lpSupply),
      jsonParam(pool.guard ?? {}),
      amountParamOrNull(pool.priceImpactCap),
      pool.createdAt,
      amountParam(pool.reserveA),
      amountParam(pool.reserveB),
      pool.booksFromOffset ?? null,
    ],
  );
  const opening = pool.openingPosition;
  if (opening !== undefined && opening.units.isPositive()) {
    await creditPosition(q, {
      poolId: pool.poolId,
      providerParty: opening.providerParty,
      units: opening.units,
      basisA: pool.reserveA,
      basisB: pool.reserveB,
      supplyAdded: Amount.ZERO,
      // The pool opens now: its growth is zero, and so is what the opening position counted.
      fees: freshPositionFees(NO_FEE_GROWTH),
      now: pool.createdAt,
    });
  }
  return (await getPool(q, pool.poolId)) as PoolRecord;
}

export async function listPools(q: Queryable): Promise<PoolRecord[]> {
  const rows = await q.query(`${POOL_SELECT} ORDER BY p.created_at, p.pool_id`);
  return rows.map(poolFromRow);
}

export async function getPool(q: Queryable, poolId: string): Promise<PoolRecord | null> {
  const rows = await q.query(`${POOL_SELECT} WHERE p.pool_id = $1`, [poolId]);
  return rows[0] ? poolFromRow(rows[0]) : null;
}

export async function setPoolStatus(
  q: Queryable,
  poolId: string,
  status: PoolStatus,
  now: Date,
): Promise<PoolRecord | null> {
  const rows = await q.query(
    'UPDATE pools SET status = $2, updated_at = $3 WHERE pool_id = $1 RETURNING pool_id',
    [poolId, status, now],
  );
  return rows.length > 0 ? getPool(q, poolId) : null;
}

/**
 * The pool's accounting. With `forUpdate`, inside a transaction, the row stays locked until the
 * transaction ends: the executor's way of being the pool's only writer while it prices a swap.
 */
export async function getPoolAccounting(
  q: Queryable,
  poolId: string,
  options: { readonly forUpdate?: boolean } = {},
): Promise<PoolAccounting | null> {
  const rows = await q.query(
    `SELECT ${ACCOUNTING_COLUMNS} FROM pool_accounting a WHERE a.pool_id = $1
     ${options.forUpdate ? 'FOR UPDATE' : ''}`,
    [poolId],
  );
  return rows[0] ? accountingFromRow(rows[0]) : null;
}

/** A signed change per balance, in units of 10^-10; a missing one is zero. */
export type BalanceDeltas = BookDeltas;

const BALANCE_COLUMNS: Record<keyof PoolBalances, string> = {
  reserveA: 'reserve_a',
  reserveB: 'reserve_b',
  inflightA: 'inflight_a',
  inflightB: 'inflight_b',
  outgoingA: 'outgoing_a',
  outgoingB: 'outgoing_b',
  feesA: 'fees_a',
  feesB: 'fees_b',
};

/** `units / 10^10` as a signed decimal literal for a NUMERIC parameter. */
function signedDecimal(units: bigint): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(11, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -10)}.${digits.slice(-10)}`;
}

/**
 * Adds the deltas to the balances in one statement (which also locks the row) and bumps the
 * version. Null, changing nothing, when the pool has no accounting or a balance would become
 * negative: the caller reads the row to say which.
 */
export async function addToPoolAccounting(
  q: Queryable,
  poolId: string,
  deltas: BalanceDeltas,
  now: Date,
): Promise<PoolAccounting | null> {
  const fields = Object.keys(BALANCE_COLUMNS) as (keyof PoolBalances)[];
  const params = fields.map((field) => signedDecimal(deltas[field] ?? 0n));
  const sets = fields
    .map(
      (field, i) => `${BALANCE_COLUMNS[field]} = a.${BALANCE_COLUMNS[field]} + $${i + 3}::numeric`,
    )
    .join(', ');
  const guards = fields
    .map((field, i) => `a.${BALANCE_COLUMNS[field]} + $${i + 3}::numeric >= 0`)
    .join(' AND ');
  const rows = await q.query(
    `UPDATE pool_accounting AS a SET ${sets}, version = a.version + 1, updated_at = $2
     WHERE a.pool_id = $1 AND ${guards}
     RETURNING ${ACCOUNTING_COLUMNS}`,
    [poolId, now, ...params],
  );
  return rows[0] ? accountingFromRow(rows[0]) : null;
}

/**
 * Replaces the balances if the accounting is still at `expectedVersion`, and bumps the version.
 * Null when another writer got there first (re-read and decide again). Negative balances are
 * refused by the schema.
 */
export async function updatePoolAccounting(
  q: Queryable,
  poolId: string,
  expectedVersion: number,
  next: PoolBalances,
  now: Date,
): Promise<PoolAccounting | null> {
  const rows = await q.query(
    `UPDATE pool_accounting AS a SET reserve_a = $3, reserve_b = $4, inflight_a = $5,
       inflight_b = $6, outgoing_a = $7, outgoing_b = $8, fees_a = $9, fees_b = $10,
       version = a.version + 1, updated_at = $11
     WHERE a.pool_id = $1 AND a.version = $2
     RETURNING ${ACCOUNTING_COLUMNS}`,
    [
      poolId,
      expectedVersion,
      amountParam(next.reserveA),
      amountParam(next.reserveB),
      amountParam(next.inflightA),
      amountParam(next.inflightB),
      amountParam(next.outgoingA),
      amountParam(next.outgoingB),
      amountParam(next.feesA),
      amountParam(next.feesB),
      now,
    ],
  );
  return rows[0] ? accountingFromRow(rows[0]) : null;
}

/**
 * Locks the pool's accounting row (as `lockPool`, before any intent row) and says, in the same
 * round trip, whether the deposit is recorded already (a ledger event seen before).
 */
export async function lockPoolForDeposit(
  tx: Queryable,
  poolId: string,
  depositId: string,
): Promise<boolean> {
  return (await lockPoolsForDeposits(tx, [poolId], [depositId])).has(depositId);
}

/**
 * `lockPoolForDeposit` for several deposits: the pools' accounting rows locked (in one order, so
 * two such locks never wait on each other) and which of the deposits are recorded already.
 */
export async function lockPoolsForDeposits(
  tx: Queryable,
  poolIds: readonly string[],
  depositIds: readonly string[],
): Promise<Set<string>> {
  // One statement: the rows locked, and beside each the deposits recorded already (the same
  // list on every row; JSONB, which both drivers hand over parsed).
  const locked = await tx.query<{ pool_id: string; recorded: string[] | null }>(
    `SELECT pool_id, (SELECT jsonb_agg(deposit_id) FROM deposits
                      WHERE deposit_id = ANY($2::text[])) AS recorded
     FROM pool_accounting WHERE pool_id = ANY($1::text[]) ORDER BY pool_id FOR UPDATE`,
    [poolIds, depositIds],
  );
  const missing = poolIds.find((poolId) => !locked.some((row) => row.pool_id === poolId));
  if (missing !== undefined) throw new AccountingError(`pool ${missing} has no accounting`);
  return new Set(locked[0]?.recorded ?? []);
}

/** The first half of the execution lock's key: "PPEX" in ASCII, apart from the other locks. */
const EXECUTION_LOCK_SPACE = 0x50504558;

/**
 * Takes the right to execute the pool's queued swaps until the transaction ends, unless another
 * transaction holds it: false then, at once, without waiting. Only executions take it (before the
 * pool's accounting row), so it tells an engine that another one is executing the pool's batch,
 * while a deposit or a confirmation holding the accounting row is still waited for, as before.
 * The key is the pool qualified by the connection's schema (tests run many in one database); two
 * pools whose keys collide would only have one left for a round while the other executes.
 */
export async function claimPoolExecution(tx: Queryable, poolId: string): Promise<boolean> {
  const rows = await tx.query<{ claimed: boolean }>(
    `SELECT pg_try_advisory_xact_lock($1, hashtext(current_schema() || ':' || $2::text)) AS claimed`,
    [EXECUTION_LOCK_SPACE, poolId],
  );
  return rows[0]?.claimed === true;
}

/**
 * Sets the pool's LP fee growth, as core's `feeGrowthAfterSwaps` left it. The caller holds the
 * pool's lock and writes it in the transaction that moves the swaps' LP fees into the reserves.
 */
export async function setLpFeeGrowth(
  q: Queryable,
  poolId: string,
  growth: FeeGrowth,
  now: Date,
): Promise<void> {
  await q.query(
    `UPDATE pools SET lp_fee_growth_a = $2, lp_fee_growth_b = $3, updated_at = $4
     WHERE pool_id = $1`,
    [poolId, feeGrowthParam(growth.a), feeGrowthParam(growth.b), now],
  );
}

/** The pool's supply and fee growth, read under the caller's lock. */
export async function getPoolUnits(
  q: Queryable,
  poolId: string,
): Promise<{ readonly lpSupply: Amount; readonly lpFeeGrowth: FeeGrowth } | null> {
  const rows = await q.query(
    'SELECT lp_supply, lp_fee_growth_a, lp_fee_growth_b FROM pools WHERE pool_id = $1',
    [poolId],
  );
  const row = rows[0];
  if (row === undefined) return null;
  return {
    lpSupply: read.amount(row.lp_supply),
    lpFeeGrowth: readFeeGrowth(row.lp_fee_growth_a, row.lp_fee_growth_b),
  };
}
