import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Amount, AmountRangeError } from '../src/amount.js';
import {
  DEFAULT_EXTRA_TRAFFIC_PRICE_USD_PER_MB,
  DEFAULT_PAYOUT_TRAFFIC_BYTES,
  estimateTrafficCost,
  inputPriceUsd,
  networkFeeInInput,
  USDCX_PRICE_USD,
  usdPriceThroughAmuletPool,
} from '../src/network-fee.js';
import { compareRatio, ratio } from '../src/ratio.js';

const amuletPriceUsd = Amount.parse('0.145');

describe('estimateTrafficCost', () => {
  it('uses 20 000 bytes at 60 USD/MB by default: 1.20 USD, 8.2758620690 CC at 0.145 USD', () => {
    expect(DEFAULT_PAYOUT_TRAFFIC_BYTES).toBe(20_000);
    expect(DEFAULT_EXTRA_TRAFFIC_PRICE_USD_PER_MB.toString()).toBe('60');
    const cost = estimateTrafficCost({ amuletPriceUsd });
    expect(cost.bytes).toBe(20_000);
    expect(cost.usd.toString()).toBe('1.2');
    // 1.2 / 0.145 = 8.27586206896551…, rounded up at the 10th decimal.
    expect(cost.cc.toString()).toBe('8.275862069');
  });

  it('scales with the bytes and the traffic price', () => {
    const cost = estimateTrafficCost({
      bytes: 1,
      extraTrafficPriceUsdPerMb: Amount.parse('0.3'),
      amuletPriceUsd: Amount.of(1),
    });
    // 1 byte × 0.3 USD / 10^6 bytes = 0.0000003 USD.
    expect(cost.usd.toString()).toBe('0.0000003');
    expect(cost.cc.toString()).toBe('0.0000003');
  });

  it('never rounds the cost down', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.bigInt({ min: 1n, max: 10n ** 14n }),
        fc.bigInt({ min: 1n, max: 10n ** 14n }),
        (bytes, priceUnits, amuletUnits) => {
          const price = Amount.fromUnits(priceUnits);
          const amulet = Amount.fromUnits(amuletUnits);
          const cost = estimateTrafficCost({
            bytes,
            extraTrafficPriceUsdPerMb: price,
            amuletPriceUsd: amulet,
          });
          // usd ≥ bytes·price/10^6 and cc·amulet ≥ usd_exact, compared in whole units.
          const exactUsdTimes1e6 = BigInt(bytes) * priceUnits;
          expect(cost.usd.units * 1_000_000n).toBeGreaterThanOrEqual(exactUsdTimes1e6);
          expect((cost.usd.units - 1n) * 1_000_000n).toBeLessThan(exactUsdTimes1e6);
          expect(cost.cc.units * amuletUnits * 1_000_000n).toBeGreaterThanOrEqual(
            exactUsdTimes1e6 * 10n ** 10n,
          );
        },
      ),
    );
  });

  it('refuses a non-positive Amulet price and invalid byte counts', () => {
    expect(() => estimateTrafficCost({ amuletPriceUsd: Amount.ZERO })).toThrow(AmountRangeError);
    expect(() => estimateTrafficCost({ bytes: -1, amuletPriceUsd })).toThrow(AmountRangeError);
    expect(() => estimateTrafficCost({ bytes: 1.5, amuletPriceUsd })).toThrow(AmountRangeError);
  });
});

describe('networkFeeInInput', () => {
  const traffic = { amuletPriceUsd };

  it('charges an Amulet deposit exactly the CC cost', () => {
    expect(networkFeeInInput(traffic, amuletPriceUsd).toString()).toBe('8.275862069');
    expect(networkFeeInInput(traffic, amuletPriceUsd)).toEqual(estimateTrafficCost(traffic).cc);
  });

  it('charges a USDCx deposit the USD cost', () => {
    expect(networkFeeInInput(traffic, USDCX_PRICE_USD).toString()).toBe('1.2');
  });

  it('rounds the converted fee up', () => {
    // 1.2 USD at 7 USD per token = 0.171428571428…
    expect(networkFeeInInput(traffic, Amount.of(7)).toString()).toBe('0.1714285715');
    expect(networkFeeInInput(traffic, ratio(7n, 1n)).toString()).toBe('0.1714285715');
  });

  it('refuses a token without a positive price', () => {
    expect(() => networkFeeInInput(traffic, ratio(0n, 1n))).toThrow(AmountRangeError);
  });
});

describe('input token prices', () => {
  it('prices a token through its Amulet pool at spot', () => {
    // 1000 Amulet against 50 XYZ: 1 XYZ = 20 Amulet = 2.9 USD.
    const price = usdPriceThroughAmuletPool(amuletPriceUsd, {
      amulet: Amount.of(1000),
      token: Amount.of(50),
    });
    expect(compareRatio(price, ratio(29n, 10n))).toBe(0);
  });

  it('refuses a pool with an empty side', () => {
    const empty = { amulet: Amount.ZERO, token: Amount.of(50) };
    expect(() => usdPriceThroughAmuletPool(amuletPriceUsd, empty)).toThrow(AmountRangeError);
  });

  it('names each price source', () => {
    expect(compareRatio(inputPriceUsd({ kind: 'usdcx' }, amuletPriceUsd), ratio(1n, 1n))).toBe(0);
    expect(
      compareRatio(inputPriceUsd({ kind: 'amulet' }, amuletPriceUsd), ratio(145n, 1000n)),
    ).toBe(0);
    const reserves = { amulet: Amount.of(1000), token: Amount.of(50) };
    expect(
      compareRatio(
        inputPriceUsd({ kind: 'amulet_pool', reserves }, amuletPriceUsd),
        ratio(29n, 10n),
      ),
    ).toBe(0);
  });
});
