/**
 * Each pool's reference price (docs/spec/guard.md#reference), kept in this process's memory and
 * fed every read of the pool book: a trade or a deposit changes the reserves, and the reference
 * follows the spot price it sees at core's pace (`observeSpot`, a 15-minute half-life).
 *
 * Choices made here:
 * - A pool first seen starts from the mean spot price of its hourly snapshots of the current and
 *   the previous hour, so a restart does not forget a recent move; without snapshots (a new pool)
 *   it starts at the spot price.
 * - Every process keeps its own: they read the same reserves each second, so they differ only in
 *   where they started, and that difference halves every half-life.
 * - Bounded by the book: a pool no longer listed is forgotten at the next read.
 * - The band's limit is the pool's `reservePriceDeviationMax`; one that cannot be read uses the
 *   default for the state shown (the guard itself fails closed on it).
 * - The state on the wire is worked out once per pool, reading and second, not per quote: every
 *   quote carries it, and within a second it moves by less than its printed digits show.
 */
import {
  type GuardThresholds,
  observeSpot,
  type PoolGuardState,
  type PoolPriceReference,
  poolGuardStateOf,
  poolGuardToWire,
  type Ratio,
  ratio,
  referencePriceAt,
  reservePriceLimitOf,
  startReference,
  type WirePoolGuard,
} from '@poolparty/core';

/** What a reading of one pool gives the references. */
export interface ObservedPool {
  readonly poolId: string;
  readonly reserveA: { readonly units: bigint };
  readonly reserveB: { readonly units: bigint };
  readonly thresholds: Partial<GuardThresholds>;
}

/** The wire state last worked out for a pool: for which reading and which second. */
interface ShownState {
  readonly reference: PoolPriceReference;
  readonly second: number;
  readonly wire: WirePoolGuard;
}

const SECOND_MS = 1000;

export class PriceReferences {
  private readonly references = new Map<string, PoolPriceReference>();
  private readonly shown = new Map<string, ShownState>();

  /** Feeds one read of the book; `seedOf` gives a new pool's starting reference, tokenB per tokenA. */
  observe(pools: readonly ObservedPool[], nowMs: number, seedOf: (poolId: string) => Ratio | null) {
    const listed = new Set<string>();
    for (const pool of pools) {
      listed.add(pool.poolId);
      const spot = spotOf(pool);
      if (spot === null) continue;
      const limit = limitOf(pool.thresholds);
      const known = this.references.get(pool.poolId);
      this.references.set(
        pool.poolId,
        known === undefined
          ? startReference(spot, seedOf(pool.poolId), nowMs, limit)
          : observeSpot(known, spot, nowMs, limit),
      );
    }
    for (const poolId of this.references.keys()) {
      if (!listed.has(poolId)) this.references.delete(poolId);
    }
    for (const poolId of this.shown.keys()) {
      if (!listed.has(poolId)) this.shown.delete(poolId);
    }
  }

  /** The pool's reference at `nowMs`, tokenB per tokenA; null before it has a priced reading. */
  priceAt(poolId: string, nowMs: number): Ratio | null {
    const reference = this.references.get(poolId);
    return reference === undefined ? null : referencePriceAt(reference, nowMs);
  }

  stateAt(pool: ObservedPool, nowMs: number): PoolGuardState | null {
    const reference = this.references.get(pool.poolId);
    if (reference === undefined) return null;
    return poolGuardStateOf(reference, nowMs, limitOf(pool.thresholds));
  }

  /** `stateAt` as the pool routes and quotes show it, the pool's two token symbols named. */
  wireStateAt(pool: ObservedPool & PoolTokens, nowMs: number): WirePoolGuard | null {
    const reference = this.references.get(pool.poolId);
    if (reference === undefined) return null;
    const second = Math.floor(nowMs / SECOND_MS);
    const kept = this.shown.get(pool.poolId);
    if (kept?.reference === reference && kept.second === second) return kept.wire;
    const state = poolGuardStateOf(reference, nowMs, limitOf(pool.thresholds));
    // Shared by every quote of this second: frozen, so none can alter another's.
    const wire = poolGuardToWire(state, { tokenA: pool.tokenA.id, tokenB: pool.tokenB.id });
    Object.freeze(wire.priceBand);
    Object.freeze(wire);
    this.shown.set(pool.poolId, { reference, second, wire });
    return wire;
  }
}

/** The pool's two tokens, for the symbols the wire state names. */
interface PoolTokens {
  readonly tokenA: { readonly id: string };
  readonly tokenB: { readonly id: string };
}

function spotOf(pool: ObservedPool): Ratio | null {
  if (pool.reserveA.units <= 0n || pool.reserveB.units <= 0n) return null;
  return ratio(pool.reserveB.units, pool.reserveA.units);
}

function limitOf(thresholds: Partial<GuardThresholds>): Ratio {
  return reservePriceLimitOf(thresholds);
}
