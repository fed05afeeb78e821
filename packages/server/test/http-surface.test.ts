/**
 * The HTTP surface as a client sees it before any business logic: the OpenAPI document, CORS for
 * browser apps, and per-key rate limits.
 */

import { insertApiKey, setApiKeyRateLimits } from '@poolparty/store';
import { validate } from '@readme/openapi-parser';
import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayPrefix, generateApiKey, hashApiKey } from '../src/auth/api-keys.js';
import { DEFAULT_RATE_LIMITS } from '../src/auth/rate-limits.js';
import { devnetCorsDelegator } from '../src/http/devnet-cors.js';
import {
  expectProblem,
  portalLogin,
  request,
  startTestService,
  type TestService,
  walletTokenFor,
} from './support/service.js';

interface OpenApiDocument {
  readonly openapi: string;
  readonly paths: Record<string, Record<string, unknown> | undefined>;
}

/** Every endpoint of the client API and the portal (docs/spec/protocol.md#endpoints). */
const DOCUMENTED_ENDPOINTS = [
  ['get', '/v1/tokens'],
  ['get', '/v1/pools'],
  ['get', '/v1/pools/{poolId}'],
  ['get', '/v1/pools/{poolId}/stats'],
  ['get', '/v1/pools/{poolId}/ticker'],
  ['get', '/v1/quotes'],
  ['post', '/v1/swaps'],
  ['get', '/v1/swaps/{intentId}'],
  ['post', '/v1/swaps/{intentId}/cancel'],
  ['get', '/v1/swaps/{intentId}/events'],
  ['get', '/v1/track/{partyId}'],
  ['post', '/v1/wallet-auth/challenge'],
  ['post', '/v1/wallet-auth/verify'],
  ['post', '/api/sdk/wallet-login'],
  ['get', '/api/sdk/keys'],
  ['post', '/api/sdk/keys'],
  ['post', '/api/sdk/webhooks'],
  ['get', '/api/sdk/webhooks'],
  ['patch', '/api/sdk/webhooks/{endpointId}'],
  ['delete', '/api/sdk/webhooks/{endpointId}'],
  ['post', '/api/sdk/webhooks/{endpointId}/rotate-secret'],
  ['get', '/api/sdk/webhooks/{endpointId}/deliveries'],
  ['post', '/api/sdk/webhooks/{endpointId}/deliveries/{deliveryId}/resend'],
  ['post', '/api/sdk/webhooks/{endpointId}/test'],
] as const;

interface AskedRequest {
  readonly method: string;
  /** The request's headers, comma-separated, as a browser names them. */
  readonly headers: string;
}

/** A browser's CORS preflight from `origin` for a request of `asked` method and headers. */
function preflightOf(url: string, origin: string, asked: AskedRequest) {
  return fetch(url, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': asked.method,
      'access-control-request-headers': asked.headers,
    },
  });
}

/** The preflight is allowed: 204, `origin` echoed, and each header asked for allowed. */
async function expectPreflightAllowed(url: string, origin: string, asked: AskedRequest) {
  const preflight = await preflightOf(url, origin, asked);
  expect(preflight.status).toBe(204);
  expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
  const allowed = preflight.headers.get('access-control-allow-headers')?.toLowerCase() ?? '';
  for (const header of asked.headers.split(',')) expect(allowed).toContain(header);
}

describe('HTTP surface', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({
      POOLPARTY_CORS_ORIGINS: 'https://app.example',
      POOLPARTY_DEVNET_CONTROL_ORIGINS: 'https://console.example',
      POOLPARTY_PORTAL_ORIGINS: 'https://console.example',
    });
  });
  afterAll(async () => t?.close());

  it('serves a valid OpenAPI 3.1 document describing every endpoint', async () => {
    const document = await request<OpenApiDocument>(t.url, 'GET', '/openapi.json');
    expect(document.status).toBe(200);
    expect(document.body.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(document.body) as never);
    expect(result.valid ? [] : result.errors).toEqual([]);
    for (const [method, path] of DOCUMENTED_ENDPOINTS) {
      expect(document.body.paths[path]?.[method], `${method.toUpperCase()} ${path}`).toBeDefined();
    }
    const docs = await fetch(`${t.url}/docs/`);
    expect(docs.status).toBe(200);
  });

  it('lets the configured browser origin call /v1 and read the request id', async () => {
    await expectPreflightAllowed(`${t.url}/v1/pools`, 'https://app.example', {
      method: 'GET',
      headers: 'x-api-key',
    });
    const pools = await fetch(`${t.url}/v1/pools`, {
      headers: { origin: 'https://app.example', 'x-api-key': t.apiKey },
    });
    expect(pools.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(pools.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
  });

  it('lets the configured browser origin make signed devnet deposits', async () => {
    await expectPreflightAllowed(`${t.url}/devnet/transfers`, 'https://app.example', {
      method: 'POST',
      headers: 'content-type,x-party-signature',
    });
  });

  it('answers CORS for the devnet controls only to their own origins, never *', async () => {
    const allowOrigin = async (origin: string) => {
      const asked = { method: 'POST', headers: 'content-type' };
      const preflight = await preflightOf(`${t.url}/devnet/clock`, origin, asked);
      return preflight.headers.get('access-control-allow-origin');
    };
    // The /v1 origin may deposit, but not move the clock.
    expect(await allowOrigin('https://app.example')).toBeNull();
    expect(await allowOrigin('https://evil.example')).toBeNull();
    expect(await allowOrigin('https://console.example')).toBe('https://console.example');
    expect(await allowOrigin(t.url)).toBe(t.url);

    const move = (headers: Record<string, string>) =>
      fetch(`${t.url}/devnet/clock`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ advanceMs: 0 }),
      });
    const foreign = await move({ origin: 'https://app.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    expect(await foreign.json()).toMatchObject({ code: 'origin_not_allowed' });
    expect((await move({})).status).toBe(200);
    const configured = await move({ origin: 'https://console.example' });
    expect(configured.status).toBe(200);
    expect(configured.headers.get('access-control-allow-origin')).toBe('https://console.example');
    // Reading the clock stays open like the other reads: signed requests need it.
    const read = await fetch(`${t.url}/devnet/clock`, {
      headers: { origin: 'https://app.example' },
    });
    expect(read.headers.get('access-control-allow-origin')).toBe('https://app.example');
  });

  it('does not open /v1 to other origins', async () => {
    const pools = await fetch(`${t.url}/v1/pools`, {
      headers: { origin: 'https://evil.example', 'x-api-key': t.apiKey },
    });
    expect(pools.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('takes portal writes with the session cookie from POOLPARTY_PORTAL_ORIGINS and its own https pages', async () => {
    const [developer] = t.users;
    if (!developer) throw new Error('the devnet seed has no users');
    const { login } = await portalLogin<{ token: string }>(t.url, developer);
    expect(login.status).toBe(200);
    const create = (headers: Record<string, string>) =>
      request(t.url, 'POST', '/api/sdk/keys', {
        headers: { cookie: `pp_session=${login.body.token}`, ...headers },
        body: {},
      });
    expect((await create({ origin: 'https://console.example' })).status).toBe(201);
    // A /v1 CORS origin is not a portal origin.
    expectProblem(await create({ origin: 'https://app.example' }), 403, 'origin_not_allowed');
    // Behind a TLS-ending proxy the service's own pages are https.
    const own = `https://${new URL(t.url).host}`;
    expect((await create({ origin: own, 'x-forwarded-proto': 'https' })).status).toBe(201);
    expectProblem(await create({ origin: own }), 403, 'origin_not_allowed');
  });

  it('refuses a query parameter the operation does not define, naming it, on every route family', async () => {
    const [user] = t.users;
    if (!user) throw new Error('the devnet seed has no users');
    const walletToken = await walletTokenFor(t, user);
    const swap = 'swp_00000000000000000000000000';
    const paths = [
      ['GET', '/v1/tokens'],
      ['GET', '/v1/pools'],
      ['GET', '/v1/pools/amulet-usdcx'],
      ['GET', '/v1/pools/amulet-usdcx/ticker'],
      ['GET', `/v1/swaps/${swap}`],
      ['GET', `/v1/swaps/${swap}/progress`],
      ['POST', `/v1/swaps/${swap}/cancel`],
      ['GET', '/v1/liquidity/positions'],
      ['GET', '/api/sdk/session'],
      ['GET', '/healthz'],
      ['GET', '/metrics'],
    ] as const;
    for (const [method, path] of paths) {
      const answer = await request(t.url, method, `${path}?limt=5`, {
        apiKey: t.apiKey,
        walletToken,
      });
      expect({ path, status: answer.status }).toEqual({ path, status: 400 });
      expectProblem(answer, 400, 'validation_error');
      expect(answer.body).toMatchObject({ errors: [{ path: '/querystring/limt' }] });
    }
    // The devnet endpoints read no query and take any (a proxy may append one).
    expect((await request(t.url, 'GET', '/devnet/clock?via=proxy')).status).toBe(200);
  });

  it('limits reads per API key with the limit stored on the key', async () => {
    const { db, clock } = t.service.ctx;
    const key = generateApiKey('devnet');
    const developer = t.service.devnet?.developer.partyId ?? '';
    const record = await insertApiKey(db, {
      keyId: 'key_limited',
      developerParty: developer,
      name: 'limited',
      keyHash: hashApiKey(key),
      prefix: displayPrefix(key),
      environment: 'devnet',
      createdAt: clock.now(),
    });
    await setApiKeyRateLimits(db, record.keyId, { readsPerMin: 2, swapsPerMin: null });
    const first = await request(t.url, 'GET', '/v1/tokens', { apiKey: key });
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-limit')).toBe('2');
    expect(first.headers.get('ratelimit-remaining')).toBe('1');
    expect((await request(t.url, 'GET', '/v1/tokens', { apiKey: key })).status).toBe(200);
    const refused = await request(t.url, 'GET', '/v1/tokens', { apiKey: key });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    // The quota is back when the client may retry, not when the bucket is full (60 s here).
    expect(Number(refused.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit-reset')).toBe(refused.headers.get('retry-after'));
    // Another key is not affected.
    expect((await request(t.url, 'GET', '/v1/tokens', { apiKey: t.apiKey })).status).toBe(200);
    // Preparing an atomic swap is a swap's creation: the key's swaps budget, not its reads'.
    const prepare = await request(t.url, 'POST', '/v1/atomic-swaps', {
      apiKey: t.apiKey,
      body: {},
    });
    expect(prepare.headers.get('ratelimit-limit')).toBe(String(DEFAULT_RATE_LIMITS.swapsPerMin));
  });
});

describe('CORS of the devnet controls with POOLPARTY_CORS_ORIGINS=*', () => {
  it('reflects only allowed origins for the controls while other devnet routes answer any', () => {
    const general = { origin: true as const };
    const delegate = devnetCorsDelegator({ general, controlOrigins: ['https://console.example'] });
    const optionsFor = (url: string, method: string, origin: string) => {
      let chosen: Record<string, unknown> = {};
      const request = {
        url,
        method,
        protocol: 'http',
        host: '127.0.0.1:8787',
        headers: { origin },
        raw: { headers: { origin }, socket: {} },
      } as unknown as FastifyRequest;
      delegate(request, (_error, options) => {
        chosen = options;
      });
      return chosen.origin;
    };
    expect(optionsFor('/devnet/clock', 'POST', 'https://evil.example')).toBe(false);
    expect(optionsFor('/devnet/faults?x=1', 'POST', 'https://evil.example')).toBe(false);
    expect(optionsFor('/devnet/oracle', 'POST', 'https://console.example')).toBe(
      'https://console.example',
    );
    expect(optionsFor('/devnet/clock', 'POST', 'http://127.0.0.1:8787')).toBe(
      'http://127.0.0.1:8787',
    );
    expect(optionsFor('/devnet/transfers', 'POST', 'https://evil.example')).toBe(true);
    expect(optionsFor('/devnet/clock', 'GET', 'https://evil.example')).toBe(true);
  });
});
