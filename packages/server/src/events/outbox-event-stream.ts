/**
 * One client's Server-Sent Events stream of one outbox subject (a swap, a liquidity intent): the
 * events it has not seen, a comment heartbeat, and the end once nothing more can follow. What the
 * events are and when the subject is over is the kind's (views/outbox.ts); how they reach the
 * socket is the same for every outbox and lives here.
 *
 * The SSE `id` is the event's `seq` in its outbox. Within one subject that order is commit order:
 * every event is written by the statement that moves the subject's row, and that row stays
 * locked until the transaction commits, so a later event of the same subject always has a
 * higher, already visible `seq`. Resuming after `Last-Event-ID` is therefore exact: the events
 * with a higher `seq`, none twice, none skipped.
 */
import type { OutboxEvent } from '../views/outbox.js';
import type { SnapshotSubscription } from './intent-snapshots.js';
import {
  finished,
  hasEvent,
  messagesAfter,
  type OutboxSnapshot,
  type OutboxSnapshots,
} from './outbox-snapshot.js';
import { CLIENT_RETRY_MS, SSE_HEARTBEAT, UnknownLastEventIdError } from './sse.js';

const HEARTBEAT_MS_DEFAULT = 15_000;

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

export interface OutboxStreamDeps<E extends OutboxEvent, T> {
  /** Wake-ups and store reads, shared with the other streams of the same subject. */
  readonly snapshots: OutboxSnapshots<E, T>;
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

export class OutboxEventStream<E extends OutboxEvent, T> {
  private sink: EventSink | null = null;
  private first: OutboxSnapshot<E, T> | null = null;
  private closed = false;
  private woken = false;
  private resolveWake: (() => void) | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private subscription: SnapshotSubscription<OutboxSnapshot<E, T>> | null = null;

  private constructor(
    private readonly deps: OutboxStreamDeps<E, T>,
    private after: number | null,
  ) {}

  /**
   * Subscribes and reads the subject's events; `start` then streams them. Throws
   * `SubscribersFullError` when the process has no subscription left and
   * `UnknownLastEventIdError` when `after` is not one of the subject's events, before anything
   * is written, so the request can still be answered with a problem.
   */
  static async open<E extends OutboxEvent, T>(
    deps: OutboxStreamDeps<E, T>,
    subjectId: string,
    after: number | null,
  ): Promise<OutboxEventStream<E, T>> {
    const stream = new OutboxEventStream(deps, after);
    await stream.subscribeAndRead(subjectId);
    return stream;
  }

  private async subscribeAndRead(subjectId: string): Promise<void> {
    const subscription = this.deps.snapshots.subscribe(subjectId, () => this.wake());
    this.subscription = subscription;
    try {
      const first = await subscription.read();
      if (this.after !== null && !hasEvent(first, this.after)) {
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

  private async run(first: OutboxSnapshot<E, T>): Promise<void> {
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
  private send(snapshot: OutboxSnapshot<E, T>): boolean {
    const { kind } = this.deps.snapshots;
    const messages = messagesAfter(kind, snapshot, this.after);
    if (messages === null) return true;
    for (const message of messages) {
      this.write(message.bytes);
      this.after = message.seq;
    }
    return finished(kind, snapshot, this.after);
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
