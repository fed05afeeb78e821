/**
 * One client's Server-Sent Events stream of one outbox subject (a swap, a liquidity intent): the
 * events it has not seen, a comment heartbeat, and the end once nothing more can follow. What the
 * events are and when the subject is over is the outbox's (`OutboxView`); how they reach the
 * socket is the same for every outbox and lives here.
 *
 * The SSE `id` is the event's `seq` in its outbox. Within one subject that order is commit order:
 * every event is written by the statement that moves the subject's row, and that row stays
 * locked until the transaction commits, so a later event of the same subject always has a
 * higher, already visible `seq`. Resuming after `Last-Event-ID` is therefore exact: the events
 * with a higher `seq`, none twice, none skipped.
 */
import { BaseError } from '@poolparty/core';
import type { IntentSnapshots, SnapshotSubscription } from './intent-snapshots.js';

export const HEARTBEAT_MS_DEFAULT = 15_000;
/** The reconnect delay the stream suggests to EventSource clients (`retry:`). */
export const CLIENT_RETRY_MS = 3_000;
export const SSE_HEARTBEAT = ': heartbeat\n\n';

let heartbeatMs = HEARTBEAT_MS_DEFAULT;

/** Changes the heartbeat interval of streams opened from now on; returns the undo. */
export function setEventHeartbeatMs(ms: number): () => void {
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

/** `Last-Event-ID` names no event of this subject: the client mixed up its streams. */
export class UnknownLastEventIdError extends BaseError<'unknown_last_event_id'> {
  override readonly name = 'UnknownLastEventIdError';
  constructor(readonly lastEventId: number) {
    super('unknown_last_event_id', `event ${lastEventId} is not an event of this stream's subject`);
  }
}

/** One event ready for the wire. */
export interface OutboxMessage {
  readonly seq: number;
  readonly bytes: Buffer;
}

/** What one outbox's snapshots say, as a stream needs it. */
export interface OutboxView<S> {
  /** Whether `seq` is one of the subject's events. */
  has(snapshot: S, seq: number): boolean;
  /**
   * The messages a client positioned at `after` has not seen, in order; null when the subject
   * is gone (the stream then ends).
   */
  messagesAfter(snapshot: S, after: number | null): readonly OutboxMessage[] | null;
  /** Whether nothing can follow `after`: the subject ended and every event was sent. */
  finished(snapshot: S, after: number | null): boolean;
}

export interface OutboxStreamDeps<S> {
  /** Wake-ups and store reads, shared with the other streams of the same subject. */
  readonly snapshots: IntentSnapshots<S>;
  readonly outbox: OutboxView<S>;
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

export class OutboxEventStream<S> {
  private sink: EventSink | null = null;
  private first: S | null = null;
  private closed = false;
  private woken = false;
  private resolveWake: (() => void) | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private subscription: SnapshotSubscription<S> | null = null;

  protected constructor(
    private readonly deps: OutboxStreamDeps<S>,
    private after: number | null,
  ) {}

  /** `OutboxEventStream.open` for any outbox; see `subscribeAndRead`. */
  static async openOn<S>(
    deps: OutboxStreamDeps<S>,
    subjectId: string,
    after: number | null,
  ): Promise<OutboxEventStream<S>> {
    const stream = new OutboxEventStream(deps, after);
    await stream.subscribeAndRead(subjectId);
    return stream;
  }

  /**
   * Subscribes and reads the subject's events; `start` then streams them. Throws
   * `SubscribersFullError` when the process has no subscription left and
   * `UnknownLastEventIdError` when `after` is not one of the subject's events, before anything
   * is written, so the request can still be answered with a problem.
   */
  protected async subscribeAndRead(subjectId: string): Promise<void> {
    const subscription = this.deps.snapshots.subscribe(subjectId, () => this.wake());
    this.subscription = subscription;
    try {
      const first = await subscription.read();
      if (this.after !== null && !this.deps.outbox.has(first, this.after)) {
        throw new UnknownLastEventIdError(this.after);
      }
      this.first = first;
    } catch (error) {
      this.stop();
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

  private async run(first: S): Promise<void> {
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
  private send(snapshot: S): boolean {
    const messages = this.deps.outbox.messagesAfter(snapshot, this.after);
    if (messages === null) return true;
    for (const message of messages) {
      this.write(message.bytes);
      this.after = message.seq;
    }
    return this.deps.outbox.finished(snapshot, this.after);
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
