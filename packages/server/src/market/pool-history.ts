/**
 * A pool's history for charts (docs/spec/stats.md#history): its hourly snapshots joined with the
 * swap volume of each hour, and its latest executed swaps, read from the store as they are.
 *
 * Choices made here:
 * - A point per stored snapshot: hours the service did not see stay absent rather than filled in
 *   (snapshots.ts says why), so a chart shows a gap, not a made-up line.
 * - TVL of a point is 2 × reserveA × priceUsd: at the spot price both sides of a constant-product
 *   pool are worth the same, and the snapshot keeps the base token's USD price only.
 * - Trades carry no party: the fee events they come from record none, and a pool page is public.
 */
import {
  Amount,
  AmountRangeError,
  DAY_MS,
  type PoolHistory,
  type PoolHistoryPeriod,
  type PoolTrade,
} from '@poolparty/core';
import {
  hourlyVolumes,
  latestFeeEvents,
  listPoolSnapshots,
  type PoolRecord,
  type PoolSnapshot,
  type Queryable,
} from '@poolparty/store';

const HOUR_MS = 60 * 60 * 1000;
const PERIOD_MS: Readonly<Record<PoolHistoryPeriod, number>> = {
  '24h': DAY_MS,
  '7d': 7 * DAY_MS,
  '30d': 30 * DAY_MS,
};

/** The pool's hourly points over the period ending at `now`, oldest first. */
export async function poolHistoryOf(
  db: Queryable,
  pool: PoolRecord,
  period: PoolHistoryPeriod,
  now: Date,
): Promise<PoolHistory> {
  // The hour `now` is in counts: its snapshot was taken at its start.
  const to = new Date(now.getTime() + HOUR_MS);
  const from = new Date(now.getTime() - PERIOD_MS[period]);
  const [snapshots, volumes] = await Promise.all([
    listPoolSnapshots(db, pool.poolId, from, to),
    hourlyVolumes(db, pool.poolId, from, to),
  ]);
  const byHour = new Map(volumes.map((volume) => [volume.hour.getTime(), volume]));
  return {
    poolId: pool.poolId,
    period,
    from: from.toISOString(),
    to: now.toISOString(),
    points: snapshots.map((snapshot) => {
      const volume = byHour.get(snapshot.hour.getTime());
      return {
        hour: snapshot.hour.toISOString(),
        reserveA: snapshot.reserveA.toString(),
        reserveB: snapshot.reserveB.toString(),
        price: spotPrice(snapshot),
        priceUsd: snapshot.priceUsd?.toString() ?? null,
        tvl: tvlOf(snapshot),
        volume: (volume?.volumeUsd ?? Amount.ZERO).toString(),
        swapCount: volume?.swapCount ?? 0,
      };
    }),
  };
}

/** The pool's latest executed swaps, newest first. */
export async function poolTradesOf(
  db: Queryable,
  pool: PoolRecord,
  limit: number,
): Promise<PoolTrade[]> {
  const events = await latestFeeEvents(db, pool.poolId, limit);
  return events.map((event) => {
    const [input, output] =
      event.inputSide === 'a' ? [pool.tokenA, pool.tokenB] : [pool.tokenB, pool.tokenA];
    return {
      at: event.at.toISOString(),
      inputToken: input.id,
      outputToken: output.id,
      inputAmount: event.inputAmount.toString(),
      outputAmount: event.outputAmount.toString(),
      volume: event.volumeUsd?.toString() ?? null,
    };
  });
}

/** reserveB / reserveA at 10 decimals, cut; null for an empty pool. */
function spotPrice(snapshot: PoolSnapshot): string | null {
  const a = snapshot.reserveA;
  if (a.isZero()) return null;
  return withinRange(() => snapshot.reserveB.div(a, 'down').toString());
}

function tvlOf(snapshot: PoolSnapshot): string | null {
  const { priceUsd } = snapshot;
  if (priceUsd === null) return null;
  return withinRange(() => {
    const sideA = snapshot.reserveA.mul(priceUsd, 'down');
    return sideA.add(sideA).toString();
  });
}

/** A figure past the 28 integer digits an amount holds is left out, not made up. */
function withinRange(compute: () => string): string | null {
  try {
    return compute();
  } catch (error) {
    if (error instanceof AmountRangeError) return null;
    throw error;
  }
}
