import { describe, expect, it } from 'vitest';
import { drainRate, phaseFigures, timingOf } from '../canton-timing.js';

describe('canton-path timings', () => {
  it('takes two ledger transactions of the swap off its total', () => {
    const timing = timingOf({
      depositSubmitted: 1000,
      depositSeen: 1030,
      payoutSeen: 1090,
      completed: 1100,
    });
    expect(timing).toEqual({ ledgerMs: 30, totalMs: 100, onTopMs: 40, reactMs: 60, finishMs: 10 });
  });

  it('counts a swap with a missing moment as not completed', () => {
    const figures = phaseFigures([
      { depositSubmitted: 0, depositSeen: 10, payoutSeen: 30, completed: 40 },
      { depositSubmitted: 0, depositSeen: 10, payoutSeen: null, completed: null },
    ]);
    expect(figures.swaps).toBe(2);
    expect(figures.completed).toBe(1);
    expect(figures.total.p99).toBe(40);
  });

  it('rates a drain from the workers start, and from first to last completion', () => {
    const rate = drainRate(0, [500, 1000, 1500, 2000]);
    expect(rate.swapsPerS).toBe(2);
    expect(rate.settlingSwapsPerS).toBe(2);
    expect(rate.elapsedMs).toBe(2000);
    expect(drainRate(0, []).swapsPerS).toBe(0);
  });
});
