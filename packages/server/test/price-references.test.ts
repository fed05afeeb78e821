import {
  Amount,
  compareRatio,
  REFERENCE_HALF_LIFE_MS,
  ratio,
  ratioToNumber,
} from '@poolparty/core';
import { describe, expect, it } from 'vitest';
import { type ObservedPool, PriceReferences } from '../src/market/price-references.js';

const pool = (reserveA: string, reserveB: string, thresholds = {}): ObservedPool => ({
  poolId: 'amulet-usdcx',
  reserveA: Amount.parse(reserveA),
  reserveB: Amount.parse(reserveB),
  thresholds,
});
const noSeed = () => null;

describe("the quoter's reference prices", () => {
  it('start from the snapshot mean when there is one, else from the spot price', () => {
    const seeded = new PriceReferences();
    seeded.observe([pool('1000000', '145000')], 0, () => ratio(15n, 100n));
    expect(seeded.priceAt('amulet-usdcx', 0)).toEqual(ratio(15n, 100n));
    const fresh = new PriceReferences();
    fresh.observe([pool('1000000', '145000')], 0, noSeed);
    const spot = fresh.priceAt('amulet-usdcx', 0);
    expect(spot && compareRatio(spot, ratio(145n, 1000n))).toBe(0);
  });

  it('follow a trade at the half-life, and show the pool limited from the reading that left the band', () => {
    const references = new PriceReferences();
    references.observe([pool('1000000', '145000')], 0, noSeed);
    // A trade that lifted the price by 10 %.
    const moved = pool('1000000', '159500');
    references.observe([moved], 60_000, noSeed);
    const limited = references.stateAt(moved, 120_000);
    expect(limited).toMatchObject({ state: 'limited', since: 60_000 });
    expect(limited?.allowedDirection).toBe('tokenA_to_tokenB');
    const later = 60_000 + REFERENCE_HALF_LIFE_MS;
    references.observe([moved], later, noSeed);
    expect(ratioToNumber(references.priceAt('amulet-usdcx', later) ?? ratio(0n, 1n))).toBeCloseTo(
      0.15225,
      6,
    );
    expect(references.stateAt(moved, later)?.state).toBe('clear');
  });

  it('use the default band when the pool’s limit cannot be read, and forget pools no longer listed', () => {
    const references = new PriceReferences();
    const broken = pool('1000000', '145000', { reservePriceDeviationMax: Number.NaN });
    references.observe([broken], 0, noSeed);
    expect(references.stateAt(broken, 0)?.limit).toEqual(ratio(5n * 10n ** 8n, 10n ** 10n));
    references.observe([], 1_000, noSeed);
    expect(references.priceAt('amulet-usdcx', 1_000)).toBeNull();
  });

  it('show one wire state per reading and second, and a new one once the reserves move', () => {
    const references = new PriceReferences();
    const named = {
      ...pool('1000000', '145000'),
      tokenA: { id: 'Amulet' },
      tokenB: { id: 'USDCx' },
    };
    references.observe([named], 0, noSeed);
    const first = references.wireStateAt(named, 100);
    expect(first).toMatchObject({ state: 'clear', baseToken: 'Amulet', quoteToken: 'USDCx' });
    expect(references.wireStateAt(named, 900)).toBe(first);
    const moved = { ...named, reserveB: Amount.parse('159500') };
    references.observe([moved], 950, noSeed);
    expect(references.wireStateAt(moved, 960)).toMatchObject({
      state: 'limited',
      allowedInputToken: 'Amulet',
    });
  });

  it('keep no reference for an empty pool', () => {
    const references = new PriceReferences();
    references.observe([pool('0', '0')], 0, noSeed);
    expect(references.priceAt('amulet-usdcx', 0)).toBeNull();
  });
});
