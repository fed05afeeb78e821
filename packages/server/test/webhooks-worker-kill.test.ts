/**
 * A worker killed mid-delivery: `poolparty serve` with `POOLPARTY_ROLE=worker` on PostgreSQL, in
 * a process of its own, is SIGKILLed while a receiver holds its webhook request unanswered. The
 * delivery stays claimed under the dead worker's lease, unrecorded; a fresh worker on the same
 * store takes it once the lease ran out (the ledger clock moved past it) and delivers it, with
 * the same event id and body: at least once, never lost.
 */
import { waitFor } from '@poolparty/settlement/testing';
import {
  insertWebhookDeliveries,
  insertWebhookEndpointWithinCap,
  listWebhookDeliveries,
  upsertDeveloper,
} from '@poolparty/store';
import { postgresSkipReason } from '@poolparty/store/testing';
import { afterAll, describe, expect, it } from 'vitest';
import {
  endpointFor,
  signedWith,
  startWebhookReceiver,
  type WebhookReceiver,
} from './support/webhook-receiver.js';
import { openWorkerWorld, useWorkerWorlds } from './support/worker-world.js';

const skipReason = await postgresSkipReason('webhook worker-kill suite');
const DELIVERY_WAIT_MS = 60_000;
const DEVELOPER = 'webhook-dev::1220abcd';
const ENDPOINT = 'we_kill_test_endpoint_01';
const SECRET = 'whsec_kill_test_secret_0123456789abcdef';
/** Far beyond the dead worker's lease (its timeout, a minute here, and the margin). */
const CLOCK_JUMP_MS = 10 * 60_000;

describe.skipIf(skipReason !== null)('a worker killed mid-delivery', () => {
  const { opened, start: startIn } = useWorkerWorlds();
  let receiver: WebhookReceiver | null = null;

  afterAll(async () => {
    await receiver?.close();
  });

  it('is replaced by a worker that delivers the event once the lease ran out', async () => {
    const world = opened(await openWorkerWorld('wh-kill'));
    const { db, devnet } = world;
    receiver = await startWebhookReceiver();
    receiver.answerWith(() => ({ hang: true }));
    const now = await devnet.ledger.now();
    await upsertDeveloper(db, DEVELOPER, now);
    await insertWebhookEndpointWithinCap(
      db,
      endpointFor({
        endpointId: ENDPOINT,
        developerParty: DEVELOPER,
        url: receiver.url,
        secret: SECRET,
        createdAt: now,
      }),
      1,
    );
    const body = JSON.stringify({
      id: 'evt_test_kill',
      type: 'webhook.test',
      data: { object: {} },
    });
    const [queued] = await insertWebhookDeliveries(db, [
      {
        deliveryId: 'wd_kill_test_delivery_01',
        endpointId: ENDPOINT,
        eventId: 'evt_test_kill',
        eventType: 'webhook.test',
        subjectId: 'wd_kill_test_delivery_01',
        body,
        createdAt: now,
      },
    ]);
    expect(queued?.state).toBe('pending');
    const start = () => startIn(world, { POOLPARTY_WEBHOOK_TIMEOUT_MS: '60000' });

    const victim = start();
    await waitFor(
      async () => ((receiver?.received.length ?? 0) > 0 ? true : null),
      'the request to reach the receiver',
      DELIVERY_WAIT_MS,
    ).finally(() => victim.child.kill('SIGKILL'));
    expect(await victim.exited).toBeNull();
    const log = async () =>
      (await listWebhookDeliveries(db, {
        endpointId: ENDPOINT,
        limit: 10,
        before: null,
      })) ?? [];
    // Killed before it recorded anything: the delivery is open, with no attempt.
    expect((await log()).map((d) => [d.state, d.attempts.length])).toEqual([['pending', 0]]);

    receiver.answerWith(() => ({ status: 200, body: 'ok' }));
    await devnet.ledger.advanceClock(CLOCK_JUMP_MS);
    const successor = start();
    await successor.url;
    const [delivered] = await waitFor(
      async () => {
        const found = await log();
        return found[0]?.state === 'delivered' ? found : null;
      },
      'the successor to deliver',
      DELIVERY_WAIT_MS,
    );
    expect(delivered?.attempts).toHaveLength(1);
    expect(delivered?.attempts[0]?.statusCode).toBe(200);
    const got = receiver.received;
    expect(got).toHaveLength(2);
    expect(got.map((r) => r.body)).toEqual([body, body]);
    expect(got.map((r) => r.headers['poolparty-event-id'])).toEqual([
      'evt_test_kill',
      'evt_test_kill',
    ]);
    expect(got.every((r) => signedWith(r, SECRET))).toBe(true);
    successor.child.kill('SIGTERM');
    expect(await successor.exited).toBe(0);
  }, 180_000);
});
