/**
 * Webhooks (docs/spec/webhooks.md) against the real seeded service, on PGlite and on PostgreSQL:
 * the routes as a developer calls them (secrets shown once, bad input refused with stable codes,
 * another developer's endpoints not found); every event of many swaps and liquidity intents
 * delivered to a receiver on loopback, each signature verified with node:crypto, in order per
 * intent, none missing, repeats only with the same event id; a receiver that fails (500, 429 with
 * `Retry-After`, a closed connection, a timeout) retried on the schedule as the service clock
 * moves, while swaps still complete; a redirect never followed; and private addresses refused on
 * mainnet, at registration and after DNS resolution.
 */
import { randomUUID } from 'node:crypto';
import { waitFor } from '@poolparty/settlement/testing';
import {
  type Database,
  getIntent,
  insertFeeEvent,
  listIntentEvents,
  listLiquidityEvents,
  transitionIntent,
} from '@poolparty/store';
import {
  createSchema,
  dropSchema,
  postgresSkipReason,
  schemaUrl,
  testFeeEvent,
} from '@poolparty/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevnetParty } from '../src/devnet-bootstrap.js';
import {
  type Body,
  depositFor,
  expectProblem,
  fundDevnetParty,
  type JsonResponse,
  newDevnetParty,
  portalLogin,
  request,
  SERVICE_START_TIMEOUT_MS,
  startTestService,
  type TestService,
} from './support/service.js';
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
    expect(created.status).toBe(201);
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
});
