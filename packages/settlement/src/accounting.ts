/**
 * A pool's books in the store: locking the row and applying planned movements to it. The
 * movements themselves, and the rules they follow, are core's (pool-books.ts).
 */
import { AccountingError, applyMovements, deltasOf, type Movement } from '@poolparty/core';
import type { Queryable } from '@poolparty/store';
import { addToPoolAccounting, getPoolAccounting, type PoolAccounting } from '@poolparty/store';

export {
  AccountingError,
  applyMovements,
  type Bucket,
  credit,
  debit,
  type Movement,
  networkCost,
  type Side,
} from '@poolparty/core';

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
  const updated = await addToPoolAccounting(tx, poolId, deltasOf(movements), now);
  if (updated !== null) return updated;
  // Refused: say which bucket, as `applyMovements` would have.
  applyMovements(await lockPool(tx, poolId), movements);
  throw new AccountingError(`pool ${poolId} refused the movements`);
}
