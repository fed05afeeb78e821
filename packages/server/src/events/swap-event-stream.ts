/**
 * One client's Server-Sent Events stream of one swap (docs/spec/lifecycle.md#events): the current
 * state first, then one event per state change in lifecycle order, a comment heartbeat, and the end
 * after a terminal event.
 *
 * The SSE `id` is the event's `seq` in `intent_events`. Within one intent that order is commit
 * order: every event is written by the statement that moves the intent's row, and that row stays
 * locked until the transaction commits, so a later event of the same intent always has a higher,
 * already visible `seq`. Resuming after `Last-Event-ID` is therefore exact: the events with a
 * higher `seq`, none twice, none skipped.
 *
 * An event's `data` is the SwapStatus at that event: its state, the history up to it, the legs as
 * of it, and the other facts (deposit, a direct payout or refund) known when it is sent.
 *
 * Leg events (`payout_offered`, `refund_accepted`, … — core's `LEG_EVENTS`) are rows of the same
 * outbox, so they interleave with state events in commit order under the same `id` sequence and
 * resume exactly like them. Their `event:` is the leg event's name, never a state name; their
 * `data` is the SwapStatus in the state the intent was in, with the leg as the event left it
 * (`payout.state = 'offered'` and its `offerId`, …). A client without a position gets the current
 * state and the leg events since it, so an offer that waits is never missed.
 */
import {
  isTerminal,
  LEG_STATES,
  type Leg,
  type LegState,
  type SwapLeg,
  type SwapStatus,
} from '@poolparty/core';
import type { Queryable } from '@poolparty/store';
import {
  type FailureReason,
  getIntent,
  type IntentEventRecord,
  type IntentRecord,
  listIntentEvents,
} from '@poolparty/store';
import { swapStatusView } from '../swaps/intent-view.js';
import type { IntentEventHub } from './intent-event-hub.js';
import { IntentSnapshots } from './intent-snapshots.js';
import {
  formatSseMessage,
  OutboxEventStream,
  type OutboxView,
  type SseMessage,
} from './outbox-event-stream.js';

export {
  CLIENT_RETRY_MS,
  type EventSink,
  formatSseMessage,
  HEARTBEAT_MS_DEFAULT,
  parseLastEventId,
  SSE_HEARTBEAT,
  type SseMessage,
  setEventHeartbeatMs as setSwapEventHeartbeatMs,
  UnknownLastEventIdError,
} from './outbox-event-stream.js';

/** The latest state change at or before `seq` (all of them when `seq` is absent). */
function stateEventAt(
  events: readonly IntentEventRecord[],
  seq = Number.POSITIVE_INFINITY,
): IntentEventRecord | undefined {
  return events.findLast((event) => event.legEvent === null && event.seq <= seq);
}

/**
 * Without a position, the current state (its latest state change) and the leg events after it;
 * else every later event.
 */
export function eventsToSend(
  events: readonly IntentEventRecord[],
  after: number | null,
): IntentEventRecord[] {
  if (after === null) {
    const current = stateEventAt(events);
    return current === undefined ? [] : events.filter((event) => event.seq >= current.seq);
  }
  return events.filter((event) => event.seq > after);
}

/**
 * Whether nothing can follow `after`: the intent is in a terminal state and every event was sent
 * (no leg event is written after a terminal state).
 */
export function streamFinished(events: readonly IntentEventRecord[], after: number | null) {
  const last = events.at(-1);
  const state = stateEventAt(events);
  return (
    last !== undefined &&
    state !== undefined &&
    isTerminal(state.status) &&
    after !== null &&
    after >= last.seq
  );
}

function failureOfPayload(payload: unknown): FailureReason | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const { failureReason } = payload as { failureReason?: unknown };
  if (typeof failureReason !== 'object' || failureReason === null) return null;
  const { code, message } = failureReason as { code?: unknown; message?: unknown };
  return typeof code === 'string'
    ? { code, message: typeof message === 'string' ? message : '' }
    : null;
}

type LegFacts = Omit<Leg, 'amount'>;

/** The leg facts a leg event's payload recorded (the leg as the event left it). */
function legOfPayload(payload: unknown): LegFacts | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const { state, updateId, offerId, expiresAt } = payload as Record<string, unknown>;
  if (
    typeof state !== 'string' ||
    !(LEG_STATES as readonly string[]).includes(state) ||
    typeof updateId !== 'string' ||
    typeof offerId !== 'string' ||
    typeof expiresAt !== 'string'
  ) {
    return null;
  }
  return { state: state as LegState, updateId, offerId, expiresAt };
}

/**
 * A leg as of `seq`: the facts its latest leg event at or before `seq` recorded, null when its
 * offer came later, or `'as_now'` for a leg without leg events (direct, or not sent).
 */
function legFactsAsOf(
  leg: SwapLeg,
  events: readonly IntentEventRecord[],
  seq: number,
): LegFacts | null | 'as_now' {
  const ofLeg = events.filter((event) => event.legEvent?.startsWith(`${leg}_`));
  if (ofLeg.length === 0) return 'as_now';
  const latest = ofLeg.findLast((event) => event.seq <= seq);
  return latest === undefined ? null : legOfPayload(latest.payload);
}

/** The SwapStatus as of `event`, one of `events` (the intent's events, in order). */
export function statusAtEvent(
  intent: IntentRecord,
  events: readonly IntentEventRecord[],
  event: IntentEventRecord,
): SwapStatus {
  const history = events.filter((earlier) => earlier.seq <= event.seq);
  const state = stateEventAt(events, event.seq) ?? event;
  const current = stateEventAt(events)?.seq === state.seq && intent.status === state.status;
  const record: IntentRecord = current
    ? intent
    : { ...intent, status: state.status, failureReason: failureOfPayload(state.payload) };
  const view = swapStatusView(record, history);
  const payout = legFactsAsOf('payout', events, event.seq);
  const refund = legFactsAsOf('refund', events, event.seq);
  const payoutAmount = intent.payout?.amount ?? intent.actualOutput;
  const owed = intent.refund;
  const asOf = { ...view };
  if (payout !== 'as_now') {
    asOf.payout =
      payout === null || payoutAmount === null ? null : { amount: payoutAmount, ...payout };
  }
  if (refund !== 'as_now') {
    asOf.refund =
      refund === null || owed === null
        ? null
        : { amount: owed.amount, networkFeeAmount: owed.networkFeeAmount, ...refund };
  }
  return asOf;
}

export function sseMessageOf(
  intent: IntentRecord,
  events: readonly IntentEventRecord[],
  event: IntentEventRecord,
): SseMessage {
  return {
    event: event.legEvent ?? event.status,
    id: String(event.seq),
    data: JSON.stringify(statusAtEvent(intent, events, event)),
  };
}

/** One read of an intent's events and facts, shared by every stream of the intent it answers. */
export interface SwapEventSnapshot {
  readonly events: readonly IntentEventRecord[];
  readonly intent: IntentRecord | null;
  /**
   * The SSE message of each event, formatted and encoded from this snapshot on first use, so the
   * streams sharing it write the same bytes instead of each building the SwapStatus JSON again
   * (and each socket encoding it again).
   */
  readonly messages: Map<number, Buffer>;
}

/** Events before the intent: its facts are then at least as new as the last event. */
export async function readSwapEventSnapshot(
  db: Queryable,
  intentId: string,
): Promise<SwapEventSnapshot> {
  const events = await listIntentEvents(db, intentId);
  return { events, intent: await getIntent(db, intentId), messages: new Map() };
}

/** The formatted message of `event`, one of the snapshot's events (`intent` not null). */
export function snapshotMessage(
  snapshot: SwapEventSnapshot,
  intent: IntentRecord,
  event: IntentEventRecord,
): Buffer {
  let bytes = snapshot.messages.get(event.seq);
  if (bytes === undefined) {
    bytes = Buffer.from(formatSseMessage(sseMessageOf(intent, snapshot.events, event)));
    snapshot.messages.set(event.seq, bytes);
  }
  return bytes;
}

export type SwapEventSnapshots = IntentSnapshots<SwapEventSnapshot>;

/** The shared reads of one process's event streams (one per HTTP app). */
export function swapEventSnapshots(db: Queryable, hub: IntentEventHub): SwapEventSnapshots {
  return new IntentSnapshots(hub, (intentId) => readSwapEventSnapshot(db, intentId));
}

export interface SwapEventStreamDeps {
  /** Wake-ups and store reads, shared with the other streams of the same intent. */
  readonly snapshots: SwapEventSnapshots;
  /** Told when the store failed mid-stream; the stream ends and the client resumes. */
  readonly onReadError?: (error: unknown) => void;
}

/** The swap outbox as a stream reads it. */
export const SWAP_OUTBOX: OutboxView<SwapEventSnapshot> = {
  has: (snapshot, seq) => snapshot.events.some((event) => event.seq === seq),
  messagesAfter: (snapshot, after) => {
    const { intent } = snapshot;
    if (intent === null) return null;
    return eventsToSend(snapshot.events, after).map((event) => ({
      seq: event.seq,
      bytes: snapshotMessage(snapshot, intent, event),
    }));
  },
  finished: (snapshot, after) => streamFinished(snapshot.events, after),
};

export class SwapEventStream extends OutboxEventStream<SwapEventSnapshot> {
  /**
   * Subscribes and reads the intent's events; `start` then streams them. Throws
   * `SubscribersFullError` when the process has no subscription left and
   * `UnknownLastEventIdError` when `after` is not one of the intent's events, before anything
   * is written, so the request can still be answered with a problem.
   */
  static async open(
    deps: SwapEventStreamDeps,
    intentId: string,
    after: number | null,
  ): Promise<SwapEventStream> {
    const stream = new SwapEventStream({ ...deps, outbox: SWAP_OUTBOX }, after);
    await stream.subscribeAndRead(intentId);
    return stream;
  }
}
