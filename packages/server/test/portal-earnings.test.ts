/**
 * The developer portal's earnings, usage and collections against `poolparty serve` on the
 * embedded defaults: a developer signs in with a wallet, creates a key, a wallet swaps through
 * it, and the developer sees half the swap's platform fee, collects it to their party — checked
 * on the ledger to the last unit — and cannot collect it twice.
 */
import { Amount, type SwapIntent } from '@poolparty/core';
import { waitFor } from '@poolparty/settlement/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DevnetParty } from '../src/devnet-bootstrap.js';
import {
  answerDevnetOffer,
  depositFor,
  devnetHolding,
  expectProblem,
  newDevnetParty,
  portalLogin,
  request,
  seededUser,
  sharedTestService,
  walletTokenFor,
} from './support/service.js';

const POOL = 'amulet-usdcx';

interface EarningsLine {
  readonly poolId: string;
  readonly token: string;
  readonly tokenAdmin: string;
  readonly earned: string;
  readonly unsettled: string;
  readonly swapCount: number;
  readonly collected: string;
  readonly collecting: string;
  readonly collectable: string;
}

interface Earnings {
  readonly period: string;
  readonly bucket: string;
  readonly receiverParty: string;
  readonly lines: EarningsLine[];
  readonly series: { start: string; poolId: string; token: string; earned: string }[];
}

interface Usage {
  readonly bucket: string;
  readonly series: { start: string; swaps: number; failures: number; volumeUsd: string }[];
  readonly keys: { keyId: string; requestCount: number }[];
}

interface Collection {
  readonly collectionId: string;
  readonly amount: string;
  readonly status: string;
  readonly receiverParty: string;
  readonly updateId: string | null;
  readonly offerId: string | null;
}

interface Developer {
  readonly party: DevnetParty;
  readonly session: string;
  readonly key: { keyId: string; key: string };
}

describe('developer earnings, usage and collections', () => {
  const t = sharedTestService();
  let swapper: DevnetParty;
  let dev: Developer;

  const asDeveloper = (developer: Developer) => ({
    authorization: `Bearer ${developer.session}`,
  });
  const portal = <T>(developer: Developer, method: string, path: string, body?: unknown) =>
    request<T>(t.url, method, `/api/sdk${path}`, {
      headers: asDeveloper(developer),
      ...(body !== undefined && { body }),
    });

  async function signUp(hint: string, preapproval = true): Promise<Developer> {
    const { party } = await newDevnetParty(t, hint, { preapproval });
    const { login } = await portalLogin<{ token: string }>(t.url, party);
    expect(login.status).toBe(200);
    const session = login.body.token;
    const created = await request<{ keyId: string; key: string }>(t.url, 'POST', '/api/sdk/keys', {
      headers: { authorization: `Bearer ${session}` },
      body: { name: hint },
    });
    expect(created.status).toBe(201);
    return { party, session, key: created.body };
  }

  /** The swapper swaps Amulet for USDCx through the developer's key, to completion. */
  async function swapThrough(developer: Developer, amount: string): Promise<SwapIntent> {
    const server = { url: t.url, apiKey: developer.key.key };
    const walletToken = await walletTokenFor(server, swapper);
    const created = await request<SwapIntent>(t.url, 'POST', '/v1/swaps', {
      apiKey: developer.key.key,
      walletToken,
      body: { fromToken: 'Amulet', toToken: 'USDCx', amount, poolId: POOL },
    });
    expect(created.status).toBe(201);
    await depositFor(t, swapper, created.body);
    await waitFor(async () => {
      const status = await request<{ status: string; terminal: boolean }>(
        t.url,
        'GET',
        `/v1/swaps/${created.body.intentId}`,
        { apiKey: developer.key.key, walletToken },
      );
      if (status.body.terminal) expect(status.body.status).toBe('completed');
      return status.body.terminal;
    }, `swap ${created.body.intentId} to complete`);
    return created.body;
  }

  async function earningsOf(developer: Developer, query = ''): Promise<Earnings> {
    const answer = await portal<Earnings>(developer, 'GET', `/earnings${query}`);
    expect(answer.status).toBe(200);
    return answer.body;
  }

  async function amuletLine(developer: Developer): Promise<EarningsLine | undefined> {
    const { lines } = await earningsOf(developer, '?period=all');
    return lines.find((line) => line.poolId === POOL && line.token === 'Amulet');
  }

  async function collectedOnLedger(developer: Developer, collectionId: string) {
    return waitFor(async () => {
      const answer = await portal<Collection>(developer, 'GET', `/collections/${collectionId}`);
      expect(answer.status).toBe(200);
      return answer.body.status === 'collected' || answer.body.status === 'returned'
        ? answer.body
        : null;
    }, `collection ${collectionId} to settle`);
  }

  beforeAll(async () => {
    swapper = seededUser(t, 1);
    dev = await signUp('earner');
  });

  it('reports nothing before any swap, and refuses to collect it', async () => {
    const earnings = await earningsOf(dev);
    expect(earnings).toMatchObject({
      period: '30d',
      bucket: 'day',
      receiverParty: dev.party.partyId,
      lines: [],
      series: [],
    });
    const pool = await request<{ tokenA: { admin: string } }>(t.url, 'GET', `/v1/pools/${POOL}`, {
      apiKey: dev.key.key,
    });
    expectProblem(
      await portal(dev, 'POST', '/collections', {
        poolId: POOL,
        token: 'Amulet',
        tokenAdmin: pool.body.tokenA.admin,
      }),
      409,
      'nothing_to_collect',
    );
  });

  it('takes a collection with the session cookie only from pages of its own origin', async () => {
    const pool = await request<{ tokenA: { admin: string } }>(t.url, 'GET', `/v1/pools/${POOL}`, {
      apiKey: dev.key.key,
    });
    const body = { poolId: POOL, token: 'Amulet', tokenAdmin: pool.body.tokenA.admin };
    const collect = (headers: Record<string, string>) =>
      request(t.url, 'POST', '/api/sdk/collections', {
        headers: { cookie: `pp_session=${dev.session}`, ...headers },
        body,
      });
    expectProblem(await collect({ origin: 'https://evil.example' }), 403, 'origin_not_allowed');
    expectProblem(await collect({}), 403, 'origin_not_allowed');
    // Past the origin check: the route's own answer.
    expectProblem(await collect({ origin: t.url }), 409, 'nothing_to_collect');
  });

  it("moves earnings by exactly half the swap's platform fee, and collects exactly that once", async () => {
    const intent = await swapThrough(dev, '1000');
    const half = Amount.parse(intent.platformFeeAmount).mulDiv(1n, 2n, 'down');
    expect(half.isPositive()).toBe(true);

    const line = await amuletLine(dev);
    expect(line).toMatchObject({
      tokenAdmin: intent.inputTokenAdmin,
      earned: half.toString(),
      unsettled: '0',
      swapCount: 1,
      collected: '0',
      collecting: '0',
      collectable: half.toString(),
    });
    const day = await earningsOf(dev, '?period=24h');
    expect(day.bucket).toBe('hour');
    expect(day.series).toEqual([
      expect.objectContaining({ poolId: POOL, token: 'Amulet', earned: half.toString() }),
    ]);

    const before = await devnetHolding(t, dev.party.partyId, 'Amulet', intent.inputTokenAdmin);
    const body = { poolId: POOL, token: 'Amulet', tokenAdmin: intent.inputTokenAdmin };
    const started = await portal<Collection>(dev, 'POST', '/collections', body);
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({
      amount: half.toString(),
      status: 'pending',
      receiverParty: dev.party.partyId,
      updateId: null,
    });
    const done = await collectedOnLedger(dev, started.body.collectionId);
    expect(done.status).toBe('collected');
    expect(done.updateId).toMatch(/.+/);
    expect(await devnetHolding(t, dev.party.partyId, 'Amulet', intent.inputTokenAdmin)).toEqual(
      before.add(half),
    );

    expectProblem(await portal(dev, 'POST', '/collections', body), 409, 'nothing_to_collect');
    expect(await devnetHolding(t, dev.party.partyId, 'Amulet', intent.inputTokenAdmin)).toEqual(
      before.add(half),
    );
    expect(await amuletLine(dev)).toMatchObject({
      earned: half.toString(),
      collected: half.toString(),
      collectable: '0',
    });
    const listed = await portal<{ collections: Collection[] }>(dev, 'GET', '/collections');
    expect(listed.body.collections).toEqual([done]);
  });

  it('reports swaps, volume and the key’s requests over time', async () => {
    const usage = await portal<Usage>(dev, 'GET', '/usage?period=24h');
    expect(usage.status).toBe(200);
    expect(usage.body.bucket).toBe('hour');
    // Every hour of the period is there, the swap in one of them.
    expect(usage.body.series.length).toBeGreaterThanOrEqual(24);
    expect(usage.body.series.reduce((sum, point) => sum + point.swaps, 0)).toBe(1);
    expect(usage.body.series.reduce((sum, point) => sum + point.failures, 0)).toBe(0);
    const volume = usage.body.series.map((point) => Amount.parse(point.volumeUsd));
    expect(Amount.sum(volume).isPositive()).toBe(true);
    const [key] = usage.body.keys;
    expect(key?.keyId).toBe(dev.key.keyId);
    // Wallet challenge and verify, the swap, its status polls: each a request of the key.
    expect(key?.requestCount).toBeGreaterThanOrEqual(4);
  });

  it("refuses another developer's key and collection as not found", async () => {
    const other = await signUp('other');
    expectProblem(await portal(other, 'GET', `/earnings?keyId=${dev.key.keyId}`), 404, 'not_found');
    expectProblem(await portal(other, 'GET', `/usage?keyId=${dev.key.keyId}`), 404, 'not_found');
    const mine = await portal<{ collections: Collection[] }>(dev, 'GET', '/collections');
    const id = mine.body.collections[0]?.collectionId ?? '';
    expectProblem(await portal(other, 'GET', `/collections/${id}`), 404, 'not_found');
    const { lines } = await earningsOf(other, '?period=all');
    expect(lines).toEqual([]);
  });

  it('refuses a period it does not know, and a pool or token it does not trade', async () => {
    expectProblem(await portal(dev, 'GET', '/earnings?period=1y'), 400, 'validation_error');
    expectProblem(
      await portal(dev, 'POST', '/collections', {
        poolId: 'no-such-pool',
        token: 'Amulet',
        tokenAdmin: dev.party.partyId,
      }),
      404,
      'pool_not_found',
    );
    expectProblem(
      await portal(dev, 'POST', '/collections', {
        poolId: POOL,
        token: 'CBTC',
        tokenAdmin: dev.party.partyId,
      }),
      404,
      'token_not_found',
    );
    expectProblem(await request(t.url, 'GET', '/api/sdk/earnings'), 401, 'missing_session');
  });

  it('offers the collection to a developer without a pre-approval, collected once accepted', async () => {
    const offered = await signUp('offered', false);
    const intent = await swapThrough(offered, '500');
    const half = Amount.parse(intent.platformFeeAmount).mulDiv(1n, 2n, 'down');
    const body = { poolId: POOL, token: 'Amulet', tokenAdmin: intent.inputTokenAdmin };
    const started = await portal<Collection>(offered, 'POST', '/collections', body);
    expect(started.status).toBe(201);
    const waiting = await waitFor(async () => {
      const answer = await portal<Collection>(
        offered,
        'GET',
        `/collections/${started.body.collectionId}`,
      );
      return answer.body.status === 'offered' ? answer.body : null;
    }, 'the collection offer');
    expect(await amuletLine(offered)).toMatchObject({
      collecting: half.toString(),
      collectable: '0',
    });
    const before = await devnetHolding(t, offered.party.partyId, 'Amulet', intent.inputTokenAdmin);
    await answerDevnetOffer(t, offered.party, waiting.offerId ?? '', 'accept');
    const done = await collectedOnLedger(offered, started.body.collectionId);
    expect(done.status).toBe('collected');
    expect(await devnetHolding(t, offered.party.partyId, 'Amulet', intent.inputTokenAdmin)).toEqual(
      before.add(half),
    );
    expect(await amuletLine(offered)).toMatchObject({
      collected: half.toString(),
      collecting: '0',
      collectable: '0',
    });
  });

  it('signs out: the session ends and its cookie is cleared', async () => {
    const leaving = await signUp('leaving');
    const ended = await portal<{ partyId: string; signedOut: boolean }>(
      leaving,
      'DELETE',
      '/session',
    );
    expect(ended.status).toBe(200);
    expect(ended.body).toEqual({ partyId: leaving.party.partyId, signedOut: true });
    expect(ended.headers.get('set-cookie')).toMatch(/^pp_session=;.*Path=\/api\/sdk/);
    expectProblem(await portal(leaving, 'GET', '/earnings'), 401, 'invalid_session');
    expectProblem(await portal(leaving, 'DELETE', '/session'), 401, 'invalid_session');
  });
});
