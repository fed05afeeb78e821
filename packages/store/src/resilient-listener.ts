/**
 * A `LISTEN` on one channel that survives its connection: when the listening connection breaks,
 * it listens again after a growing delay and then says so, because whatever was notified while
 * nobody listened was lost and the owner must re-read the store to catch up. Notifications are
 * hints everywhere they are used; this only keeps the hints flowing.
 */
import type { Database } from './database.js';

export const RELISTEN_DELAY_MS_MIN = 250;
export const RELISTEN_DELAY_MS_MAX = 30_000;

/** What is listened through: a `Database`, or a stand-in in tests. */
export type NotificationSource = Pick<Database, 'listen'>;

export interface ResilientListenerOptions {
  readonly relistenDelayMsMin?: number;
  readonly relistenDelayMsMax?: number;
  /** Told when the listener broke or could not be restored; it keeps trying. */
  readonly onListenerProblem?: (error: Error, retryInMs: number) => void;
}

export interface ListenerHandlers {
  readonly onNotification: (payload: string) => void;
  /** Listening again after a break: notifications may have been missed meanwhile. */
  readonly onListeningAgain: () => void;
}

/** The wait before the next attempt to listen again: doubling, within bounds. */
export function nextRelistenDelayMs(previousMs: number | null, minMs: number, maxMs: number) {
  return previousMs === null ? minMs : Math.min(maxMs, previousMs * 2);
}

export class ResilientListener {
  private stopListening: (() => Promise<void>) | null = null;
  private relistenTimer: NodeJS.Timeout | null = null;
  private relistenDelayMs: number | null = null;
  private closed = false;

  private constructor(
    private readonly source: NotificationSource,
    private readonly channel: string,
    private readonly handlers: ListenerHandlers,
    private readonly options: ResilientListenerOptions,
  ) {}

  /** Listening before it returns, so nothing notified after `open` goes unheard. */
  static async open(
    source: NotificationSource,
    channel: string,
    handlers: ListenerHandlers,
    options: ResilientListenerOptions = {},
  ): Promise<ResilientListener> {
    const listener = new ResilientListener(source, channel, handlers, options);
    listener.stopListening = await listener.listen();
    return listener;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.relistenTimer !== null) clearTimeout(this.relistenTimer);
    this.relistenTimer = null;
    const stop = this.stopListening;
    this.stopListening = null;
    await stop?.();
  }

  private listen(): Promise<() => Promise<void>> {
    return this.source.listen(this.channel, this.handlers.onNotification, (error) => {
      this.stopListening = null;
      this.scheduleRelisten(error);
    });
  }

  private scheduleRelisten(error: Error): void {
    if (this.closed) return;
    const delayMs = nextRelistenDelayMs(
      this.relistenDelayMs,
      this.options.relistenDelayMsMin ?? RELISTEN_DELAY_MS_MIN,
      this.options.relistenDelayMsMax ?? RELISTEN_DELAY_MS_MAX,
    );
    this.relistenDelayMs = delayMs;
    this.options.onListenerProblem?.(error, delayMs);
    this.relistenTimer = setTimeout(() => void this.relisten(), delayMs);
    this.relistenTimer.unref();
  }

  private async relisten(): Promise<void> {
    this.relistenTimer = null;
    if (this.closed) return;
    try {
      const stop = await this.listen();
      if (this.closed) {
        await stop();
        return;
      }
      this.stopListening = stop;
      this.relistenDelayMs = null;
      this.handlers.onListeningAgain();
    } catch (error) {
      this.scheduleRelisten(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
