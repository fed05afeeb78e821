/**
 * The atomic-swap bench's arithmetic (bench/atomic.ts), apart so it is unit-tested: latencies
 * and CPU per operation of a phase, their ratio to the deposit flow's lone swap measured in the
 * same run, and the verdicts of the three targets.
 */
import { percentile } from './report.js';

export const ATOMIC_PREPARE_TARGET_MS = 20;
export const ATOMIC_EXECUTE_TARGET_MS = 50;
export const ATOMIC_BURST_SWAPS = 200;
export const ATOMIC_BURST_TARGET_MS = 5_000;

export interface PhaseFigures {
  readonly count: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** This process's CPU (the service and the bench's client) over the phase, per operation. */
  readonly cpuUsPerOp: number;
}

/** The figures of `latencies` (ms), the phase having spent `cpuUs` of CPU on them. */
export function phaseFigures(latencies: readonly number[], cpuUs: number): PhaseFigures {
  const none = latencies.length === 0;
  return {
    count: latencies.length,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    // A loop, not Math.max(...latencies): a long phase's arguments would overflow the stack.
    maxMs: none ? Number.NaN : latencies.reduce((most, ms) => Math.max(most, ms), -Infinity),
    cpuUsPerOp: none ? Number.NaN : cpuUs / latencies.length,
  };
}

/** The burst: swaps prepared at once on one pool, then all signed at once. */
export interface BurstFigures {
  readonly asked: number;
  readonly prepared: number;
  /** Prepares answered `pool_holdings_busy`: every free holding of the output was reserved. */
  readonly holdingsBusy: number;
  /** The pool's holdings of the output before the burst. */
  readonly outputHoldings: number;
  /** First prepare sent → last prepared answer. */
  readonly prepareMs: number;
  readonly completed: number;
  /** First signature sent → last `completed` answer; NaN when nothing was signed. */
  readonly settleMs: number;
  readonly cpuUsPerSwap: number;
}

/** The phase's p99 as a multiple of the baseline's: how much slower than the deposit flow's. */
export function ratioToBaseline(phase: PhaseFigures, baseline: PhaseFigures): number {
  return phase.p99Ms / baseline.p99Ms;
}

export function meetsPrepareTarget(prepare: PhaseFigures, asked: number): boolean {
  return prepare.count === asked && prepare.p99Ms <= ATOMIC_PREPARE_TARGET_MS;
}

export function meetsExecuteTarget(execute: PhaseFigures, asked: number): boolean {
  return execute.count === asked && execute.p99Ms <= ATOMIC_EXECUTE_TARGET_MS;
}

/**
 * Every one of the target's swaps prepared and completed, the last within the target after the
 * first signature; null (not measured) for a burst smaller than the target's.
 */
export function meetsBurstTarget(burst: BurstFigures): boolean | null {
  if (burst.asked < ATOMIC_BURST_SWAPS) return null;
  return burst.completed === burst.asked && burst.settleMs <= ATOMIC_BURST_TARGET_MS;
}
