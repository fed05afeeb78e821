import { randomUUID } from 'node:crypto';
import { Amount } from '@poolparty/core';
import type { Row } from '@poolparty/store';
import {
  getPool,
  getPoolAccounting,
  hourOf,
  insertFeeEvent,
  insertIntent,
  listPoolSnapshots,
  updatePoolAccounting,
} from '@poolparty/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SnapshotJob } from '../src/market/snapshots.js';
import { request, startTestService, type TestService } from './support/service.js';

type Body = Record<string, unknown>;

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
/** Open mining rounds (and so a new Amulet price) advance every 10 minutes of ledger time. */
const MINING_ROUND_MS = 10 * MINUTE_MS;

describe('pool stats, ticker and hourly snapshots', () => {
  let t: TestService;
  let apiKeyId: string;

  const ctx = () => t.service.ctx;
  const get = (path: string) => request<Body>(t.url, 'GET', path, { apiKey: t.apiKey });
  const stats = (poolId: string, days?: number) =>
    get(`/v1/pools/${poolId}/stats${days === undefined ? '' : `?days=${days}`}`);
  const ticker = (poolId: string) => get(`/v1/pools/${poolId}/ticker`);
  /** Moves the devnet clock; figures are kept for seconds of service time, so this refreshes them. */
  const advance = async (advanceMs: number) => {
    const answer = await request(t.url, 'POST', '/devnet/clock', { body: { advanceMs } });
    expect(answer.status).toBe(200);
  };
  const snapshots = () =>
    new SnapshotJob({ db: ctx().db, ledger: ctx().ledger, clock: ctx().clock });

  /** An executed swap of the canonical pool at `at`, as the settlement engine records it. */
  async function recordSwap(
    at: Date,
    usd: { volume: string; fees: string; lpFees: string },
  ): Promise<void> {
    const pool = await getPool(ctx().db, 'amulet-usdcx');
    if (!pool) throw new Error('no canonical pool');
    const intentId = `swp_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
    const wallet = t.users[0]?.partyId ?? 'wallet';
    await insertIntent(ctx().db, {
      intentId,
      poolId: pool.poolId,
      apiKeyId,
      developerParty: t.service.devnet?.developer.partyId ?? '',
      // One pending intent per party, pool and input: a distinct party per swap.
      walletParty: `${wallet}-${intentId}`,
      depositAddress: pool.swapParty,
      depositReference: `pp-${intentId.slice(4, 20)}`,
      inputToken: 'USDCx',
      inputTokenAdmin: pool.tokenB.admin,
      outputToken: 'Amulet',
      outputTokenAdmin: pool.tokenA.admin,
      expectedAmount: Amount.parse('100'),
      quotedSwapAmount: Amount.parse('100'),
      networkFeeAmount: Amount.parse('1.2'),
      poolFeeAmount: Amount.parse('0.2964'),
      lpFeeAmount: Amount.parse('0.2223'),
      platformFeeAmount: Amount.parse('0.0741'),
      inputAmountAfterPoolFee: Amount.parse('98.5036'),
      expectedOutput: Amount.parse('679'),
      minOutput: Amount.parse('645'),
      slippageTolerance: 0.05,
      networkFeePolicy: null,
      platformFeePolicy: null,
      outputAddress: wallet,
      createdAt: at,
      expiresAt: new Date(at.getTime() + DAY_MS),
    });
    await insertFeeEvent(ctx().db, {
      poolId: pool.poolId,
      intentId,
      apiKeyId,
      inputSide: 'b',
      inputAmount: Amount.parse('100'),
      outputAmount: Amount.parse('679'),
      lpFeeAmount: Amount.parse('0.2223'),
      platformFeeAmount: Amount.parse('0.0741'),
      networkFeeAmount: Amount.parse('1.2'),
      developerEarnings: Amount.parse('0.03705'),
      volumeUsd: Amount.parse(usd.volume),
      feesUsd: Amount.parse(usd.fees),
      lpFeesUsd: Amount.parse(usd.lpFees),
      at,
    });
  }

  /** Sets the canonical pool's USDCx reserve and waits until the quoter has re-read it. */
  async function setCanonicalUsdcx(reserveB: Amount): Promise<void> {
    const { db, clock, quoter } = ctx();
    const accounting = await getPoolAccounting(db, 'amulet-usdcx');
    if (!accounting) throw new Error('no canonical accounting');
    await updatePoolAccounting(
      db,
      'amulet-usdcx',
      accounting.version,
      { ...accounting, reserveB },
      clock.now(),
    );
    quoter.invalidate('amulet-usdcx');
    // A quote asked after an invalidation waits for the re-read.
    await quoter.quote(
      { from: 'Amulet', to: 'USDCx', amount: '1000', poolId: 'amulet-usdcx' },
      { apiKeyId: null, walletParty: null },
    );
  }

  beforeAll(async () => {
    t = await startTestService();
    const [row] = await ctx().db.query('SELECT key_id FROM api_keys ORDER BY created_at LIMIT 1');
    apiKeyId = String((row as Row).key_id);
  });
  afterAll(async () => t?.close());

  describe('GET /v1/pools/{poolId}/stats', () => {
    it('reports zeros and the TVL of the seeded reserves for a pool without swaps', async () => {
      const answer = await stats('amulet-usdcx');
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        poolId: 'amulet-usdcx',
        apr: '0',
        apy: '0',
        volume24h: '0',
        fees24h: '0',
        lpFees24h: '0',
        // 1 000 000 Amulet × 0.145 + 145 000 USDCx × 1
        tvl: '290000',
        swapCount24h: 0,
        aprMeta: { lookbackDays: 7, supported: true, quoteToken: 'USDCx' },
      });
      const meta = answer.body.aprMeta as Record<string, string>;
      expect(Date.parse(meta.to as string) - Date.parse(meta.from as string)).toBe(7 * DAY_MS);
    });

    it('values a pool without USDCx through Amulet', async () => {
      const answer = await stats('amulet-cbtc', 30);
      expect(answer.status).toBe(200);
      // 1 000 000 Amulet × 0.145, and 1.45 CBTC priced through the same pool.
      expect(answer.body).toMatchObject({
        tvl: '290000',
        apr: '0',
        aprMeta: { lookbackDays: 30, supported: true, quoteToken: 'Amulet' },
      });
    });

    it('counts fee events of the last 24 hours, and of `days` days for the APR', async () => {
      await advance(MINUTE_MS);
      const now = ctx().clock.now();
      const ago = (ms: number) => new Date(now.getTime() - ms);
      await recordSwap(ago(HOUR_MS), { volume: '1000', fees: '30', lpFees: '20' });
      await recordSwap(ago(2 * DAY_MS), { volume: '2000', fees: '60', lpFees: '50' });
      await recordSwap(ago(10 * DAY_MS), { volume: '3000', fees: '90', lpFees: '100' });
      await recordSwap(ago(40 * DAY_MS), { volume: '9000', fees: '900', lpFees: '900' });

      const lastDay = { volume24h: '1000', fees24h: '30', lpFees24h: '20', swapCount24h: 1 };
      // lpFees(days) / 290 000 × 365 / days, and (1 + apr/365)^365 − 1, cut to 10 decimals.
      expect((await stats('amulet-usdcx', 1)).body).toMatchObject({
        ...lastDay,
        apr: '0.0251724137',
        apy: '0.0254910241',
      });
      expect((await stats('amulet-usdcx')).body).toMatchObject({
        ...lastDay,
        apr: '0.0125862068',
        apy: '0.0126655268',
      });
      expect((await stats('amulet-usdcx', 30)).body).toMatchObject({
        ...lastDay,
        apr: '0.0071321839',
        apy: '0.0071576083',
      });
      expect((await stats('amulet-usdcx-bridge')).body).toMatchObject({ apr: '0', volume24h: '0' });
      expect((await ticker('amulet-usdcx')).body).toMatchObject({ volume24h: '1000' });
    });

    it('values Amulet at the ledger price, while the ticker follows the canonical pool', async () => {
      const oracle = (amuletPriceUsd: string) =>
        request(t.url, 'POST', '/devnet/oracle', { body: { amuletPriceUsd } });
      expect((await oracle('0.29')).status).toBe(200);
      await advance(MINING_ROUND_MS);
      try {
        // 1 000 000 × 0.29 + 145 000
        expect((await stats('amulet-usdcx')).body).toMatchObject({ tvl: '435000' });
        expect((await ticker('amulet-usdcx')).body).toMatchObject({ price: '0.145' });
      } finally {
        await oracle('0.145');
        await advance(MINING_ROUND_MS);
      }
      expect((await stats('amulet-usdcx')).body).toMatchObject({ tvl: '290000' });
    });

    it('answers 400 for a lookback outside 1 to 365 days', async () => {
      for (const days of ['0', '366', '-1', '1.5', 'week']) {
        const answer = await get(`/v1/pools/amulet-usdcx/stats?days=${days}`);
        expect(answer.status).toBe(400);
        expect(answer.body).toMatchObject({ code: 'validation_error' });
      }
      expect((await stats('amulet-usdcx', 365)).status).toBe(200);
    });

    it('answers 404 for an unknown pool', async () => {
      for (const path of ['/v1/pools/nope/stats', '/v1/pools/nope/ticker']) {
        const answer = await get(path);
        expect(answer.status).toBe(404);
        expect(answer.body).toMatchObject({ code: 'pool_not_found' });
      }
    });
  });

  describe('GET /v1/pools/{poolId}/ticker and the hourly snapshots', () => {
    it('prices the base token through the canonical Amulet/USDCx pool', async () => {
      for (const poolId of ['amulet-usdcx', 'amulet-usdcx-bridge', 'amulet-cbtc']) {
        const answer = await ticker(poolId);
        expect(answer.status).toBe(200);
        expect(answer.body).toMatchObject({ poolId, price: '0.145', priceChange24h: null });
      }
      expect((await ticker('amulet-cbtc')).body.pair).toBe('Amulet/CBTC');
      expect((await ticker('amulet-usdcx')).body.pair).toBe('Amulet/USDCx');
    });

    it('stores one snapshot per pool and hour, with reserves and the base token price', async () => {
      const { db, clock } = ctx();
      const now = clock.now();
      const job = snapshots();
      expect(await job.takeSnapshots(now)).toBe(3);
      expect(await job.takeSnapshots(now)).toBe(3);
      const taken = await listPoolSnapshots(
        db,
        'amulet-cbtc',
        hourOf(now),
        new Date(now.getTime() + 1),
      );
      expect(taken).toEqual([
        {
          poolId: 'amulet-cbtc',
          hour: hourOf(now),
          reserveA: Amount.parse('1000000'),
          reserveB: Amount.parse('1.45'),
          priceUsd: Amount.parse('0.145'),
        },
      ]);
    });

    it('reports the 24-hour change once 23 hours of snapshots exist, not before', async () => {
      const job = snapshots();
      const nowMs = () => ctx().clock.now().getTime();
      // Leave every earlier snapshot more than a day behind, one minute into an hour.
      await advance(2 * DAY_MS + (HOUR_MS - (nowMs() % HOUR_MS)) + MINUTE_MS);
      await job.takeSnapshots(ctx().clock.now());
      expect((await ticker('amulet-usdcx')).body.priceChange24h).toBeNull();

      await advance(22 * HOUR_MS);
      await job.takeSnapshots(ctx().clock.now());
      expect((await ticker('amulet-usdcx')).body.priceChange24h).toBeNull();

      await advance(HOUR_MS);
      await setCanonicalUsdcx(Amount.parse('159500'));
      await job.takeSnapshots(ctx().clock.now());
      // (0.1595 − 0.145) / 0.145
      expect((await ticker('amulet-usdcx')).body).toMatchObject({
        price: '0.1595',
        priceChange24h: '0.1',
      });
      // The other pools' Amulet is priced through the canonical pool too.
      expect((await ticker('amulet-cbtc')).body).toMatchObject({
        price: '0.1595',
        priceChange24h: '0.1',
      });

      // Days the service did not see are not made up: the change is unknown again.
      await advance(3 * DAY_MS);
      await job.takeSnapshots(ctx().clock.now());
      expect((await ticker('amulet-usdcx')).body.priceChange24h).toBeNull();
    });
  });

  describe('GET /v1/pools/{poolId}/history and /trades', () => {
    it("answers one point per snapshot with the hour's volume, and the latest swaps", async () => {
      const { clock } = ctx();
      await snapshots().takeSnapshots(clock.now());
      await recordSwap(new Date(clock.now().getTime() - MINUTE_MS), {
        volume: '100',
        fees: '0.3',
        lpFees: '0.2',
      });
      const history = await get('/v1/pools/amulet-usdcx/history?period=24h');
      expect(history.status).toBe(200);
      expect(history.body).toMatchObject({ poolId: 'amulet-usdcx', period: '24h' });
      const points = history.body.points as Body[];
      const last = points[points.length - 1];
      expect(last).toMatchObject({ hour: hourOf(clock.now()).toISOString() });
      expect(Number(last?.volume)).toBeGreaterThanOrEqual(100);
      expect(Number(last?.price)).toBeGreaterThan(0);
      // 2 × reserveA × priceUsd
      expect(Number(last?.tvl)).toBeCloseTo(2 * Number(last?.reserveA) * Number(last?.priceUsd), 4);

      const trades = await get('/v1/pools/amulet-usdcx/trades?limit=1');
      expect(trades.status).toBe(200);
      expect(trades.body.trades).toEqual([
        expect.objectContaining({
          inputToken: 'USDCx',
          outputToken: 'Amulet',
          inputAmount: '100',
          outputAmount: '679',
          volume: '100',
        }),
      ]);
    });

    it('refuses an unknown period or pool', async () => {
      expect((await get('/v1/pools/amulet-usdcx/history?period=1y')).status).toBe(400);
      expect((await get('/v1/pools/nope/history')).status).toBe(404);
      expect((await get('/v1/pools/nope/trades')).status).toBe(404);
      expect((await get('/v1/pools/amulet-usdcx/trades?limit=0')).status).toBe(400);
    });
  });
});
