/**
 * What the settlement-safety guard reads at execution (docs/spec/guard.md#inputs), gathered inside
 * the executor's transaction while the pool is locked, so it sees the same books the trade will
 * change. The count of completed swaps missing a fact is the same as
 * `countIncompleteCompletedSwaps`'.
 *
 * - The output reserve at the start of the velocity window is the reserve now with the window's
 *   swaps undone (their outputs added back, what they added to that side taken off); when that
 *   cannot be positive the current reserve stands in.
 * - The pool's reference price is the one its executions keep in the store
 *   (`pool_price_references`), followed to now with the spot under the lock
 *   (`referenceAtExecution`), and within a batch carried past each swap that moved the spot, so
 *   each swap is judged as it would have been alone; a pool's first execution starts it from the
 *   mean spot of its hourly snapshots of this and the previous hour, as a quoting process does.
 * - The USD reference applies to pools whose sides are Amulet and USDCx.
 *
 * A batch of swaps reads the pool's figures once (`readGuardFigures`) and carries them forward
 * in memory (`withSwap`): each swap's fee event falls inside the window it is decided in, so the
 * next swap of the batch sees exactly the figures it would have read had it settled alone.
 */
import {
  Amount,
  type GuardSnapshot,
  type GuardThresholds,
  type Instrument,
  type Ratio,
  type Reserves,
} from '@poolparty/core';
import type { Queryable } from '@poolparty/store';
import { guardWindowFigures } from '@poolparty/store';
import type { Side } from './accounting.js';
import { type PriceBook, referencePrice } from './prices.js';

/** What a swap's guard snapshot is taken for. */
export interface GuardScope {
  readonly outputSide: Side;
  readonly reserves: Reserves;
  readonly input: Instrument;
  readonly output: Instrument;
  readonly prices: PriceBook;
  /** The pool's reference price now, output per unit of input. */
  readonly poolReference: Ratio | null;
  readonly now: Date;
}

const THRESHOLD_KEYS = [
  'outputReserveShareMax',
  'outputVelocityShareMax',
  'reservePriceDeviationMax',
  'referencePriceDeviationMax',
  'referencePriceAgeMaxMs',
] as const satisfies readonly (keyof GuardThresholds)[];

/** The service's thresholds with the pool's own overrides (its `guard` column) on top. */
export function poolThresholds(
  service: Partial<GuardThresholds>,
  pool: Readonly<Record<string, unknown>>,
): Partial<GuardThresholds> {
  const merged: Partial<Record<keyof GuardThresholds, number>> = { ...service };
  for (const key of THRESHOLD_KEYS) {
    const value = pool[key];
    // A malformed override still reaches the guard, which fails closed on it.
    if (value !== undefined) merged[key] = typeof value === 'number' ? value : Number.NaN;
  }
  return merged;
}

/** What the guard reads from the store for one pool, per input side of its recent swaps. */
export interface GuardFigures {
  /** Per input side, what the window's swaps added to that side's reserve. */
  readonly added: Readonly<Record<Side, Amount>>;
  /** Per input side, what the window's swaps paid out of the other side. */
  readonly paidOut: Readonly<Record<Side, Amount>>;
  readonly incompleteCompletedSwaps: number;
  readonly lastReconciliationMismatch: boolean;
}

/** The pool's guard figures for the window starting at `since`, in one round trip. */
export async function readGuardFigures(
  tx: Queryable,
  poolId: string,
  since: Date,
): Promise<GuardFigures> {
  const row = await guardWindowFigures(tx, poolId, since);
  return {
    added: { a: Amount.parse(row.addedA), b: Amount.parse(row.addedB) },
    paidOut: { a: Amount.parse(row.paidA), b: Amount.parse(row.paidB) },
    incompleteCompletedSwaps: row.incompleteCompletedSwaps,
    lastReconciliationMismatch: row.lastReconciliationMismatch,
  };
}

/** The figures once a swap with this input side executed (its fee event is in the window). */
export function withSwap(
  figures: GuardFigures,
  swap: { readonly inputSide: Side; readonly reserveAdded: Amount; readonly output: Amount },
): GuardFigures {
  const side = swap.inputSide;
  return {
    ...figures,
    added: { ...figures.added, [side]: figures.added[side].add(swap.reserveAdded) },
    paidOut: { ...figures.paidOut, [side]: figures.paidOut[side].add(swap.output) },
  };
}

/** The guard's snapshot for a swap paying out of `scope.outputSide`, from figures in memory. */
export function guardSnapshotFrom(figures: GuardFigures, scope: GuardScope): GuardSnapshot {
  const inputSide: Side = scope.outputSide === 'a' ? 'b' : 'a';
  const paid = figures.paidOut[inputSide];
  const added = figures.added[scope.outputSide];
  const startUnits = scope.reserves.output.units + paid.units - added.units;
  const price = referencePrice(scope.prices, scope.input, scope.output);
  return {
    inputReserve: scope.reserves.input,
    outputReserve: scope.reserves.output,
    trailingHourOutputs: paid,
    outputReserveAtWindowStart:
      startUnits > 0n ? Amount.fromUnits(startUnits) : scope.reserves.output,
    timeWeightedPrice: scope.poolReference,
    reference:
      price === null
        ? null
        : { price, observedAtMs: scope.prices.observedAt.getTime(), nowMs: scope.now.getTime() },
    accounting: {
      incompleteCompletedSwaps: figures.incompleteCompletedSwaps,
      lastReconciliationMismatch: figures.lastReconciliationMismatch,
    },
  };
}
