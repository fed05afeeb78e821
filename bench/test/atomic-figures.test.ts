import { describe, expect, it } from 'vitest';
import {
  ATOMIC_BURST_SWAPS,
  type BurstFigures,
  meetsBurstTarget,
  meetsExecuteTarget,
  meetsPrepareTarget,
  phaseFigures,
  ratioToBaseline,
} from '../atomic-figures.js';

const burst = (over: Partial<BurstFigures>): BurstFigures => ({
  asked: ATOMIC_BURST_SWAPS,
  prepared: ATOMIC_BURST_SWAPS,
  holdingsBusy: 0,
  outputHoldings: 250,
  prepareMs: 1_000,
  completed: ATOMIC_BURST_SWAPS,
  settleMs: 4_000,
  cpuUsPerSwap: 30_000,
  ...over,
});

describe('the atomic-swap bench’s figures', () => {
  it('takes a phase’s percentiles, its slowest and its CPU per swap', () => {
    const latencies = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(phaseFigures(latencies, 5_000)).toEqual({
      count: 100,
      p50Ms: 50,
      p99Ms: 99,
      maxMs: 100,
      cpuUsPerOp: 50,
    });
  });

  it('has no figures for a phase that measured nothing, and so meets no target', () => {
    const none = phaseFigures([], 1_000);
    expect(none.p99Ms).toBeNaN();
    expect(none.cpuUsPerOp).toBeNaN();
    expect(meetsPrepareTarget(none, 0)).toBe(false);
  });

  it('compares a phase’s p99 with the deposit flow’s', () => {
    const baseline = phaseFigures([20, 40], 0);
    expect(ratioToBaseline(phaseFigures([10, 30], 0), baseline)).toBe(0.75);
  });

  it('meets a latency target only with every swap measured and the p99 within it', () => {
    expect(meetsPrepareTarget(phaseFigures([5, 20], 0), 2)).toBe(true);
    expect(meetsPrepareTarget(phaseFigures([5, 21], 0), 2)).toBe(false);
    // A swap that failed is missing from the latencies: not met, however fast the others.
    expect(meetsExecuteTarget(phaseFigures([5], 0), 2)).toBe(false);
    expect(meetsExecuteTarget(phaseFigures([50, 5], 0), 2)).toBe(true);
  });

  it('judges the burst only at the target’s size: all completed, the last within 5 s', () => {
    expect(meetsBurstTarget(burst({}))).toBe(true);
    expect(meetsBurstTarget(burst({ settleMs: 5_001 }))).toBe(false);
    expect(meetsBurstTarget(burst({ completed: ATOMIC_BURST_SWAPS - 1 }))).toBe(false);
    // Refused for want of a free holding: prepared fewer, completed fewer.
    expect(meetsBurstTarget(burst({ prepared: 8, holdingsBusy: 192, completed: 8 }))).toBe(false);
    expect(meetsBurstTarget(burst({ asked: 50, completed: 50 }))).toBeNull();
  });
});
