/**
 * The client over an injected `fetch`: what goes on the wire (authentication, JSON, idempotency
 * keys), retries and their waits, timeouts and aborts, client-side validation, and paging.
 */
import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  ConflictError,
  type FetchLike,
  NetworkError,
  PoolParty,
  type PoolPartyOptions,
  RateLimitError,
  ServerError,
  TimeoutError,
  ValidationError,
} from '../src/index.js';
import {
  fakeFetch,
  hangingReply,
  json,
  problem,
  type Reply,
  recordingSleep,
} from './support/fake-fetch.js';
import { intentFixture, statusAfter } from './support/statuses.js';

const BASE = 'https://api.test.example';
const PARTY = `alice::1220${'a'.repeat(64)}`;

function client(replies: Reply[], options: Partial<PoolPartyOptions> = {}) {
  const fake = fakeFetch(...replies);
  const clock = recordingSleep();
  const pp = new PoolParty({
    apiKey: 'pp_test_key',
    baseUrl: `${BASE}/`,
    walletToken: 'wallet-token',
    fetch: fake.fetch,
    sleep: clock.sleep,
    random: () => 0.5,
    ...options,
  });
  return { pp, requests: fake.requests, waits: clock.waits };
}

const CREATE = { fromToken: 'Amulet', toToken: 'USDCx', amount: '100', poolId: 'amulet-usdcx' };

describe('options', () => {
  it('calls the environment default origins unless a baseUrl is given', () => {
    const fetch = fakeFetch().fetch;
    expect(new PoolParty({ apiKey: 'k', fetch }).baseUrl).toBe('https://api.poolparty.example');
    expect(new PoolParty({ apiKey: 'k', environment: 'devnet', fetch }).baseUrl).toBe(
      'https://api.devnet.poolparty.example',
    );
    expect(new PoolParty({ apiKey: 'k', baseUrl: 'http://127.0.0.1:8787/', fetch }).baseUrl).toBe(
      'http://127.0.0.1:8787',
    );
  });

  it('refuses a missing API key and nonsense settings', () => {
    expect(() => new PoolParty({ apiKey: '' })).toThrow(ValidationError);
    expect(() => new PoolParty({ apiKey: 'k', timeout: 0 })).toThrow(/timeout/);
    expect(() => new PoolParty({ apiKey: 'k', maxRetries: -1 })).toThrow(/maxRetries/);
    expect(
      () =>
        new PoolParty({ apiKey: 'k', environment: 'testnet' as PoolPartyOptions['environment'] }),
    ).toThrow(/environment/);
  });
});

describe('headers', () => {
  it('sends the API key on every call and the wallet token only where needed', async () => {
    const { pp, requests } = client([json({ tokens: [] }), json(statusAfter([]))]);
    await pp.tokens.list();
    await pp.swaps.getStatus('int_1');
    expect(requests.map((r) => r.url)).toEqual([`${BASE}/v1/tokens`, `${BASE}/v1/swaps/int_1`]);
    expect(requests[0]?.headers['x-api-key']).toBe('pp_test_key');
    expect(requests[0]?.headers.authorization).toBeUndefined();
    expect(requests[1]?.headers['x-api-key']).toBe('pp_test_key');
    expect(requests[1]?.headers.authorization).toBe('Bearer wallet-token');
  });

  it.each([
    ['sync', (tokens: string[]) => () => tokens.shift()],
    ['async', (tokens: string[]) => async () => tokens.shift()],
  ])('reads a %s wallet token getter on every call', async (_kind, getter) => {
    const { pp, requests } = client([json(statusAfter([]))], {
      walletToken: getter(['first', 'second']),
    });
    await pp.swaps.getStatus('int_1');
    await pp.swaps.getStatus('int_1');
    expect(requests.map((r) => r.headers.authorization)).toEqual(['Bearer first', 'Bearer second']);
  });

  it('sends JSON bodies and encodes query parameters and path segments', async () => {
    const { pp, requests } = client([json({}), json({})]);
    await pp.quotes.get({ from: 'Amulet', to: 'USDCx', amount: '1.5', poolId: 'a/b' });
    await pp.walletAuth.requestChallenge(PARTY);
    expect(requests[0]?.url).toBe(`${BASE}/v1/quotes?from=Amulet&to=USDCx&amount=1.5&poolId=a%2Fb`);
    expect(requests[1]?.headers['content-type']).toBe('application/json');
    expect(requests[1]?.body).toEqual({ partyId: PARTY });
  });
});

describe('validation before sending', () => {
  it.each([Number.NaN, Number.POSITIVE_INFINITY, 0, 0.0009, 0.051, -0.01, '0.01'])(
    'refuses slippageTolerance %s without a request',
    async (slippageTolerance) => {
      const { pp, requests } = client([json(intentFixture(), 201)]);
      await expect(
        pp.swaps.create({ ...CREATE, slippageTolerance: slippageTolerance as number }),
      ).rejects.toThrow(ValidationError);
      expect(requests).toEqual([]);
    },
  );

  it('accepts the slippage bounds themselves', async () => {
    const { pp, requests } = client([json(intentFixture(), 201)]);
    await pp.swaps.create({ ...CREATE, slippageTolerance: 0.001 });
    await pp.swaps.create({ ...CREATE, slippageTolerance: 0.05 });
    expect(
      requests.map((r) => (r.body as { slippageTolerance: number }).slippageTolerance),
    ).toEqual([0.001, 0.05]);
  });

  it.each(['', '1e3', '-1', '+1', ' 1', '1.', '.5', '1.00000000001', '1'.repeat(29), '1,5', 100])(
    'refuses amount %j without a request',
    async (amount) => {
      const { pp, requests } = client([json({})]);
      await expect(pp.quotes.get({ from: 'A', to: 'B', amount: amount as string })).rejects.toThrow(
        ValidationError,
      );
      await expect(pp.swaps.create({ ...CREATE, amount: amount as string })).rejects.toThrow(
        ValidationError,
      );
      expect(requests).toEqual([]);
    },
  );

  it.each([undefined, '', () => undefined, async () => ''])(
    'refuses wallet-authenticated calls without a wallet token (%s), without a request',
    async (walletToken) => {
      const { pp, requests } = client([json({})], { walletToken });
      const calls: (() => PromiseLike<unknown>)[] = [
        () => pp.swaps.create(CREATE),
        () => pp.swaps.getStatus('int_1'),
        () => pp.swaps.cancel('int_1'),
        () => pp.track(PARTY),
      ];
      for (const call of calls) {
        const error = await Promise.resolve(call()).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(AuthenticationError);
        expect((error as AuthenticationError).code).toBe('missing_wallet_token');
      }
      expect(requests).toEqual([]);
    },
  );
});

describe('retries', () => {
  it('retries a GET on network errors and 5xx with growing jittered waits', async () => {
    const { pp, requests, waits } = client([
      new TypeError('fetch failed'),
      problem('internal_error', 500),
      json({ tokens: [] }),
    ]);
    await expect(pp.tokens.list()).resolves.toEqual({ tokens: [] });
    expect(requests).toHaveLength(3);
    expect(waits).toEqual([375, 750]);
  });

  it('gives up after maxRetries with the last error', async () => {
    const { pp, requests } = client([problem('ledger_unavailable', 503)], { maxRetries: 1 });
    const error = await pp.tokens.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).requestId).toBe('req-problem');
    expect(requests).toHaveLength(2);
  });

  it('honours Retry-After on 429', async () => {
    const { pp, waits } = client([
      problem('rate_limited', 429, {}, { 'retry-after': '4' }),
      json({ tokens: [] }),
    ]);
    await pp.tokens.list();
    expect(waits).toEqual([4_000]);
  });

  it('hands a 429 asking for a long wait to the caller as RateLimitError', async () => {
    const { pp, requests } = client([problem('rate_limited', 429, {}, { 'retry-after': '3600' })]);
    const error = await pp.tokens.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(3600);
    expect(requests).toHaveLength(1);
  });

  it('does not retry client errors', async () => {
    const { pp, requests } = client([problem('validation_error', 400)]);
    await expect(pp.tokens.list()).rejects.toThrow(ValidationError);
    expect(requests).toHaveLength(1);
  });

  it('does not retry verifying a challenge, whose nonce the first attempt consumed', async () => {
    const { pp, requests } = client([problem('internal_error', 500)]);
    await expect(
      pp.walletAuth.verifyChallenge({ partyId: PARTY, nonce: 'n', signature: 's', publicKey: 'k' }),
    ).rejects.toThrow(ServerError);
    expect(requests).toHaveLength(1);
  });

  it('retries swaps.create under one generated idempotency key', async () => {
    const { pp, requests } = client([
      new TypeError('connection reset'),
      problem('idempotency_key_in_use', 409),
      json(intentFixture(), 201),
    ]);
    const swap = await pp.swaps.create(CREATE);
    expect(swap.intentId).toBe('int_1');
    const keys = requests.map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(3);
    expect(keys[0]).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(new Set(keys).size).toBe(1);
    expect(requests.map((r) => r.body)).toEqual([CREATE, CREATE, CREATE]);
  });

  it('sends the caller’s idempotency key, and a fresh one per call otherwise', async () => {
    const { pp, requests } = client([json(intentFixture(), 201)]);
    await pp.swaps.create({ ...CREATE, idempotencyKey: 'order-7' });
    await pp.swaps.create(CREATE);
    await pp.swaps.create(CREATE);
    const keys = requests.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toBe('order-7');
    expect(keys[1]).not.toBe(keys[2]);
    expect(requests[0]?.body).not.toHaveProperty('idempotencyKey');
  });
});

describe('timeouts and aborts', () => {
  it('turns an attempt that outlives the timeout into TimeoutError', async () => {
    const { pp, requests } = client([hangingReply], { timeout: 5, maxRetries: 0 });
    const error = await pp.tokens.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(requests[0]?.signal?.aborted).toBe(true);
  });

  it('times out a fetch that ignores the signal and never settles', async () => {
    let calls = 0;
    const deaf: FetchLike = () => {
      calls += 1;
      return new Promise<Response>(() => {});
    };
    const { pp } = client([], { fetch: deaf, timeout: 5, maxRetries: 1 });
    const error = await pp.tokens.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    // Retried once, the retry timed out the same way.
    expect(calls).toBe(2);
  });

  it('times out a response whose body never ends, the same way', async () => {
    const endless = new Response(new ReadableStream({ start() {} }), {
      headers: { 'content-type': 'application/json' },
    });
    const { pp } = client([], { fetch: async () => endless, timeout: 5, maxRetries: 0 });
    await expect(pp.tokens.list()).rejects.toBeInstanceOf(TimeoutError);
  });

  it('leaves no unhandled rejection when such a fetch fails after the timeout', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      let failLater: (error: Error) => void = () => {};
      const late: FetchLike = () =>
        new Promise<Response>((_, reject) => {
          failLater = reject;
        });
      const { pp } = client([], { fetch: late, timeout: 5, maxRetries: 0 });
      await expect(pp.tokens.list()).rejects.toBeInstanceOf(TimeoutError);
      failLater(new TypeError('connection reset'));
      // Unhandled rejections are reported after the microtask queue drains.
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('retries a timed-out GET, each attempt with the full timeout', async () => {
    const { pp, requests } = client([hangingReply, json({ tokens: [] })], { timeout: 5 });
    await expect(pp.tokens.list()).resolves.toEqual({ tokens: [] });
    expect(requests).toHaveLength(2);
  });

  it('rejects with the caller’s abort reason and sends nothing more', async () => {
    const controller = new AbortController();
    const reason = new Error('user left the page');
    const { pp, requests } = client([
      (request) => {
        controller.abort(reason);
        return hangingReply(request);
      },
    ]);
    await expect(pp.tokens.list({ signal: controller.signal })).rejects.toBe(reason);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.signal?.aborted).toBe(true);
  });

  it('does not send when the signal is already aborted', async () => {
    const { pp, requests } = client([json({ tokens: [] })]);
    await expect(pp.tokens.list({ signal: AbortSignal.abort() })).rejects.toThrow();
    expect(requests).toEqual([]);
  });

  it('reports a network failure as NetworkError with its cause', async () => {
    const cause = new TypeError('getaddrinfo ENOTFOUND');
    const { pp } = client([cause], { maxRetries: 0 });
    const error = await pp.tokens.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).cause).toBe(cause);
  });
});

describe('cancel', () => {
  it('resolves when the intent is already cancelled', async () => {
    const { pp } = client([
      problem('intent_not_cancellable', 409, { intentStatus: 'cancelled' }),
      problem('intent_not_cancellable', 409, { intentStatus: 'processing' }),
    ]);
    await expect(pp.swaps.cancel('int_1')).resolves.toEqual({
      intentId: 'int_1',
      status: 'cancelled',
    });
    await expect(pp.swaps.cancel('int_1')).rejects.toThrow(ConflictError);
  });
});

describe('track', () => {
  const page = (ids: string[], nextCursor: string | null) =>
    json({
      partyId: PARTY,
      swaps: ids.map((intentId) => ({ ...statusAfter([]), intentId })),
      nextCursor,
    });

  it('awaits to the first page', async () => {
    const { pp, requests } = client([page(['a', 'b'], 'c1')]);
    const first = await pp.track(PARTY, { limit: 2 });
    expect(first.swaps.map((s) => s.intentId)).toEqual(['a', 'b']);
    expect(first.nextCursor).toBe('c1');
    expect(requests[0]?.url).toBe(`${BASE}/v1/track/${encodeURIComponent(PARTY)}?limit=2`);
  });

  it('iterates every swap across pages, following the cursor', async () => {
    const { pp, requests } = client([
      page(['a', 'b'], 'c1'),
      page(['c', 'd'], 'c2'),
      page(['e'], null),
    ]);
    const ids: string[] = [];
    for await (const swap of pp.track(PARTY, { limit: 2, status: 'pending' }))
      ids.push(swap.intentId);
    expect(ids).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(requests.map((r) => new URL(r.url).searchParams.get('cursor'))).toEqual([
      null,
      'c1',
      'c2',
    ]);
    expect(requests.every((r) => new URL(r.url).searchParams.get('status') === 'pending')).toBe(
      true,
    );
  });

  it('stops when a cursor repeats instead of looping', async () => {
    const { pp, requests } = client([page(['a'], 'c1'), page(['b'], 'c1')]);
    const ids: string[] = [];
    for await (const swap of pp.track(PARTY)) ids.push(swap.intentId);
    expect(ids).toEqual(['a', 'b']);
    expect(requests).toHaveLength(2);
  });
});
