/**
 * What keeps webhooks from being turned against the service (docs/spec/webhooks.md#url-policy):
 * on mainnet, a URL whose host is or resolves to a private address is refused at registration,
 * and a request whose host resolves inwards by the time it is sent is never made (the address is
 * checked after DNS resolution, before connecting), unless `POOLPARTY_WEBHOOK_ALLOW_PRIVATE` is
 * on. And what a worker logs of its deliveries never holds a signing secret.
 */
import { type DestinationPolicy, DomainError } from '@poolparty/core';
import { waitFor } from '@poolparty/settlement/testing';
import {
  type Database,
  IN_MEMORY,
  insertWebhookDeliveries,
  insertWebhookEndpointWithinCap,
  migrate,
  openPglite,
  upsertDeveloper,
} from '@poolparty/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookDispatcher } from '../src/webhooks/dispatcher.js';
import { checkedUrl } from '../src/webhooks/endpoints.js';
import { sendWebhook } from '../src/webhooks/sender.js';
import {
  endpointFor,
  signedWith,
  startWebhookReceiver,
  type WebhookReceiver,
} from './support/webhook-receiver.js';

const MAINNET: DestinationPolicy = { mode: 'mainnet', allowPrivate: false };
const DEVNET: DestinationPolicy = { mode: 'devnet', allowPrivate: false };
const WAIT_MS = 20_000;

async function refusal(url: string, policy: DestinationPolicy): Promise<string | null> {
  try {
    await checkedUrl(url, policy);
    return null;
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
}

describe('the URL policy at registration', () => {
  it('refuses on mainnet a host that is or resolves to a loopback or private address', async () => {
    expect(await refusal('https://10.1.2.3/hook', MAINNET)).toBe('webhook_url_not_allowed');
    expect(await refusal('https://[fd00::1]/hook', MAINNET)).toBe('webhook_url_not_allowed');
    expect(await refusal('https://[::ffff:127.0.0.1]/hook', MAINNET)).toBe(
      'webhook_url_not_allowed',
    );
    expect(await refusal('https://localhost/hook', MAINNET)).toBe('webhook_url_not_allowed');
    expect(await refusal('http://127.0.0.1:8080/hook', MAINNET)).toBe('webhook_url_not_allowed');
  });

  it('takes them when private destinations are allowed, and loopback over http on devnet', async () => {
    expect(await refusal('https://10.1.2.3/hook', { ...MAINNET, allowPrivate: true })).toBeNull();
    expect(await refusal('http://127.0.0.1:8080/hook', DEVNET)).toBeNull();
    expect(await refusal('http://localhost:8080/hook', DEVNET)).toBeNull();
  });
});

describe('the URL policy when sending', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver.close());

  const request = (url: string) => ({
    url,
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });

  it('never connects on mainnet to a host that resolves to loopback', async () => {
    const byName = receiver.url.replace('127.0.0.1', 'localhost');
    const answer = await sendWebhook(request(byName), { timeoutMs: 5_000, policy: MAINNET });
    expect(answer.statusCode).toBeNull();
    expect(answer.error).toMatch(/^localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
    const literal = await sendWebhook(request(receiver.url), { timeoutMs: 5_000, policy: MAINNET });
    expect(literal.error).toBe('127.0.0.1 is not a public address: refused on mainnet');
    expect(receiver.received).toEqual([]);
  });

  it('connects when private destinations are allowed', async () => {
    const answer = await sendWebhook(request(receiver.url), {
      timeoutMs: 5_000,
      policy: { ...MAINNET, allowPrivate: true },
    });
    expect(answer).toMatchObject({ statusCode: 200, error: null, responseExcerpt: 'ok' });
    expect(receiver.received).toHaveLength(1);
  });
});

describe("a worker's delivery log lines", () => {
  let db: Database;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    db = await openPglite(IN_MEMORY);
    await migrate(db);
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await db.close();
  });

  it('name the delivery and its endpoint, never the secret', async () => {
    const now = new Date();
    const secret = 'whsec_never_logged_0123456789abcdefghij';
    await upsertDeveloper(db, 'dev::1220ff', now);
    const endpoint = endpointFor({
      endpointId: 'we_logged_endpoint_0001',
      developerParty: 'dev::1220ff',
      url: receiver.url,
      secret,
      createdAt: now,
    });
    await insertWebhookEndpointWithinCap(db, endpoint, 1);
    const body = '{"id":"evt_test_log"}';
    await insertWebhookDeliveries(db, [
      {
        deliveryId: 'wd_logged_delivery_0001',
        endpointId: endpoint.endpointId,
        eventId: 'evt_test_log',
        eventType: 'webhook.test',
        subjectId: 'wd_logged_delivery_0001',
        body,
        createdAt: now,
      },
    ]);
    const lines: unknown[] = [];
    const log = {
      warn: (details: object, message: string) => lines.push({ ...details, message }),
      info: (details: object, message: string) => lines.push({ ...details, message }),
    };
    const dispatcher = new WebhookDispatcher({
      db,
      clock: { now: () => new Date() },
      settings: {
        mode: 'devnet',
        allowPrivate: false,
        timeoutMs: 5_000,
        concurrency: 4,
        perEndpoint: 1,
      },
      log,
    });
    dispatcher.start();
    try {
      await waitFor(
        async () => (lines.length > 0 ? true : null),
        'the attempt to be logged',
        WAIT_MS,
      );
    } finally {
      await dispatcher.stop();
    }
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0] && signedWith(receiver.received[0], secret)).toBe(true);
    const logged = JSON.stringify(lines);
    expect(logged).toContain('wd_logged_delivery_0001');
    expect(logged).not.toContain(secret);
    expect(logged).not.toContain('whsec_');
  });
});
