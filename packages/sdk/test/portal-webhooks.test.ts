/**
 * `withWebhooks(portal).webhooks`: each call is the route it names, under the portal's session;
 * what the service refuses arrives as the SDK's typed errors; only reads and changes that come out
 * the same twice are retried; bad parameters are refused before anything is sent.
 */
import { describe, expect, it } from 'vitest';
import {
  DeveloperPortal,
  NetworkError,
  NotFoundError,
  PoolParty,
  ValidationError,
} from '../src/index.js';
import { withLiquidity } from '../src/liquidity/index.js';
import { type WebhookEndpoint, withWebhooks } from '../src/webhooks/index.js';
import { fakeFetch, json, problem, type Reply, recordingSleep } from './support/fake-fetch.js';

const BASE = 'https://api.test.example';
const ENDPOINT_ID = 'we_0123456789abcdef';
const DELIVERY_ID = 'wd_0123456789abcdef';

const endpoint: WebhookEndpoint = {
  id: ENDPOINT_ID,
  url: 'https://shop.example/hooks',
  events: ['swap.*'],
  apiKeyIds: null,
  description: 'shop',
  enabled: true,
  disabledReason: null,
  disabledAt: null,
  createdAt: '2026-12-02T19:00:00.000Z',
  updatedAt: '2026-12-02T19:00:00.000Z',
  secretRotatedAt: null,
  failingSince: null,
};
const delivery = {
  id: DELIVERY_ID,
  eventId: 'evt_1',
  eventType: 'webhook.test',
  state: 'pending',
  attempts: [],
  nextAttemptAt: '2026-12-02T19:00:00.000Z',
  createdAt: '2026-12-02T19:00:00.000Z',
};

function portal(...replies: Reply[]) {
  const fake = fakeFetch(...replies);
  const dev = withWebhooks(
    new DeveloperPortal({
      baseUrl: BASE,
      session: 'session-token',
      fetch: fake.fetch,
      sleep: recordingSleep().sleep,
    }),
  );
  return { dev, requests: fake.requests };
}

describe('portal.webhooks calls', () => {
  it('list: GET /api/sdk/webhooks with the session, answering the endpoints', async () => {
    const { dev, requests } = portal(json({ endpoints: [endpoint] }));
    await expect(dev.webhooks.list()).resolves.toEqual({ endpoints: [endpoint] });
    expect(requests).toMatchObject([{ method: 'GET', url: `${BASE}/api/sdk/webhooks` }]);
    expect(requests[0]?.headers.authorization).toBe('Bearer session-token');
  });

  it('create: POSTs only the members given, answering the endpoint and its secret', async () => {
    const created = { endpoint, secret: `whsec_${'a'.repeat(43)}` };
    const { dev, requests } = portal(json(created, 201), json(created, 201));
    await expect(dev.webhooks.create({ url: endpoint.url })).resolves.toEqual(created);
    await dev.webhooks.create({
      url: endpoint.url,
      events: ['swap.completed', 'collection.*'],
      apiKeyIds: null,
      description: 'shop',
    });
    expect(requests.map((r) => [r.method, r.url, r.body])).toEqual([
      ['POST', `${BASE}/api/sdk/webhooks`, { url: endpoint.url }],
      [
        'POST',
        `${BASE}/api/sdk/webhooks`,
        {
          url: endpoint.url,
          events: ['swap.completed', 'collection.*'],
          apiKeyIds: null,
          description: 'shop',
        },
      ],
    ]);
  });

  it('update: PATCHes the endpoint with what changes', async () => {
    const { dev, requests } = portal(json({ ...endpoint, enabled: false }));
    const changed = await dev.webhooks.update(ENDPOINT_ID, {
      enabled: false,
      apiKeyIds: ['key_1'],
    });
    expect(changed.enabled).toBe(false);
    expect(requests).toMatchObject([
      {
        method: 'PATCH',
        url: `${BASE}/api/sdk/webhooks/${ENDPOINT_ID}`,
        body: { enabled: false, apiKeyIds: ['key_1'] },
      },
    ]);
  });

  it('delete: DELETE, resolving with nothing on 204', async () => {
    const { dev, requests } = portal(new Response(null, { status: 204 }));
    await expect(dev.webhooks.delete(ENDPOINT_ID)).resolves.toBeUndefined();
    expect(requests).toMatchObject([
      { method: 'DELETE', url: `${BASE}/api/sdk/webhooks/${ENDPOINT_ID}` },
    ]);
  });

  it('rotateSecret: POSTs the overlap when given, an empty body when not', async () => {
    const rotated = {
      secret: `whsec_${'b'.repeat(43)}`,
      previousSecretExpiresAt: '2026-12-03T19:00:00.000Z',
    };
    const { dev, requests } = portal(json(rotated), json(rotated));
    await expect(dev.webhooks.rotateSecret(ENDPOINT_ID, { overlapSeconds: 0 })).resolves.toEqual(
      rotated,
    );
    await dev.webhooks.rotateSecret(ENDPOINT_ID);
    const url = `${BASE}/api/sdk/webhooks/${ENDPOINT_ID}/rotate-secret`;
    expect(requests.map((r) => [r.method, r.url, r.body])).toEqual([
      ['POST', url, { overlapSeconds: 0 }],
      ['POST', url, {}],
    ]);
  });

  it('deliveries: GET a page, with limit and before in the query when given', async () => {
    const page = { deliveries: [delivery], next: DELIVERY_ID };
    const { dev, requests } = portal(json(page), json(page));
    await expect(dev.webhooks.deliveries(ENDPOINT_ID)).resolves.toEqual(page);
    await dev.webhooks.deliveries(ENDPOINT_ID, { limit: 50, before: DELIVERY_ID });
    const url = `${BASE}/api/sdk/webhooks/${ENDPOINT_ID}/deliveries`;
    expect(requests.map((r) => r.url)).toEqual([url, `${url}?limit=50&before=${DELIVERY_ID}`]);
  });

  it('resend and test: POST, answering the queued delivery', async () => {
    const { dev, requests } = portal(json({ delivery }, 202), json({ delivery }, 202));
    await expect(dev.webhooks.resend(ENDPOINT_ID, DELIVERY_ID)).resolves.toEqual({ delivery });
    await expect(dev.webhooks.test(ENDPOINT_ID)).resolves.toEqual({ delivery });
    expect(requests.map((r) => [r.method, r.url])).toEqual([
      ['POST', `${BASE}/api/sdk/webhooks/${ENDPOINT_ID}/deliveries/${DELIVERY_ID}/resend`],
      ['POST', `${BASE}/api/sdk/webhooks/${ENDPOINT_ID}/test`],
    ]);
  });

  it('escapes ids, so one cannot reach another route', async () => {
    const { dev, requests } = portal(json({ delivery }, 202));
    await dev.webhooks.test('we_x/../../keys');
    expect(requests[0]?.url).toBe(`${BASE}/api/sdk/webhooks/we_x%2F..%2F..%2Fkeys/test`);
  });
});

describe('portal.webhooks failures', () => {
  it('are the SDK’s typed errors with the service’s code', async () => {
    const { dev } = portal(problem('webhook_url_not_allowed', 400), problem('not_found', 404));
    await expect(dev.webhooks.create({ url: 'http://10.0.0.1/' })).rejects.toMatchObject({
      name: 'ValidationError',
      code: 'webhook_url_not_allowed',
      status: 400,
    });
    await expect(dev.webhooks.delete(ENDPOINT_ID)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('retry reads and updates after a lost answer', async () => {
    const lost = new TypeError('connection reset');
    const { dev, requests } = portal(
      lost,
      json({ endpoints: [] }),
      lost,
      json(endpoint),
      lost,
      json({ deliveries: [], next: null }),
    );
    await dev.webhooks.list();
    await dev.webhooks.update(ENDPOINT_ID, { description: 'again' });
    await dev.webhooks.deliveries(ENDPOINT_ID);
    expect(requests.map((r) => r.method)).toEqual(['GET', 'GET', 'PATCH', 'PATCH', 'GET', 'GET']);
  });

  it.each([
    [
      'create',
      (dev: ReturnType<typeof portal>['dev']) => dev.webhooks.create({ url: endpoint.url }),
    ],
    ['delete', (dev: ReturnType<typeof portal>['dev']) => dev.webhooks.delete(ENDPOINT_ID)],
    [
      'rotateSecret',
      (dev: ReturnType<typeof portal>['dev']) => dev.webhooks.rotateSecret(ENDPOINT_ID),
    ],
    [
      'resend',
      (dev: ReturnType<typeof portal>['dev']) => dev.webhooks.resend(ENDPOINT_ID, DELIVERY_ID),
    ],
    ['test', (dev: ReturnType<typeof portal>['dev']) => dev.webhooks.test(ENDPOINT_ID)],
  ])(
    '%s is sent once: a lost answer is a NetworkError, not a second effect',
    async (_name, call) => {
      const { dev, requests } = portal(new TypeError('connection reset'), json({}));
      await expect(call(dev)).rejects.toBeInstanceOf(NetworkError);
      expect(requests).toHaveLength(1);
      expect(requests[0]?.headers['idempotency-key']).toBeUndefined();
    },
  );

  it('refuse bad parameters before sending anything', async () => {
    const { dev, requests } = portal(json({}));
    const calls = [
      () => dev.webhooks.create({ url: '' }),
      () => dev.webhooks.create({ url: endpoint.url, events: ['swap.*', ''] }),
      () => dev.webhooks.create({ url: endpoint.url, events: 'swap.*' as unknown as string[] }),
      () => dev.webhooks.create({ url: endpoint.url, apiKeyIds: [7 as unknown as string] }),
      () => dev.webhooks.update('', { enabled: true }),
      () => dev.webhooks.update(ENDPOINT_ID, {}),
      () => dev.webhooks.update(ENDPOINT_ID, { enabled: 'yes' as unknown as boolean }),
      () => dev.webhooks.rotateSecret(ENDPOINT_ID, { overlapSeconds: -1 }),
      () => dev.webhooks.rotateSecret(ENDPOINT_ID, { overlapSeconds: 1.5 }),
      () => dev.webhooks.deliveries(ENDPOINT_ID, { limit: 0 }),
      () => dev.webhooks.deliveries(ENDPOINT_ID, { before: '' }),
      () => dev.webhooks.resend(ENDPOINT_ID, ''),
    ];
    for (const call of calls) await expect(call()).rejects.toBeInstanceOf(ValidationError);
    expect(requests).toHaveLength(0);
  });
});

describe('withWebhooks', () => {
  it('returns the same portal, given webhooks once, with signIn’s session on later calls', async () => {
    const fake = fakeFetch(
      json({ token: 'fresh-session', expiresAt: '2026-12-03T00:00:00.000Z', partyId: 'dev::1' }),
      json({ endpoints: [] }),
    );
    const plain = new DeveloperPortal({ baseUrl: BASE, fetch: fake.fetch });
    const dev = withWebhooks(plain);
    expect(dev).toBe(plain);
    const { webhooks } = dev;
    expect(withWebhooks(dev).webhooks).toBe(webhooks);
    await dev.signIn({ partyId: 'dev::1', nonce: 'n', signature: 's', publicKey: 'k' });
    await dev.webhooks.list();
    expect(fake.requests[1]?.headers.authorization).toBe('Bearer fresh-session');
  });

  it('takes a developer portal only, and withLiquidity takes no portal', () => {
    const client = new PoolParty({ apiKey: 'pp_test_key', baseUrl: BASE });
    expect(() => withWebhooks(client as unknown as DeveloperPortal)).toThrow(ValidationError);
    expect(() => withWebhooks({} as DeveloperPortal)).toThrow(ValidationError);
    const dev = new DeveloperPortal({ baseUrl: BASE });
    expect(() => withLiquidity(dev as unknown as PoolParty)).toThrow(ValidationError);
  });
});
