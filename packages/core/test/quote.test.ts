import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Amount, AmountRangeError } from '../src/amount.js';
import type { SelectedDiscounts } from '../src/discounts.js';
import {
  assembleQuote,
  minOutput,
  type PoolSnapshot,
  type PricedTrade,
  priceTrade,
  type TradeRequest,
  validateSlippage,
} from '../src/quote.js';
import { ratio } from '../src/ratio.js';
import type { SettlementSafety } from '../src/settlement-safety.js';

const amulet = { admin: 'DSO::1220aa', id: 'Amulet' };
const usdcx = { admin: 'circle::1220bb', id: 'USDCx' };
const amuletPriceUsd = Amount.parse('0.145');
const canonicalPool: PoolSnapshot = {
  poolId: 'amulet-usdcx',
  tokenA: { instrument: amulet, reserve: Amount.of(1_000_000) },
  tokenB: { instrument: usdcx, reserve: Amount.of(145_000) },
  feeBps: 30,
  status: 'active',
};
const sellAmulet = (amount: Amount): TradeRequest => ({
  pool: canonicalPool,
  inputSide: 'tokenA',
  amount,
  traffic: { amuletPriceUsd },
  inputPriceUsd: amuletPriceUsd,
});

function priced(request: TradeRequest): PricedTrade {
  const trade = priceTrade(request);
  if (trade.kind !== 'priced') throw new Error(`expected a priced trade, got ${trade.kind}`);
  return trade;
}

describe('a quote on the canonical pool (1 000 000 Amulet / 145 000 USDCx)', () => {
  /*
   * 1000 Amulet in, Amulet at 0.145 USD:
   *   traffic        20 000 B × 60 USD/MB = 1.2 USD = 1.2 / 0.145 = 8.27586206896… CC
   *   network fee    8.275862069 (rounded up)
   *   fee base       1000 − 8.275862069 = 991.724137931
   *   pool fee       0.3 % × 991.724137931 = 2.975172413793 → 2.9751724138
   *   LP fee         75 % × 2.9751724138 = 2.23137931035 → 2.2313793104
   *   platform fee   2.9751724138 − 2.2313793104 = 0.7437931034
   *   priced input   991.724137931 − 2.9751724138 = 988.7489655172
   *   output         145000 × 988.7489655172 / 1000988.7489655172 = 143.22698446726… → 143.2269844672
   *   rate           143.2269844672 / 988.7489655172 = 0.14485677301… → 0.144856773
   *   effectiveRate  143.2269844672 / 1000 → 0.1432269844
   *   priceImpact    1 − 143.2269844672 × 1000000 / (988.7489655172 × 145000)
   *                  = 0.00098777230714… → 0.0009877724 (rounded up)
   */
  const expected = {
    poolId: 'amulet-usdcx',
    inputToken: 'Amulet',
    outputToken: 'USDCx',
    inputTokenAdmin: 'DSO::1220aa',
    outputTokenAdmin: 'circle::1220bb',
    outputAmount: '143.2269844672',
    rate: '0.144856773',
    effectiveRate: '0.1432269844',
    priceImpact: '0.0009877724',
    maxPriceImpact: 0.15,
    fee: 0.003,
    totalInputAmount: '1000',
    networkFeeAmount: '8.275862069',
    trafficFeeInInput: '8.275862069',
    poolFeeAmount: '2.9751724138',
    lpFeeAmount: '2.2313793104',
    platformFeeAmount: '0.7437931034',
    inputAmountAfterPoolFee: '988.7489655172',
    estimatedTrafficCost: { bytes: 20_000, usd: '1.2', cc: '8.275862069' },
    networkFeePolicy: null,
    platformFeePolicy: null,
    settlementSafety: null,
    expiresIn: 30,
    // 8.275862069 / 1000 = 0.008275862069, rounded up to 4 decimals.
    networkFeeShare: '0.0083',
    minimumInputAmount: '8.2758620691',
    // At 0.145 USD per Amulet; the output has no USD price in this request.
    usd: {
      totalInputAmount: '145',
      outputAmount: null,
      networkFeeAmount: '1.2',
      poolFeeAmount: '0.4314',
      totalFeeAmount: '1.6314',
    },
    poolGuard: null,
  };

  it('prices 1000 Amulet exactly', () => {
    const trade = priced(sellAmulet(Amount.of(1000)));
    expect(trade.exceedsPriceImpactCap).toBe(false);
    expect(assembleQuote(trade, null)).toEqual(expected);
  });

  it('serialises to the wire shape unchanged', () => {
    const quote = assembleQuote(priced(sellAmulet(Amount.of(1000))), null);
    expect(JSON.parse(JSON.stringify(quote))).toEqual(expected);
  });

  it('carries the guard verdict it is given, and nothing else changes', () => {
    const verdict: SettlementSafety = {
      code: 'output_reserve_share_exceeded',
      reason: 'share=0.1432 limit=0.1',
      message: 'The output is too large a share of the pool.',
    };
    const quote = assembleQuote(priced(sellAmulet(Amount.of(1000))), verdict);
    expect(quote).toEqual({ ...expected, settlementSafety: verdict });
  });

  it('prices the other direction: 145 USDCx with a 1.2 USDCx network fee', () => {
    const trade = priced({
      pool: canonicalPool,
      inputSide: 'tokenB',
      amount: Amount.of(145),
      traffic: { amuletPriceUsd },
      inputPriceUsd: Amount.of(1),
    });
    // base 143.8, pool fee 0.4314 (LP 0.32355), priced 143.3686;
    // output 1000000 × 143.3686 / 145143.3686 = 987.77230667…
    const quote = assembleQuote(trade, null);
    expect(quote).toMatchObject({
      inputToken: 'USDCx',
      outputToken: 'Amulet',
      inputTokenAdmin: 'circle::1220bb',
      outputTokenAdmin: 'DSO::1220aa',
      networkFeeAmount: '1.2',
      poolFeeAmount: '0.4314',
      lpFeeAmount: '0.32355',
      platformFeeAmount: '0.10785',
      inputAmountAfterPoolFee: '143.3686',
      outputAmount: '987.7723066708',
      estimatedTrafficCost: { bytes: 20_000, usd: '1.2', cc: '8.275862069' },
    });
  });

  it('reports applied discounts while `fee` stays nominal', () => {
    const discounts: SelectedDiscounts = {
      network: { targetType: 'pool', targetId: 'amulet-usdcx', chargeBps: 5000 },
      platform: { targetType: 'api_key', targetId: 'key-1', chargeBps: 7000 },
    };
    const quote = assembleQuote(priced({ ...sellAmulet(Amount.of(1000)), discounts }), null);
    expect(quote.fee).toBe(0.003);
    expect(quote.networkFeeAmount).toBe('4.1379310345');
    expect(quote.networkFeePolicy).toEqual({
      targetType: 'pool',
      chargeBps: 5000,
      estimatedNetworkFeeAmount: '8.275862069',
      chargedNetworkFeeAmount: '4.1379310345',
    });
    expect(quote.platformFeePolicy).toEqual({
      targetType: 'api_key',
      chargeBps: 7000,
      fullPlatformFeeRate: '0.00075',
      chargedPlatformFeeRate: '0.000525',
      discountBps: 3000,
    });
  });

  it('flags a deposit that does not cover the network fee, with the minimum', () => {
    for (const amount of [Amount.of(8), Amount.parse('8.275862069')]) {
      const trade = priceTrade(sellAmulet(amount));
      expect(trade).toMatchObject({ kind: 'amount_below_minimum' });
      if (trade.kind === 'amount_below_minimum') {
        expect(trade.minimumAmount.toString()).toBe('8.2758620691');
        expect(trade.networkFeeAmount.toString()).toBe('8.275862069');
        expect(trade.estimatedTrafficCost.cc.toString()).toBe('8.275862069');
      }
    }
    expect(priceTrade(sellAmulet(Amount.parse('8.2758620691'))).kind).toBe('priced');
  });

  it('still quotes beyond the price-impact cap, and says so', () => {
    // 200 000 Amulet into 1 000 000 moves the price by about 1/6.
    const trade = priced(sellAmulet(Amount.of(200_000)));
    expect(trade.exceedsPriceImpactCap).toBe(true);
    expect(assembleQuote(trade, null).maxPriceImpact).toBe(0.15);
    expect(
      priced({ ...sellAmulet(Amount.of(200_000)), maxPriceImpact: 0.2 }).exceedsPriceImpactCap,
    ).toBe(false);
  });

  it('refuses a price-impact cap outside [0, 1]', () => {
    expect(() => priceTrade({ ...sellAmulet(Amount.of(1000)), maxPriceImpact: 1.5 })).toThrow(
      AmountRangeError,
    );
  });
});

describe('priceTrade properties', () => {
  const reserve = fc.bigInt({ min: 10n ** 10n, max: 10n ** 28n }).map(Amount.fromUnits);
  const deposit = fc.bigInt({ min: 0n, max: 10n ** 28n }).map(Amount.fromUnits);

  it('conserves the deposit and never pays out the whole output reserve', () => {
    fc.assert(
      fc.property(reserve, reserve, deposit, (x, y, amount) => {
        const pool = {
          ...canonicalPool,
          tokenA: { instrument: amulet, reserve: x },
          tokenB: { instrument: usdcx, reserve: y },
        };
        const trade = priceTrade({ ...sellAmulet(amount), pool });
        if (trade.kind !== 'priced') return;
        const { networkFeeAmount, poolFeeAmount, inputAmountAfterPoolFee } = trade.fees;
        expect(networkFeeAmount.add(poolFeeAmount).add(inputAmountAfterPoolFee)).toEqual(amount);
        expect(trade.outputAmount.lt(y)).toBe(true);
      }),
    );
  });
});

describe('minOutput', () => {
  it('takes the slippage off exactly and rounds down', () => {
    expect(minOutput(Amount.of(100), 0.05).toString()).toBe('95');
    // 143.2269844672 × 0.995 = 142.510849544864
    expect(minOutput(Amount.parse('143.2269844672'), 0.005).toString()).toBe('142.5108495448');
    expect(minOutput(Amount.parse('0.0000000001'), 0.001).toString()).toBe('0');
  });

  it('never exceeds the expected output and loses less than one unit to rounding', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 38n - 1n }),
        fc.integer({ min: 10, max: 500 }),
        (units, slippageBps) => {
          const expected = Amount.fromUnits(units);
          const min = minOutput(expected, slippageBps / 10_000).units;
          expect(min).toBeLessThanOrEqual(units);
          const kept = units * BigInt(10_000 - slippageBps);
          expect(min * 10_000n).toBeLessThanOrEqual(kept);
          expect((min + 1n) * 10_000n).toBeGreaterThan(kept);
        },
      ),
    );
  });

  it('refuses a tolerance above 1', () => {
    expect(() => minOutput(Amount.of(1), 1.5)).toThrow(AmountRangeError);
  });
});

describe('validateSlippage', () => {
  it('defaults to 0.05 when absent', () => {
    expect(validateSlippage(undefined)).toEqual({ ok: true, slippageTolerance: 0.05 });
  });

  it.each([0.001, 0.01, 0.05])('accepts %s', (value) => {
    expect(validateSlippage(value)).toEqual({ ok: true, slippageTolerance: value });
  });

  it.each([
    [0.0009, 'out_of_range'],
    [0.0500001, 'out_of_range'],
    [0, 'out_of_range'],
    [-0.01, 'out_of_range'],
    [Number.NaN, 'not_finite'],
    [Number.POSITIVE_INFINITY, 'not_finite'],
    ['0.01', 'not_a_number'],
    [null, 'not_a_number'],
  ])('refuses %s (%s)', (value, reason) => {
    expect(validateSlippage(value)).toEqual({
      ok: false,
      problem: { field: 'slippageTolerance', reason, value, min: 0.001, max: 0.05 },
    });
  });
});

describe('the network fee told as a cost', () => {
  const anAmount = fc
    .bigInt({ min: 83n * 10n ** 9n, max: 10n ** 16n })
    .map((units) => Amount.fromUnits(units));
  const aPrice = fc.bigInt({ min: 1n, max: 10n ** 12n }).map((units) => ratio(units, 10n ** 10n));

  it('states the share of the deposit rounded up, and USD values that add up', () => {
    fc.assert(
      fc.property(anAmount, aPrice, (amount, outputPrice) => {
        const trade = priceTrade({ ...sellAmulet(amount), outputPriceUsd: outputPrice });
        if (trade.kind !== 'priced') return;
        const wire = assembleQuote(trade, null);
        const share = Number(wire.networkFeeShare);
        const exact = Number(wire.networkFeeAmount) / Number(wire.totalInputAmount);
        expect(share).toBeGreaterThanOrEqual(exact - 1e-12);
        expect(share - exact).toBeLessThan(1e-4 + 1e-12);
        const usd = (text: string | null) => Amount.parse(text ?? '0');
        const fees = usd(wire.usd.networkFeeAmount).add(usd(wire.usd.poolFeeAmount));
        // Each figure is cut on its own: the total is at most 1 unit above their sum.
        expect(usd(wire.usd.totalFeeAmount).sub(fees).units).toBeGreaterThanOrEqual(0n);
        expect(usd(wire.usd.totalFeeAmount).sub(fees).units).toBeLessThanOrEqual(1n);
        expect(usd(wire.usd.totalFeeAmount).lte(usd(wire.usd.totalInputAmount))).toBe(true);
        expect(wire.usd.outputAmount).toBe(
          trade.outputAmount
            .mulDiv(outputPrice.numerator, outputPrice.denominator, 'down')
            .toString(),
        );
        expect(Amount.parse(wire.minimumInputAmount).gt(trade.fees.networkFeeAmount)).toBe(true);
      }),
    );
  });
});
