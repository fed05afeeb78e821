/** How rounds of loads become the quote target's figures. */
import { describe, expect, it } from 'vitest';
import { combinedLoad, cpuUsPerAnswer, type LoadResult, pairedRatio } from '../load.js';

const load = (
  requestsPerS: number,
  latencyP99Ms = 1,
  latencyP50Ms = 0,
  mainThreadCpuUs = 0,
): LoadResult => ({
  requestsPerS,
  latencyP50Ms,
  latencyP99Ms,
  requests: requestsPerS * 2,
  mainThreadCpuUs,
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

  it('adds up the CPU time, so CPU per answer weighs every round by its answers', () => {
    // 200 answers at 10 µs and 600 at 20 µs: 17.5 µs an answer, not the rounds' mean of 15.
    const combined = combinedLoad([load(100, 1, 0, 2_000), load(300, 1, 0, 12_000)]);
    expect(combined.mainThreadCpuUs).toBe(14_000);
    expect(cpuUsPerAnswer(combined)).toBeCloseTo(17.5, 10);
  });
});
