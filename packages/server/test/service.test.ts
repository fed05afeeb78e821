import { raiseOperatorFlag } from '@poolparty/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, startTestService, type TestService } from './support/service.js';

describe('the service on embedded defaults', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(async () => t?.close());

  it('is alive and ready', async () => {
    expect((await request(t.url, 'GET', '/healthz')).body).toEqual({ status: 'ok' });
    const ready = await request(t.url, 'GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { store: true, ledger: true } });
  });

  it('serves Prometheus metrics', async () => {
    const metrics = await request<string>(t.url, 'GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.body).toContain('poolparty_http_requests_total');
  });

  it('counts open operator flags by kind, so an update set aside can raise an alert', async () => {
    const details = { offset: 1, updateId: 'u1', error: 'TypeError: cannot apply' };
    await raiseOperatorFlag(t.service.ctx.db, {
      intentId: null,
      depositId: null,
      kind: 'update_set_aside',
      details,
      createdAt: new Date(),
    });
    const metrics = await request<string>(t.url, 'GET', '/metrics');
    expect(metrics.body).toContain('poolparty_operator_flags_open{kind="update_set_aside"} 1');
  });

  it('answers the retired endpoints with 410 problems', async () => {
    for (const path of ['/api/sdk/register', '/api/sdk/login']) {
      const answer = await request(t.url, 'POST', path, { body: {} });
      expect(answer.status).toBe(410);
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(answer.body).toMatchObject({
        code: 'gone',
        status: 410,
        type: 'urn:poolparty:error:gone',
      });
      expect(answer.body.requestId).toBe(answer.headers.get('x-request-id'));
    }
  });

  it('answers unknown routes with a 404 problem carrying a request id', async () => {
    const answer = await request(t.url, 'GET', '/nope');
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ code: 'not_found' });
    expect(answer.headers.get('x-request-id')).toMatch(/.{8,}/);
  });

  it('keeps a sane client request id', async () => {
    const answer = await request(t.url, 'GET', '/healthz', {
      headers: { 'x-request-id': 'client-req-0001' },
    });
    expect(answer.headers.get('x-request-id')).toBe('client-req-0001');
  });

  it('serves the devnet endpoints over the seeded ledger', async () => {
    const alice = t.users[0];
    if (!alice) throw new Error('no seeded user');
    const holdings = await request<{ holdings: { token: string; amount: string }[] }>(
      t.url,
      'GET',
      `/devnet/parties/${encodeURIComponent(alice.partyId)}/holdings`,
    );
    expect(holdings.status).toBe(200);
    expect(holdings.body.holdings.find((h) => h.token === 'Amulet')?.amount).toBe('10000');
  });
});
