/**
 * A pool's reference price as an execution reads it and leaves it (docs/spec/guard.md): the
 * stored reference followed to the spot under the pool's lock (or, for a pool's first execution,
 * started from its recent snapshots), read per unit of a swap's input for the guard, and kept
 * again once a trade moved the spot. The deposit flow's batches and the atomic swaps share it.
 */
import {
  meanSpotPrice,
  observeSpot,
  type PoolPriceReference,
  perUnitOfInput,
  type Ratio,
  referenceAtExecution,
  referencePriceAt,
  spotOfReserves,
} from '@poolparty/core';
import {
  getPoolPriceReference,
  hourOf,
  listPoolSnapshots,
  type PoolAccounting,
  putPoolPriceReference,
  type Queryable,
} from '@poolparty/store';

const HOUR_MS = 60 * 60 * 1000;

/**
 * Where a pool's first execution starts its reference: the mean spot of its hourly snapshots of
 * this and the previous hour, as a quoting process starts (docs/spec/guard.md#reference).
 */
export async function referenceSeedOf(
  tx: Queryable,
  poolId: string,
  now: Date,
): Promise<Ratio | null> {
  const thisHour = hourOf(now);
  const from = new Date(thisHour.getTime() - HOUR_MS);
  const to = new Date(thisHour.getTime() + HOUR_MS);
  return meanSpotPrice(await listPoolSnapshots(tx, poolId, from, to));
}

/** The reference one trade is judged against, the books being `balances` under the lock. */
export async function referenceBeforeTrade(
  tx: Queryable,
  poolId: string,
  balances: Pick<PoolAccounting, 'reserveA' | 'reserveB'>,
  now: Date,
  limit: Ratio,
): Promise<PoolPriceReference | null> {
  const known = await getPoolPriceReference(tx, poolId);
  const spot = spotOfReserves(balances.reserveA, balances.reserveB);
  if (spot === null) return known;
  const seed = known === null ? await referenceSeedOf(tx, poolId, now) : null;
  return referenceAtExecution(known, spot, seed, now.getTime(), limit);
}

/** The reference as the guard reads it for a swap: output per unit of its input, now. */
export function guardReferenceOf(
  reference: PoolPriceReference | null,
  now: Date,
  inputIsTokenA: boolean,
): Ratio | null {
  if (reference === null) return null;
  return perUnitOfInput(referencePriceAt(reference, now.getTime()), inputIsTokenA);
}

/** Keeps the reference once a trade left the books at `after`: the spot moved, the price not. */
export async function keepReferenceAfterTrade(
  tx: Queryable,
  poolId: string,
  reference: PoolPriceReference,
  after: Pick<PoolAccounting, 'reserveA' | 'reserveB'>,
  now: Date,
  limit: Ratio,
): Promise<void> {
  const spot = spotOfReserves(after.reserveA, after.reserveB);
  const kept = spot === null ? reference : observeSpot(reference, spot, now.getTime(), limit);
  await putPoolPriceReference(tx, poolId, kept);
}
