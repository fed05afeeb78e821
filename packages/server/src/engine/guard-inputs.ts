/**
 * What the settlement-safety guard reads at execution (SPEC §6), gathered inside the executor's
 * transaction while the pool is locked, so it sees the same books the trade will change.
 *
 * - The output reserve at the start of the velocity window is the reserve now with the window's
 *   swaps undone (their outputs added back, what they added to that side taken off); when that
 *   cannot be positive the current reserve stands in.
 * - The 1-hour time-weighted price is not kept by the store yet: it is reported as unknown, which
 *   the guard treats as a pool without history (the check is skipped).
 * - The USD reference applies to pools whose sides are Amulet and USDCx.
 */
import {
  Amount,
  type GuardSnapshot,
  type GuardThresholds,
  type Instrument,
  type Reserves,
} from '@poolparty/core';
import type { Queryable } from '../store/database.js';
import { latestReconciliationRun } from '../store/reconciliation.js';
import type { Side } from './accounting.js';
import { type PriceBook, referencePrice } from './prices.js';
import { countIncompleteCompletedSwaps, sideFlowsSince } from './queries.js';

export interface GuardScope {
  readonly poolId: string;
  readonly outputSide: Side;
  readonly reserves: Reserves;
  readonly input: Instrument;
  readonly output: Instrument;
  readonly prices: PriceBook;
  readonly now: Date;
  readonly windowMs: number;
}

export async function guardSnapshot(tx: Queryable, scope: GuardScope): Promise<GuardSnapshot> {
  const since = new Date(scope.now.getTime() - scope.windowMs);
  const flows = await sideFlowsSince(tx, scope.poolId, scope.outputSide, since);
  const paid = Amount.parse(flows.paid);
  const startUnits = scope.reserves.output.units + paid.units - Amount.parse(flows.added).units;
  const latest = await latestReconciliationRun(tx, scope.poolId);
  const price = referencePrice(scope.prices, scope.input, scope.output);
  return {
    inputReserve: scope.reserves.input,
    outputReserve: scope.reserves.output,
    trailingHourOutputs: paid,
    outputReserveAtWindowStart:
      startUnits > 0n ? Amount.fromUnits(startUnits) : scope.reserves.output,
    timeWeightedPrice: null,
    reference:
      price === null
        ? null
        : { price, observedAtMs: scope.prices.observedAt.getTime(), nowMs: scope.now.getTime() },
    accounting: {
      incompleteCompletedSwaps: await countIncompleteCompletedSwaps(tx, scope.poolId),
      lastReconciliationMismatch: latest !== null && !latest.ok,
    },
  };
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
