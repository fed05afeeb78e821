/**
 * The SDK against a real seeded service: market data, quotes and pool ambiguity, wallet
 * authentication, swap intents (create, status, cancel, idempotency, guards) and tracking. The
 * settled swap itself is in e2e-swap.test.ts.
 */

import {
  AmbiguousPoolPairError,
  AuthenticationError,
  CancelledError,
  ConflictError,
  NotFoundError,
  type PoolParty,
  ValidationError,
} from '@poolparty/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signChallenge } from '../support/service.js';
import { scaled } from './support/amounts.js';
import { type DevnetParty, type Live, startLive } from './support/live.js';

let live: Live;
let alice: DevnetParty;
let aliceClient: PoolParty;

beforeAll(async () => {
  live = await startLive();
  alice = await live.newParty('alice');
  const token = await live.walletToken(alice);
  aliceClient = live.client({ walletToken: token, pollInterval: 20 });
});

afterAll(() => live?.close());

function amuletToUsdcx(amount = '100') {
  return { fromToken: 'Amulet', toToken: 'USDCx', amount, poolId: live.canonical.poolId };
}

describe('market data', () => {
  it('lists tokens and pools, and reads a pool, its stats and its ticker', async () => {
    const pp = live.client();
    const { tokens } = await pp.tokens.list();
    expect(tokens.map((token) => token.name)).toEqual(expect.arrayContaining(['Amulet', 'USDCx']));
    const { count, pools } = await pp.pools.list();
    expect(count).toBe(pools.length);
    const pool = await pp.pools.get(live.canonical.poolId);
    expect(pool.swapAddress).toBe(live.canonical.swapParty);
    const stats = await pp.pools.getStats(live.canonical.poolId, { days: 3 });
    expect(stats.aprMeta.lookbackDays).toBe(3);
    const ticker = await pp.pools.getTicker(live.canonical.poolId);
    expect(ticker.poolId).toBe(live.canonical.poolId);
  });

  it('answers an unknown pool with NotFoundError carrying the request id', async () => {
    const error = await live
      .client()
      .pools.get('no-such-pool')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).status).toBe(404);
    expect((error as NotFoundError).requestId).toMatch(/\S{8,}/);
  });

  it('refuses a wrong API key with AuthenticationError', async () => {
    const error = await live
      .client({ apiKey: 'pp_test_not_a_key' })
      .tokens.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).status).toBe(401);
  });
});

describe('quotes', () => {
  it('prices a swap in a named pool, fees adding up to the deposit', async () => {
    const quote = await live.client().quotes.get({
      from: 'Amulet',
      to: 'USDCx',
      amount: '100',
      poolId: live.canonical.poolId,
    });
    expect(quote.totalInputAmount).toBe('100');
    expect(quote.settlementSafety).toBeNull();
    const parts = [quote.networkFeeAmount, quote.poolFeeAmount, quote.inputAmountAfterPoolFee];
    expect(parts.map(scaled).reduce((a, b) => a + b)).toBe(scaled('100'));
  });

  it('throws AmbiguousPoolPairError with candidates when a symbol has two admins', async () => {
    const pp = live.client();
    const error = await pp.quotes
      .get({ from: 'Amulet', to: 'USDCx', amount: '100' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AmbiguousPoolPairError);
    expect(error).toBeInstanceOf(ConflictError);
    const { candidates } = error as AmbiguousPoolPairError;
    expect(candidates.length).toBeGreaterThanOrEqual(2);
    const [first] = candidates;
    if (!first) throw new Error('no candidate');
    const quote = await pp.quotes.get({
      from: 'Amulet',
      to: 'USDCx',
      amount: '100',
      fromAdmin: first.fromAdmin,
      toAdmin: first.toAdmin,
    });
    expect(quote.poolId).toBe(first.poolId);
  });
});

describe('wallet authentication', () => {
  it('turns a signed challenge into a wallet token that authenticates swaps', async () => {
    const pp = live.client();
    const challenge = await pp.walletAuth.requestChallenge(alice.partyId);
    expect(challenge.message).toContain(alice.partyId);
    expect(challenge.message).toContain(challenge.nonce);
    const token = await live.walletToken(alice);
    const page = await live.client({ walletToken: token }).track(alice.partyId);
    expect(page.partyId).toBe(alice.partyId);
  });

  it('refuses a signature by another key with AuthenticationError', async () => {
    const mallory = await live.newParty('mallory', '0');
    const pp = live.client();
    const challenge = await pp.walletAuth.requestChallenge(alice.partyId);
    const forged = signChallenge(challenge.message, mallory);
    await expect(
      pp.walletAuth.verifyChallenge({ partyId: alice.partyId, nonce: challenge.nonce, ...forged }),
    ).rejects.toBeInstanceOf(AuthenticationError);
  });
});

describe('swap intents', () => {
  it('create → getStatus → cancel; wait() rejects with CancelledError, events fire once', async () => {
    const swap = await aliceClient.swaps.create({ ...amuletToUsdcx(), slippageTolerance: 0.01 });
    expect(swap.status).toBe('pending');
    expect(swap.expectedAmount).toBe('100');
    expect(swap.depositAddress).toBe(live.canonical.swapParty);
    expect(swap.slippageTolerance).toBe(0.01);
    const status = await aliceClient.swaps.getStatus(swap.intentId);
    expect(status).toMatchObject({ intentId: swap.intentId, status: 'pending', terminal: false });

    const fired: string[] = [];
    swap.on('cancelled', () => fired.push('cancelled'));
    const outcome = swap.wait().catch((e: unknown) => e);
    await expect(swap.cancel()).resolves.toEqual({ intentId: swap.intentId, status: 'cancelled' });
    const error = await outcome;
    expect(error).toBeInstanceOf(CancelledError);
    expect((error as CancelledError).swapStatus.status).toBe('cancelled');
    expect(fired).toEqual(['cancelled']);
    // Cancelling again is not an error: the intent is cancelled either way.
    await expect(aliceClient.swaps.cancel(swap.intentId)).resolves.toMatchObject({
      status: 'cancelled',
    });
  });

  it('refuses a walletAddress of another party with a 403 AuthenticationError', async () => {
    const bob = await live.newParty('bob', '0');
    const error = await aliceClient.swaps
      .create({ ...amuletToUsdcx(), walletAddress: bob.partyId })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).status).toBe(403);
    expect((error as AuthenticationError).code).toBe('wallet_party_mismatch');
  });

  it('replays the same intent for the same idempotency key, and guards a second pending one', async () => {
    const idempotencyKey = `order-${Date.now()}`;
    const first = await aliceClient.swaps.create({ ...amuletToUsdcx('50'), idempotencyKey });
    const replay = await aliceClient.swaps.create({ ...amuletToUsdcx('50'), idempotencyKey });
    expect(replay.intentId).toBe(first.intentId);
    const guarded = await aliceClient.swaps.create(amuletToUsdcx('50')).catch((e: unknown) => e);
    expect(guarded).toBeInstanceOf(ConflictError);
    expect((guarded as ConflictError).code).toBe('active_intent_exists');
    await first.cancel();
  });

  it('maps the service’s own validation to ValidationError', async () => {
    const error = await aliceClient.swaps
      .create({ ...amuletToUsdcx('0.0000000001') })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).code).toBe('amount_below_minimum');
  });

  it('hides another party’s intent behind NotFoundError', async () => {
    const swap = await aliceClient.swaps.create(amuletToUsdcx('60'));
    const eve = await live.newParty('eve', '0');
    const eveClient = live.client({ walletToken: await live.walletToken(eve) });
    await expect(eveClient.swaps.getStatus(swap.intentId)).rejects.toBeInstanceOf(NotFoundError);
    await swap.cancel();
  });
});

describe('track', () => {
  it('iterates every swap of the party across pages, and refuses another party', async () => {
    const carol = await live.newParty('carol');
    const pp = live.client({ walletToken: await live.walletToken(carol) });
    const created: string[] = [];
    for (const amount of ['10', '11', '12']) {
      const swap = await pp.swaps.create(amuletToUsdcx(amount));
      created.push(swap.intentId);
      await swap.cancel();
    }
    const seen: string[] = [];
    for await (const swap of pp.track(carol.partyId, { limit: 2 })) seen.push(swap.intentId);
    expect(seen).toEqual([...created].reverse());
    const first = await pp.track(carol.partyId, { limit: 2 });
    expect(first.swaps).toHaveLength(2);
    expect(first.nextCursor).not.toBeNull();

    const error = await pp.track(alice.partyId).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).status).toBe(403);
  });
});
