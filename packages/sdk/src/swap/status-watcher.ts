/**
 * Follows a swap's status (or a liquidity intent's) until it ends: from the event stream
 * `GET /v1/swaps/{id}/events`, reconnecting with `Last-Event-ID` when it drops, and by polling
 * `GET /v1/swaps/{id}` when streaming is unavailable (an error answer, a service without streams,
 * a network that buffers them). Observations go to a sink that decides what they mean.
 */

import { NetworkError, RateLimitError, ServerError, TimeoutError } from '../errors.js';
import type { Sleep } from '../http/abort.js';
import type { SwapStatus } from '../types.js';
import { SseParser } from './sse-parser.js';

/** Anything followed: a state and the rest of its facts. */
export interface Followed {
  readonly status: string;
}

/** What the watcher reads from. */
export interface StatusSource<T extends Followed = SwapStatus> {
  /** Opens the event stream; rejects when the service refuses it. */
  openStream(
    intentId: string,
    headers: Readonly<Record<string, string>>,
    signal: AbortSignal,
  ): Promise<Response>;
  getStatus(intentId: string, signal: AbortSignal): Promise<T>;
  readonly sleep: Sleep;
  readonly pollIntervalMs: number;
  /** Whether an event's data is a whole status; by default a SwapStatus (it has a history). */
  readonly isStatus?: (value: Readonly<Record<string, unknown>>) => boolean;
}

/** Where an observation came from: an event of the stream, or a status read. */
export type StatusOrigin = 'stream' | 'poll';

/** Where observations go. */
export interface StatusSink<T extends Followed = SwapStatus> {
  /** Takes an observed status; returns true when the swap has ended and watching can stop. */
  onStatus(status: T, origin: StatusOrigin): boolean;
  /**
   * The service ended a stream without sending anything after `Last-Event-ID`: true when the sink
   * knows that means the swap has ended (it resumed after the last event of an ended swap).
   */
  onStreamEndedQuietly?(): boolean;
  /** Watching failed for good (the wallet token expired, the intent is unknown). */
  onError(error: unknown): void;
}

/** Reconnections in a row that bring no event before the watcher falls back to polling. */
export const STREAM_RECONNECTS_MAX = 3;
/** Wait before reconnecting when the service did not set `retry:`. */
export const STREAM_RECONNECT_DELAY_MS = 1_000;
/** Three missed heartbeats (every 15 s): the connection is dead even if it is still open. */
export const STREAM_IDLE_MS = 45_000;

/** `closed`: the service ended the connection with nothing new; `quiet`: it dropped. */
type StreamOutcome = 'ended' | 'progressed' | 'closed' | 'quiet';

export class StatusWatcher<T extends Followed = SwapStatus> {
  private controller: AbortController | null = null;
  #lastEventId: string | null;

  /**
   * @param lastEventId - Resume after this event of the stream (an id a previous watcher saw).
   */
  constructor(
    private readonly intentId: string,
    private readonly source: StatusSource<T>,
    private readonly sink: StatusSink<T>,
    lastEventId: string | null = null,
  ) {
    this.#lastEventId = lastEventId;
  }

  /** The id of the latest stream event seen (or the one resumed after); null before any. */
  get lastEventId(): string | null {
    return this.#lastEventId;
  }

  /** True while watching. */
  get running(): boolean {
    return this.controller !== null;
  }

  /** Starts watching unless already watching. */
  start(): void {
    if (this.controller !== null) return;
    const controller = new AbortController();
    this.controller = controller;
    void this.run(controller.signal).finally(() => {
      if (this.controller === controller) this.controller = null;
    });
  }

  /** Stops watching; an open stream is closed. */
  stop(): void {
    this.controller?.abort();
    this.controller = null;
  }

  private async run(signal: AbortSignal): Promise<void> {
    try {
      if (await this.stream(signal)) return;
      await this.poll(signal);
    } catch (error) {
      if (!signal.aborted) this.sink.onError(error);
    }
  }

  /** Follows the stream; false when streaming failed and polling should take over. */
  private async stream(signal: AbortSignal): Promise<boolean> {
    let quietReconnects = 0;
    while (quietReconnects <= STREAM_RECONNECTS_MAX) {
      const parser = new SseParser();
      let response: Response;
      try {
        response = await this.source.openStream(this.intentId, this.resumeHeaders(), signal);
      } catch (error) {
        if (signal.aborted) throw error;
        return false;
      }
      if (!isEventStream(response)) {
        await response.body?.cancel().catch(() => {});
        return false;
      }
      const outcome = await this.read(response, parser, signal);
      if (outcome === 'ended') return true;
      if (outcome === 'closed' && this.sink.onStreamEndedQuietly?.() === true) return true;
      quietReconnects = outcome === 'progressed' ? 0 : quietReconnects + 1;
      await this.source.sleep(parser.retryMs ?? STREAM_RECONNECT_DELAY_MS, signal);
    }
    return false;
  }

  private resumeHeaders(): Record<string, string> {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (this.#lastEventId !== null) headers['last-event-id'] = this.#lastEventId;
    return headers;
  }

  /** Reads one connection to its end: the swap ended, or it dropped with or without news. */
  private async read(
    response: Response,
    parser: SseParser,
    signal: AbortSignal,
  ): Promise<StreamOutcome> {
    const body = response.body;
    if (body === null) return 'quiet';
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let idle = setTimeout(() => void reader.cancel().catch(() => {}), STREAM_IDLE_MS);
    let progressed = false;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        clearTimeout(idle);
        if (done) return progressed ? 'progressed' : 'closed';
        idle = setTimeout(() => void reader.cancel().catch(() => {}), STREAM_IDLE_MS);
        for (const event of parser.push(decoder.decode(value, { stream: true }))) {
          if (event.id !== null) this.#lastEventId = event.id;
          const status = parseStatus<T>(event.data, this.source.isStatus ?? hasHistory);
          if (status === null) continue;
          progressed = true;
          if (this.sink.onStatus(status, 'stream')) return 'ended';
        }
      }
    } catch (error) {
      if (signal.aborted) throw error;
      return progressed ? 'progressed' : 'quiet';
    } finally {
      clearTimeout(idle);
      reader.cancel().catch(() => {});
    }
  }

  private async poll(signal: AbortSignal): Promise<void> {
    for (;;) {
      try {
        if (this.sink.onStatus(await this.source.getStatus(this.intentId, signal), 'poll')) return;
      } catch (error) {
        if (signal.aborted || !isPassing(error)) throw error;
      }
      await this.source.sleep(this.source.pollIntervalMs, signal);
    }
  }
}

function isEventStream(response: Response): boolean {
  return /^text\/event-stream/i.test(response.headers.get('content-type') ?? '');
}

function hasHistory(value: Readonly<Record<string, unknown>>): boolean {
  return Array.isArray(value.history);
}

function parseStatus<T>(
  data: string,
  isStatus: (value: Readonly<Record<string, unknown>>) => boolean,
): T | null {
  try {
    const value: unknown = JSON.parse(data);
    if (typeof value !== 'object' || value === null) return null;
    const status = value as Record<string, unknown>;
    return typeof status.status === 'string' && isStatus(status) ? (value as T) : null;
  } catch {
    return null;
  }
}

/** Failures a later poll may not meet: the request sender has already retried them. */
function isPassing(error: unknown): boolean {
  return (
    error instanceof NetworkError ||
    error instanceof TimeoutError ||
    error instanceof ServerError ||
    error instanceof RateLimitError
  );
}
