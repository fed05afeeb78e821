/**
 * The settlement-safety guard's inputs (docs/spec/guard.md#inputs), gathered from in-memory state:
 * pure functions that turn a pool's cached reserves and history into core's `GuardSnapshot`.
 *
 * Choices made here:
 * - Per-pool overrides live in the pool's `guard` object under core's `GuardThresholds` names. A
 *   value that is not a number is kept as NaN, so the guard fails closed on it instead of falling
 *   back to a default nobody chose.
 * - The output reserve "at the window's start" is the current effective reserve. The store keeps
 *   no reserve history finer than hourly snapshots; during an hour of outflows the current reserve
 *   is the smaller of the two, which is the case the velocity check exists for.
 * - The reference price of the deviation check is the pool's exponential moving average
 *   (price-references.ts); the mean spot price of the pool's hourly snapshots of the current and
 *   the previous hour (`timeWeightedPrice`) is where it starts after a restart.
 * - The USD reference's age is the ledger's now minus the open mining round's `opensAt`. Rounds
 *   open every 10 minutes, so a round older than the 30-minute limit means the price feed stalled.
 * - Cached state older than its bound (`POOL_RESERVES_AGE_MAX_MS`, `POOL_HISTORY_AGE_MAX_MS`, wall
 *   time since the last successful read) makes the guard unavailable: it fails closed.
 */
import {
  Amount,
  DEFAULT_GUARD_THRESHOLDS,
  type GuardSnapshot,
  type GuardThresholds,
  type Instrument,
  type Ratio,
  type ReferencePrice,
  type Reserves,
  ratio,
} from '@poolparty/core';
import type { MiningRound } from '@poolparty/ledger';
import { otherSide, type PoolSideName } from './pair-resolution.js';
import type { Loaded } from './refreshed.js';
import { hasUsdReference, referencePriceOf, referenceUsesAmulet } from './usd-prices.js';

/** Reserves may lag the store by the refresh period; beyond this the book is not trusted. */
export const POOL_RESERVES_AGE_MAX_MS = 30_000;
/** Trailing outputs, snapshots and reconciliation state; refreshed every few seconds. */
export const POOL_HISTORY_AGE_MAX_MS = 60_000;

/** What the store knows of a pool's recent past, read in the background. */
export interface PoolHistory {
  /** Outputs paid from each side in the trailing hour. */
  readonly trailingOutputs: Readonly<Record<PoolSideName, Amount>>;
  /** Reserves of the hourly snapshots of the current and the previous hour. */
  readonly snapshots: readonly { readonly reserveA: Amount; readonly reserveB: Amount }[];
  /** Null before the first reconciliation run. */
  readonly lastReconciliationOk: boolean | null;
  readonly incompleteCompletedSwaps: number;
}

const THRESHOLD_NAMES = Object.keys(DEFAULT_GUARD_THRESHOLDS) as (keyof GuardThresholds)[];

export function thresholdsOf(
  overrides: Readonly<Record<string, unknown>>,
): Partial<GuardThresholds> {
  const thresholds: Partial<Record<keyof GuardThresholds, number>> = {};
  for (const name of THRESHOLD_NAMES) {
    if (!Object.hasOwn(overrides, name)) continue;
    const value = overrides[name];
    thresholds[name] = typeof value === 'number' ? value : Number.NaN;
  }
  return thresholds;
}

/** Mean spot price (output per unit of input) of the snapshots; null when none can price. */
export function timeWeightedPrice(
  snapshots: PoolHistory['snapshots'],
  inputSide: PoolSideName,
): Ratio | null {
  let sum: Ratio | null = null;
  let count = 0n;
  for (const snapshot of snapshots) {
    const [input, output] =
      inputSide === 'tokenA'
        ? [snapshot.reserveA, snapshot.reserveB]
        : [snapshot.reserveB, snapshot.reserveA];
    if (!input.isPositive()) continue;
    sum = sum === null ? ratio(output.units, input.units) : addRatios(sum, output, input);
    count += 1n;
  }
  return sum === null ? null : ratio(sum.numerator, sum.denominator * count);
}

function addRatios(sum: Ratio, numerator: Amount, denominator: Amount): Ratio {
  return ratio(
    sum.numerator * denominator.units + numerator.units * sum.denominator,
    sum.denominator * denominator.units,
  );
}

/**
 * The pair's USD reference, or null when it has none. With the Amulet price unknown or not
 * positive the price is null, which the guard treats as unavailable.
 */
export function referenceOf(
  input: Instrument,
  output: Instrument,
  round: MiningRound | null,
  ledgerNow: Date,
): ReferencePrice | null {
  if (!hasUsdReference(input, output)) return null;
  // USDCx against USDCx needs no Amulet price, so nothing about it can be stale.
  if (!referenceUsesAmulet(input, output)) {
    return { price: referencePriceOf(input, output, Amount.ZERO), ageMs: 0 };
  }
  if (round === null || !round.amuletPriceUsd.isPositive()) return { price: null, ageMs: 0 };
  return {
    price: referencePriceOf(input, output, round.amuletPriceUsd),
    observedAtMs: round.opensAt.getTime(),
    nowMs: ledgerNow.getTime(),
  };
}

export interface GuardView {
  readonly inputSide: PoolSideName;
  /** The pool's reference price now, tokenB per tokenA (price-references.ts); null before any. */
  readonly referencePrice: Ratio | null;
  readonly reserves: Reserves;
  readonly reservesLoadedAtMs: number;
  readonly history: Loaded<PoolHistory> | null;
  readonly reference: ReferencePrice | null;
  /** Wall-clock now, to judge the caches' ages. */
  readonly wallNowMs: number;
}

export function guardSnapshotOf(view: GuardView): GuardSnapshot {
  const history = view.history?.value ?? null;
  const unavailable = staleInput(view);
  return {
    inputReserve: view.reserves.input,
    outputReserve: view.reserves.output,
    trailingHourOutputs: history?.trailingOutputs[otherSide(view.inputSide)] ?? Amount.ZERO,
    outputReserveAtWindowStart: view.reserves.output,
    timeWeightedPrice: inInputTerms(view.referencePrice, view.inputSide),
    reference: view.reference,
    accounting: {
      incompleteCompletedSwaps: history?.incompleteCompletedSwaps ?? 0,
      lastReconciliationMismatch: history?.lastReconciliationOk === false,
    },
    ...(unavailable !== null && { unavailable }),
  };
}

/** tokenB per tokenA as output per unit of input. */
function inInputTerms(price: Ratio | null, inputSide: PoolSideName): Ratio | null {
  if (price === null || inputSide === 'tokenA') return price;
  return price.numerator === 0n ? null : ratio(price.denominator, price.numerator);
}

function staleInput(view: GuardView): string | null {
  if (view.wallNowMs - view.reservesLoadedAtMs > POOL_RESERVES_AGE_MAX_MS) return 'pool_reserves';
  if (view.history === null) return 'pool_history';
  if (view.wallNowMs - view.history.loadedAtMs > POOL_HISTORY_AGE_MAX_MS) return 'pool_history';
  return null;
}
