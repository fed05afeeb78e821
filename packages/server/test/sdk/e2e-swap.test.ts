/**
 * Whole swaps through the SDK against a real service with its settlement engine: quote, wallet
 * authentication, create, the deposit a wallet sends, the events on the way, and `wait()` —
 * resolving with the output at `completed`, rejecting with `SlippageError` when the price moved.
 */

import {
  type FetchLike,
  LEG_EVENT_NAMES,
  type Leg,
  SlippageError,
  SWAP_EVENT_NAMES,
  type Swap,
  type SwapEventName,
  type SwapHandle,
  type SwapObjectEventName,
} from '@poolparty/sdk';
import { SETTLING_STATES } from '@poolparty/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaled } from './support/amounts.js';
import { type DevnetParty, type Live, startLive } from './support/live.js';

let live: Live;

beforeAll(async () => {
  live = await startLive();
});

afterAll(() => live?.close());

/** A fetch that notes what the swap's event stream answered. */
function watchingFetch(): { fetch: FetchLike; streams: { status: number; type: string }[] } {
  const streams: { status: number; type: string }[] = [];
  const fetch: FetchLike = async (input, init) => {
    const response = await globalThis.fetch(input, init);
    if (input.endsWith('/events')) {
      streams.push({ status: response.status, type: response.headers.get('content-type') ?? '' });
    }
    return response;
  };
  return { fetch, streams };
}

function record(swap: Swap): SwapEventName[] {
  const fired: SwapEventName[] = [];
  for (const name of SWAP_EVENT_NAMES) swap.on(name, () => fired.push(name));
  return fired;
}

async function usdcxHeld(party: DevnetParty): Promise<bigint> {
  const response = await fetch(
    `${live.t.url}/devnet/parties/${encodeURIComponent(party.partyId)}/holdings`,
  );
  const { holdings } = (await response.json()) as {
    holdings: { token: string; admin: string; amount: string }[];
  };
  return holdings
    .filter((h) => h.token === 'USDCx' && h.admin === live.canonical.tokenB.admin)
    .reduce((sum, h) => sum + scaled(h.amount), 0n);
}

describe('a full swap', () => {
  it('quote → wallet auth → create → deposit → events → wait() resolves with the output', async () => {
    const user = await live.newParty('swapper');
    const watched = watchingFetch();
    const pp = live.client({
      walletToken: () => token,
      fetch: watched.fetch,
      pollInterval: 50,
    });
    const quote = await pp.quotes.get({
      from: 'Amulet',
      to: 'USDCx',
      amount: '100',
      poolId: live.canonical.poolId,
      receiverParty: user.partyId,
    });
    expect(quote.settlementSafety).toBeNull();
    const token = await live.walletToken(user);

    const swap = await pp.swaps.create({
      fromToken: 'Amulet',
      toToken: 'USDCx',
      amount: quote.totalInputAmount,
      poolId: quote.poolId,
      walletAddress: user.partyId,
      slippageTolerance: 0.01,
    });
    const fired = record(swap);
    const before = await usdcxHeld(user);
    await live.deposit(user, swap);
    const result = await swap.wait({ timeout: 30_000 });

    expect(result.status).toBe('completed');
    expect(result.outputToken).toBe('USDCx');
    expect(scaled(result.actualOutput)).toBeGreaterThanOrEqual(scaled(swap.minOutput));
    expect((await usdcxHeld(user)) - before).toBe(scaled(result.actualOutput));
    // Every state the service went through fired once, in lifecycle order, ending completed.
    const entered = result.history.map((entry) => entry.status).filter((s) => s !== 'pending');
    expect(fired).toEqual(entered);
    expect(fired.at(-1)).toBe('completed');
    expect(watched.streams[0]).toMatchObject({
      status: 200,
      type: expect.stringMatching(/^text\/event-stream/),
    });
  });

  it('rejects with SlippageError, the deposit refunded, when the price moved past the tolerance', async () => {
    const patient = await live.newParty('patient');
    const whale = await live.newParty('whale', '5000');
    const patientClient = live.client({
      walletToken: await live.walletToken(patient),
      pollInterval: 50,
    });
    const whaleClient = live.client({
      walletToken: await live.walletToken(whale),
      pollInterval: 50,
    });
    const terms = { fromToken: 'Amulet', toToken: 'USDCx', poolId: live.canonical.poolId };

    const tight = await patientClient.swaps.create({
      ...terms,
      amount: '100',
      slippageTolerance: 0.001,
    });
    // A larger swap in the same direction settles first and lowers the USDCx price ~0.6 %.
    const big = await whaleClient.swaps.create({ ...terms, amount: '3000' });
    await live.deposit(whale, big);
    await big.wait({ timeout: 30_000 });

    const fired = record(tight);
    await live.deposit(patient, tight);
    const error = await tight.wait({ timeout: 30_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SlippageError);
    const final = (error as SlippageError).swapStatus;
    expect(final.status).toBe('slippage_failed');
    expect(final.refund).not.toBeNull();
    expect(final.actualOutput).toBeNull();
    expect(fired.at(-1)).toBe('slippage_failed');
    expect(fired.filter((name) => name === 'slippage_failed')).toHaveLength(1);
  });
});

const ALL_EVENTS: SwapObjectEventName[] = [...SWAP_EVENT_NAMES, ...LEG_EVENT_NAMES];

/** Every state and leg event the swap fires, in order, until `stop()`. */
function recordAll(swap: SwapHandle): SwapObjectEventName[] & { stop(): void } {
  const fired: SwapObjectEventName[] = [];
  const handlers = ALL_EVENTS.map((name) => {
    const handler = () => fired.push(name);
    swap.on(name, handler);
    return [name, handler] as const;
  });
  const stop = () => {
    for (const [name, handler] of handlers) swap.off(name, handler);
  };
  // Not enumerable, so the list compares as a plain list.
  return Object.defineProperty(fired, 'stop', { value: stop }) as SwapObjectEventName[] & {
    stop(): void;
  };
}

/** Resolves with the payout offer once `payout_offered` fires. */
function payoutOffered(swap: SwapHandle): Promise<Leg> {
  return new Promise((resolve, reject) => {
    const handler = (status: { payout: Leg | null }) => {
      swap.off('payout_offered', handler);
      if (status.payout?.offerId) resolve(status.payout);
      else reject(new Error('payout_offered without an offer'));
    };
    swap.on('payout_offered', handler);
  });
}

describe('a payout the user must accept', () => {
  it('fires payout_offered with the offer; once accepted, payout_accepted and completed', async () => {
    const user = await live.newParty('acceptor', '1000', { preapproval: false });
    const pp = live.client({ walletToken: await live.walletToken(user), pollInterval: 50 });
    const swap = await pp.swaps.create({
      fromToken: 'Amulet',
      toToken: 'USDCx',
      amount: '100',
      poolId: live.canonical.poolId,
    });
    const fired = recordAll(swap);
    const offered = payoutOffered(swap);
    const before = await usdcxHeld(user);
    await live.deposit(user, swap);

    const offer = await offered;
    expect(offer).toMatchObject({ state: 'offered', amount: swap.expectedOutput });
    expect(Date.parse(offer.expiresAt ?? '')).toBeGreaterThan(Date.now());
    expect(swap.payout).toEqual(offer);
    // Nothing has arrived yet: the user must accept.
    expect(await usdcxHeld(user)).toBe(before);
    await live.acceptOffer(user, offer.offerId as string);

    const result = await swap.wait({ timeout: 30_000 });
    expect(result.payout).toMatchObject({ state: 'committed', offerId: offer.offerId });
    expect((await usdcxHeld(user)) - before).toBe(scaled(result.actualOutput));
    expect(fired).toEqual([...SETTLING_STATES, 'payout_offered', 'payout_accepted', 'completed']);
  });

  it('swaps.get after a reload resumes the swap: no event twice, the same wait() result', async () => {
    const user = await live.newParty('reloader', '1000', { preapproval: false });
    const token = await live.walletToken(user);
    const first = live.client({ walletToken: token, pollInterval: 50 });
    const original = await first.swaps.create({
      fromToken: 'Amulet',
      toToken: 'USDCx',
      amount: '100',
      poolId: live.canonical.poolId,
    });
    const firedBefore = recordAll(original);
    const offered = payoutOffered(original);
    await live.deposit(user, original);
    const offer = await offered;
    // The page reloads: the app kept the intent id and the last event id; the object is dropped.
    const stored = { intentId: original.intentId, lastEventId: original.lastEventId };
    expect(stored.lastEventId).toMatch(/^\d+$/);
    firedBefore.stop();

    const second = live.client({ walletToken: token, pollInterval: 50 });
    const resumed = await second.swaps.get(stored.intentId, {
      lastEventId: stored.lastEventId ?? undefined,
    });
    expect(resumed.payout).toMatchObject({ state: 'offered', offerId: offer.offerId });
    const firedAfter = recordAll(resumed);
    await live.acceptOffer(user, offer.offerId as string);
    const result = await resumed.wait({ timeout: 30_000 });

    expect(firedAfter).toEqual(['payout_accepted', 'completed']);
    expect([...firedBefore, ...firedAfter]).toEqual([
      ...SETTLING_STATES,
      'payout_offered',
      'payout_accepted',
      'completed',
    ]);
    // What the original object resolves with, had it been kept.
    expect(result).toEqual(await original.wait({ timeout: 30_000 }));
    expect(result).toMatchObject({ status: 'completed', outputToken: 'USDCx' });
  });
});
