/**
 * Event streams per caller: one wallet party, and one API key, can hold only so many of the
 * process's streams. The stream over a cap is refused with a 429 problem naming the limit and
 * its number, with `Retry-After`, while other parties and keys still open theirs; and the slot
 * is given back when the stream ends, whichever way: the client leaving, the swap ending, the
 * service stopping.
 */
import { randomUUID } from 'node:crypto';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { findApiKeyByHash, insertApiKey } from '@poolparty/store';
import { afterEach, describe, expect, it } from 'vitest';
import { displayPrefix, generateApiKey, hashApiKey } from '../src/auth/api-keys.js';
import { buildApp } from '../src/http/app.js';
import { StreamCaps } from '../src/http/stream-caps.js';
import { type Body, newDevnetParty, request, sharedTestService } from './support/service.js';

const STREAMS_PER_PARTY_MAX = 2;
const STREAMS_PER_KEY_MAX = 3;
/** Guards against a hang, not timing assertions: answers and stream ends come at once. */
const ANSWER_WAIT_MS = 10_000;
/** How long a freed slot may take to be seen: the server notices a closed stream a moment later. */
const FREED_WAIT_MS = 10_000;
const RETRY_INTERVAL_MS = 50;

interface Caller {
  readonly apiKey: string;
  readonly token: string;
}

interface OpenedStream {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** The problem document of a refusal; null for an open stream. */
  readonly body: Body;
  /** Resolves when the server ended the stream or the connection closed. */
  readonly ended: Promise<void>;
  /** Leaves as a browser tab does: the connection closes. */
  close(): void;
}

function bounded<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no ${what} within ${ANSWER_WAIT_MS} ms`)),
      ANSWER_WAIT_MS,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** `GET /v1/swaps/{intentId}/events` over a connection of its own. */
async function openStream(base: string, intentId: string, caller: Caller): Promise<OpenedStream> {
  const outgoing = httpRequest(`${base}/v1/swaps/${intentId}/events`, {
    agent: false,
    headers: { 'x-api-key': caller.apiKey, authorization: `Bearer ${caller.token}` },
  });
  const response = await bounded(
    new Promise<IncomingMessage>((resolve, reject) => {
      outgoing.on('response', resolve).on('error', reject).end();
    }),
    'stream answer',
  );
  const ended = new Promise<void>((resolve) => response.once('close', resolve));
  let text = '';
  response.setEncoding('utf8').on('data', (chunk: string) => {
    text += chunk;
  });
  if (response.statusCode !== 200) await bounded(ended, 'problem body');
  return {
    status: response.statusCode ?? 0,
    headers: response.headers,
    body: response.statusCode === 200 ? null : JSON.parse(text),
    ended,
    close: () => outgoing.destroy(),
  };
}

/** Opens a stream, retrying while the slot just freed is not yet seen as free. */
async function openOnceFreed(base: string, intentId: string, caller: Caller) {
  const deadline = performance.now() + FREED_WAIT_MS;
  for (;;) {
    const stream = await openStream(base, intentId, caller);
    if (stream.status !== 429 || performance.now() > deadline) return stream;
    await sleep(RETRY_INTERVAL_MS);
  }
}

/** The 429 problem of a stream over a cap: the limit named, its number, and when to retry. */
function expectCapped(stream: OpenedStream, limit: string, max: number): void {
  expect(stream.status).toBe(429);
  expect(stream.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(stream.headers['retry-after']).toMatch(/^\d+$/);
  expect(stream.body).toMatchObject({ code: 'rate_limited', status: 429, limit, max });
  expect(stream.body.detail).toContain(limit);
  expect(stream.body.detail).toContain(String(max));
}

describe('event streams per party and per API key', () => {
  const t = sharedTestService({
    POOLPARTY_STREAMS_PER_PARTY_MAX: String(STREAMS_PER_PARTY_MAX),
    POOLPARTY_STREAMS_PER_KEY_MAX: String(STREAMS_PER_KEY_MAX),
  });
  const opened: OpenedStream[] = [];

  /** A new key of the seeded developer, so each test counts its own key's streams. */
  async function newApiKey(): Promise<string> {
    const { db } = t.service.ctx;
    const seeded = await findApiKeyByHash(db, hashApiKey(t.apiKey));
    if (seeded === null) throw new Error('the seeded key is not in the store');
    const key = generateApiKey('devnet');
    await insertApiKey(db, {
      keyId: `key_${randomUUID()}`,
      developerParty: seeded.developerParty,
      name: 'stream caps',
      keyHash: hashApiKey(key),
      prefix: displayPrefix(key),
      environment: 'devnet',
      createdAt: t.service.ctx.clock.now(),
    });
    return key;
  }

  /** A party of its own with a pending swap, calling with `apiKey`. */
  async function partyWithSwap(hint: string, apiKey: string) {
    const { token } = await newDevnetParty(t, hint);
    const intentId = await newSwap(token);
    return { caller: { apiKey, token }, intentId };
  }

  async function newSwap(token: string): Promise<string> {
    const created = await request<{ intentId: string }>(t.url, 'POST', '/v1/swaps', {
      apiKey: t.apiKey,
      walletToken: token,
      body: { fromToken: 'Amulet', toToken: 'USDCx', amount: '10', poolId: 'amulet-usdcx' },
    });
    expect(created.status).toBe(201);
    return created.body.intentId;
  }

  async function open(base: string, intentId: string, caller: Caller): Promise<OpenedStream> {
    const stream = await openStream(base, intentId, caller);
    opened.push(stream);
    return stream;
  }

  afterEach(() => {
    for (const stream of opened.splice(0)) stream.close();
  });

  it("refuses a party's stream over its cap, naming the limit, while another party's opens", async () => {
    const apiKey = await newApiKey();
    const alice = await partyWithSwap('capped-alice', apiKey);
    for (let i = 0; i < STREAMS_PER_PARTY_MAX; i++) {
      expect((await open(t.url, alice.intentId, alice.caller)).status).toBe(200);
    }
    expectCapped(
      await open(t.url, alice.intentId, alice.caller),
      'streams_per_party',
      STREAMS_PER_PARTY_MAX,
    );
    const bob = await partyWithSwap('capped-bob', apiKey);
    expect((await open(t.url, bob.intentId, bob.caller)).status).toBe(200);
  });

  it("refuses a key's stream over its cap, naming the limit, while another key's opens", async () => {
    const apiKey = await newApiKey();
    // Two parties, so the key reaches its cap before any party reaches its own.
    const alice = await partyWithSwap('key-alice', apiKey);
    const bob = await partyWithSwap('key-bob', apiKey);
    for (const { caller, intentId } of [alice, alice, bob]) {
      expect((await open(t.url, intentId, caller)).status).toBe(200);
    }
    expectCapped(
      await open(t.url, bob.intentId, bob.caller),
      'streams_per_key',
      STREAMS_PER_KEY_MAX,
    );
    const otherKey = { ...bob.caller, apiKey: await newApiKey() };
    expect((await open(t.url, bob.intentId, otherKey)).status).toBe(200);
  });

  it('gives the slot back when the client leaves and when the swap ends', async () => {
    const apiKey = await newApiKey();
    const carol = await partyWithSwap('freed-carol', apiKey);
    const [first, second] = [
      await open(t.url, carol.intentId, carol.caller),
      await open(t.url, carol.intentId, carol.caller),
    ];
    expect([first?.status, second?.status]).toEqual([200, 200]);
    expect((await open(t.url, carol.intentId, carol.caller)).status).toBe(429);

    first?.close();
    const reopened = await openOnceFreed(t.url, carol.intentId, carol.caller);
    opened.push(reopened);
    expect(reopened.status).toBe(200);

    // Cancelling ends both streams of the swap; the party's next swap gets both slots again.
    const cancelled = await request(t.url, 'POST', `/v1/swaps/${carol.intentId}/cancel`, {
      apiKey,
      walletToken: carol.caller.token,
    });
    expect(cancelled.status).toBe(200);
    await bounded(Promise.all([second?.ended, reopened.ended]), 'stream end');
    const next = await newSwap(carol.caller.token);
    const again = await openOnceFreed(t.url, next, carol.caller);
    opened.push(again);
    expect(again.status).toBe(200);
    expect((await open(t.url, next, carol.caller)).status).toBe(200);
  });

  it('gives every slot back when the service stops', async () => {
    const streamCaps = new StreamCaps({
      perParty: STREAMS_PER_PARTY_MAX,
      perKey: STREAMS_PER_KEY_MAX,
    });
    const app = await buildApp(t.service.ctx, { streamCaps });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const dave = await partyWithSwap('stopping-dave', await newApiKey());
    const streams = [
      await open(base, dave.intentId, dave.caller),
      await open(base, dave.intentId, dave.caller),
    ];
    expect(streams.map((stream) => stream.status)).toEqual([200, 200]);
    expect(streamCaps.held).toBe(STREAMS_PER_PARTY_MAX);
    await bounded(app.close(), 'app close');
    await bounded(Promise.all(streams.map((stream) => stream.ended)), 'stream end');
    expect(streamCaps.held).toBe(0);
  });
});
