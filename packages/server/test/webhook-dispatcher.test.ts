/**
 * The delivery loop against a receiver that never recovers, with a clock the test moves: each
 * delivery is retried until its next attempt would fall past the three-day window, then given up
 * (`failed`); five deliveries given up in a row turn the endpoint off with its reason, and
 * re-enabling it forgets the run. And how it wakes: on the store's announcement with no timer
 * to find the work, on its poll when it cannot listen; and many endpoints × intents, claimed and
 * recorded in batches, each intent's events arriving at each endpoint in order; and the
 * deliveries a fan-out leases at once held to the per-endpoint and total bounds.
 */

import { WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES, WEBHOOK_RETRY_WINDOW_MS } from '@poolparty/core';
import { waitFor } from '@poolparty/settlement/testing';
import {
  type Database,
  getWebhookEndpoint,
  IN_MEMORY,
  insertApiKeyWithinCap,
  insertWebhookDeliveries,
  insertWebhookEndpointWithinCap,
  listWebhookDeliveries,
  migrate,
  type NewWebhookDelivery,
  openPglite,
  revokeApiKey,
  updateWebhookEndpoint,
  upsertDeveloper,
} from '@poolparty/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookDispatcher, type WebhookDispatcherTiming } from '../src/webhooks/dispatcher.js';
import {
  endpointFor,
  startWebhookReceiver,
  type WebhookReceiver,
} from './support/webhook-receiver.js';

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
    const endpoint = endpointFor({
      endpointId: ENDPOINT,
      developerParty: DEVELOPER,
      url: receiver.url,
      secret: 'whsec_failing_0123456789abcdefghijkl',
      createdAt: T0,
    });
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

/** A timer that never comes round within a test: only an announcement can wake the loop. */
const HOUR_MS = 3_600_000;
const FAST_POLL_MS = 20;

interface Harness {
  readonly db: Database;
  readonly receiver: WebhookReceiver;
  readonly dispatcher: WebhookDispatcher;
  readonly endpoints: string[];
  close(): Promise<void>;
}

/** A store, a receiver, `endpoints` endpoints on it and a dispatcher started with `timing`. */
async function harness(
  endpointCount: number,
  timing: WebhookDispatcherTiming,
  options: {
    readonly listenFails?: boolean;
    readonly perEndpoint?: number;
    readonly concurrency?: number;
  } = {},
): Promise<Harness> {
  const store = await openPglite(IN_MEMORY);
  await migrate(store);
  const receiver = await startWebhookReceiver();
  await upsertDeveloper(store, DEVELOPER, T0);
  const endpoints: string[] = [];
  for (let n = 0; n < endpointCount; n += 1) {
    const endpointId = `we_wakeup_endpoint_${String(n).padStart(4, '0')}`;
    await insertWebhookEndpointWithinCap(
      store,
      endpointFor({
        endpointId,
        developerParty: DEVELOPER,
        url: `${receiver.url}/${n}`,
        secret: 'whsec_wakeup_0123456789abcdefghijkl',
        createdAt: T0,
      }),
      endpointCount,
    );
    endpoints.push(endpointId);
  }
  const db: Database = options.listenFails
    ? Object.assign(Object.create(store) as Database, {
        listen: () => Promise.reject(new Error('no listening connection')),
      })
    : store;
  const dispatcher = new WebhookDispatcher({
    db,
    clock: { now: () => T0 },
    settings: {
      mode: 'devnet',
      allowPrivate: false,
      timeoutMs: 5_000,
      concurrency: options.concurrency ?? 8,
      perEndpoint: options.perEndpoint ?? 2,
    },
    timing,
    log: { warn: () => {}, info: () => {} },
  });
  dispatcher.start();
  return {
    db: store,
    receiver,
    dispatcher,
    endpoints,
    close: async () => {
      await dispatcher.stop();
      await receiver.close();
      await store.close();
    },
  };
}

function testDelivery(endpointId: string, subjectId: string, n: number): NewWebhookDelivery {
  return {
    deliveryId: `wd_${endpointId.slice(-4)}_${subjectId}_${n}`,
    endpointId,
    eventId: `evt_test_${endpointId.slice(-4)}_${subjectId}_${n}`,
    eventType: 'webhook.test',
    subjectId,
    body: JSON.stringify({ endpointId, subjectId, n }),
    createdAt: T0,
  };
}

describe('waking the delivery loop', () => {
  it('sends a delivery added after it went idle, on the announcement alone', async () => {
    const h = await harness(1, { pollMs: HOUR_MS, sweepMs: HOUR_MS });
    try {
      await waitFor(async () => h.dispatcher.isListening || null, 'the listener', WAIT_MS);
      const endpointId = h.endpoints[0] as string;
      await insertWebhookDeliveries(h.db, [testDelivery(endpointId, 'int_wake', 0)]);
      await waitFor(
        async () => (h.receiver.received.length > 0 ? true : null),
        'the delivery at the receiver',
        WAIT_MS,
      );
      expect(h.receiver.received.map((r) => r.json)).toEqual([
        { endpointId, subjectId: 'int_wake', n: 0 },
      ]);
    } finally {
      await h.close();
    }
  });

  it('finds the work on its poll while it cannot listen', async () => {
    const h = await harness(1, { pollMs: FAST_POLL_MS, sweepMs: HOUR_MS }, { listenFails: true });
    try {
      const endpointId = h.endpoints[0] as string;
      await insertWebhookDeliveries(h.db, [testDelivery(endpointId, 'int_poll', 0)]);
      await waitFor(
        async () => (h.receiver.received.length > 0 ? true : null),
        'the delivery at the receiver',
        WAIT_MS,
      );
      expect(h.dispatcher.isListening).toBe(false);
    } finally {
      await h.close();
    }
  });
});

describe('many endpoints and intents at once', () => {
  const ENDPOINTS = 12;
  const SUBJECTS = 8;
  const EVENTS = 6;

  it("delivers each intent's events to each endpoint once and in order", async () => {
    const h = await harness(ENDPOINTS, { pollMs: HOUR_MS, sweepMs: HOUR_MS }, { perEndpoint: 3 });
    try {
      await waitFor(async () => h.dispatcher.isListening || null, 'the listener', WAIT_MS);
      const subjects = Array.from({ length: SUBJECTS }, (_, n) => `int_${n}`);
      // One fan-out's worth at a time, as successive events of every intent come in.
      for (let n = 0; n < EVENTS; n += 1) {
        await insertWebhookDeliveries(
          h.db,
          h.endpoints.flatMap((e) => subjects.map((s) => testDelivery(e, s, n))),
        );
      }
      const total = ENDPOINTS * SUBJECTS * EVENTS;
      await waitFor(
        async () => (h.receiver.received.length >= total ? true : null),
        'every delivery at the receiver',
        WAIT_MS,
      );
      const order = new Map<string, number[]>();
      for (const { json } of h.receiver.received) {
        const { endpointId, subjectId, n } = json as unknown as {
          endpointId: string;
          subjectId: string;
          n: number;
        };
        const chain = `${endpointId} ${subjectId}`;
        order.set(chain, [...(order.get(chain) ?? []), n]);
      }
      expect(order.size).toBe(ENDPOINTS * SUBJECTS);
      const inOrder = Array.from({ length: EVENTS }, (_, n) => n);
      for (const [chain, ns] of order) expect(ns, chain).toEqual(inOrder);
    } finally {
      await h.close();
    }
  });
});

describe('the bounds on what a fan-out sends at once', () => {
  const ENDPOINTS = 3;
  const KEYS = 5;
  /** How long the test waits, after the bound is reached, for a request beyond it. */
  const BEYOND_WAIT_MS = 500;

  it('leases no more than the free slots, per endpoint and in all', async () => {
    // 3 endpoints × 2 a endpoint = 6, under the 5 slots in all: the total binds, then each one.
    for (const concurrency of [5, 8]) {
      const h = await harness(
        ENDPOINTS,
        { pollMs: HOUR_MS, sweepMs: HOUR_MS },
        { perEndpoint: 2, concurrency },
      );
      try {
        await waitFor(async () => h.dispatcher.isListening || null, 'the listener', WAIT_MS);
        h.receiver.answerWith(() => ({ hang: true }));
        // Five keys revoked: five events of subjects of their own, to every endpoint (15).
        for (let n = 0; n < KEYS; n += 1) {
          const keyId = `key_bound_${concurrency}_${n}`;
          await insertApiKeyWithinCap(
            h.db,
            {
              keyId,
              developerParty: DEVELOPER,
              name: '',
              keyHash: `${String(n).padStart(64, '0')}`,
              prefix: 'pp_test_abcd',
              environment: 'devnet',
              createdAt: T0,
            },
            KEYS,
          );
          await revokeApiKey(h.db, { keyId, developerParty: DEVELOPER, now: T0 });
        }
        const bound = Math.min(concurrency, ENDPOINTS * 2);
        await waitFor(
          async () => (h.receiver.received.length >= bound ? true : null),
          'the requests up to the bound',
          WAIT_MS,
        );
        await new Promise((resolve) => setTimeout(resolve, BEYOND_WAIT_MS));
        expect(h.receiver.received).toHaveLength(bound);
        const byEndpoint = new Map<string, number>();
        for (const { path } of h.receiver.received) {
          byEndpoint.set(path, (byEndpoint.get(path) ?? 0) + 1);
        }
        expect(Math.max(...byEndpoint.values())).toBeLessThanOrEqual(2);
      } finally {
        // The hanging requests end with the receiver, before the dispatcher waits for them.
        await h.receiver.close();
        await h.close();
      }
    }
  });
});
