/** How paired loads become the quote target's figure. */
import { describe, expect, it } from 'vitest';
import { combinedLoad, type LoadResult, pairedRatio } from '../load.js';

const load = (requestsPerS: number, latencyP99Ms = 1, latencyP50Ms = 0): LoadResult => ({
  requestsPerS,
  latencyP50Ms,
  latencyP99Ms,
  requests: requestsPerS * 2,
});

describe('pairedRatio', () => {
  it('is the median of the rounds’ ratios, so one disturbed round does not move it', () => {
    const rounds = [
      { baseline: load(1000), subject: load(450) },
      { baseline: load(1000), subject: load(440) },
      // A moment when the machine was busy for the baseline only.
      { baseline: load(400), subject: load(430) },
      { baseline: load(1000), subject: load(460) },
      { baseline: load(1000), subject: load(100) },
    ];
    expect(pairedRatio(rounds)).toBeCloseTo(0.45, 10);
  });

  it('averages the two middle ratios of an even count', () => {
    const rounds = [
      { baseline: load(100), subject: load(30) },
      { baseline: load(100), subject: load(50) },
    ];
    expect(pairedRatio(rounds)).toBeCloseTo(0.4, 10);
  });

  it('has no figure without rounds', () => {
    expect(pairedRatio([])).toBeNaN();
  });
});

describe('combinedLoad', () => {
  it('takes the mean rate, the median p50 and the worst p99 of the rounds', () => {
    const combined = combinedLoad([load(100, 3, 1), load(300, 9, 2), load(200, 4, 5)]);
    expect(combined.requestsPerS).toBe(200);
    expect(combined.latencyP50Ms).toBe(2);
    expect(combined.latencyP99Ms).toBe(9);
    expect(combined.requests).toBe(1200);
  });
});
