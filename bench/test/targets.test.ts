/** The verdicts `npm run bench` prints beside each target. */
import { describe, expect, it } from 'vitest';
import { flatWithin, targetTable, verdictOf } from '../targets.js';

describe('flatWithin', () => {
  it('holds when the slowest is within the factor of the fastest', () => {
    expect(flatWithin([2, 3, 4], 2)).toBe(true);
    expect(flatWithin([2, 3, 4.1], 2)).toBe(false);
  });

  it('compares sub-millisecond figures as one millisecond', () => {
    expect(flatWithin([0.2, 0.6, 1.9], 2)).toBe(true);
    expect(flatWithin([0.2, 2.1], 2)).toBe(false);
  });

  it('never holds without figures or with a missing one', () => {
    expect(flatWithin([], 2)).toBe(false);
    expect(flatWithin([1, Number.NaN], 2)).toBe(false);
  });
});

describe('targetTable', () => {
  it('prints each target beside its figure and verdict', () => {
    const text = targetTable([
      { target: 'first start ≤ 5 s', measured: '3.1 s', verdict: verdictOf(true) },
      { target: 'SSE p99 ≤ 50 ms', measured: '80 ms', verdict: verdictOf(false) },
      { target: '≥ 300 swaps/s', measured: 'no PostgreSQL', verdict: verdictOf(null) },
    ]);
    const lines = text.split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[1]).toMatch(/^first start ≤ 5 s +3\.1 s +met$/);
    expect(lines[2]).toMatch(/NOT met$/);
    expect(lines[3]).toMatch(/not measured$/);
  });
});
