/**
 * The targets of the performance work, each beside the figure measured for it and a verdict:
 * `npm run bench` ends with this table. A target whose benchmark did not run (no PostgreSQL)
 * says "not measured" rather than pass or fail.
 */
import { table } from './report.js';

export type Verdict = 'met' | 'NOT met' | 'not measured';

export interface TargetRow {
  readonly target: string;
  readonly measured: string;
  readonly verdict: Verdict;
}

export function verdictOf(met: boolean | null): Verdict {
  if (met === null) return 'not measured';
  return met ? 'met' : 'NOT met';
}

/** Whether the slowest of `values` is within `factor` of the fastest (NaN counts as not). */
export function flatWithin(values: readonly number[], factor: number): boolean {
  if (values.length === 0 || values.some((v) => !Number.isFinite(v) || v < 0)) return false;
  const low = Math.min(...values);
  const high = Math.max(...values);
  // Sub-millisecond figures are noise-bound: a floor keeps 0.2 → 0.5 ms from counting as 2.5×.
  return high <= factor * Math.max(low, FLAT_FLOOR_MS);
}

/** Below this, latencies are compared as if they were this (timer and scheduling noise). */
export const FLAT_FLOOR_MS = 1;

export function targetTable(rows: readonly TargetRow[]): string {
  return table([
    ['target', 'measured', 'verdict'],
    ...rows.map((row) => [row.target, row.measured, row.verdict]),
  ]);
}
