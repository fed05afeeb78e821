/**
 * The chaos plan: every pool in both directions with each setup present, kills spread over the
 * run in order, and the same seed giving the same plan.
 */
import { describe, expect, it } from 'vitest';
import { planDrops, planKills, planSwaps } from '../../chaos/schedule.js';

describe('chaos plan', () => {
  it('covers every pool in both directions and each setup', () => {
    const plan = planSwaps(600, 3, 1);
    const pairs = new Set(plan.map((s) => `${s.pool}:${s.aIn}`));
    expect([...pairs].sort()).toEqual([
      '0:false',
      '0:true',
      '1:false',
      '1:true',
      '2:false',
      '2:true',
    ]);
    const setups = new Set(plan.map((s) => s.setup));
    expect([...setups].sort()).toEqual(['exact', 'tight', 'wrong-amount']);
    for (const swap of plan) expect(swap.size).toBeGreaterThanOrEqual(1);
  });

  it('gives the same plan for the same seed and another for another', () => {
    expect(planSwaps(200, 3, 7)).toEqual(planSwaps(200, 3, 7));
    expect(planSwaps(200, 3, 7)).not.toEqual(planSwaps(200, 3, 8));
    expect(planKills(10_000, 25, 2, 7)).toEqual(planKills(10_000, 25, 2, 7));
  });

  it('spreads the kills over the run, one per stretch, in order', () => {
    const kills = planKills(10_000, 25, 2, 1);
    expect(kills).toHaveLength(25);
    kills.forEach((kill, k) => {
      expect(kill.afterSwaps).toBeGreaterThan(k * 392);
      expect(kill.afterSwaps).toBeLessThanOrEqual((k + 1) * 392);
      expect([0, 1]).toContain(kill.worker);
    });
    const points = kills.map((k) => k.afterSwaps);
    expect(points).toEqual([...points].sort((a, b) => a - b));
    expect(new Set(kills.map((k) => k.worker)).size).toBe(2);
  });

  it('keeps kill points distinct even when there are nearly as many kills as swaps', () => {
    const points = planKills(10, 5, 2, 3).map((k) => k.afterSwaps);
    expect(new Set(points).size).toBe(5);
    expect(Math.max(...points)).toBeLessThanOrEqual(10);
  });

  it('plans no kills when none are asked', () => {
    expect(planKills(100, 0, 2, 1)).toEqual([]);
  });

  it('spreads the store session drops over the run as it does kills, at other points', () => {
    const drops = planDrops(10_000, 25, 1);
    expect(drops).toHaveLength(25);
    drops.forEach((drop, k) => {
      expect(drop.afterSwaps).toBeGreaterThan(k * 392);
      expect(drop.afterSwaps).toBeLessThanOrEqual((k + 1) * 392);
    });
    expect(drops).toEqual(planDrops(10_000, 25, 1));
    const kills = planKills(10_000, 25, 2, 1).map((kill) => kill.afterSwaps);
    expect(drops.map((drop) => drop.afterSwaps)).not.toEqual(kills);
    expect(planDrops(100, 0, 1)).toEqual([]);
  });
});
