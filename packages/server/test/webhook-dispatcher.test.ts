/**
 * The delivery loop against a receiver that never recovers, with a clock the test moves: each
 * delivery is retried until its next attempt would fall past the three-day window, then given up
 * (`failed`); five deliveries given up in a row turn the endpoint off with its reason, and
 * re-enabling it forgets the run.
 */

import { WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES, WEBHOOK_RETRY_WINDOW_MS } from '@poolparty/core';
import { waitFor } from '@poolparty/settlement/testing';
import {
  type Database,
  getWebhookEndpoint,
  IN_MEMORY,
  insertWebhookDeliveries,
  insertWebhookEndpointWithinCap,
  listWebhookDeliveries,
  migrate,
  openPglite,
  updateWebhookEndpoint,
  upsertDeveloper,
} from '@poolparty/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookDispatcher } from '../src/webhooks/dispatcher.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

const WAIT_MS = 20_000;
const DEVELOPER = 'dev::1220ee';
const ENDPOINT = 'we_failing_endpoint_0001';
const T0 = new Date('2026-06-01T00:00:00Z');

describe('a receiver that never recovers', () => {
  let db: Database;
  let receiver: WebhookReceiver;
  let offsetMs = 0;
  const clock = { now: () => new Date(T0.getTime() + offsetMs) };
  let dispatcher: WebhookDispatcher;

  beforeAll(async () => {
    db = await openPglite(IN_MEMORY);
    await migrate(db);
    receiver = await startWebhookReceiver();
    receiver.answerWith(() => ({ status: 503, body: 'gone fishing' }));
    await upsertDeveloper(db, DEVELOPER, T0);
    const endpoint = {
      endpointId: ENDPOINT,
      developerParty: DEVELOPER,
      url: receiver.url,
      events: [],
      apiKeyIds: null,
      description: '',
      secret: 'whsec_failing_0123456789abcdefghijkl',
      createdAt: T0,
    };
    await insertWebhookEndpointWithinCap(db, endpoint, 1);
    const deliveries = Array.from({ length: WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES }, (_, n) => ({
      deliveryId: `wd_failing_delivery_000${n}`,
      endpointId: ENDPOINT,
      eventId: `evt_test_failing_${n}`,
      eventType: 'webhook.test',
      subjectId: `subject-${n}`,
      body: `{"n":${n}}`,
      createdAt: T0,
    }));
    await insertWebhookDeliveries(db, deliveries);
    dispatcher = new WebhookDispatcher({
      db,
      clock,
      settings: {
        mode: 'devnet',
        allowPrivate: false,
        timeoutMs: 5_000,
        concurrency: 8,
        perEndpoint: 8,
      },
      log: { warn: () => {}, info: () => {} },
    });
    dispatcher.start();
  });

  afterAll(async () => {
    await dispatcher?.stop();
    await receiver.close();
    await db.close();
  });

  const log = async () =>
    (await listWebhookDeliveries(db, { endpointId: ENDPOINT, limit: 10, before: null })) ?? [];

  it('gives each delivery up past the window, then turns the endpoint off', async () => {
    const tried = await waitFor(
      async () => {
        const found = await log();
        return found.every((d) => d.attempts.length === 1) ? found : null;
      },
      'a first attempt of every delivery',
      WAIT_MS,
    );
    expect(tried.every((d) => d.state === 'retrying')).toBe(true);
    const failingSince = (await getWebhookEndpoint(db, ENDPOINT))?.failingSince;
    expect(failingSince).toEqual(T0);

    // Past the window, each next attempt is the last: given up, not scheduled again.
    offsetMs = WEBHOOK_RETRY_WINDOW_MS - 60_000;
    const ended = await waitFor(
      async () => {
        const found = await log();
        return found.every((d) => d.state === 'failed') ? found : null;
      },
      'every delivery to be given up',
      WAIT_MS,
    );
    expect(ended.every((d) => d.nextAttemptAt === null && d.attempts.length === 2)).toBe(true);
    expect(ended.every((d) => d.attempts.every((a) => a.statusCode === 503))).toBe(true);
    const endpoint = await getWebhookEndpoint(db, ENDPOINT);
    expect(endpoint).toMatchObject({
      enabled: false,
      failedInRow: WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES,
      disabledReason: `${WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES} deliveries in a row failed after every retry`,
    });
    expect(endpoint?.disabledAt).toEqual(clock.now());
    expect(receiver.received).toHaveLength(2 * WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES);

    // Re-enabled by the developer: the run is forgotten.
    const enabled = await updateWebhookEndpoint(db, {
      endpointId: ENDPOINT,
      developerParty: DEVELOPER,
      changes: { enabled: true },
      now: clock.now(),
    });
    expect(enabled).toMatchObject({
      enabled: true,
      failedInRow: 0,
      failingSince: null,
      disabledReason: null,
    });
  });
});
