/**
 * What a kind of intent says about its outbox (`intent_events`, `liquidity_events`): where its
 * rows are announced, how one subject's events and facts are read, and what each event tells a
 * client. The event streams (events/) serve any kind from this alone, so a kind of intent brings
 * its outbox and its route table, and nothing of the streaming.
 *
 * Every row of an outbox is written by the statement that moves its subject, so `seq` is commit
 * order within a subject. A row is a state change or, for kinds that have them, a leg event
 * (`payout_offered`, …): something that happened to a payout or refund while the state stood.
 */
import type { Queryable, SubjectOutbox } from '@poolparty/store';

/** One row of an outbox, as a stream orders and names it. */
export interface OutboxEvent {
  readonly seq: number;
  /** The state entered; for a leg event, the state the subject was in when it happened. */
  readonly status: string;
  /** Null or absent for a state change; else the leg event's name. */
  readonly legEvent?: string | null;
}

/** The subject's events, oldest first, and its facts; null facts once it is gone. */
export type OutboxRead<E extends OutboxEvent, T> = SubjectOutbox<E, T>;

export interface OutboxKind<E extends OutboxEvent, T> {
  /** The outbox's NOTIFY channel and the member of its payload naming the subject (migrations). */
  readonly channel: { readonly name: string; readonly subjectField: string };
  /**
   * Reads the events before the facts, so the facts are at least as new as the last event: a
   * stream never shows an event with facts older than it.
   */
  read(db: Queryable, subjectId: string): Promise<OutboxRead<E, T>>;
  /**
   * `read` for many subjects at once, in a few statements whatever their number (the webhook
   * fan-out reads a batch of events of many subjects); absent: `read` one subject at a time.
   */
  readMany?(db: Queryable, subjectIds: readonly string[]): Promise<Map<string, OutboxRead<E, T>>>;
  /** Whether a subject in `status` has ended: nothing follows its last event. */
  isTerminal(status: string): boolean;
  /** The `data` of `event`, one of `events`: the subject as of that event. */
  viewAt(subject: T, events: readonly E[], event: E): unknown;
}

/** The latest state change at or before `seq` (of all the events when `seq` is absent). */
export function latestStateChange<E extends OutboxEvent>(
  events: readonly E[],
  seq = Number.POSITIVE_INFINITY,
): E | undefined {
  return events.findLast((event) => event.legEvent == null && event.seq <= seq);
}
