/**
 * The pools in memory: what `/v1/pools`, `/v1/tokens` and every quote read, so that none of them
 * waits on the store.
 *
 * Staleness bound: pool rows (status, reserves) are re-read every `POOLS_REFRESH_MS`, and each
 * pool's history (trailing-hour outputs, hourly snapshots, reconciliation) every
 * `HISTORY_REFRESH_MS`. A writer that changes a pool calls `invalidate(poolId)`; the next read
 * through `settled()` then sees the change. Without that call a change shows within one period.
 */
import {
  Amount,
  DEFAULT_MAX_PRICE_IMPACT,
  type GuardThresholds,
  type PoolSnapshot,
} from '@poolparty/core';
import type { Queryable } from '../store/database.js';
import { sumOutputsSince } from '../store/fee-events.js';
import { hourOf, listPoolSnapshots } from '../store/pool-snapshots.js';
import { listPools, type PoolRecord } from '../store/pools.js';
import { latestReconciliationRun } from '../store/reconciliation.js';
import { type PoolHistory, thresholdsOf } from './guard-inputs.js';
import type { TradedPair } from './pair-resolution.js';
import { type Loaded, Refreshed } from './refreshed.js';
import type { PricingPool } from './usd-prices.js';

export const POOLS_REFRESH_MS = 1_000;
export const HISTORY_REFRESH_MS = 5_000;
const HOUR_MS = 60 * 60 * 1000;

/**
 * A pool with what every quote reads of it worked out once per read of the store, not per quote:
 * its effective reserves, the pricing snapshot, its guard thresholds and price-impact cap. It is a
 * `TradedPair` and a `PricingPool` itself, so pair resolution and USD pricing take the book as is.
 */
export interface BookedPool extends TradedPair, PricingPool {
  readonly record: PoolRecord;
  readonly snapshot: PoolSnapshot;
  readonly thresholds: Partial<GuardThresholds>;
  readonly maxPriceImpact: number;
}

export interface PoolBookDeps {
  readonly db: Queryable;
  /** The service clock: the trailing hour is the ledger's hour on devnet. */
  readonly now: () => Date;
  /** Completed swaps of the pool with incomplete accounting; zero when none are recorded. */
  readonly countIncompleteCompletedSwaps?: (q: Queryable, poolId: string) => Promise<number>;
  readonly onError?: (error: unknown) => void;
}

export class PoolBook {
  private readonly pools: Refreshed<readonly BookedPool[]>;
  private readonly histories = new Map<string, Refreshed<PoolHistory>>();
  private historyTimer: NodeJS.Timeout | null = null;

  private constructor(private readonly deps: PoolBookDeps) {
    this.pools = new Refreshed(() => this.loadPools(), {
      intervalMs: POOLS_REFRESH_MS,
      ...(deps.onError && { onError: deps.onError }),
    });
  }

  /** Loads every pool and its history; throws when the pools cannot be read at all. */
  static async open(deps: PoolBookDeps): Promise<PoolBook> {
    const book = new PoolBook(deps);
    await book.pools.start();
    if (book.pools.current() === null) {
      book.close();
      throw new Error('the pool book could not read the pools from the store');
    }
    await Promise.all([...book.histories.values()].map((history) => history.refresh()));
    book.historyTimer = setInterval(() => book.refreshHistories(), HISTORY_REFRESH_MS);
    book.historyTimer.unref();
    return book;
  }

  list(): readonly BookedPool[] {
    return this.pools.current()?.value ?? [];
  }

  get(poolId: string): BookedPool | null {
    return this.list().find((pool) => pool.record.poolId === poolId) ?? null;
  }

  /** Wall-clock time of the last successful read of the pools. */
  loadedAtMs(): number {
    return this.pools.current()?.loadedAtMs ?? Number.NEGATIVE_INFINITY;
  }

  historyOf(poolId: string): Loaded<PoolHistory> | null {
    return this.histories.get(poolId)?.current() ?? null;
  }

  /** Re-reads the pools and the history of one pool (or of all); resolves when both are read. */
  async invalidate(poolId?: string): Promise<void> {
    await this.pools.refresh();
    const histories =
      poolId === undefined ? [...this.histories.values()] : [this.histories.get(poolId)];
    await Promise.all(histories.map((history) => history?.refresh()));
  }

  close(): void {
    this.pools.close();
    for (const history of this.histories.values()) history.close();
    if (this.historyTimer !== null) clearInterval(this.historyTimer);
    this.historyTimer = null;
  }

  private async loadPools(): Promise<readonly BookedPool[]> {
    const records = await listPools(this.deps.db);
    const booked = records.map(bookPool);
    for (const { record } of booked) this.track(record.poolId);
    return booked;
  }

  /** A pool seen for the first time gets its history read now, then with the others. */
  private track(poolId: string): void {
    if (this.histories.has(poolId)) return;
    const history = new Refreshed(() => this.loadHistory(poolId), {
      ...(this.deps.onError && { onError: this.deps.onError }),
    });
    this.histories.set(poolId, history);
    void history.refresh();
  }

  private refreshHistories(): void {
    for (const history of this.histories.values()) void history.refresh();
  }

  private async loadHistory(poolId: string): Promise<PoolHistory> {
    const { db } = this.deps;
    const now = this.deps.now();
    const since = new Date(now.getTime() - HOUR_MS);
    const outputsA = await sumOutputsSince(db, poolId, 'a', since);
    const outputsB = await sumOutputsSince(db, poolId, 'b', since);
    // Snapshots are hourly: the current and the previous hour cover the trailing hour.
    const snapshots = await listPoolSnapshots(
      db,
      poolId,
      hourOf(since),
      new Date(now.getTime() + 1),
    );
    const run = await latestReconciliationRun(db, poolId);
    const incomplete = (await this.deps.countIncompleteCompletedSwaps?.(db, poolId)) ?? 0;
    return {
      trailingOutputs: { tokenA: Amount.parse(outputsA), tokenB: Amount.parse(outputsB) },
      snapshots: snapshots.map((s) => ({
        reserveA: Amount.parse(s.reserveA),
        reserveB: Amount.parse(s.reserveB),
      })),
      lastReconciliationOk: run === null ? null : run.ok,
      incompleteCompletedSwaps: incomplete,
    };
  }
}

export function bookPool(record: PoolRecord): BookedPool {
  const reserveA = Amount.parse(record.accounting.reserveA);
  const reserveB = Amount.parse(record.accounting.reserveB);
  return {
    record,
    poolId: record.poolId,
    tokenA: record.tokenA,
    tokenB: record.tokenB,
    reserveA,
    reserveB,
    snapshot: {
      poolId: record.poolId,
      tokenA: { instrument: record.tokenA, reserve: reserveA },
      tokenB: { instrument: record.tokenB, reserve: reserveB },
      feeBps: record.feeBps,
      status: record.status,
    },
    thresholds: thresholdsOf(record.guard),
    maxPriceImpact: maxPriceImpactOf(record),
  };
}

/** The pool's cap is a configured rate, not money: a number is exact enough here. */
function maxPriceImpactOf(pool: PoolRecord): number {
  return pool.priceImpactCap === null ? DEFAULT_MAX_PRICE_IMPACT : Number(pool.priceImpactCap);
}
