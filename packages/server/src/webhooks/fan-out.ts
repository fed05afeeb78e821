/**
 * The fan-out (docs/spec/webhooks.md#delivery): queued events become one delivery per endpoint
 * that wants them (core's `endpointWants`), and leave the queue, in one transaction. A fan-out
 * that dies leaves the events queued for the next; two workers fan out different events (the
 * queue's rows are locked, skipped by the other).
 */
import { randomBytes } from 'node:crypto';
import { type Environment, endpointWants } from '@poolparty/core';
import {
  type Database,
  enabledWebhookEndpointsOf,
  type FannedOutWebhookEvent,
  insertFannedOutWebhookEvents,
  lockQueuedWebhookEvents,
  type QueuedWebhookEvent,
  type WebhookEndpointRecord,
} from '@poolparty/store';
import {
  type OutboxReads,
  objectOfEvent,
  readOutboxesOfBatch,
  webhookBody,
} from './event-bodies.js';

/** Events one fan-out takes off the queue at most: one short transaction. */
export const FAN_OUT_BATCH = 200;

export function newDeliveryId(): string {
  return `wd_${randomBytes(12).toString('base64url')}`;
}

/**
 * One fan-out of at most `FAN_OUT_BATCH` queued events, oldest first; answers how many left the
 * queue (fewer than the batch: the queue is empty for now). The deliveries (at most the batch
 * times a developer's `WEBHOOK_ENDPOINTS_MAX` endpoints) and the dequeue are one statement.
 */
export async function fanOutWebhookEvents(
  db: Database,
  input: { readonly now: Date; readonly mode: Environment },
): Promise<number> {
  return db.transaction(async (tx) => {
    const queued = await lockQueuedWebhookEvents(tx, FAN_OUT_BATCH);
    if (queued.length === 0) return 0;
    const parties = [...new Set(queued.map((event) => event.developerParty))];
    const endpoints = await enabledWebhookEndpointsOf(tx, parties);
    const events: FannedOutWebhookEvent[] = [];
    const reads: OutboxReads = new Map();
    await readOutboxesOfBatch(tx, queued, reads);
    for (const event of queued) {
      const recipients = recipientsOf(event, endpoints);
      if (recipients.length === 0) continue;
      const object = await objectOfEvent(tx, event, reads);
      if (object === null) continue;
      events.push({
        eventId: event.eventId,
        type: event.type,
        subjectId: event.subjectId,
        body: webhookBody(event, input.mode, object),
        recipients: recipients.map((endpoint) => ({
          endpointId: endpoint.endpointId,
          deliveryId: newDeliveryId(),
        })),
      });
    }
    await insertFannedOutWebhookEvents(tx, {
      events,
      dequeue: queued.map((event) => event.queuedSeq),
      now: input.now,
    });
    return queued.length;
  });
}

function recipientsOf(
  event: QueuedWebhookEvent,
  endpoints: readonly WebhookEndpointRecord[],
): WebhookEndpointRecord[] {
  // The queue names a key for intents and withdrawals only: `apiKeyIds` narrows nothing else.
  return endpoints.filter(
    (endpoint) =>
      endpoint.developerParty === event.developerParty &&
      endpointWants(endpoint, { type: event.type, apiKeyId: event.apiKeyId }),
  );
}
