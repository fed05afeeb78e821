import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Amount } from '../src/amount.js';
import {
  afterBurn,
  afterMint,
  MINIMUM_LOCKED_UNITS,
  minimumUnits,
  type PoolLiquidity,
  pairedAmount,
  planBurn,
  planMint,
} from '../src/liquidity.js';
import { constantProductOutput } from '../src/pricing.js';

const MAX = 10n ** 20n;
const positive = fc.bigInt({ min: 1n, max: MAX }).map(Amount.fromUnits);
const small = fc.bigInt({ min: 1n, max: 10n ** 12n }).map(Amount.fromUnits);

/** A pool funded by one first deposit, so its supply matches its reserves as it would. */
const pool: fc.Arbitrary<PoolLiquidity> = fc
  .tuple(positive, positive)
  .filter(([a, b]) => planMint(EMPTY, a, b).kind === 'mint')
  .map(([a, b]) => {
    const plan = planMint(EMPTY, a, b);
    if (plan.kind !== 'mint') throw new Error('filtered');
    return afterMint(EMPTY, plan);
  });

const EMPTY: PoolLiquidity = { reserveA: Amount.ZERO, reserveB: Amount.ZERO, supply: Amount.ZERO };

/** k / S² as a comparable pair: the value of a unit, squared, never to fall. */
function unitValueNotLower(before: PoolLiquidity, after: PoolLiquidity): boolean {
  const k0 = before.reserveA.units * before.reserveB.units;
  const k1 = after.reserveA.units * after.reserveB.units;
  const s0 = before.supply.units;
  const s1 = after.supply.units;
  return k1 * s0 * s0 >= k0 * s1 * s1;
}

/** A swap of `amount` into `side`, 0.3 % kept in the reserve as the LP fee. */
function swap(p: PoolLiquidity, intoA: boolean, amount: Amount): PoolLiquidity {
  const priced = amount.mulDiv(9_970n, 10_000n, 'down');
  const [x, y] = intoA ? [p.reserveA, p.reserveB] : [p.reserveB, p.reserveA];
  const out = constantProductOutput({ input: x, output: y }, priced);
  const [nx, ny] = [x.add(amount), y.sub(out)];
  return intoA ? { ...p, reserveA: nx, reserveB: ny } : { ...p, reserveA: ny, reserveB: nx };
}

type Step =
  | { kind: 'swap'; intoA: boolean; amount: Amount }
  | { kind: 'mint'; a: Amount; b: Amount }
  | { kind: 'burn'; share: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('swap' as const), intoA: fc.boolean(), amount: small }),
  fc.record({ kind: fc.constant('mint' as const), a: small, b: small }),
  fc.record({ kind: fc.constant('burn' as const), share: fc.integer({ min: 1, max: 9_999 }) }),
);

function apply(p: PoolLiquidity, s: Step): PoolLiquidity {
  if (s.kind === 'swap') return swap(p, s.intoA, s.amount);
  if (s.kind === 'mint') {
    const plan = planMint(p, s.a, s.b);
    return plan.kind === 'mint' ? afterMint(p, plan) : p;
  }
  const owned = p.supply.sub(MINIMUM_LOCKED_UNITS);
  const units = owned.mulDiv(BigInt(s.share), 10_000n, 'down');
  const pay = planBurn(p, units);
  return pay === null ? p : afterBurn(p, units, pay);
}

describe('liquidity units', () => {
  it('a mint followed by a burn of what it minted never returns more than went in', () => {
    fc.assert(
      fc.property(pool, small, small, (p, a, b) => {
        const plan = planMint(p, a, b);
        if (plan.kind !== 'mint') return;
        expect(plan.joinA.add(plan.excessA)).toEqual(a);
        expect(plan.joinB.add(plan.excessB)).toEqual(b);
        const pay = planBurn(afterMint(p, plan), plan.minted);
        expect(pay).not.toBeNull();
        expect(pay?.payA.lte(plan.joinA)).toBe(true);
        expect(pay?.payB.lte(plan.joinB)).toBe(true);
      }),
    );
  });

  it('rounds for the pool: what joins is worth at least its units, a burn pays at most its share', () => {
    fc.assert(
      fc.property(pool, small, small, (p, a, b) => {
        const plan = planMint(p, a, b);
        if (plan.kind !== 'mint') return;
        const s = p.supply.units;
        expect(plan.joinA.units * s >= plan.minted.units * p.reserveA.units).toBe(true);
        expect(plan.joinB.units * s >= plan.minted.units * p.reserveB.units).toBe(true);
        const burned = Amount.min(plan.minted, p.supply);
        const pay = planBurn(p, burned);
        const units = burned.units;
        expect((pay?.payA.units ?? 0n) * s <= units * p.reserveA.units).toBe(true);
        expect((pay?.payB.units ?? 0n) * s <= units * p.reserveB.units).toBe(true);
      }),
    );
  });

  it('no sequence of swaps, mints and burns lowers the value of a unit (k / S² never falls)', () => {
    fc.assert(
      fc.property(pool, fc.array(step, { maxLength: 30 }), (start, steps) => {
        let p = start;
        for (const s of steps) {
          const next = apply(p, s);
          expect(unitValueNotLower(p, next)).toBe(true);
          expect(next.supply.gte(MINIMUM_LOCKED_UNITS)).toBe(true);
          p = next;
        }
      }),
    );
  });

  it('returns the excess of the over-supplied side only, and keeps the ratio', () => {
    fc.assert(
      fc.property(pool, small, fc.integer({ min: 2, max: 50 }), (p, a, over) => {
        const b = pairedAmount(p, 'a', a);
        if (b === null) return;
        const plan = planMint(p, a, b.mulDiv(BigInt(over), 1n, 'up'));
        if (plan.kind !== 'mint') return;
        expect(plan.excessA.isZero()).toBe(true);
        expect(plan.joinA).toEqual(a);
        expect(plan.excessB.isPositive()).toBe(true);
      }),
    );
  });

  it('locks the minimum on a first deposit and refuses one too small to exceed it', () => {
    const plan = planMint(EMPTY, Amount.parse('100'), Amount.parse('400'));
    expect(plan).toMatchObject({ kind: 'mint', locked: MINIMUM_LOCKED_UNITS });
    if (plan.kind !== 'mint') return;
    expect(plan.minted.add(plan.locked)).toEqual(Amount.parse('200'));
    const tiny = planMint(EMPTY, Amount.fromUnits(10n), Amount.fromUnits(10_000n));
    expect(tiny).toEqual({ kind: 'refused', reason: 'first_deposit_too_small' });
  });

  it('refuses one side alone, reserves without units, and deposits worth no unit', () => {
    const one = Amount.parse('1');
    expect(planMint(EMPTY, one, Amount.ZERO)).toEqual({
      kind: 'refused',
      reason: 'one_side_missing',
    });
    const unowned = { reserveA: one, reserveB: one, supply: Amount.ZERO };
    expect(planMint(unowned, one, one)).toEqual({
      kind: 'refused',
      reason: 'reserves_without_units',
    });
    const deep = { reserveA: Amount.parse('1000000000000'), reserveB: one, supply: one };
    expect(planMint(deep, Amount.fromUnits(1n), one)).toEqual({
      kind: 'refused',
      reason: 'nothing_minted',
    });
  });

  it('takes the minimum units from the expected ones by the slippage, and refuses bad slippage', () => {
    expect(minimumUnits(Amount.parse('100'), 50)).toEqual(Amount.parse('99.5'));
    expect(() => minimumUnits(Amount.parse('1'), 10_001)).toThrow(RangeError);
  });
});
