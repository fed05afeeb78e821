/**
 * What a webhook carries (docs/spec/webhooks.md#body): `{ id, type, createdAt, mode, data: {
 * object } }`, the object being what the status route answers for the subject — an intent as of
 * the event, as the SSE stream's event data is (an atomic swap as `GET /v1/atomic-swaps/{id}`
 * answers it, its stream's data); a withdrawal, collection or key as it stands.
 * The body is made once, when the event is fanned out, and every attempt sends the same bytes.
 */
import type { Environment } from '@poolparty/core';
import {
  getApiKey,
  getCollection,
  getWithdrawal,
  payoutOffersOf,
  type Queryable,
  type QueuedWebhookEvent,
} from '@poolparty/store';
import { ATOMIC_SWAP_OUTBOX } from '../views/atomic-swap-outbox.js';
import { withdrawalView } from '../views/liquidity.js';
import { LIQUIDITY_OUTBOX } from '../views/liquidity-outbox.js';
import type { OutboxEvent, OutboxKind, OutboxRead } from '../views/outbox.js';
import { collectionOf, listingOf } from '../views/portal.js';
import { SWAP_OUTBOX } from '../views/swap-outbox.js';

export interface WebhookEventHead {
  readonly eventId: string;
  readonly type: string;
  readonly at: Date;
}

/** The raw body of an event, as signed and sent. */
export function webhookBody(event: WebhookEventHead, mode: Environment, object: unknown): string {
  return JSON.stringify({
    id: event.eventId,
    type: event.type,
    createdAt: event.at.toISOString(),
    mode,
    data: { object },
  });
}

/**
 * An intent's outbox as read once for a fan-out, by kind and subject: a batch holding several
 * events of one intent reads its events and its row once, not once per event.
 */
export type OutboxReads = Map<string, Promise<OutboxRead<OutboxEvent, unknown>>>;

type AnyOutbox = OutboxKind<OutboxEvent, unknown>;

/** The outbox of each kind of intent, by the first part of its events' type. */
const OUTBOX_OF_KIND: ReadonlyMap<string, AnyOutbox> = new Map([
  ['swap', SWAP_OUTBOX as unknown as AnyOutbox],
  ['atomic_swap', ATOMIC_SWAP_OUTBOX as unknown as AnyOutbox],
  ['liquidity_intent', LIQUIDITY_OUTBOX as unknown as AnyOutbox],
]);

/** Where `reads` keeps a subject's outbox. */
const readKey = (kind: AnyOutbox, subjectId: string) => `${kind.channel.name}:${subjectId}`;

/**
 * Reads, for a batch of events, the outboxes of every kind that reads many subjects at once, in
 * a few statements for the whole batch rather than some per subject; the rest are read as their
 * events are reached.
 */
export async function readOutboxesOfBatch(
  db: Queryable,
  events: readonly QueuedWebhookEvent[],
  reads: OutboxReads,
): Promise<void> {
  for (const [prefix, kind] of OUTBOX_OF_KIND) {
    if (kind.readMany === undefined) continue;
    const ids = [
      ...new Set(
        events
          .filter((event) => event.type.startsWith(`${prefix}.`))
          .map((event) => event.subjectId)
          .filter((id) => !reads.has(readKey(kind, id))),
      ),
    ];
    if (ids.length === 0) continue;
    for (const [id, read] of await kind.readMany(db, ids)) {
      reads.set(readKey(kind, id), Promise.resolve(read));
    }
  }
}

/** The subject as of an outbox row: the SSE stream's data of that event; null when gone. */
async function outboxViewAt(
  kind: AnyOutbox,
  db: Queryable,
  event: QueuedWebhookEvent,
  reads: OutboxReads,
): Promise<unknown> {
  const key = readKey(kind, event.subjectId);
  let read = reads.get(key);
  if (read === undefined) {
    read = kind.read(db, event.subjectId);
    reads.set(key, read);
  }
  const { events, subject } = await read;
  const at = events.find((candidate) => candidate.seq === event.outboxSeq);
  return subject === null || at === undefined ? null : kind.viewAt(subject, events, at);
}

/**
 * The object a queued event carries; null when its subject is gone (nothing is sent then).
 * `reads` is shared by the events of one fan-out.
 */
export async function objectOfEvent(
  db: Queryable,
  event: QueuedWebhookEvent,
  reads: OutboxReads = new Map(),
): Promise<unknown> {
  const kind = event.type.slice(0, event.type.indexOf('.'));
  const outbox = OUTBOX_OF_KIND.get(kind);
  if (outbox !== undefined) return outboxViewAt(outbox, db, event, reads);
  switch (kind) {
    case 'liquidity_withdrawal': {
      const withdrawal = await getWithdrawal(db, event.subjectId);
      if (withdrawal === null) return null;
      return withdrawalView(withdrawal, await payoutOffersOf(db, event.subjectId));
    }
    case 'collection': {
      const collection = await getCollection(db, event.subjectId);
      return collection === null ? null : collectionOf(collection);
    }
    case 'api_key': {
      const key = await getApiKey(db, event.subjectId);
      // Whether the key works as of the event, the moment it was revoked.
      return key === null ? null : listingOf(key, event.at);
    }
    default:
      return null;
  }
}
