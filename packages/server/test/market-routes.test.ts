import { Amount, constantProductOutput, initialLpSupply } from '@poolparty/core';
import {
  deleteDiscountPolicy,
  findApiKeyByHash,
  getPoolAccounting,
  insertDiscountPolicy,
  updatePoolAccounting,
} from '@poolparty/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../src/auth/api-keys.js';
import type { DevnetPoolInfo } from '../src/devnet-bootstrap.js';
import { request, startTestService, type TestService } from './support/service.js';

type Body = Record<string, unknown>;

/** 20 000 bytes at 60 USD/MB = 1.2 USD; at 0.145 USD per Amulet, rounded up. */
const AMULET_NETWORK_FEE = '8.275862069';

describe('tokens, pools and quotes', () => {
  let t: TestService;
  let pools: Record<string, DevnetPoolInfo>;
  let amuletAdmin: string;
  let usdcxAdmin: string;
  let bridgedAdmin: string;

  const get = (path: string, apiKey: string | null = t.apiKey) =>
    request<Body>(t.url, 'GET', path, { apiKey });
  const quote = (params: Record<string, string>) =>
    get(`/v1/quotes?${new URLSearchParams(params).toString()}`);
  const pool = (poolId: string): DevnetPoolInfo => {
    const found = pools[poolId];
    if (!found) throw new Error(`no seeded pool ${poolId}`);
    return found;
  };

  beforeAll(async () => {
    t = await startTestService();
    const seeded = t.service.devnet?.pools ?? [];
    pools = Object.fromEntries(seeded.map((p) => [p.poolId, p]));
    amuletAdmin = pool('amulet-usdcx').tokenA.admin;
    usdcxAdmin = pool('amulet-usdcx').tokenB.admin;
    bridgedAdmin = pool('amulet-usdcx-bridge').tokenB.admin;
  });
  afterAll(async () => t?.close());

  it('requires an API key', async () => {
    expect((await get('/v1/pools', null)).status).toBe(401);
  });

  it('lists the traded tokens, a symbol once per admin', async () => {
    const answer = await get('/v1/tokens');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      tokens: [
        { name: 'Amulet', admin: amuletAdmin },
        { name: 'CBTC', admin: pool('amulet-cbtc').tokenB.admin },
        ...[
          { name: 'USDCx', admin: usdcxAdmin },
          { name: 'USDCx', admin: bridgedAdmin },
        ].sort((a, b) => (a.admin < b.admin ? -1 : 1)),
      ],
    });
  });

  it('lists the pools with their effective reserves as seeded', async () => {
    const answer = await get('/v1/pools');
    expect(answer.status).toBe(200);
    const listed = answer.body.pools as Body[];
    expect(answer.body.count).toBe(3);
    // Oldest first; the seed creates all three at once, so by id.
    expect(listed.map((p) => p.poolId)).toEqual([
      'amulet-cbtc',
      'amulet-usdcx',
      'amulet-usdcx-bridge',
    ]);
    for (const seeded of Object.values(pools)) {
      expect(listed.find((p) => p.poolId === seeded.poolId)).toEqual({
        poolId: seeded.poolId,
        tokenA: { name: 'Amulet', admin: amuletAdmin, reserve: seeded.reserveA },
        tokenB: { name: seeded.tokenB.id, admin: seeded.tokenB.admin, reserve: seeded.reserveB },
        fee: 0.003,
        lpSupply: initialLpSupply(
          Amount.parse(seeded.reserveA),
          Amount.parse(seeded.reserveB),
        ).toString(),
        swapAddress: seeded.swapParty,
        lpAddress: seeded.lpParty,
        status: 'active',
      });
    }
  });

  it('gets one pool with its swap and LP addresses', async () => {
    const answer = await get('/v1/pools/amulet-usdcx');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      poolId: 'amulet-usdcx',
      tokenA: { name: 'Amulet', reserve: '1000000' },
      tokenB: { name: 'USDCx', admin: usdcxAdmin, reserve: '145000' },
      swapAddress: pool('amulet-usdcx').swapParty,
      lpAddress: pool('amulet-usdcx').lpParty,
      guard: {
        state: 'clear',
        since: null,
        baseToken: 'Amulet',
        quoteToken: 'USDCx',
        price: '0.145',
        referencePrice: '0.145',
        limit: '0.05',
        priceBand: { low: '0.1380952381', high: '0.15225' },
        allowedInputToken: null,
        clearsAt: null,
        referenceHalfLifeSeconds: 900,
      },
    });
  });

  it('answers an unknown pool with 404 pool_not_found', async () => {
    const answer = await get('/v1/pools/no-such-pool');
    expect(answer.status).toBe(404);
    expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(answer.body).toMatchObject({ code: 'pool_not_found', status: 404 });
  });

  it('shows reserves the store changed once the quoter is told', async () => {
    const { db, quoter, clock } = t.service.ctx;
    const before = await getPoolAccounting(db, 'amulet-cbtc');
    if (!before) throw new Error('no accounting');
    const moved = { ...before, reserveA: Amount.parse('1000100'), reserveB: Amount.parse('1.4') };
    await updatePoolAccounting(db, 'amulet-cbtc', before.version, moved, clock.now());
    quoter.invalidate('amulet-cbtc');
    const cbtcPool = await quote({ from: 'Amulet', to: 'CBTC', amount: '1000' });
    expect(cbtcPool.status).toBe(200);
    const answer = await get('/v1/pools/amulet-cbtc');
    expect(answer.body).toMatchObject({
      tokenA: { reserve: '1000100' },
      tokenB: { reserve: '1.4' },
    });

    const after = await getPoolAccounting(db, 'amulet-cbtc');
    await updatePoolAccounting(db, 'amulet-cbtc', after?.version ?? 0, before, clock.now());
    quoter.invalidate('amulet-cbtc');
    await quote({ from: 'Amulet', to: 'CBTC', amount: '1000' });
    expect((await get('/v1/pools/amulet-cbtc')).body).toMatchObject({
      tokenB: { reserve: '1.45' },
    });
  });

  describe('stats and ticker', () => {
    it('check days and the pool first', async () => {
      for (const days of ['0', '366', 'seven']) {
        const answer = await get(`/v1/pools/amulet-usdcx/stats?days=${days}`);
        expect(answer.status).toBe(400);
        expect(answer.body).toMatchObject({ code: 'validation_error' });
      }
      for (const path of ['/v1/pools/nope/stats', '/v1/pools/nope/ticker']) {
        expect((await get(path)).body).toMatchObject({ code: 'pool_not_found' });
      }
    });
  });

  describe('quotes', () => {
    const canonical = { from: 'Amulet', to: 'USDCx', poolId: 'amulet-usdcx' };

    function expectConsistent(body: Body): void {
      const amount = (name: string) => Amount.parse(body[name]);
      expect(
        amount('networkFeeAmount')
          .add(amount('poolFeeAmount'))
          .add(amount('inputAmountAfterPoolFee')),
      ).toEqual(amount('totalInputAmount'));
      expect(amount('lpFeeAmount').add(amount('platformFeeAmount'))).toEqual(
        amount('poolFeeAmount'),
      );
      expect(body.trafficFeeInInput).toBe(body.networkFeeAmount);
      expect(body.fee).toBe(0.003);
      expect(body.expiresIn).toBe(30);
      expect(body.maxPriceImpact).toBe(0.15);
    }

    it('prices Amulet → USDCx on the canonical pool with every field', async () => {
      const answer = await quote({ ...canonical, amount: '1000' });
      expect(answer.status).toBe(200);
      const body = answer.body;
      expectConsistent(body);
      expect(body).toMatchObject({
        poolId: 'amulet-usdcx',
        inputToken: 'Amulet',
        inputTokenAdmin: amuletAdmin,
        outputToken: 'USDCx',
        outputTokenAdmin: usdcxAdmin,
        totalInputAmount: '1000',
        networkFeeAmount: AMULET_NETWORK_FEE,
        estimatedTrafficCost: { bytes: 20000, usd: '1.2', cc: AMULET_NETWORK_FEE },
        networkFeePolicy: null,
        platformFeePolicy: null,
        settlementSafety: null,
      });
      const priced = Amount.parse(body.inputAmountAfterPoolFee);
      // 0.3 % of what is left after the network fee, rounded up.
      expect(body.poolFeeAmount).toBe('2.9751724138');
      const reserves = { input: Amount.of(1_000_000), output: Amount.of(145_000) };
      expect(body.outputAmount).toBe(constantProductOutput(reserves, priced).toString());
      for (const name of ['rate', 'effectiveRate', 'priceImpact']) {
        expect(body[name]).toMatch(/^\d+(\.\d+)?$/);
      }
      expect(Number(body.rate)).toBeCloseTo(0.145, 3);
      expect(Number(body.effectiveRate)).toBeLessThan(Number(body.rate));
      expect(Object.keys(body).sort()).toEqual(
        [
          'poolId',
          'inputToken',
          'inputTokenAdmin',
          'outputToken',
          'outputTokenAdmin',
          'totalInputAmount',
          'networkFeeAmount',
          'trafficFeeInInput',
          'poolFeeAmount',
          'lpFeeAmount',
          'platformFeeAmount',
          'inputAmountAfterPoolFee',
          'outputAmount',
          'rate',
          'effectiveRate',
          'priceImpact',
          'maxPriceImpact',
          'fee',
          'estimatedTrafficCost',
          'networkFeePolicy',
          'platformFeePolicy',
          'settlementSafety',
          'expiresIn',
          'networkFeeShare',
          'minimumInputAmount',
          'usd',
          'poolGuard',
        ].sort(),
      );
      // The network fee as a cost: its share of the deposit and every amount in USD.
      expect(body).toMatchObject({
        networkFeeShare: '0.0083',
        minimumInputAmount: '8.2758620691',
        usd: {
          totalInputAmount: '145',
          outputAmount: body.outputAmount,
          networkFeeAmount: '1.2',
          poolFeeAmount: '0.4314',
          totalFeeAmount: '1.6314',
        },
        poolGuard: { state: 'clear', allowedInputToken: null },
      });
    });

    it('prices USDCx → Amulet with the network fee in USDCx', async () => {
      const answer = await quote({ ...canonical, from: 'USDCx', to: 'Amulet', amount: '100' });
      expect(answer.status).toBe(200);
      expectConsistent(answer.body);
      expect(answer.body).toMatchObject({
        inputToken: 'USDCx',
        inputTokenAdmin: usdcxAdmin,
        outputToken: 'Amulet',
        networkFeeAmount: '1.2',
        settlementSafety: null,
      });
      expect(Number(answer.body.outputAmount)).toBeGreaterThan(600);
    });

    it('prices CBTC through its Amulet pool', async () => {
      const answer = await quote({ from: 'CBTC', to: 'Amulet', amount: '0.01' });
      expect(answer.status).toBe(200);
      expectConsistent(answer.body);
      // 1.2 USD at 100 000 USD per CBTC (0.145 × 1 000 000 / 1.45).
      expect(answer.body).toMatchObject({ poolId: 'amulet-cbtc', networkFeeAmount: '0.000012' });
    });

    it('answers 409 ambiguous_pool_pair with both candidates when USDCx has two admins', async () => {
      const answer = await quote({ from: 'Amulet', to: 'USDCx', amount: '1000' });
      expect(answer.status).toBe(409);
      expect(answer.body).toMatchObject({ code: 'ambiguous_pool_pair' });
      expect(answer.body.candidates).toEqual([
        { poolId: 'amulet-usdcx', fromAdmin: amuletAdmin, toAdmin: usdcxAdmin },
        { poolId: 'amulet-usdcx-bridge', fromAdmin: amuletAdmin, toAdmin: bridgedAdmin },
      ]);
    });

    it('resolves the pair with both admins, or with the ambiguous side admin', async () => {
      const both = await quote({
        from: 'Amulet',
        to: 'USDCx',
        fromAdmin: amuletAdmin,
        toAdmin: bridgedAdmin,
        amount: '1000',
      });
      expect(both.status).toBe(200);
      expect(both.body).toMatchObject({
        poolId: 'amulet-usdcx-bridge',
        outputTokenAdmin: bridgedAdmin,
      });
      const one = await quote({ from: 'USDCx', to: 'Amulet', fromAdmin: usdcxAdmin, amount: '10' });
      expect(one.body).toMatchObject({ poolId: 'amulet-usdcx', inputTokenAdmin: usdcxAdmin });
    });

    it('refuses a poolId that does not trade the pair, or does not exist', async () => {
      const mismatch = await quote({
        from: 'Amulet',
        to: 'USDCx',
        poolId: 'amulet-cbtc',
        amount: '1',
      });
      expect(mismatch.status).toBe(400);
      expect(mismatch.body).toMatchObject({ code: 'validation_error' });
      const missing = await quote({ from: 'Amulet', to: 'USDCx', poolId: 'nope', amount: '1' });
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({ code: 'pool_not_found' });
    });

    it('refuses malformed amounts with validation_error', async () => {
      for (const amount of ['1e5', '-1', '1.00000000001', '', ' 1', '0x10', '1,5']) {
        const answer = await quote({ ...canonical, amount });
        expect(answer.status, amount).toBe(400);
        expect(answer.body, amount).toMatchObject({ code: 'validation_error' });
        expect(answer.body.detail, amount).toMatch(/amount/);
      }
    });

    it('refuses missing and unknown parameters', async () => {
      const incomplete: Record<string, string>[] = [
        { from: 'Amulet', to: 'USDCx' },
        { from: 'Amulet', amount: '1' },
        { to: 'USDCx', amount: '1' },
        { ...canonical, amount: '1', slippage: '0.01' },
        { ...canonical, amount: '1', receiverParty: 'not-a-party' },
      ];
      for (const params of incomplete) {
        const answer = await quote(params);
        expect(answer.status).toBe(400);
        expect(answer.body).toMatchObject({ code: 'validation_error' });
      }
    });

    it('answers an unknown symbol with 404 token_not_found', async () => {
      const answer = await quote({ from: 'DOGE', to: 'USDCx', amount: '1' });
      expect(answer.status).toBe(404);
      expect(answer.body).toMatchObject({ code: 'token_not_found' });
    });

    it('refuses an amount that does not cover the network fee, naming the minimum', async () => {
      for (const amount of ['8', AMULET_NETWORK_FEE, '0']) {
        const answer = await quote({ ...canonical, amount });
        expect(answer.status).toBe(400);
        expect(answer.body).toMatchObject({
          code: 'amount_below_minimum',
          minimumAmount: '8.2758620691',
          networkFeeAmount: AMULET_NETWORK_FEE,
          inputToken: 'Amulet',
          detail: expect.stringContaining('send at least 8.2758620691 Amulet'),
        });
      }
      expect((await quote({ ...canonical, amount: '8.2758620691' })).status).toBe(200);
    });

    it('reports the guard verdict and the cap for a trade too large for the pool', async () => {
      const answer = await quote({ ...canonical, amount: '200000' });
      expect(answer.status).toBe(200);
      expectConsistent(answer.body);
      expect(answer.body.settlementSafety).toMatchObject({
        code: 'output_reserve_share_exceeded',
        reason: expect.stringMatching(/^share=0\.\d+ limit=0\.1$/),
      });
      expect(Number(answer.body.priceImpact)).toBeGreaterThan(0.15);
      expect(answer.body.maxPriceImpact).toBe(0.15);
    });

    it('refuses a 40 000 Amulet swap that would move the price beyond the band, and quotes the way back', async () => {
      const answer = await quote({ ...canonical, amount: '40000' });
      expect(answer.status).toBe(200);
      expect(answer.body.settlementSafety).toMatchObject({
        code: 'reserve_price_deviation_exceeded',
        reason: expect.stringMatching(/^deviation=0\.08\d+ limit=0\.05$/),
        limit: '0.05',
      });
      expect(
        Number((answer.body.settlementSafety as { deviation: string }).deviation),
      ).toBeGreaterThan(0.08);
      const back = await quote({ ...canonical, from: 'USDCx', to: 'Amulet', amount: '1000' });
      expect(back.body.settlementSafety).toBeNull();
      const within = await quote({ ...canonical, amount: '20000' });
      expect(within.body.settlementSafety).toBeNull();
    });

    it('applies an API-key discount policy to both fees', async () => {
      const { db, quoter, clock } = t.service.ctx;
      const key = await findApiKeyByHash(db, hashApiKey(t.apiKey));
      if (!key) throw new Error('no seeded key');
      const policy = await insertDiscountPolicy(
        db,
        {
          targetType: 'api_key',
          targetId: key.keyId,
          networkChargeBps: 5000,
          platformChargeBps: 7000,
        },
        clock.now(),
      );
      quoter.invalidate();
      try {
        const answer = await quote({ ...canonical, amount: '1000' });
        expect(answer.status).toBe(200);
        expectConsistent(answer.body);
        expect(answer.body.networkFeePolicy).toEqual({
          targetType: 'api_key',
          chargeBps: 5000,
          estimatedNetworkFeeAmount: AMULET_NETWORK_FEE,
          chargedNetworkFeeAmount: '4.1379310345',
        });
        expect(answer.body.platformFeePolicy).toEqual({
          targetType: 'api_key',
          chargeBps: 7000,
          fullPlatformFeeRate: '0.00075',
          chargedPlatformFeeRate: '0.000525',
          discountBps: 3000,
        });
        expect(answer.body.networkFeeAmount).toBe('4.1379310345');
      } finally {
        await deleteDiscountPolicy(db, policy.id);
        quoter.invalidate();
      }
      const undiscounted = await quote({ ...canonical, amount: '1000' });
      expect(undiscounted.body).toMatchObject({ networkFeePolicy: null, platformFeePolicy: null });
    });

    it('applies a wallet-party policy only when receiverParty is passed', async () => {
      const { db, quoter, clock } = t.service.ctx;
      const alice = t.users[0];
      if (!alice) throw new Error('no seeded user');
      const policy = await insertDiscountPolicy(
        db,
        { targetType: 'wallet_party', targetId: alice.partyId, networkChargeBps: 2000 },
        clock.now(),
      );
      quoter.invalidate();
      try {
        const anonymous = await quote({ ...canonical, amount: '1000' });
        expect(anonymous.body).toMatchObject({ networkFeePolicy: null });
        const forAlice = await quote({
          ...canonical,
          amount: '1000',
          receiverParty: alice.partyId,
        });
        expect(forAlice.status).toBe(200);
        expect(forAlice.body.networkFeePolicy).toMatchObject({
          targetType: 'wallet_party',
          chargeBps: 2000,
        });
        expect(forAlice.body.platformFeePolicy).toBeNull();
        const bob = t.users[1];
        if (!bob) throw new Error('no second user');
        const forBob = await quote({ ...canonical, amount: '1000', receiverParty: bob.partyId });
        expect(forBob.body).toMatchObject({ networkFeePolicy: null });
      } finally {
        await deleteDiscountPolicy(db, policy.id);
        quoter.invalidate();
      }
    });
  });
});
