/**
 * The pools in memory: what `/v1/pools`, `/v1/tokens` and every quote read, so that none of them
 * waits on the store.
 *
 * Staleness bound: pool rows (status, reserves) are re-read every `POOLS_REFRESH_MS`, and every
 * pool's history (trailing-hour outputs, hourly snapshots, reconciliation) every
 * `HISTORY_REFRESH_MS`. A writer that changes a pool calls `invalidate(poolId)`; the next read
 * through `settled()` then sees the change. Without that call a change shows within one period.
 * A trade (`invalidate(poolId, 'reserves')`) re-reads the pools and only the history a trade
 * changes: its snapshots (hourly) and reconciliation (its own writer invalidates) are as old as
 * the last full read, within the period.
 *
 * Histories are read set-based: one statement per kind of history for all the pools asked about,
 * never one per pool, so a book of thousands of pools costs a handful of statements per re-read.
 * A re-read of one pool's history (its writer invalidated it) reads that pool alone. Reads may
 * overlap; a pool keeps the history of the read that started last, so a slow re-read of every
 * pool cannot put back what a newer re-read of one pool replaced.
 *
 * Every read of the pools also feeds each pool's reference price (price-references.ts), so the
 * guard's reference follows every trade within a read period.
 */
import {
  Amount,
  DEFAULT_MAX_PRICE_IMPACT,
  type GuardThresholds,
  type PoolSnapshot,
  type Ratio,
  type WirePoolGuard,
} from '@poolparty/core';
import type { PoolChange } from '@poolparty/settlement';
import type { PoolSide, Queryable } from '@poolparty/store';
import {
  hourOf,
  latestReconciliationRunByPool,
  listPoolSnapshotsByPool,
  listPools,
  type PoolRecord,
  sumOutputsSinceByPool,
} from '@poolparty/store';
import type { TradedPair } from './pair-resolution.js';
import { PriceReferences } from './price-references.js';
import { type PoolHistory, thresholdsOf, timeWeightedPrice } from './quote-guard-inputs.js';
import { type Loaded, Refreshed } from './refreshed.js';
import type { PricingPool } from './usd-prices.js';

const POOLS_REFRESH_MS = 1_000;
const HISTORY_REFRESH_MS = 5_000;
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

/** Completed swaps with incomplete accounting of each pool asked about; a pool with none may be absent. */
export type IncompleteSwapCounter = (
  q: Queryable,
  poolIds: readonly string[],
) => Promise<ReadonlyMap<string, number>>;

export interface PoolBookDeps {
  readonly db: Queryable;
  /** The service clock: the trailing hour is the ledger's hour on devnet. */
  readonly now: () => Date;
  /** Zero for every pool when absent (nothing records swaps). */
  readonly countIncompleteCompletedSwaps?: IncompleteSwapCounter;
  readonly onError?: (error: unknown) => void;
}

interface PoolList {
  readonly pools: readonly BookedPool[];
  readonly byId: ReadonlyMap<string, BookedPool>;
}

interface KeptHistory {
  readonly loaded: Loaded<PoolHistory>;
  /** Which read it came from: a later-started read replaces it, an earlier one does not. */
  readonly readNo: number;
}

export class PoolBook {
  private readonly pools: Refreshed<PoolList>;
  /** Re-reads every pool's history at once (periodically, or after `invalidate()`). */
  private readonly everyHistory: Refreshed<void>;
  private readonly histories = new Map<string, KeptHistory>();
  /** Pools whose history has been asked for at least once (read, or being read). */
  private readonly tracked = new Set<string>();
  /** Reads of the histories of pools just seen, not yet ended. */
  private readonly firstReads = new Set<Promise<void>>();
  private reads = 0;
  private opened = false;
  private readonly references = new PriceReferences();

  private constructor(private readonly deps: PoolBookDeps) {
    const onError = deps.onError && { onError: deps.onError };
    this.pools = new Refreshed(() => this.loadPools(), {
      intervalMs: POOLS_REFRESH_MS,
      ...onError,
    });
    this.everyHistory = new Refreshed(
      () => this.loadHistories(this.list().map((pool) => pool.poolId)),
      { intervalMs: HISTORY_REFRESH_MS, ...onError },
    );
  }

  /** Loads every pool and its history; throws when the pools cannot be read at all. */
  static async open(deps: PoolBookDeps): Promise<PoolBook> {
    const book = new PoolBook(deps);
    await book.pools.start();
    if (book.pools.current() === null) {
      book.close();
      throw new Error('the pool book could not read the pools from the store');
    }
    await book.everyHistory.start();
    book.opened = true;
    // Seeded now that the snapshots are read; from here on every read of the pools feeds them.
    book.observePrices(book.list());
    return book;
  }

  list(): readonly BookedPool[] {
    return this.pools.current()?.value.pools ?? [];
  }

  get(poolId: string): BookedPool | null {
    return this.pools.current()?.value.byId.get(poolId) ?? null;
  }

  /** Wall-clock time of the last successful read of the pools. */
  loadedAtMs(): number {
    return this.pools.current()?.loadedAtMs ?? Number.NEGATIVE_INFINITY;
  }

  historyOf(poolId: string): Loaded<PoolHistory> | null {
    return this.histories.get(poolId)?.loaded ?? null;
  }

  /** The pool's reference price at `now` (service time), tokenB per tokenA; null before any. */
  referencePriceOf(poolId: string, now: Date): Ratio | null {
    return this.references.priceAt(poolId, now.getTime());
  }

  /** The pool's guard state at `now` (service time) as the wire shows it; null before any. */
  guardStateOf(pool: BookedPool, now: Date): WirePoolGuard | null {
    return this.references.wireStateAt(pool, now.getTime());
  }

  private observePrices(pools: readonly BookedPool[]): void {
    this.references.observe(pools, this.deps.now().getTime(), (poolId) => {
      const history = this.historyOf(poolId)?.value;
      return history ? timeWeightedPrice(history.snapshots, 'tokenA') : null;
    });
  }

  /**
   * Re-reads the pools and the history of one pool; resolves when both are read. Without a pool
   * (something changed, nobody says which: an operator's change in another process) it resolves
   * once the pools and the histories of pools added since are read, and every other history is
   * re-read behind it: operators change pool rows, not histories, so nothing should wait for
   * thousands of histories. A failed read is reported to `onError`; the last good state stays.
   */
  async invalidate(poolId?: string, change: PoolChange = 'any'): Promise<void> {
    await this.pools.refresh();
    if (poolId === undefined) {
      void this.everyHistory.refresh();
      await Promise.all(this.firstReads);
      return;
    }
    // A pool with no history read yet gets the full read; histories are never forgotten.
    const reread =
      change === 'reserves' && this.histories.has(poolId)
        ? this.loadTradeHistory(poolId)
        : this.loadHistories([poolId]);
    await reread.catch((error: unknown) => this.deps.onError?.(error));
  }

  /**
   * Re-reads what a move of the pool's reserves changes of its history read before (the
   * trailing hour's outputs, swaps with incomplete accounting) and keeps the rest: its hourly
   * snapshots and reconciliation stay as the last full read found them, within
   * `HISTORY_REFRESH_MS`. Two statements instead of four, after every trade.
   */
  private async loadTradeHistory(poolId: string): Promise<void> {
    this.reads += 1;
    const readNo = this.reads;
    const { db } = this.deps;
    const since = new Date(this.deps.now().getTime() - HOUR_MS);
    const outputs = await sumOutputsSinceByPool(db, [poolId], since);
    const incomplete = (await this.deps.countIncompleteCompletedSwaps?.(db, [poolId])) ?? null;
    const latest = this.histories.get(poolId);
    if (latest === undefined || latest.readNo > readNo) return;
    const value: PoolHistory = {
      ...latest.loaded.value,
      trailingOutputs: trailingOutputsOf(outputs.get(poolId)),
      incompleteCompletedSwaps: incomplete?.get(poolId) ?? 0,
    };
    this.histories.set(poolId, { loaded: { value, loadedAtMs: Date.now() }, readNo });
  }

  /** Resolves once a re-read of every pool's history that started after this call has ended. */
  refreshHistories(): Promise<void> {
    return this.everyHistory.refresh();
  }

  close(): void {
    this.pools.close();
    this.everyHistory.close();
  }

  private async loadPools(): Promise<PoolList> {
    const records = await listPools(this.deps.db);
    const pools = records.map(bookPool);
    // A pool seen for the first time gets its history read now (the ones seen at opening are
    // read by `open`), then with the others.
    const unseen = pools.map((pool) => pool.poolId).filter((id) => !this.tracked.has(id));
    if (this.opened && unseen.length > 0) {
      const read = this.loadHistories(unseen)
        .catch((error: unknown) => this.deps.onError?.(error))
        .finally(() => this.firstReads.delete(read));
      this.firstReads.add(read);
    }
    if (this.opened) this.observePrices(pools);
    return { pools, byId: new Map(pools.map((pool) => [pool.poolId, pool])) };
  }

  /** Reads the histories of `poolIds` with one statement per kind, whatever their number. */
  private async loadHistories(poolIds: readonly string[]): Promise<void> {
    for (const poolId of poolIds) this.tracked.add(poolId);
    if (poolIds.length === 0) return;
    this.reads += 1;
    const readNo = this.reads;
    const { db } = this.deps;
    const now = this.deps.now();
    const since = new Date(now.getTime() - HOUR_MS);
    const outputs = await sumOutputsSinceByPool(db, poolIds, since);
    // Snapshots are hourly: the current and the previous hour cover the trailing hour.
    const snapshots = await listPoolSnapshotsByPool(
      db,
      poolIds,
      hourOf(since),
      new Date(now.getTime() + 1),
    );
    const runs = await latestReconciliationRunByPool(db, poolIds);
    const incomplete = (await this.deps.countIncompleteCompletedSwaps?.(db, poolIds)) ?? null;
    const loadedAtMs = Date.now();
    for (const poolId of poolIds) {
      const kept = this.histories.get(poolId);
      if (kept !== undefined && kept.readNo > readNo) continue;
      const run = runs.get(poolId);
      const value: PoolHistory = {
        trailingOutputs: trailingOutputsOf(outputs.get(poolId)),
        snapshots: (snapshots.get(poolId) ?? []).map((s) => ({
          reserveA: s.reserveA,
          reserveB: s.reserveB,
        })),
        lastReconciliationOk: run === undefined ? null : run.ok,
        incompleteCompletedSwaps: incomplete?.get(poolId) ?? 0,
      };
      this.histories.set(poolId, { loaded: { value, loadedAtMs }, readNo });
    }
  }
}

/** A pool's outputs of the trailing hour by side, as the store sums them; none: zero. */
function trailingOutputsOf(output: Readonly<Record<PoolSide, Amount>> | undefined) {
  return { tokenA: output?.a ?? Amount.ZERO, tokenB: output?.b ?? Amount.ZERO };
}

function bookPool(record: PoolRecord): BookedPool {
  const reserveA = record.accounting.reserveA;
  const reserveB = record.accounting.reserveB;
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
