import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Amount } from '../src/amount.js';
import { ERROR_CATALOGUE } from '../src/errors.js';
import { afterMint, type PoolLiquidity, planMint } from '../src/liquidity.js';
import {
  attributeLiquidityDeposit,
  burnRequestOf,
  type LiquidityCandidate,
  lateSideReturned,
  planLiquidityCompletion,
  planLiquidityIntent,
  planWithdrawal,
  positionValue,
} from '../src/liquidity-flows.js';
import type { Movement, Side } from '../src/pool-books.js';

const units = fc.bigInt({ min: 1n, max: 10n ** 16n }).map(Amount.fromUnits);
const EMPTY: PoolLiquidity = { reserveA: Amount.ZERO, reserveB: Amount.ZERO, supply: Amount.ZERO };
const pool = fc.tuple(units, units).chain(([a, b]) => {
  const plan = planMint(EMPTY, a, b);
  return plan.kind === 'mint' ? fc.constant(afterMint(EMPTY, plan)) : fc.constant(EMPTY);
});

function heldChange(movements: readonly Movement[], side: Side): bigint {
  return movements.filter((m) => m.side === side).reduce((sum, m) => sum + m.units, 0n);
}

const now = new Date('2026-11-26T12:00:00Z');
const candidate: LiquidityCandidate = {
  liquidityIntentId: 'liq_1',
  poolId: 'pool_1',
  providerParty: 'lp::1220aa',
  status: 'pending',
  expiresAt: new Date(now.getTime() + 60_000),
  sidesTaken: [],
};
const deposit = { poolId: 'pool_1', sender: 'lp::1220aa', side: 'a' as Side, receivedAt: now };

describe('a deposit to an LP party', () => {
  it('takes the first side to partial and the second to joining', () => {
    expect(attributeLiquidityDeposit(deposit, candidate)).toEqual({
      kind: 'take',
      side: 'a',
      becomes: 'partial',
    });
    const second = { ...deposit, side: 'b' as Side };
    const partial = { ...candidate, status: 'partial', sidesTaken: ['a' as Side] };
    expect(attributeLiquidityDeposit(second, partial)).toEqual({
      kind: 'take',
      side: 'b',
      becomes: 'joining',
    });
  });

  it('returns whole what no open intent of the sender takes, saying why', () => {
    const cases: [Partial<typeof deposit>, Partial<LiquidityCandidate> | null, string][] = [
      [{ side: null as never }, {}, 'wrong_instrument'],
      [{}, null, 'no_intent'],
      [{ sender: 'other::1220bb' }, {}, 'wrong_party'],
      [{ poolId: 'pool_2' }, {}, 'wrong_pool'],
      [{}, { status: 'completed' }, 'intent_not_open'],
      [{}, { expiresAt: now }, 'intent_expired'],
      [{}, { status: 'partial', sidesTaken: ['a'] }, 'side_already_received'],
    ];
    for (const [d, c, reason] of cases) {
      const found = c === null ? null : { ...candidate, ...c };
      expect(attributeLiquidityDeposit({ ...deposit, ...d }, found)).toEqual({
        kind: 'return',
        reason,
      });
    }
  });
});

describe('completing a liquidity intent', () => {
  it('moves no holding: what arrived joins the reserve or waits in outgoing to go back', () => {
    fc.assert(
      fc.property(pool, units, units, units, (p, a, b, minimum) => {
        const plan = planLiquidityCompletion(p, { a, b }, minimum);
        expect(heldChange(plan.movements, 'a')).toBe(0n);
        expect(heldChange(plan.movements, 'b')).toBe(0n);
        if (plan.kind === 'mint') {
          expect(plan.minted.gte(minimum)).toBe(true);
          expect(plan.join.a.add(plan.excess.a)).toEqual(a);
          expect(plan.join.b.add(plan.excess.b)).toEqual(b);
        } else {
          expect(plan.refund).toEqual({ a, b });
        }
      }),
    );
  });

  it('refunds both sides when the units fall below the minimum', () => {
    const p = afterMint(EMPTY, planMint(EMPTY, Amount.parse('100'), Amount.parse('100')) as never);
    const plan = planLiquidityCompletion(
      p,
      { a: Amount.parse('10'), b: Amount.parse('10') },
      Amount.parse('11'),
    );
    expect(plan).toMatchObject({ kind: 'refund', failure: { code: 'minimum_units_not_met' } });
  });

  it('refunds both sides, rather than failing, when what arrived would take the pool past 28 digits', () => {
    const p = afterMint(
      EMPTY,
      planMint(EMPTY, Amount.parse('1000000'), Amount.parse('1.45')) as never,
    );
    const huge = Amount.parse('9'.repeat(28));
    const plan = planLiquidityCompletion(p, { a: huge, b: huge }, Amount.ZERO);
    expect(plan).toMatchObject({ kind: 'refund', failure: { code: 'amount_out_of_range' } });
    expect(plan.kind === 'refund' && plan.refund).toEqual({ a: huge, b: huge });
  });

  it('returns a late side from the swap party without moving a holding', () => {
    expect(heldChange(lateSideReturned('b', Amount.parse('3')), 'b')).toBe(0n);
  });
});

describe('a withdrawal', () => {
  const p = afterMint(EMPTY, planMint(EMPTY, Amount.parse('400'), Amount.parse('100')) as never);
  const held = {
    units: Amount.parse('100'),
    basisA: Amount.parse('200'),
    basisB: Amount.parse('50'),
  };
  const none = { a: Amount.ZERO, b: Amount.ZERO };

  it('burns a share for both sides, takes the same share of what went in, moves no holding', () => {
    const plan = planWithdrawal(p, held, { shareBps: 5_000 }, none);
    expect(plan).toMatchObject({ kind: 'burn', units: Amount.parse('50') });
    if (plan.kind !== 'burn') return;
    expect(plan.basis).toEqual({ a: Amount.parse('100'), b: Amount.parse('25') });
    expect(plan.pay.a.isPositive() && plan.pay.b.isPositive()).toBe(true);
    expect(heldChange(plan.movements, 'a')).toBe(0n);
    expect(heldChange(plan.movements, 'b')).toBe(0n);
  });

  it('burns nothing when the minimums are not met or the units are not held', () => {
    const greedy = { a: Amount.parse('1000'), b: Amount.ZERO };
    expect(planWithdrawal(p, held, { shareBps: 10_000 }, greedy)).toMatchObject({
      kind: 'refused',
      code: 'minimum_not_met',
    });
    expect(planWithdrawal(p, held, { units: Amount.parse('101') }, none)).toMatchObject({
      kind: 'refused',
      code: 'insufficient_units',
    });
    expect(planWithdrawal(p, null, { units: Amount.parse('1') }, none)).toMatchObject({
      kind: 'refused',
      code: 'no_position',
    });
  });

  it('values a position against holding what went in, at the price now', () => {
    const worth = positionValue(p, held);
    expect(worth.redeemable.a.isPositive()).toBe(true);
    expect(worth.valueInB.isPositive()).toBe(true);
    expect(worth.heldInB).toEqual(Amount.parse('100'));
  });
});

describe('a liquidity intent', () => {
  /** The devnet's Amulet/CBTC pool: 1 000 000 Amulet and 1.45 CBTC, its supply their root. */
  const amuletCbtc = afterMint(
    EMPTY,
    planMint(EMPTY, Amount.parse('1000000'), Amount.parse('1.45')) as never,
  );
  const digits = (n: number) => Amount.parse('9'.repeat(n));

  it('refuses a side whose partner at the pool ratio passes 28 integer digits', () => {
    const terms = planLiquidityIntent(amuletCbtc, { b: digits(23) }, 50);
    expect(terms).toMatchObject({ kind: 'refused', code: 'amount_out_of_range' });
  });

  it('refuses amounts that would take the pool past 28 integer digits', () => {
    const terms = planLiquidityIntent(amuletCbtc, { a: digits(28) }, 50);
    expect(terms).toMatchObject({ kind: 'refused', code: 'amount_out_of_range' });
    const both = planLiquidityIntent(amuletCbtc, { a: digits(28), b: digits(28) }, 50);
    expect(both).toMatchObject({ kind: 'refused', code: 'amount_out_of_range' });
  });

  it('refuses a first deposit that mints no more than the locked units, naming them', () => {
    const tiny = Amount.parse('0.0000001');
    const terms = planLiquidityIntent(EMPTY, { a: tiny, b: tiny }, 50);
    expect(terms).toMatchObject({ kind: 'refused', code: 'first_deposit_too_small' });
    expect(terms.kind === 'refused' && terms.message).toContain('more than 0.0000001 units');
    const enough = planLiquidityIntent(EMPTY, { a: Amount.parse('1'), b: tiny }, 50);
    expect(enough.kind).toBe('terms');
  });

  it('answers any amounts with a 4xx refusal or terms whose amounts and pool after all fit', () => {
    const anyUnits = fc.oneof(
      fc.constant(0n),
      fc.bigInt({ min: 1n, max: 10n ** 12n }),
      fc.bigInt({ min: 1n, max: 10n ** 38n - 1n }),
    );
    const anyAmount = anyUnits.map(Amount.fromUnits);
    const anyPool = fc.record({ reserveA: anyAmount, reserveB: anyAmount, supply: anyAmount });
    const given = fc.record({ a: anyAmount, b: anyAmount }, { requiredKeys: [] });
    fc.assert(
      fc.property(anyPool, given, fc.integer({ min: 0, max: 10_000 }), (p, amounts, bps) => {
        const terms = planLiquidityIntent(p, amounts, bps);
        if (terms.kind === 'refused') {
          expect(ERROR_CATALOGUE[terms.code].status).toBeGreaterThanOrEqual(400);
          expect(ERROR_CATALOGUE[terms.code].status).toBeLessThan(500);
          return;
        }
        if (amounts.a !== undefined) expect(terms.expected.a).toEqual(amounts.a);
        if (amounts.b !== undefined) expect(terms.expected.b).toEqual(amounts.b);
        expect(terms.minimumUnits.lte(terms.expectedUnits)).toBe(true);
        const plan = planMint(p, terms.expected.a, terms.expected.b);
        expect(plan.kind === 'mint' && plan.minted).toEqual(terms.expectedUnits);
        // The pool after the mint is still made of amounts: adding them cannot throw.
        if (plan.kind === 'mint') expect(() => afterMint(p, plan)).not.toThrow();
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('what a withdrawal asks to burn', () => {
  it('is units above zero or a share in basis points, exactly one of them', () => {
    expect(burnRequestOf({ units: Amount.parse('2') })).toEqual({
      kind: 'burn',
      request: { units: Amount.parse('2') },
    });
    expect(burnRequestOf({ shareBps: 10_000 })).toEqual({
      kind: 'burn',
      request: { shareBps: 10_000 },
    });
    expect(burnRequestOf({ units: Amount.ZERO })).toMatchObject({
      kind: 'refused',
      path: '/units',
      message: expect.stringContaining('units must be positive'),
    });
    expect(burnRequestOf({})).toMatchObject({ kind: 'refused', path: '/units' });
    expect(burnRequestOf({ units: Amount.parse('1'), shareBps: 1 })).toMatchObject({
      kind: 'refused',
    });
    expect(burnRequestOf({ shareBps: 0 })).toMatchObject({ kind: 'refused', path: '/shareBps' });
  });
});
