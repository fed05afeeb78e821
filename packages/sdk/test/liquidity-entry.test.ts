/**
 * `withLiquidity(pp)` of `@poolparty/sdk/liquidity`: it gives the client `pp.liquidity` over the
 * client's own sender (base URL, API key, wallet token, fetch), once, and refuses anything that is
 * not a client. A client without it has no `liquidity`.
 */
import { describe, expect, it } from 'vitest';
import { PoolParty, ValidationError } from '../src/index.js';
import { withLiquidity } from '../src/liquidity/index.js';
import { fakeFetch, json } from './support/fake-fetch.js';

const BASE = 'https://api.test.example';

function client() {
  const fake = fakeFetch(json({ items: [] }));
  const pp = new PoolParty({
    apiKey: 'pp_test_key',
    baseUrl: BASE,
    walletToken: 'wallet-token',
    fetch: fake.fetch,
  });
  return { pp, requests: fake.requests };
}

describe('withLiquidity', () => {
  it('adds liquidity to the client it is given, over that client’s sender', async () => {
    const { pp, requests } = client();
    expect('liquidity' in pp).toBe(false);
    const extended = withLiquidity(pp);
    expect(extended).toBe(pp);
    expect(await extended.liquidity.positions()).toEqual([]);
    expect(await extended.liquidity.positions({ walletToken: 'per-call' })).toEqual([]);
    expect(
      requests.map((r) => [r.method, r.url, r.headers['x-api-key'], r.headers.authorization]),
    ).toEqual([
      ['GET', `${BASE}/v1/liquidity/positions`, 'pp_test_key', 'Bearer wallet-token'],
      ['GET', `${BASE}/v1/liquidity/positions`, 'pp_test_key', 'Bearer per-call'],
    ]);
    // The swap interface is the client's as before.
    expect(extended.swaps).toBe(pp.swaps);
  });

  it('adds it once: a second call returns the client with the same liquidity', () => {
    const { pp } = client();
    const { liquidity } = withLiquidity(pp);
    expect(withLiquidity(pp).liquidity).toBe(liquidity);
    expect(() => {
      (pp as { liquidity?: unknown }).liquidity = null;
    }).toThrow(TypeError);
  });

  it('refuses anything that is not a client', () => {
    for (const value of [{}, null, 'pp', { liquidity: 1 }]) {
      expect(() => withLiquidity(value as unknown as PoolParty)).toThrow(ValidationError);
    }
  });
});
