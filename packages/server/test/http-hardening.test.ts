/**
 * The HTTP layer's own answers: every error, from the framework, a plugin or straight from the
 * socket, is a problem document with a code and a request id; security headers on the API and
 * the /docs pages; and a short fuzz run over the whole surface.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFuzz } from '../fuzz/run.js';
import { parseHead } from '../fuzz/send.js';
import { expectProblem, request, startTestService, type TestService } from './support/service.js';

const FUZZ_HEADERS_TIMEOUT_MS = 1_000;
const FUZZ_REQUEST_TIMEOUT_MS = 2_000;
/** Of the short fuzz run's requests, these are slow or unfinished bodies, headers and chunks. */
const FUZZ_SLOW_REQUESTS = 40;

/** Writes `bytes` to the service's socket and reads the answer until the server closes. */
function rawExchange(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.end(bytes, 'latin1'));
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
    });
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
}

function expectRawProblem(answer: string, status: number, code: string): void {
  const head = parseHead(answer);
  expect(head?.status).toBe(status);
  expect(head?.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(head?.headers['x-content-type-options']).toBe('nosniff');
  const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
  expect(body).toMatchObject({ code, status, type: `urn:poolparty:error:${code}` });
  expect(body.requestId).toBe(head?.headers['x-request-id']);
}

describe('HTTP hardening', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({
      POOLPARTY_CORS_ORIGINS: 'https://app.example',
      // Short, so the fuzz run's slow clients are answered or cut off within seconds.
      POOLPARTY_HEADERS_TIMEOUT_MS: String(FUZZ_HEADERS_TIMEOUT_MS),
      POOLPARTY_REQUEST_TIMEOUT_MS: String(FUZZ_REQUEST_TIMEOUT_MS),
    });
  });
  afterAll(async () => t?.close());

  it('refuses a non-canonical static path under /docs as a 403 problem, not a 500', async () => {
    for (const path of ['/docs/static//index.html', '/docs/static/a/..//index.html']) {
      expectProblem(await request(t.url, 'GET', path), 403, 'forbidden');
    }
    expectProblem(await request(t.url, 'GET', '/docs/static/nope.js'), 404, 'not_found');
  });

  it('answers range and precondition failures on static files as problems', async () => {
    const range = await request(t.url, 'GET', '/docs/static/index.css', {
      headers: { range: 'bytes=99999999-' },
    });
    expectProblem(range, 416, 'range_not_satisfiable');
    const precondition = await request(t.url, 'GET', '/docs/static/index.css', {
      headers: { 'if-match': '"not-this-one"' },
    });
    expectProblem(precondition, 412, 'precondition_failed');
  });

  it('answers bad percent-encoding and overlong path segments, found before routing', async () => {
    expectProblem(await request(t.url, 'GET', '/v1/pools/%E0%A4%A'), 400, 'malformed_request');
    expectProblem(
      await request(t.url, 'GET', `/v1/pools/${'a'.repeat(200)}`, { apiKey: t.apiKey }),
      414,
      'uri_too_long',
    );
  });

  it('refuses non-finite numbers in a query string or a JSON body instead of failing on them', async () => {
    for (const days of ['Infinity', '-Infinity', '1e400']) {
      const stats = await request(t.url, 'GET', `/v1/pools/amulet-usdcx/stats?days=${days}`, {
        apiKey: t.apiKey,
      });
      expectProblem(stats, 400, 'validation_error');
    }
    for (const body of ['{"advanceMs":1e400}', `{"advanceMs":"${'9'.repeat(400)}"}`]) {
      expectProblem(
        await request(t.url, 'POST', '/devnet/clock', { body }),
        400,
        'validation_error',
      );
    }
  });

  it('refuses a body that is not JSON as 415, text/plain included', async () => {
    const body = JSON.stringify({ poolId: 'amulet-usdcx', amountA: '1' });
    for (const type of ['text/plain', 'text/plain; charset=utf-8', 'application/xml']) {
      for (const path of ['/v1/liquidity/intents', '/v1/swaps', '/v1/wallet-auth/challenge']) {
        const answer = await fetch(`${t.url}${path}`, {
          method: 'POST',
          headers: { 'x-api-key': t.apiKey, 'content-type': type },
          body,
        });
        expect({ path, type, status: answer.status }).toEqual({ path, type, status: 415 });
        expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(await answer.json()).toMatchObject({ code: 'unsupported_media_type' });
      }
    }
  });

  it('answers an OPTIONS that is no proper preflight as a problem', async () => {
    const noMethod = await request(t.url, 'OPTIONS', '/v1/pools', {
      headers: { origin: 'https://app.example' },
    });
    expectProblem(noMethod, 400, 'validation_error');
    const noOrigin = await request(t.url, 'OPTIONS', '/devnet/transfers', {
      headers: { 'access-control-request-method': 'POST' },
    });
    expectProblem(noOrigin, 400, 'validation_error');
  });

  it('answers unparseable HTTP, oversized headers and a missing Host on the socket as problems', async () => {
    expectRawProblem(await rawExchange(t.url, 'HELLO\r\n\r\n'), 400, 'malformed_request');
    expectRawProblem(
      await rawExchange(
        t.url,
        `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      ),
      431,
      'headers_too_large',
    );
    expectRawProblem(
      await rawExchange(t.url, 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n'),
      400,
      'malformed_request',
    );
  });

  it('sends nosniff and a closed content policy on API answers, and no HSTS over plain HTTP', async () => {
    for (const answer of [
      await request(t.url, 'GET', '/v1/pools', { apiKey: t.apiKey }),
      await request(t.url, 'GET', '/v1/pools', { apiKey: null }),
      await request(t.url, 'GET', '/healthz'),
    ]) {
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
      expect(answer.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(answer.headers.get('strict-transport-security')).toBeNull();
    }
  });

  it('sends HSTS when a TLS-terminating proxy says the request came over https', async () => {
    const answer = await request(t.url, 'GET', '/healthz', {
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(answer.headers.get('strict-transport-security')).toMatch(/^max-age=\d+/);
  });

  it('gives the /docs pages a content policy that loads from this origin only', async () => {
    const page = await fetch(`${t.url}/docs/`);
    expect(page.status).toBe(200);
    const policy = page.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'self'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toContain("script-src 'self' 'unsafe-inline'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('survives a short fuzz run, slow clients included, with no finding', async () => {
    const report = await runFuzz({
      url: t.url,
      requests: 2_000,
      seed: 20261123,
      concurrency: 8,
      slowRequests: FUZZ_SLOW_REQUESTS,
      requestTimeoutMs: FUZZ_REQUEST_TIMEOUT_MS,
    });
    expect(report.findings).toEqual([]);
    expect(report.serviceDied).toBe(false);
    expect(report.requests).toBe(2_000);
    expect(report.slowRequests).toBe(FUZZ_SLOW_REQUESTS);
    // Unfinished requests were cut off by the request timeout, answered as problems.
    expect(report.byOutcome['timeout-408'] ?? 0).toBeGreaterThan(0);
    // The run reached past validation and authentication, not only refusals.
    expect(report.byOutcome['200'] ?? 0).toBeGreaterThan(0);
  });
});
