import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Amount, AmountRangeError } from '../src/amount.js';
import type { AppliedDiscount, SelectedDiscounts } from '../src/discounts.js';
import { type FeeBreakdown, feeBreakdown, minimumAmountFor } from '../src/fees.js';

function priced(result: ReturnType<typeof feeBreakdown>): FeeBreakdown {
  if (result.kind !== 'priced') throw new Error(`expected a priced breakdown, got ${result.kind}`);
  return result;
}

const units = (max: bigint) => fc.bigInt({ min: 0n, max }).map(Amount.fromUnits);
const discount = fc.option(
  fc.record({
    targetType: fc.constantFrom('api_key', 'wallet_party', 'pool') as fc.Arbitrary<
      AppliedDiscount['targetType']
    >,
    targetId: fc.constant('t'),
    chargeBps: fc.integer({ min: 0, max: 9999 }),
  }),
);
const discounts: fc.Arbitrary<SelectedDiscounts> = fc.record({
  network: discount,
  platform: discount,
});
const feeInputs = fc
  .record({
    amount: units(10n ** 30n),
    estimatedNetworkFee: units(10n ** 14n),
    poolFeeBps: fc.integer({ min: 0, max: 10_000 }),
    lpShareBps: fc.integer({ min: 0, max: 10_000 }),
    discounts,
  })
  .filter(({ amount, estimatedNetworkFee }) => amount.gt(estimatedNetworkFee));

describe('feeBreakdown', () => {
  it('splits 100 with a 1 network fee: 0.297 pool fee, 0.22275 LP, 0.07425 platform', () => {
    const fees = priced(
      feeBreakdown({ amount: Amount.of(100), estimatedNetworkFee: Amount.of(1) }),
    );
    expect(fees.networkFeeAmount.toString()).toBe('1');
    expect(fees.poolFeeAmount.toString()).toBe('0.297');
    expect(fees.lpFeeAmount.toString()).toBe('0.22275');
    expect(fees.platformFeeAmount.toString()).toBe('0.07425');
    expect(fees.inputAmountAfterPoolFee.toString()).toBe('98.703');
    expect(fees.fee).toBe(0.003);
    expect(fees.networkFeePolicy).toBeNull();
    expect(fees.platformFeePolicy).toBeNull();
  });

  it('reports the discount examples: network 50 %, platform 30 %', () => {
    const fees = priced(
      feeBreakdown({
        amount: Amount.of(100),
        estimatedNetworkFee: Amount.of(1),
        discounts: {
          network: { targetType: 'pool', targetId: 'pool-1', chargeBps: 5000 },
          platform: { targetType: 'api_key', targetId: 'key-1', chargeBps: 7000 },
        },
      }),
    );
    expect(fees.networkFeeAmount.toString()).toBe('0.5');
    expect(fees.networkFeePolicy).toEqual({
      targetType: 'pool',
      chargeBps: 5000,
      estimatedNetworkFeeAmount: '1',
      chargedNetworkFeeAmount: '0.5',
    });
    // base 99.5: full pool fee 0.2985, LP 0.223875, platform 0.074625 × 70 % = 0.0522375.
    expect(fees.lpFeeAmount.toString()).toBe('0.223875');
    expect(fees.platformFeeAmount.toString()).toBe('0.0522375');
    expect(fees.poolFeeAmount.toString()).toBe('0.2761125');
    expect(fees.inputAmountAfterPoolFee.toString()).toBe('99.2238875');
    expect(fees.platformFeePolicy).toEqual({
      targetType: 'api_key',
      chargeBps: 7000,
      fullPlatformFeeRate: '0.00075',
      chargedPlatformFeeRate: '0.000525',
      discountBps: 3000,
    });
    expect(fees.fee).toBe(0.003);
  });

  it('charges half the estimate, rounded up, under a 50 % network discount', () => {
    const fees = priced(
      feeBreakdown({
        amount: Amount.of(100),
        estimatedNetworkFee: Amount.parse('8.275862069'),
        discounts: {
          network: { targetType: 'pool', targetId: 'p', chargeBps: 5000 },
          platform: null,
        },
      }),
    );
    expect(fees.networkFeeAmount.toString()).toBe('4.1379310345');
    expect(fees.networkFeePolicy?.chargedNetworkFeeAmount).toBe('4.1379310345');
    expect(fees.networkFeePolicy?.estimatedNetworkFeeAmount).toBe('8.275862069');
  });

  it('flags a deposit not larger than the network fee instead of pricing it', () => {
    const fee = Amount.parse('8.275862069');
    for (const amount of [Amount.ZERO, Amount.of(5), fee]) {
      expect(feeBreakdown({ amount, estimatedNetworkFee: fee })).toEqual({
        kind: 'amount_below_minimum',
        amount,
        networkFeeAmount: fee,
        minimumAmount: Amount.parse('8.2758620691'),
        networkFeePolicy: null,
      });
    }
    const justAbove = feeBreakdown({ amount: minimumAmountFor(fee), estimatedNetworkFee: fee });
    expect(justAbove.kind).toBe('priced');
  });

  it('measures the minimum against the discounted network fee', () => {
    const halfOff: AppliedDiscount = { targetType: 'pool', targetId: 'p', chargeBps: 5000 };
    const inputs = {
      estimatedNetworkFee: Amount.of(8),
      discounts: { network: halfOff, platform: null },
    };
    const atCharge = feeBreakdown({ ...inputs, amount: Amount.of(4) });
    expect(atCharge.kind).toBe('amount_below_minimum');
    if (atCharge.kind === 'amount_below_minimum') {
      expect(atCharge.minimumAmount.toString()).toBe('4.0000000001');
    }
    expect(feeBreakdown({ ...inputs, amount: Amount.of(5) }).kind).toBe('priced');
    const free = { network: { ...halfOff, chargeBps: 0 }, platform: null };
    const tiny = feeBreakdown({ ...inputs, discounts: free, amount: Amount.fromUnits(1n) });
    expect(tiny.kind).toBe('priced');
  });

  it('refuses fee rates outside 0..10000 bps', () => {
    const base = { amount: Amount.of(100), estimatedNetworkFee: Amount.of(1) };
    expect(() => feeBreakdown({ ...base, poolFeeBps: 10_001 })).toThrow(AmountRangeError);
    expect(() => feeBreakdown({ ...base, lpShareBps: -1 })).toThrow(AmountRangeError);
    expect(() => feeBreakdown({ ...base, poolFeeBps: 2.5 })).toThrow(AmountRangeError);
  });

  it('conserves the deposit: amount = networkFee + poolFee + priced input', () => {
    fc.assert(
      fc.property(feeInputs, (inputs) => {
        const fees = priced(feeBreakdown(inputs));
        const parts = [fees.networkFeeAmount, fees.poolFeeAmount, fees.inputAmountAfterPoolFee];
        expect(Amount.sum(parts)).toEqual(inputs.amount);
        expect(fees.lpFeeAmount.add(fees.platformFeeAmount)).toEqual(fees.poolFeeAmount);
      }),
    );
  });

  it('rounds every fee in the pool’s favour', () => {
    fc.assert(
      fc.property(
        feeInputs,
        ({ amount, estimatedNetworkFee, poolFeeBps, lpShareBps, discounts }) => {
          const fees = priced(
            feeBreakdown({ amount, estimatedNetworkFee, poolFeeBps, lpShareBps, discounts }),
          );
          const BPS = 10_000n;
          const networkCharge = BigInt(discounts.network?.chargeBps ?? 10_000);
          const platformCharge = BigInt(discounts.platform?.chargeBps ?? 10_000);
          const pool = BigInt(poolFeeBps);
          const lp = BigInt(lpShareBps);
          // Each fee, scaled to a common denominator, is at least its exact rational value.
          expect(fees.networkFeeAmount.units * BPS).toBeGreaterThanOrEqual(
            estimatedNetworkFee.units * networkCharge,
          );
          const base = amount.units - fees.networkFeeAmount.units;
          expect(fees.lpFeeAmount.units * BPS * BPS).toBeGreaterThanOrEqual(base * pool * lp);
          const exactPoolFee = base * pool * (lp * BPS + (BPS - lp) * platformCharge);
          expect(fees.poolFeeAmount.units * BPS ** 3n).toBeGreaterThanOrEqual(exactPoolFee);
        },
      ),
    );
  });

  it('never lets a discount raise a fee', () => {
    fc.assert(
      fc.property(feeInputs, (inputs) => {
        const { network } = inputs.discounts;
        const discounted = priced(feeBreakdown(inputs));
        const fullNetwork = priced(
          feeBreakdown({ ...inputs, discounts: { network: null, platform: null } }),
        );
        expect(discounted.networkFeeAmount.lte(fullNetwork.networkFeeAmount)).toBe(true);
        // Same network fee, so the same base: only the platform discount differs.
        const fullPlatform = priced(
          feeBreakdown({ ...inputs, discounts: { network, platform: null } }),
        );
        expect(discounted.platformFeeAmount.lte(fullPlatform.platformFeeAmount)).toBe(true);
        expect(discounted.lpFeeAmount).toEqual(fullPlatform.lpFeeAmount);
      }),
    );
  });
});
