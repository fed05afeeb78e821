/**
 * The pure decisions behind the swap card and its honest figures: the button's label for each
 * blocking reason (balance, price impact above the cap, the guard), the amount Flip carries to
 * the other side, the network fee's share and the smallest sensible amount, USD with fixed
 * decimals, and when a chart has enough history to be drawn.
 */

import { Amount } from '@poolparty/core/amount';
import type { Quote } from '@poolparty/sdk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { axisWidth, tickLabels } from '../src/charts/axis-ticks.js';
import { hasEnoughHistory } from '../src/charts/chart-history.js';
import { depositRefusal } from '../src/deposit-check.js';
import { amountAfterFlip } from '../src/flip-amount.js';
import { formatAxisNumber, formatUsd, formatUsdBeside } from '../src/format.js';
import { NETWORK_FEE_SHARE_NOTICE_BPS, networkFeeWeight } from '../src/network-fee.js';
import { swapBlock } from '../src/swap-blocker.js';
import { optionAfterKey, searchTokens, TOKEN_OPTIONS_MAX } from '../src/token-choice.js';
import { quoteUsdFigures, usdAt } from '../src/usd-values.js';
import { readyToSwap } from './support/readiness.js';

function parseAmountOrThrow(text: string | null): Amount {
  return Amount.parse(text ?? 'null');
}

const quoteOf = (fields: Partial<Quote>): Quote =>
  ({ settlementSafety: null, priceImpact: '0.001', maxPriceImpact: 0.15, ...fields }) as Quote;

describe('the Swap button’s label', () => {
  const ready = readyToSwap(quoteOf({}));

  it('says Swap only when nothing blocks, and names the blocking reason otherwise', () => {
    expect(swapBlock(ready)).toBeNull();
    expect(swapBlock({ ...ready, walletConnected: false })?.label).toBe('Connect a wallet');
    expect(swapBlock({ ...ready, amount: '100000', spendable: '900' })).toEqual({
      label: 'Insufficient Amulet balance',
      detail: 'Your party can spend 900 Amulet: lower the amount or get more Amulet.',
    });
    expect(swapBlock({ ...ready, quote: null })?.label).toBe('Getting a quote…');
  });

  it('refuses an impact above the service’s cap before any request, not one at the cap', () => {
    const beyond = swapBlock({ ...ready, quote: quoteOf({ priceImpact: '0.9984' }) });
    expect(beyond?.label).toBe('Price impact too high');
    expect(beyond?.detail).toContain('99.84 %');
    expect(beyond?.detail).toContain('15.00 %');
    expect(swapBlock({ ...ready, quote: quoteOf({ priceImpact: '0.15' }) })).toBeNull();
  });

  it('names the guard’s rule on the button', () => {
    const guarded = (code: string) =>
      swapBlock({
        ...ready,
        quote: quoteOf({
          settlementSafety: { code, reason: 'x', message: 'm' } as Quote['settlementSafety'],
        }),
      })?.label;
    expect(guarded('reserve_price_deviation_exceeded')).toBe('Pool paused: price moved');
    expect(guarded('output_reserve_share_exceeded')).toBe('Pool paused: swap too large');
    expect(guarded('settlement_safety_guard_unavailable')).toBe('Pool paused');
  });
});

describe('Flip', () => {
  const amulet = { name: 'Amulet', admin: 'dso::1' };
  const cbtc = { name: 'CBTC', admin: 'bitsafe::2' };
  const quote = {
    inputToken: 'Amulet',
    inputTokenAdmin: 'dso::1',
    outputToken: 'CBTC',
    outputTokenAdmin: 'bitsafe::2',
    totalInputAmount: '900',
    outputAmount: '0.0012345678',
  };

  it('moves the amount with its token: the received amount becomes the sent one', () => {
    expect(amountAfterFlip('900', quote, amulet, cbtc)).toBe('0.0012345678');
  });

  it('keeps the number when the quote is of another amount or pair, or there is none', () => {
    expect(amountAfterFlip('901', quote, amulet, cbtc)).toBe('901');
    expect(amountAfterFlip('900', quote, cbtc, amulet)).toBe('900');
    expect(amountAfterFlip('900', quote, amulet, { ...cbtc, admin: 'other::3' })).toBe('900');
    expect(amountAfterFlip('900', null, amulet, cbtc)).toBe('900');
  });
});

describe('the network fee’s weight', () => {
  it('highlights 8.28 Amulet of 100 (8.3 %) and names about 414 Amulet as the sensible minimum', () => {
    const weight = networkFeeWeight({ networkFeeAmount: '8.28', totalInputAmount: '100' });
    expect(weight).toEqual({ share: 0.0828, heavy: true, sensibleMinimum: '414' });
  });

  it('does not highlight a fee within the share, and prefers the service’s share when given', () => {
    expect(networkFeeWeight({ networkFeeAmount: '2', totalInputAmount: '100' })?.heavy).toBe(false);
    const given = networkFeeWeight({
      networkFeeAmount: '8.28',
      totalInputAmount: '100',
      networkFeeShare: '0.083',
    });
    expect(given?.share).toBe(0.083);
    expect(networkFeeWeight({ networkFeeAmount: 'x', totalInputAmount: '100' })).toBeNull();
    expect(networkFeeWeight({ networkFeeAmount: '1', totalInputAmount: '0' })).toBeNull();
  });

  const units = fc.bigInt({ min: 1n, max: 10n ** 22n });
  it('is heavy exactly when fee × 10 000 > input × notice, and the minimum is the least such input', () => {
    fc.assert(
      fc.property(units, units, (feeUnits, inputUnits) => {
        const fee = Amount.fromUnits(feeUnits);
        const input = Amount.fromUnits(inputUnits);
        const weight = networkFeeWeight({
          networkFeeAmount: fee.toString(),
          totalInputAmount: input.toString(),
        });
        expect(weight?.heavy).toBe(feeUnits * 10_000n > inputUnits * NETWORK_FEE_SHARE_NOTICE_BPS);
        // At the sensible minimum the fee is within the share; one unit less, it is not.
        const minimum = Amount.parse(weight?.sensibleMinimum ?? '');
        const at = networkFeeWeight({
          networkFeeAmount: fee.toString(),
          totalInputAmount: minimum.toString(),
        });
        expect(at?.heavy).toBe(false);
        const below = Amount.fromUnits(minimum.units - 1n);
        if (below.isPositive()) {
          const under = networkFeeWeight({
            networkFeeAmount: fee.toString(),
            totalInputAmount: below.toString(),
          });
          expect(under?.heavy).toBe(true);
        }
      }),
    );
  });
});

describe('formatUsd', () => {
  it('writes two decimals always, cut like every amount', () => {
    expect(formatUsd('5.8')).toBe('$5.80');
    expect(formatUsd('5')).toBe('$5.00');
    expect(formatUsd('1234.567')).toBe('$1,234.56');
    expect(formatUsd('0.004')).toBe('$0.00');
    expect(formatUsd('-0.5')).toBe('-$0.50');
    expect(formatUsd('-0.001')).toBe('$0.00');
    expect(formatUsd('n/a')).toBe('n/a');
  });

  it('says a value under a cent is under a cent beside an amount, not worth nothing', () => {
    expect(formatUsdBeside('1.2')).toBe('$1.20');
    expect(formatUsdBeside('0.0043')).toBe('< $0.01');
    expect(formatUsdBeside('0.01')).toBe('$0.01');
    expect(formatUsdBeside('0')).toBe('$0.00');
  });
});

describe('USD beside each amount of the card', () => {
  // 100 Amulet at 0.145 USD: the quote's own USD figures (cut to 10 decimals).
  const quote = {
    totalInputAmount: '100',
    outputAmount: '0.0001325888',
    lpFeeAmount: '0.2069465517',
    platformFeeAmount: '0.0689821839',
    inputAmountAfterPoolFee: '91.4482092953',
    usd: {
      totalInputAmount: '14.5',
      outputAmount: '14.2195',
      networkFeeAmount: '1.2',
      poolFeeAmount: '0.0400090289',
      totalFeeAmount: '1.2400090289',
    },
  };

  it('takes the quote’s own figures and values the other amounts at the same prices', () => {
    const usd = quoteUsdFigures(quote, '0.0001312629');
    expect(usd.input).toBe('14.5');
    expect(usd.output).toBe('14.2195');
    expect(usd.networkFee).toBe('1.2');
    expect(usd.totalFee).toBe('1.2400090289');
    expect(formatUsd(usd.lpFee ?? '')).toBe('$0.03');
    expect(formatUsd(usd.platformFee ?? '')).toBe('$0.01');
    expect(formatUsd(usd.swappedInput ?? '')).toBe('$13.25');
    expect(formatUsd(usd.minOutput ?? '')).toBe('$14.07');
  });

  it('shows no USD where a side has no price, or the service gives none', () => {
    const unpriced = quoteUsdFigures({ ...quote, usd: { ...quote.usd, outputAmount: null } }, '1');
    expect(unpriced.output).toBeNull();
    expect(unpriced.minOutput).toBeNull();
    expect(unpriced.input).toBe('14.5');
    const none = quoteUsdFigures({ ...quote, usd: undefined }, '1');
    expect(Object.values(none).every((value) => value === null)).toBe(true);
    expect(usdAt('5', { amount: '0', usd: '0' })).toBeNull();
  });

  it('values a part of an amount at no more than that part of its USD, to 10 decimals', () => {
    const units = fc.bigInt({ min: 1n, max: 10n ** 20n });
    fc.assert(
      fc.property(units, units, units, (whole, part, usdUnits) => {
        const of = Amount.fromUnits(whole);
        const amount = Amount.fromUnits(part % whole);
        const usd = Amount.fromUnits(usdUnits);
        const value = parseAmountOrThrow(
          usdAt(amount.toString(), { amount: of.toString(), usd: usd.toString() }),
        );
        // value ≤ usd × amount / of < value + 10⁻¹⁰: cut down, in one step.
        expect(value.units * whole <= usd.units * amount.units).toBe(true);
        expect((value.units + 1n) * whole > usd.units * amount.units).toBe(true);
        // The whole reference is worth exactly its USD.
        expect(usdAt(of.toString(), { amount: of.toString(), usd: usd.toString() })).toBe(
          usd.toString(),
        );
      }),
    );
  });
});

describe('a chart’s history', () => {
  it('is drawn from two figures on, never from a lone one or empty hours', () => {
    expect(hasEnoughHistory([])).toBe(false);
    expect(hasEnoughHistory([1.5])).toBe(false);
    expect(hasEnoughHistory([null, 1.5, null])).toBe(false);
    expect(hasEnoughHistory([1.5, null, 1.6])).toBe(true);
  });

  it('labels each tick of a price that moves little apart, with the fewest digits from three', () => {
    const ticks = [0.000001315, 0.00000132, 0.000001325, 0.00000133];
    const labels = tickLabels(ticks, formatAxisNumber);
    expect(new Set(labels).size).toBe(4);
    expect(labels).toEqual(['0.000001315', '0.00000132', '0.000001325', '0.00000133']);
    expect(tickLabels([0, 500, 1000, 1500], formatAxisNumber)).toEqual(['0', '500', '1K', '1.5K']);
  });

  it('is as wide as its longest label, so no label is cut at the edge', () => {
    expect(axisWidth(['0.000001315', '1'])).toBeGreaterThan(axisWidth(['1.5K']));
    expect(axisWidth(['0.000001315'])).toBeGreaterThanOrEqual(11 * 7);
    expect(axisWidth(null)).toBe(axisWidth([]));
  });
});

describe('the deposit of a swap that waited', () => {
  const terms = {
    expectedAmount: '100',
    inputToken: 'Amulet',
    outputToken: 'USDCx',
    minOutput: '14.2',
  };

  it('is refused with the numbers when the output now is under the minimum', () => {
    expect(depositRefusal(terms, '13.9')).toBe(
      "Nothing was sent: 100 Amulet now gives about 13.9 USDCx, under this swap's minimum of " +
        '14.2 USDCx, so the deposit would come back as a refund. Cancel this swap and swap ' +
        'again at the new price, or send it once the price is back.',
    );
  });

  it('goes ahead at the minimum or above, exactly', () => {
    expect(depositRefusal(terms, '14.2')).toBeNull();
    expect(depositRefusal(terms, '14.2000000001')).toBeNull();
    expect(depositRefusal(terms, '14.1999999999')).not.toBeNull();
  });
});

describe('the token picker’s search', () => {
  const tokens = [
    { name: 'Amulet', admin: 'dso::1220aa' },
    { name: 'CBTC', admin: 'bitsafe::1220bb' },
    { name: 'USDCx', admin: 'circle::1220cc' },
    { name: 'USDCx', admin: 'usdx-bridge::1220dd' },
    { name: 'xUSD', admin: 'other::1220ee' },
  ];
  const names = (query: string) =>
    searchTokens(tokens, query).map((token) => `${token.name}@${token.admin.split('::')[0]}`);

  it('finds by symbol, any case, exact first, then starting with it, then holding it', () => {
    expect(names('usd')).toEqual(['USDCx@circle', 'USDCx@usdx-bridge', 'xUSD@other']);
    expect(names(' cbtc ')).toEqual(['CBTC@bitsafe']);
    expect(names('xusd')).toEqual(['xUSD@other']);
  });

  it('finds by issuer and by the whole admin id', () => {
    expect(names('bridge')).toEqual(['USDCx@usdx-bridge']);
    expect(names('circle::1220cc')).toEqual(['USDCx@circle']);
    expect(names('1220')).toHaveLength(5);
    expect(names('nothing')).toEqual([]);
  });

  it('lists everything for an empty search, never more than its limit', () => {
    expect(names('')).toHaveLength(5);
    const many = Array.from({ length: TOKEN_OPTIONS_MAX + 5 }, (_, i) => ({
      name: `T${i}`,
      admin: `a::${i}`,
    }));
    expect(searchTokens(many, '')).toHaveLength(TOKEN_OPTIONS_MAX);
    expect(searchTokens(many, 't')).toHaveLength(TOKEN_OPTIONS_MAX);
  });

  it('moves through the options with the arrows, wrapping round, and leaves other keys alone', () => {
    expect(optionAfterKey('ArrowDown', 0, 3)).toBe(1);
    expect(optionAfterKey('ArrowDown', 2, 3)).toBe(0);
    expect(optionAfterKey('ArrowUp', 0, 3)).toBe(2);
    expect(optionAfterKey('Home', 2, 3)).toBeNull();
    expect(optionAfterKey('a', 0, 3)).toBeNull();
    expect(optionAfterKey('ArrowDown', 0, 0)).toBeNull();
  });
});
