/**
 * The HTTP surface as a client sees it before any business logic: the OpenAPI document, CORS for
 * browser apps, and per-key rate limits.
 */
import { validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayPrefix, generateApiKey, hashApiKey } from '../src/auth/api-keys.js';
import { insertApiKey, setApiKeyRateLimits } from '../src/store/api-keys.js';
import { request, startTestService, type TestService } from './support/service.js';

interface OpenApiDocument {
  readonly openapi: string;
  readonly paths: Record<string, Record<string, unknown> | undefined>;
}

/** Every endpoint of the client API and the portal (SPEC §2.1). */
const SPEC_ENDPOINTS = [
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
] as const;

describe('HTTP surface', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ POOLPARTY_CORS_ORIGINS: 'https://app.example' });
  });
  afterAll(async () => t?.close());

  it('serves a valid OpenAPI 3.1 document describing every endpoint', async () => {
    const document = await request<OpenApiDocument>(t.url, 'GET', '/openapi.json');
    expect(document.status).toBe(200);
    expect(document.body.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(document.body) as never);
    expect(result.valid ? [] : result.errors).toEqual([]);
    for (const [method, path] of SPEC_ENDPOINTS) {
      expect(document.body.paths[path]?.[method], `${method.toUpperCase()} ${path}`).toBeDefined();
    }
    const docs = await fetch(`${t.url}/docs/`);
    expect(docs.status).toBe(200);
  });

  it('lets the configured browser origin call /v1 and read the request id', async () => {
    const preflight = await fetch(`${t.url}/v1/pools`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'x-api-key',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain(
      'x-api-key',
    );
    const pools = await fetch(`${t.url}/v1/pools`, {
      headers: { origin: 'https://app.example', 'x-api-key': t.apiKey },
    });
    expect(pools.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(pools.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
  });

  it('lets the configured browser origin make signed devnet deposits', async () => {
    const preflight = await fetch(`${t.url}/devnet/transfers`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-party-signature',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain(
      'x-party-signature',
    );
  });

  it('does not open /v1 to other origins', async () => {
    const pools = await fetch(`${t.url}/v1/pools`, {
      headers: { origin: 'https://evil.example', 'x-api-key': t.apiKey },
    });
    expect(pools.headers.get('access-control-allow-origin')).toBeNull();
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
    expect(Number(refused.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    // Another key is not affected.
    expect((await request(t.url, 'GET', '/v1/tokens', { apiKey: t.apiKey })).status).toBe(200);
  });
});
