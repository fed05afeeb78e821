import { describe, expect, it } from 'vitest';
import {
  atomicPhaseFigures,
  atomicTimingOf,
  drainRate,
  phaseFigures,
  timingOf,
} from '../canton-timing.js';

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

  it("takes the ledger's one execution off an atomic swap's signature → completed", () => {
    const moments = { ledgerMs: 20, signed: 1000, executionSeen: 1035, completed: 1050 };
    expect(atomicTimingOf(moments)).toEqual({
      totalMs: 50,
      seenMs: 35,
      finishMs: 15,
      onTopMs: 30,
    });
    expect(atomicTimingOf({ ...moments, ledgerMs: null })?.onTopMs).toBeNull();
  });

  it('counts refused prepares by code and signed swaps that did not complete apart', () => {
    const signed = (completed: number | null, ending?: string) => ({
      kind: 'signed' as const,
      moments: { ledgerMs: null, signed: 0, executionSeen: 10, completed, ending },
    });
    const figures = atomicPhaseFigures([
      signed(40),
      signed(60),
      signed(null, 'price_moved'),
      { kind: 'refused', code: 'pool_holdings_busy' },
      { kind: 'refused', code: 'pool_holdings_busy' },
    ]);
    expect(figures).toMatchObject({
      swaps: 5,
      completed: 2,
      refused: { pool_holdings_busy: 2 },
      incomplete: { price_moved: 1 },
    });
    expect(figures.total.p99).toBe(60);
    // Without the ledger's own time measured there is no figure on top of it.
    expect(Number.isNaN(figures.onTop.p99)).toBe(true);
  });
});
