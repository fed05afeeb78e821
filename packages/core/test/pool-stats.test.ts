import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AMOUNT_SCALE, Amount } from '../src/amount.js';
import {
  aprOf,
  apyOf,
  type FeeTotals,
  HOUR_MS,
  NO_FEES,
  type PoolValuation,
  poolStatsOf,
  priceChange24hOf,
  tickerOf,
  tvlOf,
} from '../src/pool-stats.js';
import { compareRatio, formatRatio, type Ratio, ratio } from '../src/ratio.js';

const amount = (text: string) => Amount.parse(text);
const usd = (text: string): Ratio => ratio(amount(text).units, AMOUNT_SCALE);
const NOW = new Date('2026-03-10T12:30:00.000Z');

/** The seeded canonical pool: 1 000 000 Amulet at 0.145 USD and 145 000 USDCx. */
const canonical: PoolValuation = {
  reserveA: amount('1000000'),
  reserveB: amount('145000'),
  priceA: usd('0.145'),
  priceB: usd('1'),
};

const fees = (lpFeesUsd: string, extra: Partial<FeeTotals> = {}): FeeTotals => ({
  ...NO_FEES,
  lpFeesUsd: amount(lpFeesUsd),
  ...extra,
});

/** The exact `(1 + apr/365)^365 − 1`, for comparison with the fixed-point result. */
function exactApy(apr: Ratio): Ratio {
  const periods = 365n * apr.denominator;
  const power = (periods + apr.numerator) ** 365n;
  const denominator = periods ** 365n;
  return ratio(power - denominator, denominator);
}

describe('tvlOf', () => {
  it('values the canonical pool at 1 000 000 × 0.145 + 145 000 × 1 = 290 000 USD', () => {
    expect(formatRatio(tvlOf(canonical) as Ratio, 'down')).toBe('290000');
  });

  it('is the sum of both sides at their USD prices', () => {
    const price = fc.bigInt({ min: 1n, max: 10n ** 14n }).map((n) => ratio(n, AMOUNT_SCALE));
    const reserve = fc.bigInt({ min: 0n, max: 10n ** 30n }).map(Amount.fromUnits);
    fc.assert(
      fc.property(reserve, reserve, price, price, (reserveA, reserveB, priceA, priceB) => {
        const tvl = tvlOf({ reserveA, reserveB, priceA, priceB }) as Ratio;
        const sideA = ratio(reserveA.units * priceA.numerator, AMOUNT_SCALE * priceA.denominator);
        const sideB = ratio(reserveB.units * priceB.numerator, AMOUNT_SCALE * priceB.denominator);
        const sum = ratio(
          sideA.numerator * sideB.denominator + sideB.numerator * sideA.denominator,
          sideA.denominator * sideB.denominator,
        );
        expect(compareRatio(tvl, sum)).toBe(0);
      }),
    );
  });

  it('values an unpriced side through the spot price, so the pool is worth twice its priced side', () => {
    const cbtc = { reserveA: amount('1000000'), reserveB: amount('1.45'), priceB: null };
    const tvl = tvlOf({ ...cbtc, priceA: usd('0.145') }) as Ratio;
    expect(formatRatio(tvl, 'down')).toBe('290000');
    const reversed = tvlOf({ ...canonical, priceA: null }) as Ratio;
    expect(formatRatio(reversed, 'down')).toBe('290000');
  });

  it('is null when neither side has a USD price', () => {
    expect(tvlOf({ ...canonical, priceA: null, priceB: null })).toBeNull();
  });
});

describe('aprOf and apyOf', () => {
  it('turns 7 USD of LP fees over 7 days on a 36 500 USD TVL into APR 0.01, APY 0.0100500287', () => {
    const apr = aprOf(amount('7'), usd('36500'), 7) as Ratio;
    expect(formatRatio(apr, 'down')).toBe('0.01');
    expect(formatRatio(apyOf(apr) as Ratio, 'down')).toBe('0.0100500287');
  });

  it('compounds an APR of 1 daily into an APY of 1.7145674820', () => {
    expect(formatRatio(apyOf(ratio(1n, 1n)) as Ratio, 'down')).toBe('1.714567482');
  });

  it('has no APR for an empty pool, and a zero APR without LP fees', () => {
    expect(aprOf(amount('5'), ratio(0n, 1n), 7)).toBeNull();
    const apr = aprOf(Amount.ZERO, usd('100'), 7) as Ratio;
    expect(apr.numerator).toBe(0n);
    expect(formatRatio(apyOf(apr) as Ratio, 'down')).toBe('0');
  });

  it('refuses a lookback that is not a whole number of days', () => {
    expect(() => aprOf(amount('1'), usd('1'), 0)).toThrow(RangeError);
    expect(() => aprOf(amount('1'), usd('1'), 1.5)).toThrow(RangeError);
  });

  it('never exceeds the exact APY, and misses it by less than one unit of the 10th decimal', () => {
    const apr = fc
      .tuple(fc.bigInt({ min: 0n, max: 5n * 10n ** 6n }), fc.bigInt({ min: 1n, max: 10n ** 6n }))
      .map(([n, d]) => ratio(n, d));
    fc.assert(
      fc.property(apr, (value) => {
        const computed = apyOf(value);
        const exact = exactApy(value);
        if (computed === null) {
          expect(compareRatio(exact, ratio(10n ** 40n, 1n))).toBe(1);
          return;
        }
        expect(compareRatio(computed, exact)).toBeLessThanOrEqual(0);
        const gap = ratio(
          exact.numerator * computed.denominator - computed.numerator * exact.denominator,
          exact.denominator * computed.denominator,
        );
        expect(compareRatio(gap, ratio(1n, 10n ** 10n))).toBe(-1);
      }),
      { numRuns: 60 },
    );
  });

  it('never reports an APY below the APR, and grows with the APR', () => {
    const apr = fc.bigInt({ min: 0n, max: 10n ** 12n }).map((n) => ratio(n, 10n ** 10n));
    fc.assert(
      fc.property(apr, apr, (a, b) => {
        const [low, high] = compareRatio(a, b) <= 0 ? [a, b] : [b, a];
        const apyLow = apyOf(low) as Ratio;
        expect(compareRatio(apyLow, low)).not.toBe(-1);
        expect(compareRatio(apyLow, apyOf(high) as Ratio)).toBeLessThanOrEqual(0);
      }),
    );
  });

  it('is null when the APY would not fit 40 integer digits', () => {
    expect(apyOf(ratio(1_000_000n, 1n))).toBeNull();
  });
});

describe('poolStatsOf', () => {
  const base = {
    poolId: 'amulet-usdcx',
    days: 7,
    now: NOW,
    last24h: NO_FEES,
    lookback: NO_FEES,
    valuation: canonical,
    quoteToken: 'USDCx',
  };

  it('reports zeros for a pool without swaps, with its TVL and the lookback window', () => {
    expect(poolStatsOf(base)).toEqual({
      poolId: 'amulet-usdcx',
      apr: '0',
      apy: '0',
      volume24h: '0',
      fees24h: '0',
      lpFees24h: '0',
      tvl: '290000',
      swapCount24h: 0,
      aprMeta: {
        lookbackDays: 7,
        from: '2026-03-03T12:30:00.000Z',
        to: '2026-03-10T12:30:00.000Z',
        supported: true,
        quoteToken: 'USDCx',
      },
    });
  });

  it('takes 24-hour figures from the last day and the APR from the lookback', () => {
    const last24h: FeeTotals = {
      swapCount: 3,
      volumeUsd: amount('1000'),
      feesUsd: amount('3'),
      lpFeesUsd: amount('2.25'),
    };
    const stats = poolStatsOf({ ...base, last24h, lookback: fees('2900') });
    expect(stats).toMatchObject({
      volume24h: '1000',
      fees24h: '3',
      lpFees24h: '2.25',
      swapCount24h: 3,
      // 2900 / 290000 × 365 / 7
      apr: formatRatio(ratio(2900n * 365n, 290_000n * 7n), 'down'),
    });
  });

  it('has no APR or APY for a pool without a USD-priced side', () => {
    const stats = poolStatsOf({
      ...base,
      lookback: fees('10'),
      valuation: { ...canonical, priceA: null, priceB: null },
    });
    expect(stats).toMatchObject({ apr: null, apy: null, tvl: '0' });
    expect(stats.aprMeta.supported).toBe(false);
  });

  it('has no APR for a supported pool with nothing in it', () => {
    const empty = { ...canonical, reserveA: Amount.ZERO, reserveB: Amount.ZERO };
    const stats = poolStatsOf({ ...base, lookback: fees('10'), valuation: empty });
    expect(stats).toMatchObject({ apr: null, apy: null, tvl: '0' });
    expect(stats.aprMeta.supported).toBe(true);
  });
});

describe('priceChange24hOf', () => {
  const hoursAgo = (hours: number) =>
    new Date(Math.floor(NOW.getTime() / HOUR_MS) * HOUR_MS - hours * HOUR_MS);
  const snapshot = (hours: number, price: string | null) => ({
    hour: hoursAgo(hours),
    priceUsd: price === null ? null : amount(price),
  });
  const price = amount('0.1595');

  it('is null without snapshots', () => {
    expect(priceChange24hOf(NOW, price, [])).toBeNull();
  });

  it('stays null until the oldest snapshot of the last day is 23 hours old', () => {
    // NOW is half past: the snapshot of 22 hours before this hour began 22.5 h ago.
    expect(priceChange24hOf(NOW, price, [snapshot(22, '0.145'), snapshot(0, '0.15')])).toBeNull();
    expect(priceChange24hOf(NOW, price, [snapshot(23, '0.145')])).toBe('0.1');
  });

  it('compares with the oldest snapshot of the last 24 hours', () => {
    const history = [snapshot(24, '0.145'), snapshot(12, '0.2'), snapshot(0, '0.1595')];
    expect(priceChange24hOf(NOW, price, history)).toBe('0.1');
  });

  it('reports a fall as a negative fraction', () => {
    expect(priceChange24hOf(NOW, amount('0.1305'), [snapshot(23, '0.145')])).toBe('-0.1');
    expect(priceChange24hOf(NOW, amount('0.145'), [snapshot(23, '0.145')])).toBe('0');
  });

  it('ignores snapshots from before the last 24 hours, so a clock jump leaves it null', () => {
    const afterJump = [snapshot(72, '0.145'), snapshot(25, '0.145'), snapshot(1, '0.15')];
    expect(priceChange24hOf(NOW, price, afterJump)).toBeNull();
  });

  it('skips snapshots without a price', () => {
    expect(priceChange24hOf(NOW, price, [snapshot(24, null), snapshot(23, '0.145')])).toBe('0.1');
    expect(priceChange24hOf(NOW, price, [snapshot(23, null)])).toBeNull();
  });

  it('is the relative move for any pair of positive prices', () => {
    const positive = fc.bigInt({ min: 1n, max: 10n ** 20n }).map(Amount.fromUnits);
    fc.assert(
      fc.property(positive, positive, (then, now) => {
        const change = priceChange24hOf(NOW, now, [{ hour: hoursAgo(23), priceUsd: then }]);
        const move = now.units - then.units;
        const magnitude = formatRatio(
          ratio(move < 0n ? -move : move, then.units),
          'down',
          10,
          move < 0n,
        );
        expect(change).toBe(magnitude);
      }),
    );
  });
});

describe('tickerOf', () => {
  it('reports the price, its change, the volume and when', () => {
    const ticker = tickerOf({
      poolId: 'amulet-usdcx',
      pair: 'Amulet/USDCx',
      priceUsd: amount('0.145'),
      history: [],
      volume24hUsd: amount('12.5'),
      now: NOW,
    });
    expect(ticker).toEqual({
      poolId: 'amulet-usdcx',
      pair: 'Amulet/USDCx',
      price: '0.145',
      priceChange24h: null,
      volume24h: '12.5',
      asOf: NOW.toISOString(),
    });
  });
});
