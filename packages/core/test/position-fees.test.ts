import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Amount } from '../src/amount.js';
import type { Side } from '../src/pool-books.js';
import {
  type FeeGrowth,
  feeGrowthAfterSwap,
  feeGrowthFromDecimal,
  feeGrowthToDecimal,
  feesEarned,
  freshPositionFees,
  NO_FEE_GROWTH,
  type PositionFeeState,
  settlePositionFees,
} from '../src/position-fees.js';

/** A pool's life: swaps paying an LP fee, and providers' units joining and leaving. */
type Step =
  | { readonly kind: 'swap'; readonly side: Side; readonly lpFee: Amount }
  | { readonly kind: 'mint'; readonly provider: number; readonly units: Amount }
  | { readonly kind: 'burn'; readonly provider: number; readonly share: number };

const PROVIDERS = 4;
const amount = (max: bigint) => fc.bigInt({ min: 1n, max }).map(Amount.fromUnits);
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('swap' as const),
    side: fc.constantFrom<Side>('a', 'b'),
    lpFee: amount(10n ** 22n),
  }),
  fc.record({
    kind: fc.constant('mint' as const),
    provider: fc.integer({ min: 0, max: PROVIDERS - 1 }),
    units: amount(10n ** 26n),
  }),
  fc.record({
    kind: fc.constant('burn' as const),
    provider: fc.integer({ min: 0, max: PROVIDERS - 1 }),
    share: fc.integer({ min: 1, max: 10_000 }),
  }),
);

interface Position {
  units: Amount;
  fees: PositionFeeState;
}

interface Run {
  readonly positions: Map<number, Position>;
  readonly growth: FeeGrowth;
  /** The LP fees of the swaps while some units were held, per side. */
  readonly taken: { a: Amount; b: Amount };
  readonly settles: number;
  readonly swaps: number;
}

/** Plays the steps as settlement does: every change of units settles the position first. */
function play(steps: readonly Step[], locked: Amount): Run {
  const positions = new Map<number, Position>();
  let growth = NO_FEE_GROWTH;
  const taken = { a: Amount.ZERO, b: Amount.ZERO };
  let supply = locked;
  let settles = 0;
  let swaps = 0;
  for (const s of steps) {
    if (s.kind === 'swap') {
      if (!supply.isPositive()) continue;
      growth = feeGrowthAfterSwap(growth, s, supply);
      taken[s.side] = taken[s.side].add(s.lpFee);
      swaps += 1;
      continue;
    }
    const held = positions.get(s.provider) ?? {
      units: Amount.ZERO,
      fees: freshPositionFees(growth),
    };
    const fees = settlePositionFees(held.fees, held.units, growth);
    settles += 1;
    const change =
      s.kind === 'mint' ? s.units : held.units.mulDiv(BigInt(s.share), 10_000n, 'down');
    const units = s.kind === 'mint' ? held.units.add(change) : held.units.sub(change);
    supply = s.kind === 'mint' ? supply.add(change) : supply.sub(change);
    positions.set(s.provider, { units, fees });
  }
  return { positions, growth, taken, settles, swaps };
}

function earnedTotal(run: Run): { a: Amount; b: Amount } {
  const earned = [...run.positions.values()].map((p) => feesEarned(p.fees, p.units, run.growth));
  return { a: Amount.sum(earned.map((e) => e.a)), b: Amount.sum(earned.map((e) => e.b)) };
}

describe('the fees a position earned', () => {
  it('never sums, over all positions, to more than the LP fees the pool took', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), amount(10n ** 4n), (steps, locked) => {
        const run = play(steps, locked);
        const total = earnedTotal(run);
        expect(total.a.lte(run.taken.a)).toBe(true);
        expect(total.b.lte(run.taken.b)).toBe(true);
      }),
    );
  });

  it('sums to the LP fees taken, up to rounding, when every unit is held', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const run = play(steps, Amount.ZERO);
        const total = earnedTotal(run);
        // Each swap's growth and each settle or reading of a position rounds down by less than
        // one smallest unit.
        const slack = BigInt(run.swaps + run.settles + PROVIDERS);
        for (const side of ['a', 'b'] as const) {
          expect(run.taken[side].units - total[side].units).toBeGreaterThanOrEqual(0n);
          expect(run.taken[side].units - total[side].units).toBeLessThanOrEqual(slack);
        }
      }),
    );
  });

  it('credits a position opened after a swap nothing of that swap', () => {
    fc.assert(
      fc.property(amount(10n ** 22n), amount(10n ** 26n), amount(10n ** 26n), (fee, s, u) => {
        const growth = feeGrowthAfterSwap(NO_FEE_GROWTH, { side: 'a', lpFee: fee }, s);
        const opened = settlePositionFees(freshPositionFees(growth), Amount.ZERO, growth);
        const earned = feesEarned(opened, u, growth);
        expect(earned.a.isZero() && earned.b.isZero()).toBe(true);
      }),
    );
  });

  it('credits two positions that held the same units through the same swaps the same', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), amount(10n ** 4n), (steps, locked) => {
        // Provider 1 mirrors every change of provider 0's units, right after it.
        const mirrored = steps.flatMap((s): Step[] =>
          s.kind === 'swap'
            ? [s]
            : [
                { ...s, provider: 0 },
                { ...s, provider: 1 },
              ],
        );
        const run = play(mirrored, locked);
        const [first, second] = [0, 1].map((provider) => {
          const p = run.positions.get(provider);
          return p === undefined ? null : feesEarned(p.fees, p.units, run.growth);
        });
        expect(first).toEqual(second);
      }),
    );
  });

  it('credits exactly lpFee × share after one swap, rounded down', () => {
    // 3 units of 4 in supply, an LP fee of 1: three quarters of it.
    const growth = feeGrowthAfterSwap(
      NO_FEE_GROWTH,
      { side: 'b', lpFee: Amount.of(1) },
      Amount.of(4),
    );
    const earned = feesEarned(freshPositionFees(NO_FEE_GROWTH), Amount.of(3), growth);
    expect(earned.b.toString()).toBe('0.75');
    expect(earned.a.isZero()).toBe(true);
  });

  it('keeps what was earned when units are burned', () => {
    const growth = feeGrowthAfterSwap(
      NO_FEE_GROWTH,
      { side: 'a', lpFee: Amount.of(2) },
      Amount.of(2),
    );
    const settled = settlePositionFees(freshPositionFees(NO_FEE_GROWTH), Amount.of(1), growth);
    expect(feesEarned(settled, Amount.ZERO, growth).a.toString()).toBe('1');
  });

  it('writes and reads a growth exactly', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 70n }), (value) => {
        expect(feeGrowthFromDecimal(feeGrowthToDecimal(value))).toBe(value);
      }),
    );
    expect(feeGrowthFromDecimal('1.50000000000000000000000000000000000000')).toBe(15n * 10n ** 37n);
  });
});
