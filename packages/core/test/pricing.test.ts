import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Amount } from '../src/amount.js';
import { feeBreakdown } from '../src/fees.js';
import {
  constantProductOutput,
  initialLpSupply,
  priceImpact,
  type Reserves,
  reservesAfterTrade,
} from '../src/pricing.js';
import { compareRatio, ratio } from '../src/ratio.js';

const LIMIT = 10n ** 30n;
const amount = (min: bigint) => fc.bigInt({ min, max: LIMIT }).map(Amount.fromUnits);
const reserves: fc.Arbitrary<Reserves> = fc.record({ input: amount(1n), output: amount(1n) });
const canonicalPool = { input: Amount.of(1_000_000), output: Amount.of(145_000) };

describe('constantProductOutput', () => {
  it('pays out less than the whole output reserve', () => {
    fc.assert(
      fc.property(reserves, amount(0n), (pool, pricedInput) => {
        expect(constantProductOutput(pool, pricedInput).lt(pool.output)).toBe(true);
      }),
    );
  });

  it('rounds down: out ≤ y·a/(x+a) < out + 1 unit', () => {
    fc.assert(
      fc.property(reserves, amount(0n), (pool, pricedInput) => {
        const out = constantProductOutput(pool, pricedInput).units;
        const x = pool.input.units;
        const y = pool.output.units;
        const a = pricedInput.units;
        expect(out * (x + a)).toBeLessThanOrEqual(y * a);
        expect((out + 1n) * (x + a)).toBeGreaterThan(y * a);
      }),
    );
  });

  it('never lowers x·y once the priced input and the LP fee join the pool', () => {
    fc.assert(
      fc.property(
        reserves,
        amount(0n),
        fc.bigInt({ min: 0n, max: 10n ** 14n }).map(Amount.fromUnits),
        (pool, deposit, networkFee) => {
          const fees = feeBreakdown({ amount: deposit, estimatedNetworkFee: networkFee });
          if (fees.kind !== 'priced') return;
          const out = constantProductOutput(pool, fees.inputAmountAfterPoolFee);
          const added = fees.inputAmountAfterPoolFee.add(fees.lpFeeAmount);
          const after = reservesAfterTrade(pool, added, out);
          expect(after.input.units * after.output.units).toBeGreaterThanOrEqual(
            pool.input.units * pool.output.units,
          );
        },
      ),
    );
  });

  it('prices the canonical pool: 1000 Amulet into 1 000 000 / 145 000 gives 144.8551…', () => {
    // 145000 × 1000 / 1001000 = 144.855144855144…, floored at the 10th decimal.
    expect(constantProductOutput(canonicalPool, Amount.of(1000)).toString()).toBe('144.8551448551');
  });
});

describe('priceImpact', () => {
  it('is the exact a/(x+a) plus less than one output unit of rounding', () => {
    fc.assert(
      fc.property(reserves, amount(1n), (pool, pricedInput) => {
        const out = constantProductOutput(pool, pricedInput);
        const impact = priceImpact(pool, pricedInput, out);
        const x = pool.input.units;
        const y = pool.output.units;
        const a = pricedInput.units;
        expect(compareRatio(impact, ratio(a, x + a))).toBeGreaterThanOrEqual(0);
        // Flooring the output by < 1 unit adds < x/(a·y) to the impact.
        const bound = ratio(a * a * y + x * (x + a), (x + a) * a * y);
        expect(compareRatio(impact, bound)).toBeLessThan(0);
      }),
    );
  });

  it('grows with the amount, up to one output unit of rounding', () => {
    fc.assert(
      fc.property(reserves, amount(1n), amount(0n), (pool, smaller, extra) => {
        const impactOf = (a: Amount) => priceImpact(pool, a, constantProductOutput(pool, a));
        const low = impactOf(smaller);
        const high = impactOf(smaller.add(extra));
        // The floored output can make `smaller` look worse by < x/(smaller·y); nothing more.
        const slack = ratio(pool.input.units, smaller.units * pool.output.units);
        const highPlusSlack = ratio(
          high.numerator * slack.denominator + slack.numerator * high.denominator,
          high.denominator * slack.denominator,
        );
        expect(compareRatio(highPlusSlack, low)).toBe(1);
      }),
    );
  });

  it('strictly grows with the amount on the canonical pool', () => {
    const impactOf = (whole: number) => {
      const a = Amount.of(whole);
      return priceImpact(canonicalPool, a, constantProductOutput(canonicalPool, a));
    };
    expect(compareRatio(impactOf(10), impactOf(1_000))).toBe(-1);
    expect(compareRatio(impactOf(1_000), impactOf(100_000))).toBe(-1);
  });
});

describe('initialLpSupply', () => {
  it('is the floor of the geometric mean of the reserves', () => {
    expect(initialLpSupply(Amount.of(1_000_000), Amount.of(145_000)).toString()).toBe(
      '380788.6552931954',
    );
    expect(initialLpSupply(Amount.of(4), Amount.of(9)).toString()).toBe('6');
  });

  it('never exceeds the exact root and is within one unit of it', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 30n }),
        fc.bigInt({ min: 0n, max: 10n ** 30n }),
        (a, b) => {
          const supply = initialLpSupply(Amount.fromUnits(a), Amount.fromUnits(b)).units;
          return supply * supply <= a * b && (supply + 1n) * (supply + 1n) > a * b;
        },
      ),
    );
  });
});
