/**
 * Webhooks (docs/spec/webhooks.md) against the real seeded service, on PGlite and on PostgreSQL:
 * the routes as a developer calls them (secrets shown once, bad input refused with stable codes,
 * another developer's endpoints not found); every event of 100 swaps settled by the engine and
 * of 10 liquidity intents delivered to a receiver on loopback, each signature verified with
 * node:crypto, in order per intent, none missing, repeats only with the same event id; a
 * receiver that fails (500, 429 with `Retry-After`, a closed connection, a timeout) retried on
 * the schedule as the service clock moves, while a swap still completes; a redirect never
 * followed; and the developer's own events (a withdrawal, a collection, a revoked key). On a
 * service with `LEDGER=canton`, an atomic swap's events reach the endpoints that subscribe to
 * their kind or type (and the key they were prepared with), with the ids, order and objects of
 * its event stream.
 */
import { randomUUID } from 'node:crypto';
import { Amount, fingerprint, type Instrument, sign } from '@poolparty/core';
import { waitFor } from '@poolparty/settlement/testing';
import {
  type Database,
  listAtomicSwapEvents,
  listIntentEvents,
  listLiquidityEvents,
  setApiKeyRateLimits,
} from '@poolparty/store';
import { createSchema, dropSchema, postgresSkipReason, schemaUrl } from '@poolparty/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevnetParty } from '../src/devnet-bootstrap.js';
import type { RunningService } from '../src/service.js';
import {
  type CantonService,
  type ServedDevnet,
  startCantonService,
} from './support/devnet-ledger.js';
import { depositBothSides } from './support/pool-liquidity.js';
import {
  type Body,
  depositFor,
  expectProblem,
  fundDevnetParty,
  newDevnetParty,
  portalLogin,
  request,
  SERVICE_START_TIMEOUT_MS,
  startTestService,
  type TestService,
  walletTokenFor,
} from './support/service.js';
import { openSse, type SseEvent } from './support/sse.js';
import {
  type ReceivedWebhook,
  signedWith,
  startWebhookReceiver,
  type WebhookReceiver,
} from './support/webhook-receiver.js';

const postgresSkip = await postgresSkipReason('webhooks on PostgreSQL');

/** Swaps and liquidity intents of the delivery test; every state change of each is an event. */
const SWAPS = 100;
const LIQUIDITY_INTENTS = 10;
const DELIVERY_WAIT_MS = 180_000;
const ATTEMPT_WAIT_MS = 30_000;
const MINUTE_MS = 60_000;
/** Parties swapping at once in the delivery test, each one swap at a time. */
const SWAPPERS = 10;
const SETTLE_WAIT_MS = 60_000;
const TERMINAL = ['completed', 'failed', 'refund_failed', 'expired', 'cancelled'];
/** The service's webhook timeout in these tests: a hanging receiver fails an attempt in a second. */
const TIMEOUT_MS = 1_000;

interface Backend {
  readonly name: string;
  readonly skipReason: string | null;
  env(): Promise<Record<string, string>>;
  close(): Promise<void>;
}

function pglite(): Backend {
  return { name: 'PGlite', skipReason: null, env: async () => ({}), close: async () => {} };
}

function postgres(): Backend {
  let schema: string | null = null;
  return {
    name: 'PostgreSQL',
    skipReason: postgresSkip,
    env: async () => {
      schema = await createSchema('pp_webhooks_e2e');
      return { DATABASE_URL: schemaUrl(schema) };
    },
    close: async () => {
      if (schema !== null) await dropSchema(schema);
    },
  };
}

describe.each([pglite(), postgres()])('webhooks on $name', (backend) => {
  let t: TestService;
  let db: Database;
  let session: string;
  let developerKey: string;
  let developerKeyId: string;
  const receivers: WebhookReceiver[] = [];

  const portal = (method: string, path: string, body?: unknown, token = session) =>
    request<Body>(t.url, method, `/api/sdk${path}`, {
      headers: { authorization: `Bearer ${token}` },
      ...(body !== undefined && { body }),
    });
  const receiver = async () => {
    const made = await startWebhookReceiver();
    receivers.push(made);
    return made;
  };
  const register = async (url: string, extra: Record<string, unknown> = {}) => {
    const created = await portal('POST', '/webhooks', { url, ...extra });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body as { endpoint: Body; secret: string };
  };
  const deliveries = async (endpointId: string) =>
    (await portal('GET', `/webhooks/${endpointId}/deliveries?limit=100`)).body.deliveries as Body[];
  const advanceClock = async (ms: number) => {
    const moved = await request(t.url, 'POST', '/devnet/clock', { body: { advanceMs: ms } });
    expect(moved.status).toBe(200);
  };
  const wallet = (hint: string) =>
    newDevnetParty({ url: t.url, apiKey: developerKey }, `${hint}-${randomUUID().slice(0, 6)}`);

  beforeAll(async () => {
    if (backend.skipReason !== null) return;
    t = await startTestService({
      ...(await backend.env()),
      POOLPARTY_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      POOLPARTY_WEBHOOK_PER_ENDPOINT: '8',
    });
    db = t.service.ctx.db;
    const developer = await newDevnetParty(t, `dev-${randomUUID().slice(0, 6)}`);
    const { login } = await portalLogin<{ token: string }>(t.url, developer.party);
    session = login.body.token;
    const key = await portal('POST', '/keys', { name: 'webhooks' });
    expect(key.status).toBe(201);
    developerKey = key.body.key;
    developerKeyId = key.body.keyId;
    // As an operator raises a busy integrator's limits (`poolparty admin keys limits`).
    await setApiKeyRateLimits(db, developerKeyId, { readsPerMin: 100_000, swapsPerMin: 100_000 });
  }, SERVICE_START_TIMEOUT_MS);

  afterAll(async () => {
    for (const made of receivers) await made.close();
    await t?.close();
    await backend.close();
  });

  describe.skipIf(backend.skipReason !== null)('endpoints', () => {
    it('registers an endpoint with a secret shown once, never listed', async () => {
      const hooks = await receiver();
      const made = await register(hooks.url, {
        events: ['swap.*', 'swap.completed'],
        apiKeyIds: [developerKeyId],
        description: 'mine',
      });
      expect(made.secret).toMatch(/^whsec_[A-Za-z0-9_-]{32,}$/);
      expect(made.endpoint).toMatchObject({
        url: hooks.url,
        events: ['swap.*', 'swap.completed'],
        apiKeyIds: [developerKeyId],
        enabled: true,
        disabledReason: null,
        failingSince: null,
      });
      expect(made.endpoint.id).toMatch(/^we_/);
      const listed = await portal('GET', '/webhooks');
      expect(listed.status).toBe(200);
      expect(listed.body.endpoints.map((e: Body) => e.id)).toContain(made.endpoint.id);
      expect(JSON.stringify(listed.body)).not.toContain(made.secret);
      expect(JSON.stringify(listed.body)).not.toContain('whsec_');

      const rotated = await portal('POST', `/webhooks/${made.endpoint.id}/rotate-secret`, {
        overlapSeconds: 60,
      });
      expect(rotated.status).toBe(200);
      expect(rotated.body.secret).not.toBe(made.secret);
      const overlapLeft =
        Date.parse(rotated.body.previousSecretExpiresAt) - t.service.ctx.clock.now().getTime();
      expect(overlapLeft).toBeGreaterThan(50_000);
      expect(overlapLeft).toBeLessThanOrEqual(60_000);
      const changed = await portal('PATCH', `/webhooks/${made.endpoint.id}`, { enabled: false });
      expect(changed.body).toMatchObject({
        enabled: false,
        disabledReason: 'disabled by the developer',
      });
      expect((await portal('DELETE', `/webhooks/${made.endpoint.id}`)).status).toBe(204);
      expectProblem(await portal('DELETE', `/webhooks/${made.endpoint.id}`), 404, 'not_found');
    });

    it('refuses bad URLs, patterns and keys with stable codes', async () => {
      const refused = async (body: unknown, code: string) =>
        expectProblem(await portal('POST', '/webhooks', body), 400, code);
      await refused({ url: 'ftp://example.com/hook' }, 'webhook_url_invalid');
      await refused({ url: 'not a url' }, 'webhook_url_invalid');
      await refused({ url: 'https://user:pw@example.com/hook' }, 'webhook_url_invalid');
      await refused({ url: 'http://example.com/hook' }, 'webhook_url_not_allowed');
      await refused(
        { url: 'https://example.com/', events: ['swap.done'] },
        'webhook_event_unknown',
      );
      await refused({ url: 'https://example.com/', events: ['*'] }, 'webhook_event_unknown');
      await refused(
        { url: 'https://example.com/', apiKeyIds: ['key_not_mine'] },
        'webhook_api_key_unknown',
      );
      expectProblem(
        await portal('POST', '/webhooks', { url: 'https://example.com/', extra: 1 }),
        400,
        'validation_error',
      );
    });

    it("answers another developer's endpoints and deliveries as not found", async () => {
      const hooks = await receiver();
      const mine = await register(hooks.url);
      const other = await newDevnetParty(t, `other-${randomUUID().slice(0, 6)}`);
      const theirs = (await portalLogin<{ token: string }>(t.url, other.party)).login.body.token;
      const id = mine.endpoint.id;
      const sent = await portal('POST', `/webhooks/${id}/test`);
      expect(sent.status).toBe(202);
      const deliveryId = sent.body.delivery.id;
      for (const [method, path, body] of [
        ['GET', `/webhooks/${id}/deliveries`],
        ['PATCH', `/webhooks/${id}`, { enabled: false }],
        ['DELETE', `/webhooks/${id}`],
        ['POST', `/webhooks/${id}/rotate-secret`, {}],
        ['POST', `/webhooks/${id}/test`],
        ['POST', `/webhooks/${id}/deliveries/${deliveryId}/resend`],
      ] as const) {
        expectProblem(await portal(method, path, body, theirs), 404, 'not_found');
      }
      expect((await portal('GET', '/webhooks', undefined, theirs)).body.endpoints).toEqual([]);
      // The test event arrived, signed, carrying the endpoint (never its secret).
      const [got] = await waitFor(
        async () => (hooks.received.length > 0 ? hooks.received : null),
        'the test event',
        ATTEMPT_WAIT_MS,
      );
      expect(got?.json).toMatchObject({
        type: 'webhook.test',
        mode: 'devnet',
        data: { object: { id } },
      });
      expect(got && signedWith(got, mine.secret)).toBe(true);
      expect(got?.body).not.toContain(mine.secret);
      await portal('DELETE', `/webhooks/${id}`);
    });
  });

  describe.skipIf(backend.skipReason !== null)('delivery', () => {
    it(
      `delivers every event of ${SWAPS} swaps and ${LIQUIDITY_INTENTS} liquidity intents, signed, in order per intent`,
      async () => {
        const hooks = await receiver();
        const { endpoint, secret } = await register(hooks.url, {
          events: ['swap.*', 'liquidity_intent.*'],
        });
        const swaps = await settledSwaps(SWAPS);
        const provider = await wallet('provider');
        await fundDevnetParty(t, provider.party, 'Amulet', '1000');
        const intents: string[] = [];
        for (let n = 0; n < LIQUIDITY_INTENTS; n += 1)
          intents.push(await cancelledLiquidity(provider.token));

        const expected = await expectedEvents(swaps, intents);
        const received = await waitFor(
          async () => {
            const ids = new Set(hooks.received.map((r) => r.json.id));
            return [...expected.keys()].every((id) => ids.has(id)) ? hooks.received : null;
          },
          'every event at the receiver',
          DELIVERY_WAIT_MS,
        );
        // None missing, none made up; a repeat is the same event: same id, same bytes.
        const firstOf = new Map<string, ReceivedWebhook>();
        for (const got of received) {
          const seen = firstOf.get(got.json.id);
          if (seen === undefined) firstOf.set(got.json.id, got);
          else expect(got.body).toBe(seen.body);
        }
        expect(new Set(firstOf.keys())).toEqual(new Set(expected.keys()));
        for (const got of received) {
          expect(signedWith(got, secret), got.json.id).toBe(true);
          const want = expected.get(got.json.id);
          expect(got.json.type).toBe(want?.type);
          expect(got.headers['poolparty-event-id']).toBe(got.json.id);
          expect(got.headers['poolparty-event-type']).toBe(got.json.type);
          expect(got.headers['user-agent']).toBe('PoolParty-Webhooks/1');
          expect(got.headers['content-type']).toBe('application/json');
          expect(got.json.mode).toBe('devnet');
          const object = got.json.data.object;
          expect(object.intentId ?? object.liquidityIntentId).toBe(want?.subject);
          expect(object.status).toBe(got.json.type.split('.')[1]);
        }
        // In order per intent: each intent's first arrivals follow its outbox.
        const arrivals = new Map<string, number[]>();
        for (const got of firstOf.values()) {
          const want = expected.get(got.json.id);
          if (want === undefined) continue;
          arrivals.set(want.subject, [...(arrivals.get(want.subject) ?? []), want.seq]);
        }
        for (const [subject, seqs] of arrivals) {
          expect(seqs, subject).toEqual([...seqs].sort((a, b) => a - b));
        }
        // An attempt is recorded after its answer, with the others that finished by then.
        const log = await waitFor(
          async () => {
            const listed = await deliveries(endpoint.id);
            return listed.every((d) => d.state === 'delivered') ? listed : null;
          },
          'every delivery recorded as delivered',
          ATTEMPT_WAIT_MS,
        );
        expect(log.every((d) => d.attempts.length >= 1)).toBe(true);
      },
      DELIVERY_WAIT_MS + 120_000,
    );

    it('retries a failing receiver on the schedule, delivers once it recovers, and swaps still complete', async () => {
      const hooks = await receiver();
      const { endpoint, secret } = await register(hooks.url, { events: ['api_key.*'] });
      let answer: 'fail' | 'throttle' | 'close' | 'hang' | 'ok' = 'fail';
      hooks.answerWith(() => {
        switch (answer) {
          case 'fail':
            return { status: 500, body: 'down for maintenance' };
          case 'throttle':
            return { status: 429, headers: { 'retry-after': '600' } };
          case 'close':
            return { close: true };
          case 'hang':
            return { hang: true };
          default:
            return { status: 200, body: 'ok' };
        }
      });
      const sent = await portal('POST', `/webhooks/${endpoint.id}/test`);
      expect(sent.status).toBe(202);
      const deliveryId = sent.body.delivery.id;
      const afterAttempt = (n: number) =>
        waitFor(
          async () => {
            const found = (await deliveries(endpoint.id)).find((d) => d.id === deliveryId);
            return found !== undefined && found.attempts.length >= n ? found : null;
          },
          `attempt ${n}`,
          ATTEMPT_WAIT_MS,
        );
      const waitOf = (d: Body) => Date.parse(d.nextAttemptAt) - Date.parse(d.attempts.at(-1).at);

      const first = await afterAttempt(1);
      expect(first).toMatchObject({ state: 'retrying' });
      expect(first.attempts[0]).toMatchObject({
        statusCode: 500,
        responseExcerpt: 'down for maintenance',
      });
      // A minute, ±20 %.
      expect(waitOf(first)).toBeGreaterThanOrEqual(0.8 * MINUTE_MS - 1000);
      expect(waitOf(first)).toBeLessThanOrEqual(1.2 * MINUTE_MS + 1000);
      expect(
        (await portal('GET', '/webhooks')).body.endpoints.find((e: Body) => e.id === endpoint.id)
          .failingSince,
      ).not.toBeNull();

      // Meanwhile a swap settles, its deposit and payout through the ledger.
      const completed = await realSwap();
      expect(completed).toBe('completed');
      expect(hooks.received).toHaveLength(1);

      answer = 'throttle';
      await advanceClock(2 * MINUTE_MS);
      const second = await afterAttempt(2);
      expect(second.attempts[1].statusCode).toBe(429);
      // Retry-After 600 s asks for longer than the backoff (2 min ± 20 %): it is honoured.
      expect(waitOf(second)).toBeGreaterThanOrEqual(600_000);

      answer = 'close';
      const beforeClose = hooks.received.length;
      await advanceClock(11 * MINUTE_MS);
      const third = await afterAttempt(3);
      // Written on a kept connection the receiver then closes, the request goes once more on a
      // new one within the attempt: the receiver may see this attempt twice, never more.
      const closeReceipts = hooks.received.length - beforeClose;
      expect([1, 2]).toContain(closeReceipts);
      expect(third.attempts[2]).toMatchObject({ statusCode: null });
      expect(third.attempts[2].error).toMatch(/ECONNRESET|socket hang up/);
      expect(waitOf(third)).toBeGreaterThanOrEqual(0.8 * 4 * MINUTE_MS - 1000);

      answer = 'hang';
      await advanceClock(5 * MINUTE_MS);
      const fourth = await afterAttempt(4);
      expect(fourth.attempts[3]).toMatchObject({
        statusCode: null,
        error: `no complete answer within ${TIMEOUT_MS} ms`,
      });

      answer = 'ok';
      await advanceClock(10 * MINUTE_MS);
      const fifth = await afterAttempt(5);
      expect(fifth).toMatchObject({ state: 'delivered', nextAttemptAt: null });
      expect(hooks.received.map((r) => r.json.id)).toEqual(
        Array(4 + closeReceipts).fill(sent.body.delivery.eventId),
      );
      expect(hooks.received.map((r) => r.headers['poolparty-delivery-attempt'])).toEqual([
        '1',
        '2',
        ...Array(closeReceipts).fill('3'),
        '4',
        '5',
      ]);
      expect(hooks.received.every((r) => signedWith(r, secret))).toBe(true);
      expect(
        (await portal('GET', '/webhooks')).body.endpoints.find((e: Body) => e.id === endpoint.id)
          .failingSince,
      ).toBeNull();
    }, 180_000);

    it('never follows a redirect: a 3xx is a failed attempt naming its Location', async () => {
      const hooks = await receiver();
      const elsewhere = await receiver();
      hooks.answerWith(() => ({ status: 302, headers: { location: elsewhere.url } }));
      const { endpoint } = await register(hooks.url, { events: ['api_key.*'] });
      const sent = await portal('POST', `/webhooks/${endpoint.id}/test`);
      const failed = await waitFor(
        async () =>
          (await deliveries(endpoint.id)).find(
            (d) => d.id === sent.body.delivery.id && d.attempts.length > 0,
          ) ?? null,
        'the redirected attempt',
        ATTEMPT_WAIT_MS,
      );
      expect(failed.state).toBe('retrying');
      expect(failed.attempts[0]).toMatchObject({
        statusCode: 302,
        error: `redirect not followed: 302 to ${elsewhere.url}`,
      });
      expect(elsewhere.received).toEqual([]);

      // A resend is the same event again, with a delivery of its own.
      hooks.answerWith(() => ({ status: 204 }));
      const resent = await portal(
        'POST',
        `/webhooks/${endpoint.id}/deliveries/${sent.body.delivery.id}/resend`,
      );
      expect(resent.status).toBe(202);
      expect(resent.body.delivery).toMatchObject({
        eventId: sent.body.delivery.eventId,
        state: 'pending',
      });
      expect(resent.body.delivery.id).not.toBe(sent.body.delivery.id);
    }, 60_000);
  });

  describe.skipIf(backend.skipReason !== null)("the developer's own events", () => {
    it('sends a withdrawal paying then completed, a collection paid and a revoked key', async () => {
      const hooks = await receiver();
      const { secret } = await register(hooks.url, {
        events: ['liquidity_withdrawal.*', 'collection.*', 'api_key.*'],
      });
      const withdrawalId = await withdrawnLiquidity();
      expect(await realSwap()).toBe('completed');
      const collectionId = await collectedEarnings();
      const spare = await portal('POST', '/keys', { name: 'spare' });
      expect((await portal('DELETE', `/keys/${spare.body.keyId}`)).status).toBe(200);

      const wanted = [
        `evt_withdrawal_${withdrawalId}_paying`,
        `evt_withdrawal_${withdrawalId}_completed`,
        `evt_collection_${collectionId}`,
        `evt_api_key_${spare.body.keyId}_revoked`,
      ];
      const received = await waitFor(
        async () => {
          const ids = new Set(hooks.received.map((r) => r.json.id));
          return wanted.every((id) => ids.has(id)) ? hooks.received : null;
        },
        "the developer's events",
        ATTEMPT_WAIT_MS * 2,
      );
      const byId = new Map(received.map((r) => [r.json.id, r]));
      expect(received.every((r) => signedWith(r, secret))).toBe(true);
      expect(received.map((r) => r.json.type).every((type) => !type.startsWith('swap.'))).toBe(
        true,
      );
      const [paying, completed, paid, revoked] = wanted.map((id) => byId.get(id)?.json);
      expect(paying).toMatchObject({
        type: 'liquidity_withdrawal.paying',
        data: { object: { withdrawalId } },
      });
      expect(completed).toMatchObject({
        type: 'liquidity_withdrawal.completed',
        data: { object: { withdrawalId, status: 'completed' } },
      });
      expect(paid).toMatchObject({
        type: 'collection.paid',
        data: { object: { collectionId, status: 'collected' } },
      });
      expect(revoked).toMatchObject({
        type: 'api_key.revoked',
        data: { object: { keyId: spare.body.keyId } },
      });
      expect(revoked?.data.object.revokedAt).not.toBeNull();
      // A withdrawal's events arrive in the order they happened.
      const order = received.map((r) => r.json.id).filter((id) => id.startsWith('evt_withdrawal_'));
      expect([...new Set(order)]).toEqual(wanted.slice(0, 2));
    }, 120_000);
  });

  /**
   * `count` swaps deposited through the ledger and settled by the engine, by parties swapping in
   * turn (one open swap each: the active-intent guard); their ids once all completed.
   */
  async function settledSwaps(count: number): Promise<string[]> {
    const swappers = await Promise.all(
      Array.from({ length: SWAPPERS }, async (_, n) => {
        const swapper = await wallet(`swapper-${n}`);
        await mintAmulet(swapper.party.partyId, '10000');
        return swapper;
      }),
    );
    const ids: string[] = [];
    await Promise.all(
      swappers.map(async (swapper, n) => {
        for (let i = n; i < count; i += SWAPPERS) {
          const settled = await swapSettled(swapper);
          expect(settled.status).toBe('completed');
          ids.push(settled.intentId);
        }
      }),
    );
    return ids;
  }

  async function mintAmulet(partyId: string, amount: string): Promise<void> {
    const ledger = t.service.ctx.devnetLedger;
    const pool = t.service.devnet?.pools.find((p) => p.poolId === 'amulet-usdcx');
    if (ledger === null || pool === undefined) throw new Error('a devnet service with its pools');
    await ledger.mint({
      owner: partyId,
      instrument: pool.tokenA as Instrument,
      amount: Amount.parse(amount),
    });
  }

  async function cancelledLiquidity(token: string): Promise<string> {
    const created = await request<Body>(t.url, 'POST', '/v1/liquidity/intents', {
      apiKey: developerKey,
      walletToken: token,
      body: { poolId: 'amulet-usdcx', amountA: '10' },
    });
    expect(created.status).toBe(201);
    const id = created.body.liquidityIntentId;
    const cancelled = await request(t.url, 'POST', `/v1/liquidity/intents/${id}/cancel`, {
      apiKey: developerKey,
      walletToken: token,
    });
    expect(cancelled.status).toBe(200);
    return id;
  }

  /** Every state change of these intents, by the event id the service derives from its row. */
  async function expectedEvents(swaps: readonly string[], intents: readonly string[]) {
    const expected = new Map<string, { type: string; subject: string; seq: number }>();
    for (const id of swaps) {
      for (const event of await listIntentEvents(db, id)) {
        if (event.legEvent != null) continue;
        expected.set(`evt_swap_${event.seq}`, {
          type: `swap.${event.status}`,
          subject: id,
          seq: event.seq,
        });
      }
    }
    for (const id of intents) {
      for (const event of await listLiquidityEvents(db, id)) {
        expected.set(`evt_liquidity_${event.seq}`, {
          type: `liquidity_intent.${event.status}`,
          subject: id,
          seq: event.seq,
        });
      }
    }
    expect(expected.size).toBeGreaterThanOrEqual(7 * SWAPS + 2 * LIQUIDITY_INTENTS);
    return expected;
  }

  /** A swap deposited through the ledger and settled by the engine; its final state. */
  async function realSwap(): Promise<string> {
    const swapper = await wallet('real');
    await mintAmulet(swapper.party.partyId, '100');
    return (await swapSettled(swapper)).status;
  }

  /** One swap of `swapper`, deposited and settled; its id and final state. */
  async function swapSettled(swapper: { party: DevnetParty; token: string }) {
    const created = await request<Body>(t.url, 'POST', '/v1/swaps', {
      apiKey: developerKey,
      walletToken: swapper.token,
      body: { fromToken: 'Amulet', toToken: 'USDCx', amount: '10', poolId: 'amulet-usdcx' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await depositFor(t, swapper.party, created.body);
    const settled = await waitFor(
      async () => {
        const status = await request<Body>(t.url, 'GET', `/v1/swaps/${created.body.intentId}`, {
          apiKey: developerKey,
          walletToken: swapper.token,
        });
        return TERMINAL.includes(status.body.status) ? status : null;
      },
      'the swap to settle',
      SETTLE_WAIT_MS,
    );
    return { intentId: created.body.intentId as string, status: settled.body.status as string };
  }

  /** Liquidity deposited on both sides and half of it withdrawn; the withdrawal's id once paid. */
  async function withdrawnLiquidity(): Promise<string> {
    const ledger = t.service.ctx.devnetLedger;
    const pool = t.service.devnet?.pools.find((p) => p.poolId === 'amulet-usdcx');
    if (ledger === null || pool === undefined) throw new Error('a devnet service with its pools');
    const lp = await wallet('lp');
    for (const [instrument, amount] of [
      [pool.tokenA, '10000'],
      [pool.tokenB, '2000'],
    ] as const) {
      await ledger.mint({
        owner: lp.party.partyId,
        instrument: instrument as Instrument,
        amount: Amount.parse(amount),
      });
    }
    const call = (method: string, path: string, body?: unknown) =>
      request<Body>(t.url, method, path, {
        apiKey: developerKey,
        walletToken: lp.token,
        ...(body !== undefined && { body }),
      });
    const until = (path: string, done: (body: Body) => boolean) =>
      waitFor(
        async () => {
          const { body } = await call('GET', path);
          return done(body) ? body : null;
        },
        path,
        ATTEMPT_WAIT_MS,
      );
    const { body: intent } = await call('POST', '/v1/liquidity/intents', {
      poolId: pool.poolId,
      amountA: '1000',
    });
    await depositBothSides(ledger, pool, lp.party.partyId, intent);
    await until(
      `/v1/liquidity/intents/${intent.liquidityIntentId}`,
      (b) => b.status === 'completed',
    );
    const created = await call('POST', '/v1/liquidity/withdrawals', {
      poolId: pool.poolId,
      shareBps: 5000,
      minimumA: '0',
      minimumB: '0',
    });
    expect(created.status).toBe(201);
    await until(
      `/v1/liquidity/withdrawals/${created.body.withdrawalId}`,
      (b) => b.status === 'completed',
    );
    return created.body.withdrawalId;
  }

  /** The developer's accrued Amulet earnings of the pool collected; the collection's id once paid. */
  async function collectedEarnings(): Promise<string> {
    const pool = t.service.devnet?.pools.find((p) => p.poolId === 'amulet-usdcx');
    if (pool === undefined) throw new Error('no amulet-usdcx pool');
    const made = await portal('POST', '/collections', {
      poolId: pool.poolId,
      token: pool.tokenA.id,
      tokenAdmin: pool.tokenA.admin,
    });
    expect(made.status).toBe(201);
    const id = made.body.collectionId;
    await waitFor(
      async () =>
        (await portal('GET', `/collections/${id}`)).body.status === 'collected' ? true : null,
      'the collection to arrive',
      ATTEMPT_WAIT_MS,
    );
    return id;
  }
});

describe('webhooks of atomic swaps, on a service with LEDGER=canton', () => {
  let canton: CantonService;
  let devnet: ServedDevnet;
  let service: RunningService;
  let session: string;
  let apiKey: string;
  let apiKeyId: string;
  let token: string;
  const receivers: WebhookReceiver[] = [];
  const url = () => service.url ?? '';
  const portal = (method: string, path: string, body?: unknown) =>
    request<Body>(url(), method, `/api/sdk${path}`, {
      headers: { authorization: `Bearer ${session}` },
      ...(body !== undefined && { body }),
    });
  const v1 = (method: string, path: string, body?: unknown) =>
    request<Body>(url(), method, path, {
      apiKey,
      walletToken: token,
      ...(body !== undefined && { body }),
    });
  const endpoint = async (extra: Record<string, unknown>) => {
    const hooks = await startWebhookReceiver();
    receivers.push(hooks);
    const created = await portal('POST', '/webhooks', { url: hooks.url, ...extra });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return { hooks, id: created.body.endpoint.id as string, secret: created.body.secret as string };
  };

  beforeAll(async () => {
    canton = await startCantonService();
    ({ devnet, service } = canton);
    const { login } = await portalLogin<{ token: string }>(url(), devnet.seed.developer);
    session = login.body.token;
    const key = await portal('POST', '/keys', { name: 'atomic webhooks' });
    expect(key.status).toBe(201);
    apiKey = key.body.key;
    apiKeyId = key.body.keyId;
    const [user] = devnet.seed.users;
    if (user === undefined) throw new Error('no seeded user');
    token = await walletTokenFor({ url: url(), apiKey }, user);
  }, SERVICE_START_TIMEOUT_MS);

  afterAll(async () => {
    for (const made of receivers) await made.close();
    await canton?.close();
  });

  async function preparedSwap(): Promise<Body> {
    const [user] = devnet.seed.users;
    const prepared = await v1('POST', '/v1/atomic-swaps', {
      fromToken: 'Amulet',
      toToken: 'USDCx',
      amount: '50',
      poolId: 'amulet-usdcx',
      keyFingerprint: fingerprint(Buffer.from(user?.publicKey ?? '', 'hex')),
    });
    expect(prepared.status, JSON.stringify(prepared.body)).toBe(201);
    return prepared.body;
  }

  /** The swap signed by its trader and executed, as its event stream told it from prepare on. */
  async function executedFollowingItsStream(swap: Body): Promise<SseEvent[]> {
    const path = `/v1/atomic-swaps/${swap.atomicSwapId}`;
    const stream = await openSse(url(), `${path}/events`, { apiKey, walletToken: token });
    const first = await stream.events(1);
    const hash = Buffer.from(swap.preparedTransactionHash, 'base64');
    const [user] = devnet.seed.users;
    const done = await v1('POST', `${path}/execute`, {
      signature: Buffer.from(sign(hash, Buffer.from(user?.privateKey ?? '', 'hex'))).toString(
        'base64',
      ),
      publicKey: Buffer.from(user?.publicKey ?? '', 'hex').toString('base64'),
    });
    expect(done.body.status).toBe('completed');
    return [...first, ...(await stream.rest())];
  }

  it(
    'delivers its events by kind and type, with the ids, order and objects of its event stream',
    async () => {
      const all = await endpoint({ events: ['atomic_swap.*'] });
      const completions = await endpoint({ events: ['atomic_swap.completed'] });
      const swapsOnly = await endpoint({ events: ['swap.*'] });
      const otherKey = await portal('POST', '/keys', { name: 'another integration' });
      const ofOtherKey = await endpoint({ apiKeyIds: [otherKey.body.keyId] });
      const ofThisKey = await endpoint({ apiKeyIds: [apiKeyId] });

      const executed = await preparedSwap();
      const streamed = await executedFollowingItsStream(executed);
      expect(streamed.map((event) => event.event)).toEqual(['prepared', 'executing', 'completed']);
      const cancelled = await preparedSwap();
      expect(
        (await v1('POST', `/v1/atomic-swaps/${cancelled.atomicSwapId}/cancel`)).body.status,
      ).toBe('cancelled');
      const cancelledEvents = await listAtomicSwapEvents(service.ctx.db, cancelled.atomicSwapId);
      const wanted = [
        ...streamed.map((event) => `evt_atomic_swap_${event.id}`),
        ...cancelledEvents.map((event) => `evt_atomic_swap_${event.seq}`),
      ];
      const arrived = (hooks: WebhookReceiver, count: number) =>
        waitFor(
          async () => {
            const ids = new Set(hooks.received.map((r) => r.json.id));
            return ids.size >= count ? hooks.received : null;
          },
          `${count} events at the receiver`,
          ATTEMPT_WAIT_MS,
        );
      const received = await arrived(all.hooks, wanted.length);
      // Each swap's in its stream's order, each with its id and its data: what the stream sent.
      const firsts = [...new Map(received.map((r) => [r.json.id, r])).values()];
      const ofSwap = (swap: Body) =>
        firsts.filter((r) => r.json.data.object.atomicSwapId === swap.atomicSwapId);
      expect(ofSwap(executed).map((r) => [r.json.id, r.json.type])).toEqual(
        streamed.map((event) => [`evt_atomic_swap_${event.id}`, `atomic_swap.${event.event}`]),
      );
      expect(ofSwap(executed).map((r) => r.json.data.object)).toEqual(
        streamed.map((event) => event.data),
      );
      expect(ofSwap(cancelled).map((r) => r.json.type)).toEqual([
        'atomic_swap.prepared',
        'atomic_swap.cancelled',
      ]);
      expect(new Set(firsts.map((r) => r.json.id))).toEqual(new Set(wanted));
      // The last event's object is the swap as its route answers it.
      for (const swap of [executed, cancelled]) {
        expect(ofSwap(swap).at(-1)?.json.data.object).toEqual(
          (await v1('GET', `/v1/atomic-swaps/${swap.atomicSwapId}`)).body,
        );
      }
      expect(received.every((r) => signedWith(r, all.secret))).toBe(true);
      expect(received.every((r) => r.headers['poolparty-event-type'] === r.json.type)).toBe(true);
      // An exact type is that type only; the key filter narrows atomic swaps as it does intents.
      const [completion] = await arrived(completions.hooks, 1);
      expect(completion?.json.id).toBe(wanted[2]);
      expect((await arrived(ofThisKey.hooks, wanted.length)).length).toBeGreaterThanOrEqual(
        wanted.length,
      );
      // Every delivery of these events was made with the first ones: the rest got none.
      const deliveriesOf = async (id: string) =>
        (await portal('GET', `/webhooks/${id}/deliveries?limit=100`)).body.deliveries as Body[];
      expect((await deliveriesOf(completions.id)).map((d) => d.eventId)).toEqual([wanted[2]]);
      expect(await deliveriesOf(swapsOnly.id)).toEqual([]);
      expect(await deliveriesOf(ofOtherKey.id)).toEqual([]);
    },
    ATTEMPT_WAIT_MS * 3,
  );
});
