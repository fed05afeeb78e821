/**
 * Whole swaps through the SDK against a real service with its settlement engine: quote, wallet
 * authentication, create, the deposit a wallet sends, the events on the way, and `wait()` —
 * resolving with the output at `completed`, rejecting with `SlippageError` when the price moved.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FetchLike,
  SlippageError,
  SWAP_EVENT_NAMES,
  type Swap,
  type SwapEventName,
} from '../src/index.js';
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
