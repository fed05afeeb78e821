/**
 * `GET /v1/swaps/{intentId}/events` (docs/spec/lifecycle.md#events) as an SSE client sees it,
 * against the real seeded service: the current state first, every later state change once and in
 * order, the end after a terminal event, exact resume from `Last-Event-ID`, heartbeats, refusals,
 * and one store read per change however many streams follow the swap. The intent event hub on its
 * own: who is woken, the subscriber bound, listening again after a lost listener. And on
 * PostgreSQL, a stream served by one process hears of changes written through another.
 */
import { PassThrough } from 'node:stream';
import type { SwapState } from '@poolparty/core';
import {
  type Database,
  getIntent,
  type IntentTransition,
  insertFeeEvent,
  openPostgres,
  transitionIntent,
} from '@poolparty/store';
import {
  COMPLETED_SWAP_HISTORY,
  POSTGRES_URL,
  postgresSkipReason,
  SETTLING_STATES,
  testFeeEvent,
} from '@poolparty/store/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceContext } from '../src/context.js';
import {
  EventHub,
  type NotificationSource,
  SubscribersFullError,
} from '../src/events/event-hub.js';
import { OutboxEventStream, setEventHeartbeatMs } from '../src/events/outbox-event-stream.js';
import { OutboxSnapshots } from '../src/events/outbox-snapshot.js';
import { buildApp } from '../src/http/app.js';
import type { RunningService } from '../src/service.js';
import { SWAP_OUTBOX } from '../src/views/swap-outbox.js';
import {
  answerDevnetOffer,
  type Body,
  depositFor,
  fundDevnetParty,
  type JsonResponse,
  newDevnetParty,
  request,
  SERVICE_START_TIMEOUT_MS,
  sharedTestService,
  startPostgresTestService,
  type TestService,
} from './support/service.js';
import { openSse, type SseEvent, within } from './support/sse.js';

// --- the service as a client sees it ----------------------------------------------------------

interface Client {
  readonly base: string;
  readonly apiKey: string;
  call(
    method: string,
    path: string,
    options?: {
      walletToken?: string;
      body?: unknown;
      apiKey?: string | null;
      headers?: Record<string, string>;
    },
  ): Promise<JsonResponse<Body>>;
}

function clientOf(base: string, apiKey: string): Client {
  return {
    base,
    apiKey,
    call: (method, path, options = {}) => request<Body>(base, method, path, { apiKey, ...options }),
  };
}

/** A party of its own, so one test's pending intent never meets another's guard. */
const newParty = (client: Client, hint: string) =>
  newDevnetParty({ url: client.base, apiKey: client.apiKey }, hint);

async function createIntent(client: Client, token: string): Promise<Body> {
  const created = await client.call('POST', '/v1/swaps', {
    walletToken: token,
    body: { fromToken: 'Amulet', toToken: 'USDCx', amount: '10', poolId: 'amulet-usdcx' },
  });
  expect(created.status).toBe(201);
  return created.body;
}

const eventsPath = (intentId: string) => `/v1/swaps/${intentId}/events`;

/** The successful path after `pending`, each step with the facts the engine records there. */
function happyPath(intent: Body, now: Date): Omit<IntentTransition, 'intentId'>[] {
  return [
    { from: 'pending', to: 'matched', at: now },
    {
      from: 'matched',
      to: 'deposit_received',
      at: now,
      deposit: { amount: intent.expectedAmount, updateId: 'upd-deposit', receivedAt: now },
    },
    { from: 'deposit_received', to: 'forwarded', at: now },
    { from: 'forwarded', to: 'processing', at: now },
    { from: 'processing', to: 'sending_output', at: now, actualOutput: intent.expectedOutput },
    { from: 'sending_output', to: 'completed', at: now, payoutUpdateId: 'upd-payout' },
  ];
}

async function move(db: Database, intentId: string, step: Omit<IntentTransition, 'intentId'>) {
  // A swap completed by hand gets its fee event as the engine's would, so that the pool's guard
  // (a completed swap with incomplete accounting pauses the pool) leaves the next tests' swaps be.
  if (step.to === 'completed') {
    const intent = await getIntent(db, intentId);
    if (intent !== null) await insertFeeEvent(db, testFeeEvent(intent, step.at));
  }
  expect(
    await transitionIntent(db, { intentId, ...step }),
    `${step.from} → ${step.to}`,
  ).not.toBeNull();
}

/** Each event is named by its state and carries the SwapStatus as of that state. */
function expectConsistent(events: readonly SseEvent[]): void {
  const ids = events.map((event) => Number(event.id));
  expect(
    ids.every((id, i) => Number.isSafeInteger(id) && (i === 0 || id > (ids[i - 1] ?? 0))),
  ).toBe(true);
  for (const event of events) expect(event.data.status).toBe(event.event);
}

const names = (events: readonly SseEvent[]) => events.map((event) => event.event);
const historyOf = (event: SseEvent | undefined) =>
  (event?.data.history ?? []).map((change: Body) => change.status as SwapState);

// --- PGlite: one process -----------------------------------------------------------------------

describe('swap event stream', () => {
  const t = sharedTestService();
  let client: Client;
  let ctx: ServiceContext;

  beforeAll(async () => {
    client = clientOf(t.url, t.apiKey);
    ctx = t.service.ctx;
  });

  it('sends the current state first, as the status endpoint shows it', async () => {
    const { token } = await newParty(client, 'first');
    const intent = await createIntent(client, token);
    const stream = await openSse(t.url, eventsPath(intent.intentId), {
      apiKey: t.apiKey,
      walletToken: token,
      origin: 'https://app.example',
    });
    try {
      const { headers } = stream.response;
      expect(headers['content-type']).toMatch(/^text\/event-stream/);
      expect(headers['cache-control']).toBe('no-cache');
      expect(headers['x-accel-buffering']).toBe('no');
      expect(headers['x-request-id']).toBeTruthy();
      // Browser apps read the stream directly (docs/spec/protocol.md#cors).
      expect(headers['access-control-allow-origin']).toBeTruthy();
      expect(headers['access-control-expose-headers']).toMatch(/X-Request-Id/i);
      const [first] = await stream.events(1);
      const status = await client.call('GET', `/v1/swaps/${intent.intentId}`, {
        walletToken: token,
      });
      expect(first?.event).toBe('pending');
      expect(first?.data).toEqual(status.body);
    } finally {
      stream.close();
    }
  });

  it('counts a stream in the request metrics once it ends, as any response', async () => {
    const streamsServed = async () => {
      const { values } = await ctx.metrics.httpRequests.get();
      return values
        .filter(
          ({ labels }) =>
            labels.method === 'GET' &&
            labels.route === '/v1/swaps/:intentId/events' &&
            String(labels.status) === '200',
        )
        .reduce((sum, { value }) => sum + value, 0);
    };
    const before = await streamsServed();
    const { token } = await newParty(client, 'counted');
    const intent = await createIntent(client, token);
    const stream = await openSse(t.url, eventsPath(intent.intentId), {
      apiKey: t.apiKey,
      walletToken: token,
    });
    expect(names(await stream.events(1))).toEqual(['pending']);
    expect(await streamsServed()).toBe(before);
    const cancelled = await client.call('POST', `/v1/swaps/${intent.intentId}/cancel`, {
      walletToken: token,
    });
    expect(cancelled.status).toBe(200);
    expect(names(await stream.rest())).toEqual(['cancelled']);
    await within(
      (async () => {
        while ((await streamsServed()) === before) await new Promise((r) => setTimeout(r, 10));
      })(),
      'metrics',
    );
    expect(await streamsServed()).toBe(before + 1);
  });

  it('lets go of its subscription when the client left before the stream started', async () => {
    const { token } = await newParty(client, 'gone');
    const intent = await createIntent(client, token);
    const snapshots = new OutboxSnapshots(ctx.db, ctx.intentEvents, SWAP_OUTBOX);
    const subscribers = ctx.intentEvents.subscriberCount;
    const stream = await OutboxEventStream.open({ snapshots }, intent.intentId, null);
    expect(ctx.intentEvents.subscriberCount).toBe(subscribers + 1);
    // A response whose connection closed during the first read: it will never emit `close` again.
    const response = new PassThrough();
    response.destroy();
    await new Promise((resolve) => setImmediate(resolve));
    stream.start(response);
    expect(ctx.intentEvents.subscriberCount).toBe(subscribers);
  });

  it('answers HEAD with the stream headers and no body, and keeps no stream open', async () => {
    const { token } = await newParty(client, 'head');
    const intent = await createIntent(client, token);
    const subscribers = ctx.intentEvents.subscriberCount;
    const head = await within(
      fetch(`${t.url}${eventsPath(intent.intentId)}`, {
        method: 'HEAD',
        headers: { 'x-api-key': t.apiKey, authorization: `Bearer ${token}` },
      }),
      'HEAD answer',
    );
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await head.text()).toBe('');
    expect(ctx.intentEvents.subscriberCount).toBe(subscribers);
  });

  it('sends every state change once, in order, and ends after the terminal one', async () => {
    const { token } = await newParty(client, 'ordered');
    const intent = await createIntent(client, token);
    const stream = await openSse(t.url, eventsPath(intent.intentId), {
      apiKey: t.apiKey,
      walletToken: token,
    });
    const steps = happyPath(intent, ctx.clock.now());
    const [matched, received, forwarded, processing, sending, completed] = steps;
    if (!matched || !received || !forwarded || !processing || !sending || !completed)
      throw new Error('six steps');
    expect(names(await stream.events(1))).toEqual(['pending']);
    await move(ctx.db, intent.intentId, matched);
    expect(names(await stream.events(1))).toEqual(['matched']);
    // Several changes in one transaction arrive as separate events all the same.
    await ctx.db.transaction(async (tx) => {
      for (const step of [received, forwarded, processing]) {
        expect(await transitionIntent(tx, { intentId: intent.intentId, ...step })).not.toBeNull();
      }
    });
    await move(ctx.db, intent.intentId, sending);
    await move(ctx.db, intent.intentId, completed);
    const all = await stream.rest();
    expect(names(all)).toEqual([
      'deposit_received',
      'forwarded',
      'processing',
      'sending_output',
      'completed',
    ]);
    expectConsistent(all);
    expect(historyOf(all.at(-1))).toEqual(COMPLETED_SWAP_HISTORY);
    expect(historyOf(all[0])).toEqual(['pending', 'matched', 'deposit_received']);
    expect(all[0]?.data).toMatchObject({ terminal: false, deposit: { updateId: 'upd-deposit' } });
    const status = await client.call('GET', `/v1/swaps/${intent.intentId}`, { walletToken: token });
    expect(all.at(-1)?.data).toEqual(status.body);
    expect(all.at(-1)?.data).toMatchObject({ terminal: true, payout: { updateId: 'upd-payout' } });
  });

  it('resumes after Last-Event-ID with exactly the events missed', async () => {
    const { token } = await newParty(client, 'resume');
    const intent = await createIntent(client, token);
    const id = intent.intentId;
    const [matched, received, forwarded, processing, sending, completed] = happyPath(
      intent,
      ctx.clock.now(),
    );
    if (!matched || !received || !forwarded || !processing || !sending || !completed)
      throw new Error('six steps');
    const auth = { apiKey: t.apiKey, walletToken: token };

    const first = await openSse(t.url, eventsPath(id), auth);
    await first.events(1);
    await move(ctx.db, id, matched);
    const [seen] = await first.events(1);
    first.close();
    await move(ctx.db, id, received);
    await move(ctx.db, id, forwarded);

    const second = await openSse(t.url, eventsPath(id), { ...auth, lastEventId: seen?.id ?? '' });
    const missed = await second.events(2);
    expect(names(missed)).toEqual(['deposit_received', 'forwarded']);
    expect(Number(missed[0]?.id)).toBeGreaterThan(Number(seen?.id));
    await move(ctx.db, id, processing);
    expect(names(await second.events(1))).toEqual(['processing']);
    second.close();

    // The query parameter, for clients that cannot set headers.
    const viaQuery = await openSse(t.url, `${eventsPath(id)}?lastEventId=${missed[0]?.id}`, auth);
    expect(names(await viaQuery.events(2))).toEqual(['forwarded', 'processing']);
    await move(ctx.db, id, sending);
    await move(ctx.db, id, completed);
    const ending = await viaQuery.rest();
    expect(names(ending)).toEqual(['sending_output', 'completed']);

    // Resuming after the terminal event: nothing to send, and the stream ends at once.
    const after = await openSse(t.url, eventsPath(id), {
      ...auth,
      lastEventId: ending.at(-1)?.id ?? '',
    });
    expect(await after.rest()).toEqual([]);
  });

  it('serves streams at different positions on one swap from one store read per change', async () => {
    const { token } = await newParty(client, 'fanout');
    const intent = await createIntent(client, token);
    const id = intent.intentId;
    const [matched, received, ...toTheEnd] = happyPath(intent, ctx.clock.now());
    if (!matched || !received) throw new Error('two steps');
    // The same service over a store that counts reads of the outbox.
    let outboxReads = 0;
    const counting: Database = new Proxy(ctx.db, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (key !== 'query' || typeof value !== 'function') return value;
        return (sql: string, params?: readonly unknown[]) => {
          if (/FROM intent_events/.test(sql)) outboxReads++;
          return value.call(target, sql, params);
        };
      },
    });
    const app = await buildApp({ ...ctx, db: counting });
    try {
      const url = await app.listen({ port: 0, host: '127.0.0.1' });
      const auth = { apiKey: t.apiKey, walletToken: token };
      const fresh = await Promise.all(
        Array.from({ length: 5 }, () => openSse(url, eventsPath(id), auth)),
      );
      const [pending] = (await fresh[0]?.events(1)) ?? [];
      for (const stream of fresh.slice(1))
        expect(names(await stream.events(1))).toEqual(['pending']);
      await move(ctx.db, id, matched);
      for (const stream of fresh) expect(names(await stream.events(1))).toEqual(['matched']);
      // One stream behind the others: it still gets only what it has not seen.
      const behind = await openSse(url, eventsPath(id), {
        ...auth,
        lastEventId: pending?.id ?? '',
      });
      expect(names(await behind.events(1))).toEqual(['matched']);

      outboxReads = 0;
      await move(ctx.db, id, received);
      const received6 = await Promise.all([...fresh, behind].map((stream) => stream.events(1)));
      expect(received6.map(names)).toEqual(Array(6).fill(['deposit_received']));
      expect(new Set(received6.map(([event]) => event?.id)).size).toBe(1);
      expect(outboxReads).toBe(1);

      // To the end, so the engine is left no half-settled swap.
      for (const step of toTheEnd) await move(ctx.db, id, step);
      for (const stream of [...fresh, behind]) {
        expect(names(await stream.rest()).at(-1)).toBe('completed');
      }
    } finally {
      await app.close();
    }
  });

  it('refuses a Last-Event-ID that is not an event of this swap', async () => {
    const { token } = await newParty(client, 'badid');
    const intent = await createIntent(client, token);
    const path = eventsPath(intent.intentId);
    for (const lastEventId of ['abc', '999999999']) {
      const answer = await client.call('GET', path, {
        walletToken: token,
        headers: { 'last-event-id': lastEventId },
      });
      expect({ status: answer.status, code: answer.body.code }).toEqual({
        status: 400,
        code: 'validation_error',
      });
    }
  });

  it('streams a cancel and ends; a cancelled intent streams its state and ends', async () => {
    const { token } = await newParty(client, 'cancel');
    const intent = await createIntent(client, token);
    const auth = { apiKey: t.apiKey, walletToken: token };
    const live = await openSse(t.url, eventsPath(intent.intentId), auth);
    expect(names(await live.events(1))).toEqual(['pending']);
    const cancelled = await client.call('POST', `/v1/swaps/${intent.intentId}/cancel`, {
      walletToken: token,
    });
    expect(cancelled.status).toBe(200);
    const rest = await live.rest();
    expect(names(rest)).toEqual(['cancelled']);
    expect(rest[0]?.data).toMatchObject({ status: 'cancelled', terminal: true });

    const later = await openSse(t.url, eventsPath(intent.intentId), auth);
    const replay = await later.rest();
    expect(names(replay)).toEqual(['cancelled']);
    expect(replay[0]?.id).toBe(rest[0]?.id);
  });

  it("answers 404 for another party's intent and 401 without a wallet token or API key", async () => {
    const owner = await newParty(client, 'owner');
    const stranger = await newParty(client, 'stranger');
    const intent = await createIntent(client, owner.token);
    const path = eventsPath(intent.intentId);
    const foreign = await client.call('GET', path, { walletToken: stranger.token });
    expect({ status: foreign.status, code: foreign.body.code }).toEqual({
      status: 404,
      code: 'not_found',
    });
    const anonymous = await client.call('GET', path);
    expect({ status: anonymous.status, code: anonymous.body.code }).toEqual({
      status: 401,
      code: 'missing_wallet_token',
    });
    const keyless = await client.call('GET', path, { apiKey: null, walletToken: owner.token });
    expect({ status: keyless.status, code: keyless.body.code }).toEqual({
      status: 401,
      code: 'missing_api_key',
    });
  });

  it('sends a heartbeat comment while nothing happens', async () => {
    const restore = setEventHeartbeatMs(20);
    const { token } = await newParty(client, 'heartbeat');
    const intent = await createIntent(client, token);
    const stream = await openSse(t.url, eventsPath(intent.intentId), {
      apiKey: t.apiKey,
      walletToken: token,
    });
    restore();
    try {
      let block = await stream.nextBlock();
      while (block !== null && !block.comments.includes('heartbeat'))
        block = await stream.nextBlock();
      expect(block?.comments).toContain('heartbeat');
    } finally {
      stream.close();
    }
  });

  it('answers 429 rate_limited when the process has no stream left, and streams once one frees', async () => {
    const { token } = await newParty(client, 'full');
    const intent = await createIntent(client, token);
    const hub = ctx.intentEvents;
    const held: (() => void)[] = [];
    while (hub.subscriberCount < hub.subscribersMax)
      held.push(hub.subscribe('swp_placeholder', () => {}));
    try {
      const refused = await client.call('GET', eventsPath(intent.intentId), { walletToken: token });
      expect({ status: refused.status, code: refused.body.code }).toEqual({
        status: 429,
        code: 'rate_limited',
      });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      held.pop()?.();
      const stream = await openSse(t.url, eventsPath(intent.intentId), {
        apiKey: t.apiKey,
        walletToken: token,
      });
      expect(names(await stream.events(1))).toEqual(['pending']);
      stream.close();
    } finally {
      for (const release of held) release();
    }
  });

  it('frees the subscription when the client goes away', async () => {
    const { token } = await newParty(client, 'leave');
    const intent = await createIntent(client, token);
    const before = ctx.intentEvents.subscriberCount;
    const stream = await openSse(t.url, eventsPath(intent.intentId), {
      apiKey: t.apiKey,
      walletToken: token,
    });
    await stream.events(1);
    expect(ctx.intentEvents.subscriberCount).toBe(before + 1);
    stream.close();
    await within(
      (async () => {
        while (ctx.intentEvents.subscriberCount !== before)
          await new Promise((r) => setTimeout(r, 10));
      })(),
      'unsubscribe after disconnect',
    );
    expect(ctx.intentEvents.subscriberCount).toBe(before);
  });

  it('carries a payout offer and its acceptance between the states, and resumes across them', async () => {
    const server = { url: t.url, apiKey: t.apiKey };
    const { party, token } = await newDevnetParty(server, 'offeree', { preapproval: false });
    await fundDevnetParty(server, party, 'Amulet', '100');
    // The engine really executes this one, last, on the second pool: the other tests here write
    // states directly, and a completed swap without its fee event blocks a pool's new intents.
    const created = await client.call('POST', '/v1/swaps', {
      walletToken: token,
      body: { fromToken: 'Amulet', toToken: 'USDCx', amount: '10', poolId: 'amulet-usdcx-bridge' },
    });
    expect(created.status).toBe(201);
    const intent: Body = created.body;
    const open = (lastEventId?: string) =>
      openSse(t.url, eventsPath(intent.intentId), {
        apiKey: t.apiKey,
        walletToken: token,
        ...(lastEventId !== undefined && { lastEventId }),
      });
    const stream = await open();
    try {
      await depositFor(server, party, intent);
      const seen: SseEvent[] = [];
      while (seen.at(-1)?.event !== 'payout_offered') {
        const event = await stream.nextEvent();
        if (event === null) throw new Error(`the stream ended after ${names(seen)}`);
        seen.push(event);
      }
      expect(names(seen)).toEqual(['pending', ...SETTLING_STATES, 'payout_offered']);
      const offered = seen.at(-1) as SseEvent;
      const offerId: string = offered.data.payout.offerId;
      expect(offered.data).toMatchObject({
        status: 'sending_output',
        terminal: false,
        payout: { amount: intent.expectedOutput, state: 'offered', offerId: expect.any(String) },
      });
      expect(offered.data.payout.expiresAt).toEqual(expect.any(String));
      expect(historyOf(offered).at(-1)).toBe('sending_output');
      // The status endpoint says the same while the offer waits.
      const status = await client.call('GET', `/v1/swaps/${intent.intentId}`, {
        walletToken: token,
      });
      expect(status.body.payout).toEqual(offered.data.payout);

      // A client without a position learns the state and the offer that waits in it.
      const late = await open();
      try {
        const now = await late.events(2);
        expect(names(now)).toEqual(['sending_output', 'payout_offered']);
        expect(now.map((event) => event.id)).toEqual(seen.slice(-2).map((event) => event.id));
      } finally {
        late.close();
      }

      await answerDevnetOffer(server, party, offerId, 'accept');
      const rest = await stream.rest();
      expect(names(rest)).toEqual(['payout_accepted', 'completed']);
      expect(rest[0]?.data).toMatchObject({
        status: 'sending_output',
        payout: { state: 'committed', offerId, updateId: expect.any(String) },
      });
      expect(rest[1]?.data).toMatchObject({ terminal: true, payout: { state: 'committed' } });

      // Resuming after the offer sends exactly what followed it, once, and ends.
      const resumed = await open(offered.id);
      expect(await resumed.rest()).toEqual(rest);
      // Replayed from the start, each event shows the leg as it was then.
      const replay = await open(seen[0]?.id);
      const all = await replay.rest();
      expect(names(all)).toEqual([...names(seen.slice(1)), ...names(rest)]);
      expect(all.find((event) => event.event === 'sending_output')?.data.payout).toBeNull();
      expect(all.find((event) => event.event === 'payout_offered')?.data.payout.state).toBe(
        'offered',
      );
    } finally {
      stream.close();
    }
  });
});

// --- the hub on its own ------------------------------------------------------------------------

/** A notification source whose listener can be broken and whose next listens can fail. */
class FakeSource implements NotificationSource {
  listens = 0;
  failuresAhead = 0;
  private onPayload: ((payload: string) => void) | null = null;
  private onLost: ((error: Error) => void) | null = null;

  async listen(
    _channel: string,
    onPayload: (payload: string) => void,
    onLost?: (error: Error) => void,
  ): Promise<() => Promise<void>> {
    this.listens++;
    if (this.failuresAhead > 0) {
      this.failuresAhead--;
      throw new Error('connection refused');
    }
    this.onPayload = onPayload;
    this.onLost = onLost ?? null;
    return async () => {
      this.onPayload = null;
    };
  }

  notify(intentId: string): void {
    this.onPayload?.(JSON.stringify({ seq: 1, intentId, status: 'matched' }));
  }

  raw(payload: string): void {
    this.onPayload?.(payload);
  }

  breakListener(): void {
    const lost = this.onLost;
    this.onPayload = null;
    this.onLost = null;
    lost?.(new Error('connection reset'));
  }
}

describe('intent event hub', () => {
  it('wakes the subscribers of the intent named, and nobody for anything else', async () => {
    const source = new FakeSource();
    const hub = await EventHub.listen(source, SWAP_OUTBOX.channel);
    const woken: string[] = [];
    const stopA = hub.subscribe('swp_a', () => woken.push('a1'));
    hub.subscribe('swp_a', () => woken.push('a2'));
    hub.subscribe('swp_b', () => woken.push('b'));
    source.notify('swp_a');
    source.raw('not json');
    source.raw(JSON.stringify({ seq: 2 }));
    expect(woken).toEqual(['a1', 'a2']);
    stopA();
    stopA();
    source.notify('swp_a');
    expect(woken).toEqual(['a1', 'a2', 'a2']);
    expect(hub.subscriberCount).toBe(2);
    await hub.close();
  });

  it('refuses a subscription past its bound until one ends', async () => {
    const hub = await EventHub.listen(new FakeSource(), SWAP_OUTBOX.channel, { subscribersMax: 2 });
    const stop = hub.subscribe('swp_a', () => {});
    hub.subscribe('swp_b', () => {});
    expect(() => hub.subscribe('swp_c', () => {})).toThrow(SubscribersFullError);
    stop();
    expect(() => hub.subscribe('swp_c', () => {})).not.toThrow();
    await hub.close();
  });

  it('listens again after the listener broke, retrying failures, then wakes everyone', async () => {
    const source = new FakeSource();
    const problems: number[] = [];
    let wokenUp: () => void = () => {};
    const everyoneWoken = new Promise<void>((resolve) => {
      wokenUp = resolve;
    });
    const hub = await EventHub.listen(source, SWAP_OUTBOX.channel, {
      relistenDelayMsMin: 1,
      relistenDelayMsMax: 4,
      onListenerProblem: (_error, retryInMs) => problems.push(retryInMs),
    });
    const woken = new Set<string>();
    hub.subscribe('swp_a', () => woken.add('a'));
    hub.subscribe('swp_b', () => {
      woken.add('b');
      wokenUp();
    });
    source.failuresAhead = 3;
    source.breakListener();
    await within(everyoneWoken, 'wake-up after listening again');
    expect([...woken].sort()).toEqual(['a', 'b']);
    expect(source.listens).toBe(5);
    expect(problems).toEqual([1, 2, 4, 4]);
    woken.clear();
    source.notify('swp_a');
    expect([...woken]).toEqual(['a']);
    await hub.close();
  });
});

// --- PostgreSQL: two processes on one store ----------------------------------------------------

const postgresSkip = await postgresSkipReason('swap events on PostgreSQL');

async function adminQuery(sql: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  try {
    return await admin.query(sql, params);
  } finally {
    await admin.end();
  }
}

describe.skipIf(postgresSkip !== null)('swap events across processes on PostgreSQL', () => {
  let schema: string;
  let aService: TestService | null = null;
  let a: RunningService;
  let aClient: Client;
  let bDb: Database;
  let bHub: EventHub;
  let bApp: Awaited<ReturnType<typeof buildApp>>;
  let bUrl: string;

  beforeAll(async () => {
    // Instance A: a service of its own on a fresh schema.
    const started = await startPostgresTestService('pp_test');
    aService = started;
    ({ schema, service: a } = started);
    aClient = clientOf(started.url, started.apiKey);
    // Instance B: the HTTP API over its own connections (pool and LISTEN) to the same schema.
    // It shares A's signing key and ledger objects, as processes share them through the store.
    bDb = openPostgres(POSTGRES_URL, { schema });
    bHub = await EventHub.listen(bDb, SWAP_OUTBOX.channel, {
      relistenDelayMsMin: 10,
      relistenDelayMsMax: 100,
    });
    bApp = await buildApp({ ...a.ctx, db: bDb, intentEvents: bHub });
    bUrl = await bApp.listen({ port: 0, host: '127.0.0.1' });
  }, SERVICE_START_TIMEOUT_MS);

  afterAll(async () => {
    await bApp?.close();
    await bHub?.close();
    await bDb?.close();
    await aService?.close();
  });

  it("streams on B what is written through A's store, also after B's listener was cut", async () => {
    const { token } = await newParty(aClient, 'crossproc');
    const intent = await createIntent(aClient, token);
    const id = intent.intentId;
    const [matched, received] = happyPath(intent, a.ctx.clock.now());
    if (!matched || !received) throw new Error('steps');
    const stream = await openSse(bUrl, eventsPath(id), {
      apiKey: aClient.apiKey,
      walletToken: token,
    });
    expect(names(await stream.events(1))).toEqual(['pending']);

    await move(a.ctx.db, id, matched);
    expect(names(await stream.events(1))).toEqual(['matched']);

    const cut = await adminQuery(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE application_name = $1 AND query LIKE 'LISTEN%'`,
      [`poolparty-listen:${schema}`],
    );
    expect(cut.rowCount).toBeGreaterThanOrEqual(2);
    await move(a.ctx.db, id, received);
    expect(names(await stream.events(1))).toEqual(['deposit_received']);

    // B shutting down ends its open streams rather than waiting for the client.
    await bApp.close();
    expect(await stream.rest()).toEqual([]);
  });
});
