import { describe, expect, it } from 'vitest';
import { lagFigures, meetsLagTarget } from '../webhook-lag.js';

describe('webhook delivery lag', () => {
  it('puts the event time on the receiver clock before taking the lag', () => {
    // The service clock runs 5 s ahead of Date.now(): an event stamped 10 000 happened at 5 000.
    const figures = lagFigures(
      [
        { createdMs: 10_000, receivedMs: 5_020 },
        { createdMs: 10_000, receivedMs: 5_040 },
      ],
      2,
      5_000,
    );
    expect(figures.p50Ms).toBe(20);
    expect(figures.p99Ms).toBe(40);
    expect(figures.maxMs).toBe(40);
    expect(figures.perS).toBe(2 / 0.02);
  });

  it('counts a delivery never received at the longest lag, and never as met', () => {
    const receipts = Array.from({ length: 99 }, (_, i) => ({ createdMs: 0, receivedMs: i % 2 }));
    const figures = lagFigures([...receipts, { createdMs: 0, receivedMs: 30 }], 200, 0);
    expect(figures.received).toBe(100);
    expect(figures.expected).toBe(200);
    expect(figures.p50Ms).toBe(30);
    expect(meetsLagTarget(figures, 50)).toBe(false);
    expect(meetsLagTarget(lagFigures(receipts, 99, 0), 50)).toBe(true);
  });

  it('is over target when every delivery arrived but the p99 is late', () => {
    const receipts = Array.from({ length: 100 }, (_, i) => ({ createdMs: 0, receivedMs: i }));
    const figures = lagFigures(receipts, 100, 0);
    expect(figures.p99Ms).toBe(98);
    expect(meetsLagTarget(figures, 50)).toBe(false);
    expect(meetsLagTarget(figures, 98)).toBe(true);
  });

  it('has no figures without receipts', () => {
    const figures = lagFigures([], 10, 0);
    expect(figures.received).toBe(0);
    expect(Number.isNaN(figures.p99Ms)).toBe(true);
    expect(meetsLagTarget(figures, 50)).toBe(false);
  });
});
