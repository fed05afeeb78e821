/**
 * What a webhook carries (docs/spec/webhooks.md#body): `{ id, type, createdAt, mode, data: {
 * object } }`, the object being what the status route answers for the subject — an intent as of
 * the event, as the SSE stream's event data is; a withdrawal, collection or key as it stands.
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
import { withdrawalView } from '../views/liquidity.js';
import { LIQUIDITY_OUTBOX } from '../views/liquidity-outbox.js';
import type { OutboxEvent, OutboxKind } from '../views/outbox.js';
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

/** The subject as of an outbox row: the SSE stream's data of that event; null when gone. */
async function outboxViewAt<E extends OutboxEvent, T>(
  kind: OutboxKind<E, T>,
  db: Queryable,
  subjectId: string,
  seq: number | null,
): Promise<unknown> {
  const { events, subject } = await kind.read(db, subjectId);
  const event = events.find((candidate) => candidate.seq === seq);
  return subject === null || event === undefined ? null : kind.viewAt(subject, events, event);
}

/** The object a queued event carries; null when its subject is gone (nothing is sent then). */
export async function objectOfEvent(db: Queryable, event: QueuedWebhookEvent): Promise<unknown> {
  const kind = event.type.slice(0, event.type.indexOf('.'));
  switch (kind) {
    case 'swap':
      return outboxViewAt(SWAP_OUTBOX, db, event.subjectId, event.outboxSeq);
    case 'liquidity_intent':
      return outboxViewAt(LIQUIDITY_OUTBOX, db, event.subjectId, event.outboxSeq);
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
      return key === null ? null : listingOf(key);
    }
    default:
      return null;
  }
}
