/**
 * The webhook bench's arithmetic (bench/webhooks.ts), apart so it is unit-tested: each
 * delivery's lag from its event's commit to its receipt, on one clock, and the figures of a run.
 */
import { percentile } from './report.js';

export interface LagReceipt {
  /** The event's time as the store recorded it, on the service clock (epoch ms). */
  readonly createdMs: number;
  /** `Date.now()` at the receiver when the request arrived. */
  readonly receivedMs: number;
}

export interface LagFigures {
  readonly expected: number;
  readonly received: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** Deliveries received per second, first receipt to last. */
  readonly perS: number;
}

/**
 * Lags of `receipts`. `clockOffsetMs` is the service clock minus `Date.now()` (the service clock
 * follows the ledger's, at a fixed offset): subtracting it puts the event's time on the
 * receiver's clock. A delivery expected but never received is counted at the longest lag seen,
 * so a run that lost deliveries does not report a better p99 than it had; `received` says so.
 */
export function lagFigures(
  receipts: readonly LagReceipt[],
  expected: number,
  clockOffsetMs: number,
): LagFigures {
  const lags = receipts.map((r) => r.receivedMs - (r.createdMs - clockOffsetMs));
  // A loop, not Math.max(...lags): a full run's hundred thousand arguments overflow the stack.
  const maxMs =
    lags.length === 0 ? Number.NaN : lags.reduce((most, lag) => Math.max(most, lag), -Infinity);
  const missing = Math.max(0, expected - lags.length);
  const counted = lags.concat(Array.from({ length: missing }, () => maxMs));
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const { receivedMs } of receipts) {
    first = Math.min(first, receivedMs);
    last = Math.max(last, receivedMs);
  }
  const spanS = receipts.length < 2 ? Number.NaN : (last - first) / 1000;
  return {
    expected,
    received: receipts.length,
    p50Ms: percentile(counted, 50),
    p99Ms: percentile(counted, 99),
    maxMs,
    perS: receipts.length / spanS,
  };
}

/** The target: every delivery received, p99 within `targetMs`. */
export function meetsLagTarget(figures: LagFigures, targetMs: number): boolean {
  return figures.received >= figures.expected && figures.p99Ms <= targetMs;
}
