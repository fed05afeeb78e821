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
import { IntentSnapshots, type SnapshotSubscription } from './intent-snapshots.js';

export const HEARTBEAT_MS_DEFAULT = 15_000;
/** The reconnect delay the stream suggests to EventSource clients (`retry:`). */
export const CLIENT_RETRY_MS = 3_000;
export const SSE_HEARTBEAT = ': heartbeat\n\n';

let heartbeatMs = HEARTBEAT_MS_DEFAULT;

/** Changes the heartbeat interval of streams opened from now on; returns the undo. */
export function setSwapEventHeartbeatMs(ms: number): () => void {
  if (!Number.isInteger(ms) || ms < 1) throw new RangeError(`heartbeat must be ≥ 1 ms, got ${ms}`);
  const previous = heartbeatMs;
  heartbeatMs = ms;
  return () => {
    heartbeatMs = previous;
  };
}

export interface SseMessage {
  readonly event: string;
  readonly id: string;
  /** One line: JSON without indentation never contains a raw line break. */
  readonly data: string;
}

export function formatSseMessage(message: SseMessage): string {
  return `event: ${message.event}\nid: ${message.id}\ndata: ${message.data}\n\n`;
}

const EVENT_ID = /^\d{1,15}$/;

/** The `seq` a client resumes after; null when it sent none, `'invalid'` for anything else. */
export function parseLastEventId(text: string | undefined): number | null | 'invalid' {
  if (text === undefined || text === '') return null;
  return EVENT_ID.test(text) ? Number(text) : 'invalid';
}

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

/** `Last-Event-ID` names no event of this swap: the client mixed up its streams. */
export class UnknownLastEventIdError extends Error {
  override readonly name = 'UnknownLastEventIdError';
  constructor(readonly lastEventId: number) {
    super(`event ${lastEventId} is not an event of this swap`);
  }
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

/**
 * Where a stream writes: the HTTP response itself. Writing there directly, instead of through a
 * stream piped into it, keeps a thousand streams' share of one change to the sockets' own sends.
 */
export interface EventSink {
  write(chunk: Buffer | string): unknown;
  end(): unknown;
  readonly writableEnded: boolean;
  /** True once the client is gone (its connection closed). */
  readonly destroyed: boolean;
  once(event: 'close', listener: () => void): unknown;
}

export class SwapEventStream {
  private sink: EventSink | null = null;
  private first: SwapEventSnapshot | null = null;
  private closed = false;
  private woken = false;
  private resolveWake: (() => void) | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private subscription: SnapshotSubscription<SwapEventSnapshot> | null = null;

  private constructor(
    private readonly deps: SwapEventStreamDeps,
    private after: number | null,
  ) {}

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
    const stream = new SwapEventStream(deps, after);
    const subscription = deps.snapshots.subscribe(intentId, () => stream.wake());
    stream.subscription = subscription;
    try {
      const first = await subscription.read();
      if (after !== null && !first.events.some((event) => event.seq === after)) {
        throw new UnknownLastEventIdError(after);
      }
      stream.first = first;
      return stream;
    } catch (error) {
      stream.stop();
      throw error;
    }
  }

  /** Ends the stream as a server shutdown does; the client resumes elsewhere. */
  end(): void {
    if (!this.closed) this.sink?.end();
    this.stop();
  }

  /** Streams into `sink`, the response whose headers are written; ends when `sink` closes. */
  start(sink: EventSink): void {
    const first = this.first;
    if (first === null || this.sink !== null) throw new Error('a stream starts once, after open');
    this.sink = sink;
    this.first = null;
    if (this.closed) {
      sink.end();
      return;
    }
    // A client that left during the first read closed the response before anyone listened.
    if (sink.destroyed) {
      this.stop();
      return;
    }
    sink.once('close', () => this.stop());
    // Something goes out at once, so the client has the response headers even before an event.
    this.write(`retry: ${CLIENT_RETRY_MS}\n\n`);
    this.heartbeat = setInterval(() => this.write(SSE_HEARTBEAT), heartbeatMs);
    this.heartbeat.unref();
    void this.run(first);
  }

  private async run(first: SwapEventSnapshot): Promise<void> {
    let snapshot = first;
    try {
      while (!this.closed) {
        if (this.send(snapshot)) {
          // Ended on the next turn: the streams woken by the same read then all have their last
          // event on the wire before any pays for closing its response (hooks, metrics, logs).
          setImmediate(() => this.end());
          return;
        }
        await this.nextWake();
        if (this.closed || this.subscription === null) return;
        snapshot = await this.subscription.read();
      }
    } catch (error) {
      this.deps.onReadError?.(error);
      this.end();
    }
  }

  /** Sends what the client has not seen; true once nothing more can follow. */
  private send(snapshot: SwapEventSnapshot): boolean {
    const { events, intent } = snapshot;
    if (intent === null) return true;
    for (const event of eventsToSend(events, this.after)) {
      this.write(snapshotMessage(snapshot, intent, event));
      this.after = event.seq;
    }
    return streamFinished(events, this.after);
  }

  private wake(): void {
    this.woken = true;
    this.resolveWake?.();
  }

  private nextWake(): Promise<void> {
    if (this.woken || this.closed) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.resolveWake = () => {
        this.resolveWake = null;
        this.woken = false;
        resolve();
      };
    });
  }

  private write(chunk: Buffer | string): void {
    if (!this.closed && this.sink !== null && !this.sink.writableEnded) this.sink.write(chunk);
  }

  private stop(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.heartbeat !== null) clearInterval(this.heartbeat);
    this.heartbeat = null;
    this.subscription?.close();
    this.resolveWake?.();
  }
}
