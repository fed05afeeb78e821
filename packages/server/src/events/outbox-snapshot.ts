/**
 * One read of an outbox subject (its events and facts), shared by every stream following it in
 * this process (intent-snapshots.ts says how), and what a stream positioned at `after` sends of
 * it. The kind of intent says how to read and what each event shows (views/outbox.ts); the rest
 * is the same for every outbox and lives here.
 *
 * Without a position a client gets the current state (the latest state change) and the leg events
 * after it; with one, every later event. Nothing follows once the subject is in a terminal state
 * and every event was sent: no leg event is written after a terminal state.
 */
import type { Queryable } from '@poolparty/store';
import { latestStateChange, type OutboxEvent, type OutboxKind } from '../views/outbox.js';
import { IntentSnapshots, type WakeUpSource } from './intent-snapshots.js';
import { formatSseMessage } from './sse.js';

export interface OutboxSnapshot<E extends OutboxEvent, T> {
  readonly events: readonly E[];
  /** The subject's facts; null once it is gone (its stream then ends). */
  readonly subject: T | null;
  /**
   * The SSE message of each event, formatted and encoded from this snapshot on first use, so the
   * streams sharing it write the same bytes instead of each building the JSON again (and each
   * socket encoding it again).
   */
  readonly messages: Map<number, Buffer>;
}

/** The shared reads of one kind's event streams in one process (one per HTTP app). */
export class OutboxSnapshots<E extends OutboxEvent, T> extends IntentSnapshots<
  OutboxSnapshot<E, T>
> {
  constructor(
    db: Queryable,
    wakeUps: WakeUpSource,
    readonly kind: OutboxKind<E, T>,
  ) {
    super(wakeUps, async (subjectId) => ({
      ...(await kind.read(db, subjectId)),
      messages: new Map(),
    }));
  }
}

/** One event ready for the wire. */
export interface OutboxMessage {
  readonly seq: number;
  readonly bytes: Buffer;
}

/** Whether `seq` is one of the subject's events. */
export function hasEvent(snapshot: OutboxSnapshot<OutboxEvent, unknown>, seq: number): boolean {
  return snapshot.events.some((event) => event.seq === seq);
}

function eventsToSend<E extends OutboxEvent>(events: readonly E[], after: number | null): E[] {
  if (after === null) {
    const current = latestStateChange(events);
    return current === undefined ? [] : events.filter((event) => event.seq >= current.seq);
  }
  return events.filter((event) => event.seq > after);
}

/**
 * The messages a client positioned at `after` has not seen, in order; null when the subject is
 * gone.
 */
export function messagesAfter<E extends OutboxEvent, T>(
  kind: OutboxKind<E, T>,
  snapshot: OutboxSnapshot<E, T>,
  after: number | null,
): OutboxMessage[] | null {
  const { subject, events, messages } = snapshot;
  if (subject === null) return null;
  return eventsToSend(events, after).map((event) => {
    let bytes = messages.get(event.seq);
    if (bytes === undefined) {
      const data = JSON.stringify(kind.viewAt(subject, events, event));
      const name = event.legEvent ?? event.status;
      bytes = Buffer.from(formatSseMessage({ event: name, id: String(event.seq), data }));
      messages.set(event.seq, bytes);
    }
    return { seq: event.seq, bytes };
  });
}

/** Whether nothing can follow `after`: the subject ended and every event was sent. */
export function finished<E extends OutboxEvent, T>(
  kind: OutboxKind<E, T>,
  snapshot: OutboxSnapshot<E, T>,
  after: number | null,
): boolean {
  const last = snapshot.events.at(-1);
  const state = latestStateChange(snapshot.events);
  return (
    last !== undefined &&
    state !== undefined &&
    kind.isTerminal(state.status) &&
    after !== null &&
    after >= last.seq
  );
}
