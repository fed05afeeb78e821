/**
 * How the service serves its web pages (src/http/web-app.ts): index.html at the app's own paths
 * only, revalidated on every visit; hashed assets cached for ever, gzipped when the browser takes
 * it; the pages' own content security policy; `/app-config.json` with the key the pages use
 * (their own on devnet) and whether the ledger prepares atomic swaps; and every API path
 * unchanged.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { fingerprint } from '@poolparty/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startupBanner } from '../src/banner.js';
import { createFastify } from '../src/http/fastify.js';
import { webAppContentSecurityPolicy, webAppRoutes } from '../src/http/web-app.js';
import {
  seededUser,
  startTestService,
  type TestService,
  walletTokenFor,
} from './support/service.js';

const INDEX =
  '<!doctype html><title>PoolParty</title><script type="module" src="/assets/index-Ab12.js"></script>';
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(2_000))});`;

function fixtureBuild(): string {
  const dist = mkdtempSync(join(tmpdir(), 'poolparty-web-app-'));
  mkdirSync(join(dist, 'assets'));
  writeFileSync(join(dist, 'index.html'), INDEX);
  writeFileSync(join(dist, 'assets/index-Ab12.js'), SCRIPT);
  return dist;
}

describe('the web pages', () => {
  const dist = fixtureBuild();
  const app = createFastify();
  const config = {
    environment: 'devnet' as const,
    apiKey: 'pp_test_abcdefghijklmnopqrstuvwxyz',
    devnet: true,
    atomicSwaps: false,
    cantonRegistries: {
      defaultUrl: 'https://registry.example:8443/api/validator/v0/scan-proxy',
      byAdmin: {
        'circle::1220ab': 'https://circle.example/registry',
        'bridge::1220ab': 'https://registry.example:8443/bridge',
      },
    },
  };
  beforeAll(async () => {
    await app.register(webAppRoutes, { config, dist });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    rmSync(dist, { recursive: true, force: true });
  });

  it('answers index.html, revalidated, at every page path of the app', async () => {
    for (const url of [
      '/',
      '/pools',
      '/pools/amulet-usdcx',
      '/swap',
      '/swaps/swp_01ABC',
      '/developer',
      '/developer/keys/new',
    ]) {
      const answer = await app.inject({ url });
      expect(answer.statusCode, url).toBe(200);
      expect(answer.body).toBe(INDEX);
      expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(answer.headers['cache-control']).toBe('no-cache');
      expect(answer.headers['content-security-policy']).toBe(
        webAppContentSecurityPolicy(['https://registry.example:8443', 'https://circle.example']),
      );
    }
  });

  it('lets the pages call only this origin and the token registry, with no inline code', () => {
    const policy = webAppContentSecurityPolicy(['https://registry.example:8443']);
    expect(policy).toContain("script-src 'self';");
    expect(policy).toContain("style-src 'self'");
    expect(policy.split(';')).toContain("connect-src 'self' https://registry.example:8443");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toContain('unsafe');
  });

  it('revalidates index.html by its ETag', async () => {
    const first = await app.inject({ url: '/swap' });
    const again = await app.inject({
      url: '/swap',
      headers: { 'if-none-match': String(first.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('serves hashed assets as immutable, gzipped when accepted', async () => {
    const plain = await app.inject({ url: '/assets/index-Ab12.js' });
    expect(plain.statusCode).toBe(200);
    expect(plain.body).toBe(SCRIPT);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    const zipped = await app.inject({
      url: '/assets/index-Ab12.js',
      headers: { 'accept-encoding': 'gzip, br' },
    });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(zipped.rawPayload).toString()).toBe(SCRIPT);
    expect(zipped.rawPayload.length).toBeLessThan(SCRIPT.length / 4);
  });

  it('answers a 404 problem for an asset that is not in the build, and for other paths', async () => {
    for (const url of ['/assets/missing.js', '/assets/..%2Findex.html', '/swapx', '/swaps/a/b']) {
      const answer = await app.inject({ url });
      expect(answer.statusCode, url).toBe(404);
      expect(answer.headers['content-type']).toContain('application/problem+json');
    }
  });

  it("answers a browser's unknown page with the app (status 404), and API paths with problems", async () => {
    const page = await app.inject({ url: '/no/such/page', headers: { accept: 'text/html' } });
    expect(page.statusCode).toBe(404);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.body).toBe(INDEX);
    for (const url of ['/v1/nope', '/api/nope', '/assets/missing.js', '/devnet/nope']) {
      const answer = await app.inject({ url, headers: { accept: 'text/html' } });
      expect(answer.statusCode, url).toBe(404);
      expect(answer.headers['content-type'], url).toContain('application/problem+json');
    }
  });

  it('tells the pages their environment and key, never cached', async () => {
    const answer = await app.inject({ url: '/app-config.json' });
    expect(answer.json()).toEqual(config);
    expect(answer.headers['cache-control']).toBe('no-store');
  });

  it('says how to build the app when there is no build', async () => {
    const bare = createFastify();
    const empty = mkdtempSync(join(tmpdir(), 'poolparty-web-app-empty-'));
    await bare.register(webAppRoutes, { config, dist: empty });
    const answer = await bare.inject({ url: '/swap' });
    expect(answer.statusCode).toBe(501);
    expect(answer.json().detail).toContain('npm install');
    await bare.close();
    rmSync(empty, { recursive: true, force: true });
  });
});

describe('the web pages in the running service', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(async () => {
    await t?.close();
  });

  it("gives the pages a key of their own on devnet, not the developer's, and prints the app's address", async () => {
    const config = await (await fetch(`${t.url}/app-config.json`)).json();
    expect(config).toEqual({
      environment: 'devnet',
      apiKey: expect.stringMatching(/^pp_test_/),
      devnet: true,
      atomicSwaps: expect.any(Boolean),
      cantonRegistries: { defaultUrl: null, byAdmin: {} },
    });
    expect(config.apiKey).not.toBe(t.apiKey);
    expect(startupBanner(t.service)).toContain(`web app:   ${t.url}/`);
  });

  it('tells the pages that the ledger prepares atomic swaps exactly when a prepare is not 501', async () => {
    const { atomicSwaps } = await (await fetch(`${t.url}/app-config.json`)).json();
    const user = seededUser(t, 0);
    const prepare = await t.call('POST', '/v1/atomic-swaps', {
      headers: { authorization: `Bearer ${await walletTokenFor(t, user)}` },
      body: {
        fromToken: 'Amulet',
        toToken: 'USDCx',
        amount: '10',
        poolId: 'amulet-usdcx',
        keyFingerprint: fingerprint(Buffer.from(user.publicKey, 'hex')),
      },
    });
    expect(prepare.status === 501, JSON.stringify(prepare.body)).toBe(!atomicSwaps);
  });

  it('leaves API paths as they were', async () => {
    const answer = await fetch(`${t.url}/v1/nope`, { headers: { 'X-API-Key': t.apiKey } });
    expect(answer.status).toBe(404);
    expect(answer.headers.get('content-type')).toContain('application/problem+json');
    expect((await fetch(`${t.url}/openapi.json`)).headers.get('content-type')).toContain(
      'application/json',
    );
  });
});
