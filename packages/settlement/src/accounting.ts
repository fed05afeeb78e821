/**
 * Moving amounts between the buckets of a pool's accounting
 * (docs/spec/amounts-and-fees.md#effective-reserves). Per side, the swap party's holdings are
 * expected to equal reserve + inflight + outgoing + fees, so every ledger movement has a matching
 * bucket movement, and a movement between buckets changes no holding:
 *
 * - a deposit enters custody:          inflight += deposit
 * - a swap executes:                   inflight −= deposit; reserve += priced input + LP fee;
 *                                      fees += platform + network fee; on the output side
 *                                      reserve −= output, outgoing += output
 * - a refund is decided:               inflight −= deposit; outgoing += refund; fees += the rest
 * - a payout or refund commits:        outgoing −= amount (the holdings left with it); fees −= what
 *                                      the transfer burned beyond the amount (Amulet's fees),
 *                                      any shortfall taken from reserve
 * - an unmatched transfer arrives:     outgoing += refund; fees += the fee it pays
 *
 * A movement that would make a bucket negative throws: the books are wrong, and nothing is
 * written on top of them.
 */
import { Amount } from '@poolparty/core';
import type { Queryable } from '@poolparty/store';
import {
  addToPoolAccounting,
  type BalanceDeltas,
  getPoolAccounting,
  type PoolAccounting,
  type PoolBalances,
} from '@poolparty/store';

export type Side = 'a' | 'b';
export type Bucket = 'reserve' | 'inflight' | 'outgoing' | 'fees';

export interface Movement {
  readonly side: Side;
  readonly bucket: Bucket;
  /** Positive adds, negative removes; in units of 10^-10. */
  readonly units: bigint;
}

export function credit(side: Side, bucket: Bucket, amount: Amount): Movement {
  return { side, bucket, units: amount.units };
}

export function debit(side: Side, bucket: Bucket, amount: Amount): Movement {
  return { side, bucket, units: -amount.units };
}

const FIELD: Record<Bucket, Record<Side, keyof PoolBalances>> = {
  reserve: { a: 'reserveA', b: 'reserveB' },
  inflight: { a: 'inflightA', b: 'inflightB' },
  outgoing: { a: 'outgoingA', b: 'outgoingB' },
  fees: { a: 'feesA', b: 'feesB' },
};

/**
 * A network cost the swap party paid out of its holdings (fees an Amulet transfer burned): it is
 * paid from the network fees the side collected, and what they cannot cover from its reserve,
 * so the books keep equalling the holdings whatever the cost.
 */
export function networkCost(balances: PoolBalances, side: Side, cost: Amount): Movement[] {
  if (!cost.isPositive()) return [];
  const collected = Amount.parse(balances[FIELD.fees[side]]);
  const fromFees = cost.lte(collected) ? cost : collected;
  const shortfall = cost.sub(fromFees);
  const movements = fromFees.isPositive() ? [debit(side, 'fees', fromFees)] : [];
  return shortfall.isPositive() ? [...movements, debit(side, 'reserve', shortfall)] : movements;
}

export class AccountingError extends Error {
  override readonly name = 'AccountingError';
}

export function applyMovements(
  balances: PoolBalances,
  movements: readonly Movement[],
): PoolBalances {
  const next: Record<keyof PoolBalances, string> = { ...balances };
  for (const { side, bucket, units } of movements) {
    const field = FIELD[bucket][side];
    const value = Amount.parse(next[field]).units + units;
    if (value < 0n) {
      throw new AccountingError(`${field} would become negative (${next[field]} ${units} units)`);
    }
    next[field] = Amount.fromUnits(value).toString();
  }
  return next;
}

/**
 * Locks the pool's accounting row until the transaction ends. Every transaction that changes a
 * pool's accounting or its intents' money takes this lock first, always before any intent row,
 * so two processes serialize on the pool and never deadlock on lock order.
 */
export async function lockPool(tx: Queryable, poolId: string): Promise<PoolAccounting> {
  const accounting = await getPoolAccounting(tx, poolId, { forUpdate: true });
  if (accounting === null) throw new AccountingError(`pool ${poolId} has no accounting`);
  return accounting;
}

/**
 * Applies the movements to the pool's row in one statement. The caller holds the lock already
 * (`lockPool`, taken before any intent row); the update needs no read of the row first, and
 * refuses, changing nothing, a movement that would make a bucket negative.
 */
export async function moveBalances(
  tx: Queryable,
  poolId: string,
  movements: readonly Movement[],
  now: Date,
): Promise<PoolAccounting> {
  if (movements.length === 0) return lockPool(tx, poolId);
  const deltas: BalanceDeltas = {};
  for (const { side, bucket, units } of movements) {
    const field = FIELD[bucket][side];
    deltas[field] = (deltas[field] ?? 0n) + units;
  }
  const updated = await addToPoolAccounting(tx, poolId, deltas, now);
  if (updated !== null) return updated;
  // Refused: say which bucket, as `applyMovements` would have.
  applyMovements(await lockPool(tx, poolId), movements);
  throw new AccountingError(`pool ${poolId} refused the movements`);
}
