/**
 * Work that falls due by time alone is looked for at most once per interval of service-clock
 * time, per engine.
 */
import { describe, expect, it } from 'vitest';
import { isLookDue, PeriodicLooks } from '../src/clock.js';

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);

describe('isLookDue', () => {
  it('is due the first time, then once the interval has passed, and when the clock went back', () => {
    expect(isLookDue(undefined, 5, 1_000)).toBe(true);
    expect(isLookDue(0, 999, 1_000)).toBe(false);
    expect(isLookDue(0, 1_000, 1_000)).toBe(true);
    expect(isLookDue(5_000, 4_000, 1_000)).toBe(true);
  });
});

describe('PeriodicLooks', () => {
  it('at once: looks in the first round, then once per interval, each engine on its own', () => {
    const looks = new PeriodicLooks(1_000, 'at-once');
    const one = {};
    const two = {};
    expect(looks.take(one, at(0))).toBe(true);
    expect(looks.take(one, at(10))).toBe(false);
    expect(looks.take(one, at(999))).toBe(false);
    expect(looks.take(two, at(999))).toBe(true);
    expect(looks.take(one, at(1_000))).toBe(true);
    expect(looks.take(one, at(1_500))).toBe(false);
    // A clock moved forward a day (devnet tests and demos move it): due at once.
    expect(looks.take(one, at(86_400_000))).toBe(true);
  });

  it('after an interval: the first look comes one interval after the first round', () => {
    const looks = new PeriodicLooks(10_000, 'after-interval');
    const engine = {};
    expect(looks.take(engine, at(0))).toBe(false);
    expect(looks.take(engine, at(9_999))).toBe(false);
    expect(looks.take(engine, at(10_000))).toBe(true);
    expect(looks.take(engine, at(10_001))).toBe(false);
  });
});
