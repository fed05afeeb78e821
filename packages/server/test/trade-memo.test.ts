import { Amount, type PricedTrade } from '@poolparty/core';
import { describe, expect, it } from 'vitest';
import { type RememberedTrade, type TradeInputs, TradeMemo } from '../src/market/trade-memo.js';

const round = { round: 1, amuletPriceUsd: Amount.parse('0.145'), opensAt: new Date(0) };
const traffic = { extraTrafficPriceUsdPerMb: Amount.of(60), transferBytes: 20_000 };
const inputs: TradeInputs = {
  book: [],
  snapshot: {},
  poolId: 'amulet-usdcx',
  inputSide: 'tokenA',
  amountText: '100',
  traffic,
  round,
  discounts: { network: null, platform: null },
};

/** A pricing that counts its calls and answers a distinct trade each time. */
function counting() {
  let calls = 0;
  const price = (): RememberedTrade => {
    calls++;
    return { trade: { kind: 'priced', poolId: `call ${calls}` } as PricedTrade, wire: null };
  };
  return { price, calls: () => calls };
}

describe('TradeMemo', () => {
  it('prices the same request once while the book and the prices stay the same', () => {
    const memo = new TradeMemo();
    const { price, calls } = counting();
    const first = memo.priced(inputs, price);
    expect(memo.priced({ ...inputs }, price).trade).toBe(first.trade);
    expect(calls()).toBe(1);
  });

  it('prices again after a re-read of the book, the pool, the traffic parameters or the round', () => {
    const changes: Partial<TradeInputs>[] = [
      { book: [] },
      { snapshot: {} },
      { traffic: { ...traffic } },
      { round: { ...round } },
    ];
    for (const change of changes) {
      const memo = new TradeMemo();
      const { price, calls } = counting();
      memo.priced(inputs, price);
      memo.priced({ ...inputs, ...change }, price);
      expect(calls()).toBe(2);
    }
  });

  it('prices again when other discounts won, and apart for other amounts, sides and pools', () => {
    const memo = new TradeMemo();
    const { price, calls } = counting();
    memo.priced(inputs, price);
    const discounted = {
      ...inputs,
      discounts: {
        network: { targetType: 'api_key', targetId: 'k1', chargeBps: 5_000 },
        platform: null,
      },
    } as const;
    memo.priced(discounted, price);
    expect(calls()).toBe(2);
    // The same discount, selected anew, is the same discount.
    memo.priced({ ...discounted, discounts: { ...discounted.discounts } }, price);
    expect(calls()).toBe(2);
    memo.priced({ ...inputs, amountText: '100.5' }, price);
    memo.priced({ ...inputs, inputSide: 'tokenB' }, price);
    memo.priced({ ...inputs, poolId: 'other' }, price);
    expect(calls()).toBe(5);
  });

  it('keeps a bounded number of trades', () => {
    const memo = new TradeMemo(2);
    const { price, calls } = counting();
    for (const amountText of ['1', '2', '3']) memo.priced({ ...inputs, amountText }, price);
    memo.priced({ ...inputs, amountText: '1' }, price);
    expect(calls()).toBe(4);
  });
});
