/**
 * The fan-out (docs/spec/webhooks.md#delivery): queued events become one delivery per endpoint
 * that wants them (core's `endpointWants`), and leave the queue, in one transaction. A fan-out
 * that dies leaves the events queued for the next; fan-outs of several workers take turns on an
 * advisory lock. The deliveries its worker can send at once are leased by the same insert.
 */
import { randomBytes } from 'node:crypto';
import { type Environment, endpointWants } from '@poolparty/core';
import {
  type ClaimedWebhookDelivery,
  type Database,
  enabledWebhookEndpointsOf,
  type FannedOutWebhookEvent,
  type FanOutWritten,
  insertFannedOutWebhookEvents,
  type LeasedFannedOutDelivery,
  lockQueuedWebhookEvents,
  type Queryable,
  type QueuedWebhookEvent,
  type WebhookEndpointRecord,
} from '@poolparty/store';
import {
  type OutboxReads,
  objectOfEvent,
  readOutboxesOfBatch,
  webhookBody,
} from './event-bodies.js';
import type { LeaseTurn, WebhookSlots } from './slots.js';

/** Events one fan-out takes off the queue at most: one short transaction. */
export const FAN_OUT_BATCH = 200;

export function newDeliveryId(): string {
  return `wd_${randomBytes(12).toString('base64url')}`;
}

/**
 * Leasing what a fan-out adds: its deliveries that can be sent at once are leased by the insert
 * itself, within the slots free, and sent by the caller once the fan-out commits.
 */
export interface FanOutLeasing {
  readonly owner: string;
  readonly leaseMs: number;
  readonly slots: WebhookSlots;
}

export interface FanOutDone {
  /** Events taken off the queue (fewer than the batch: the queue is empty for now). */
  readonly moved: number;
  /** Deliveries added and leased to the caller, to send now; their slots are taken. */
  readonly leased: readonly ClaimedWebhookDelivery[];
  /** Deliveries added that a claim must take: no slot was free for them. */
  readonly claimable: number;
}

/**
 * One fan-out of at most `FAN_OUT_BATCH` queued events, oldest first. The deliveries (at most
 * the batch times a developer's `WEBHOOK_ENDPOINTS_MAX` endpoints) and the dequeue are one
 * statement; with `leasing`, that statement also leases what the free slots can take, unless
 * another statement holds the turn to lease (the fan-out never waits for it in its
 * transaction: on a single connection the other could never answer).
 */
export async function fanOutWebhookEvents(
  db: Database,
  input: { readonly now: Date; readonly mode: Environment; readonly leasing?: FanOutLeasing },
): Promise<FanOutDone> {
  let leased: ClaimedWebhookDelivery[] = [];
  try {
    return await db.transaction(async (tx) => {
      const queued = await lockQueuedWebhookEvents(tx, FAN_OUT_BATCH);
      if (queued.length === 0) return { moved: 0, leased, claimable: 0 };
      const parties = [...new Set(queued.map((event) => event.developerParty))];
      const endpoints = await enabledWebhookEndpointsOf(tx, parties);
      const events = await fannedOut(tx, queued, endpoints, input.mode);
      const turn = input.leasing?.slots.tryTurn() ?? null;
      const written = await writeFanOut(
        tx,
        { events, queued, now: input.now },
        input.leasing,
        turn,
      );
      try {
        leased = leasedDeliveries(written.leased, events, endpoints, input.now);
      } finally {
        turn?.taken(leased);
      }
      return { moved: queued.length, leased, claimable: written.claimable };
    });
  } catch (error) {
    // Rolled back: the leases taken were never committed, and their slots are free again.
    for (const delivery of leased) input.leasing?.slots.free(delivery.endpointId);
    throw error;
  }
}

/** The events with the endpoints that want them and their bodies; none for a subject gone. */
async function fannedOut(
  tx: Queryable,
  queued: readonly QueuedWebhookEvent[],
  endpoints: readonly WebhookEndpointRecord[],
  mode: Environment,
): Promise<FannedOutWebhookEvent[]> {
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
      body: webhookBody(event, mode, object),
      recipients: recipients.map((endpoint) => ({
        endpointId: endpoint.endpointId,
        deliveryId: newDeliveryId(),
      })),
    });
  }
  return events;
}

/** The insert, offered the free slots when this fan-out holds the turn. */
async function writeFanOut(
  tx: Queryable,
  batch: {
    readonly events: readonly FannedOutWebhookEvent[];
    readonly queued: readonly QueuedWebhookEvent[];
    readonly now: Date;
  },
  leasing: FanOutLeasing | undefined,
  turn: LeaseTurn | null,
): Promise<FanOutWritten> {
  try {
    const free =
      turn === null
        ? null
        : turn.offer(batch.events.flatMap((e) => e.recipients.map((r) => r.endpointId)));
    return await insertFannedOutWebhookEvents(tx, {
      events: batch.events,
      dequeue: batch.queued.map((event) => event.queuedSeq),
      now: batch.now,
      lease:
        leasing === undefined || free === null || free.total === 0
          ? null
          : {
              owner: leasing.owner,
              now: batch.now,
              leaseUntil: new Date(batch.now.getTime() + leasing.leaseMs),
              ...free,
            },
    });
  } catch (error) {
    turn?.taken([]);
    throw error;
  }
}

/** The leased deliveries as a claim would have answered them, from what the fan-out holds. */
function leasedDeliveries(
  rows: readonly LeasedFannedOutDelivery[],
  events: readonly FannedOutWebhookEvent[],
  endpoints: readonly WebhookEndpointRecord[],
  now: Date,
): ClaimedWebhookDelivery[] {
  const eventById = new Map(events.map((e) => [e.eventId, e]));
  const endpointById = new Map(endpoints.map((e) => [e.endpointId, e]));
  return rows.map((row) => {
    const event = eventById.get(row.eventId);
    const endpoint = endpointById.get(row.endpointId);
    if (event === undefined || endpoint === undefined) {
      throw new Error(`a fan-out leased ${row.deliveryId}, which it did not add`);
    }
    return {
      deliveryId: row.deliveryId,
      endpointId: row.endpointId,
      eventId: event.eventId,
      eventType: event.type,
      subjectId: event.subjectId,
      body: event.body,
      state: 'pending',
      attempts: [],
      attemptCount: 0,
      firstAttemptAt: null,
      nextAttemptAt: now,
      createdAt: now,
      endpoint,
    };
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
