/**
 * `swap.canDeposit()` over an injected `fetch`: the intent re-read and its exact deposit
 * re-quoted, each refusal with its figures; and the exact amount arithmetic it judges by.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as sdk from '../src/index.js';
import { amountUnits, judgeDeposit, subtractAmounts } from '../src/swap/deposit-check.js';
import { fakeFetch, json, problem, type RecordedRequest } from './support/fake-fetch.js';
import { intentFixture, statusAfter } from './support/statuses.js';

const BASE = 'https://api.test.example';
const CREATE = { fromToken: 'Amulet', toToken: 'USDCx', amount: '100', poolId: 'amulet-usdcx' };
// The intent fixture asks at least 12.54 USDCx for its 100 Amulet.
const QUOTE = {
  outputAmount: '13.2',
  priceImpact: '0.0012',
  maxPriceImpact: 0.1,
  settlementSafety: null,
};

function service(routes: { status?: () => Response; quote?: () => Response }) {
  const fake = fakeFetch((request: RecordedRequest) => {
    const path = new URL(request.url).pathname;
    if (path === '/v1/swaps') return json(intentFixture(), 201);
    if (path === '/v1/quotes') return routes.quote?.() ?? json(QUOTE);
    return routes.status?.() ?? json(statusAfter([]));
  });
  const pp = new sdk.PoolParty({
    apiKey: 'pp_test_key',
    baseUrl: BASE,
    walletToken: 'wallet-token',
    fetch: fake.fetch,
    maxRetries: 0,
  });
  return { pp, requests: fake.requests };
}

describe('swap.canDeposit()', () => {
  it("re-quotes the intent's exact deposit for its party and pool, and allows it at the minimum or above", async () => {
    const { pp, requests } = service({});
    const swap = await pp.swaps.create(CREATE);
    const check = await swap.canDeposit();
    expect(check).toEqual({
      ok: true,
      reason: 'ok',
      intentId: 'int_1',
      freshOutput: '13.2',
      minOutput: '12.54',
      expectedAmount: '100',
    });
    const quote = requests.find((r) => r.url.includes('/v1/quotes'));
    const query = Object.fromEntries(new URL(quote?.url ?? BASE).searchParams);
    expect(query).toEqual({
      from: 'Amulet',
      to: 'USDCx',
      amount: '100',
      poolId: 'amulet-usdcx',
      receiverParty: swap.outputAddress,
    });
  });

  it('refuses with the fresh output, the minimum and the shortfall when the price moved', async () => {
    const { pp } = service({ quote: () => json({ ...QUOTE, outputAmount: '10.5200000001' }) });
    const swap = await pp.swaps.create(CREATE);
    const check = await swap.canDeposit();
    expect(check).toMatchObject({
      ok: false,
      reason: 'price_moved',
      freshOutput: '10.5200000001',
      minOutput: '12.54',
      shortfall: '2.0199999999',
    });
    expect(check.ok === false && check.message).toContain(
      'under the minimum of 12.54 by 2.0199999999',
    );
  });

  it('refuses without quoting when the intent no longer takes a deposit', async () => {
    const { pp, requests } = service({ status: () => json(statusAfter(['cancelled'])) });
    const swap = await pp.swaps.create(CREATE);
    expect(await swap.canDeposit()).toMatchObject({
      ok: false,
      reason: 'not_pending',
      status: 'cancelled',
    });
    expect(requests.some((r) => r.url.includes('/v1/quotes'))).toBe(false);
  });

  it('refuses when the guard would block the payout or the impact passes the cap', async () => {
    const verdict = { code: 'pool_share', reason: 'share=0.2 limit=0.1', message: 'Too large.' };
    const blocked = service({ quote: () => json({ ...QUOTE, settlementSafety: verdict }) });
    const swap = await blocked.pp.swaps.create(CREATE);
    expect(await swap.canDeposit()).toMatchObject({
      reason: 'settlement_safety',
      settlementSafety: verdict,
    });
    const steep = service({ quote: () => json({ ...QUOTE, priceImpact: '0.15' }) });
    const steepSwap = await steep.pp.swaps.create(CREATE);
    expect(await steepSwap.canDeposit()).toMatchObject({
      reason: 'price_impact',
      priceImpact: '0.15',
      maxPriceImpact: 0.1,
    });
  });

  it('refuses when the service will not price the deposit, and rethrows any other failure', async () => {
    const paused = service({ quote: () => problem('pool_paused', 409) });
    const swap = await paused.pp.swaps.create(CREATE);
    expect(await swap.canDeposit()).toMatchObject({ reason: 'quote_refused', code: 'pool_paused' });
    const down = service({ quote: () => problem('internal_error', 500) });
    const downSwap = await down.pp.swaps.create(CREATE);
    await expect(downSwap.canDeposit()).rejects.toBeInstanceOf(sdk.ServerError);
  });
});

describe('the refusal as an error', () => {
  it('is a DepositRefusedError (a ConflictError) carrying the check', () => {
    const check = judgeDeposit(
      { ...intentFixture(), minOutput: '50' },
      { ...QUOTE, outputAmount: '41.72' },
    );
    if (check.ok) throw new Error('expected a refusal');
    const error = new sdk.DepositRefusedError(check);
    expect(error).toBeInstanceOf(sdk.ConflictError);
    expect(error).toMatchObject({ code: 'deposit_refused', check: { shortfall: '8.28' } });
    expect(error.message).toContain('41.72');
  });
});

/** Amounts as the service writes them: up to 28 integer and 10 fractional digits. */
const units = fc.bigInt({ min: 0n, max: 10n ** 38n - 1n });
const written = (value: bigint) => {
  const text = value.toString().padStart(11, '0');
  const fraction = text.slice(-10).replace(/0+$/, '');
  const whole = text.slice(0, -10).replace(/^0+(?=\d)/, '');
  return fraction === '' ? whole : `${whole}.${fraction}`;
};

describe('amount arithmetic', () => {
  it('reads an amount exactly', () => {
    fc.assert(fc.property(units, (value) => amountUnits(written(value)) === value));
  });

  it('subtracts exactly, and answers null unless the first is the larger', () => {
    fc.assert(
      fc.property(units, units, (a, b) => {
        const difference = subtractAmounts(written(a), written(b));
        if (a <= b) return difference === null;
        return difference === written(a - b);
      }),
    );
  });

  it('refuses exactly when the fresh output is under the minimum', () => {
    fc.assert(
      fc.property(units, units, (fresh, minimum) => {
        const check = judgeDeposit(
          { ...intentFixture(), minOutput: written(minimum) },
          { ...QUOTE, outputAmount: written(fresh) },
        );
        return check.ok === fresh >= minimum;
      }),
    );
  });
});
