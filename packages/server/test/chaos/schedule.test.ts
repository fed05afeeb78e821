/**
 * The chaos plan: every pool in both directions with each setup present, kills spread over the
 * run in order, liquidity rounds spread the same way with both kinds for every provider and every
 * stray kind, atomic swaps spread the same way with every trader on every pool and each setup,
 * and the same seed giving the same plan.
 */
import { describe, expect, it } from 'vitest';
import {
  CANCEL_OFFSET_MAX_MS,
  planAtomicSwaps,
  planDrops,
  planKills,
  planLiquidity,
  planSwaps,
  STRAY_KINDS,
} from '../../chaos/schedule.js';

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

describe('liquidity plan', () => {
  it('spreads the rounds over the run, in order, at points of their own', () => {
    const rounds = planLiquidity(2_000, 100, 4, 3, 1);
    expect(rounds).toHaveLength(100);
    const points = rounds.map((r) => r.afterSwaps);
    expect(points).toEqual([...points].sort((a, b) => a - b));
    expect(new Set(points).size).toBe(100);
    expect(Math.max(...points)).toBeLessThanOrEqual(1_960);
    expect(new Set(rounds.map((r) => r.pool))).toEqual(new Set([0, 1, 2]));
    for (const round of rounds) {
      expect(round.size).toBeGreaterThanOrEqual(1);
      expect(round.size).toBeLessThanOrEqual(2);
    }
  });

  it('gives every provider cancel races and strays, one after the other, a race first', () => {
    const rounds = planLiquidity(2_000, 40, 4, 3, 5);
    for (let provider = 0; provider < 4; provider += 1) {
      const kinds = rounds.filter((r) => r.provider === provider).map((r) => r.round.kind);
      expect(kinds).toHaveLength(10);
      expect(kinds).toEqual(kinds.map((_, i) => (i % 2 === 0 ? 'cancel-race' : 'stray')));
    }
  });

  it('has every stray kind even in a small run, in shuffled blocks', () => {
    const strays = planLiquidity(150, 8, 4, 3, 11).flatMap((r) =>
      r.round.kind === 'stray' ? [r.round.stray] : [],
    );
    expect([...strays].sort()).toEqual([...STRAY_KINDS].sort());
    const orders = new Set(
      [1, 2, 3, 4, 5, 6].map((seed) =>
        planLiquidity(150, 8, 4, 3, seed)
          .flatMap((r) => (r.round.kind === 'stray' ? [r.round.stray] : []))
          .join(),
      ),
    );
    expect(orders.size).toBeGreaterThan(1);
  });

  it('races cancels within the offset either side of the deposit, both ways', () => {
    const offsets = planLiquidity(10_000, 500, 4, 3, 1).flatMap((r) =>
      r.round.kind === 'cancel-race' ? [r.round.cancelOffsetMs] : [],
    );
    for (const offset of offsets) {
      expect(Number.isInteger(offset)).toBe(true);
      expect(Math.abs(offset)).toBeLessThanOrEqual(CANCEL_OFFSET_MAX_MS);
    }
    expect(offsets.some((o) => o < 0)).toBe(true);
    expect(offsets.some((o) => o > 0)).toBe(true);
    const sides = planLiquidity(10_000, 500, 4, 3, 1).flatMap((r) =>
      r.round.kind === 'cancel-race' ? [r.round.side] : [],
    );
    expect(new Set(sides)).toEqual(new Set(['a', 'b']));
  });

  it('gives the same plan for the same seed, another for another, none for none', () => {
    expect(planLiquidity(500, 25, 4, 3, 7)).toEqual(planLiquidity(500, 25, 4, 3, 7));
    expect(planLiquidity(500, 25, 4, 3, 7)).not.toEqual(planLiquidity(500, 25, 4, 3, 8));
    expect(planLiquidity(500, 0, 4, 3, 7)).toEqual([]);
  });
});

describe('atomic swap plan', () => {
  it('spreads the swaps over the run, every trader on every pool, each setup', () => {
    const plan = planAtomicSwaps(10_000, 1_000, 3, 3, 1);
    expect(plan).toHaveLength(1_000);
    const points = plan.map((p) => p.afterSwaps);
    expect(points).toEqual([...points].sort((a, b) => a - b));
    expect(Math.max(...points)).toBeLessThanOrEqual(9_800);
    const pairs = new Set(plan.map((p) => `${p.trader}:${p.pool}`));
    expect(pairs.size).toBe(9);
    expect(new Set(plan.map((p) => p.setup))).toEqual(new Set(['signed', 'tight', 'cancelled']));
    for (const swap of plan) {
      expect(swap.size).toBeGreaterThanOrEqual(1);
      expect(swap.size).toBeLessThanOrEqual(2);
    }
  });

  it('trades every pool even in a small run', () => {
    expect(new Set(planAtomicSwaps(150, 15, 3, 3, 11).map((p) => p.pool))).toEqual(
      new Set([0, 1, 2]),
    );
  });

  it('gives the same plan for the same seed, another for another, none for none', () => {
    expect(planAtomicSwaps(500, 50, 3, 3, 7)).toEqual(planAtomicSwaps(500, 50, 3, 3, 7));
    expect(planAtomicSwaps(500, 50, 3, 3, 7)).not.toEqual(planAtomicSwaps(500, 50, 3, 3, 8));
    expect(planAtomicSwaps(500, 0, 3, 3, 7)).toEqual([]);
  });
});
