/**
 * "Intent X has new events", delivered to the subscribers of this process (SPEC §7.6, §11). Every
 * row written to `intent_events` raises a notification on the `intent_events` channel (a trigger
 * of the initial migration); on PostgreSQL it reaches every process through `LISTEN`, so an SSE
 * subscriber on any `api` process hears of a state change written by any worker.
 *
 * A notification is only a hint: subscribers re-read the outbox from their own position, so a
 * lost, repeated or reordered hint can delay an event but never drop or duplicate one. When the
 * listening connection breaks, the hub listens again with a growing delay and then wakes every
 * subscriber, which re-reads whatever was written while nobody was listening.
 *
 * The channel is per database, not per schema: processes on other schemas of the same database
 * wake this one for intents it does not know, which costs a lookup and nothing else.
 */
import type { Database } from '../store/database.js';

export const INTENT_EVENTS_CHANNEL = 'intent_events';

/**
 * Concurrent subscriptions per process; each is an open SSE response. Past this a stream is
 * refused (429 `rate_limited`) and the SDK polls `GET /v1/swaps/{intentId}` instead.
 */
export const EVENT_SUBSCRIBERS_MAX = 1_000;
export const RELISTEN_DELAY_MS_MIN = 250;
export const RELISTEN_DELAY_MS_MAX = 30_000;

/** What the hub listens through: a `Database`, or a stand-in in tests. */
export type NotificationSource = Pick<Database, 'listen'>;

export interface IntentEventHubOptions {
  readonly subscribersMax?: number;
  readonly relistenDelayMsMin?: number;
  readonly relistenDelayMsMax?: number;
  /** Told when the listener broke or could not be restored; the hub keeps trying. */
  readonly onListenerProblem?: (error: Error, retryInMs: number) => void;
}

export class SubscribersFullError extends Error {
  override readonly name = 'SubscribersFullError';
  constructor(readonly subscribersMax: number) {
    super(`all ${subscribersMax} event subscriptions of this process are in use`);
  }
}

/** Called when the intent may have new events; the subscriber reads the store to find out. */
export type WakeUp = () => void;

/** The intent a notification names; null for anything that is not one of ours. */
export function intentIdOfNotification(payload: string): string | null {
  try {
    const parsed: unknown = JSON.parse(payload);
    if (typeof parsed !== 'object' || parsed === null) return null;
    const { intentId } = parsed as { intentId?: unknown };
    return typeof intentId === 'string' ? intentId : null;
  } catch {
    return null;
  }
}

/** The wait before the next attempt to listen again: doubling, within bounds. */
export function nextRelistenDelayMs(previousMs: number | null, minMs: number, maxMs: number) {
  return previousMs === null ? minMs : Math.min(maxMs, previousMs * 2);
}

export class IntentEventHub {
  private readonly subscribers = new Map<string, Set<WakeUp>>();
  private count = 0;
  private stopListening: (() => Promise<void>) | null = null;
  private relistenTimer: NodeJS.Timeout | null = null;
  private relistenDelayMs: number | null = null;
  private closed = false;

  private constructor(
    private readonly source: NotificationSource,
    private readonly options: IntentEventHubOptions,
  ) {}

  /** Listening before it returns, so nothing written after `open` goes unannounced. */
  static async open(
    source: NotificationSource,
    options: IntentEventHubOptions = {},
  ): Promise<IntentEventHub> {
    const hub = new IntentEventHub(source, options);
    hub.stopListening = await hub.listen();
    return hub;
  }

  get subscriberCount(): number {
    return this.count;
  }

  get subscribersMax(): number {
    return this.options.subscribersMax ?? EVENT_SUBSCRIBERS_MAX;
  }

  /**
   * Wakes `wakeUp` whenever the intent may have new events, until the returned function runs.
   * Subscribe before the first read, so a change between the read and the subscription is heard.
   * Throws `SubscribersFullError` when the process has no subscription left.
   */
  subscribe(intentId: string, wakeUp: WakeUp): () => void {
    if (this.closed) throw new Error('the intent event hub is closed');
    if (this.count >= this.subscribersMax) throw new SubscribersFullError(this.subscribersMax);
    let wakeUps = this.subscribers.get(intentId);
    if (wakeUps === undefined) {
      wakeUps = new Set();
      this.subscribers.set(intentId, wakeUps);
    }
    // A wrapper per subscription: the same function subscribed twice is two subscriptions.
    const subscription: WakeUp = () => wakeUp();
    wakeUps.add(subscription);
    this.count++;
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      this.count--;
      wakeUps.delete(subscription);
      if (wakeUps.size === 0 && this.subscribers.get(intentId) === wakeUps) {
        this.subscribers.delete(intentId);
      }
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.relistenTimer !== null) clearTimeout(this.relistenTimer);
    this.relistenTimer = null;
    const stop = this.stopListening;
    this.stopListening = null;
    await stop?.();
    this.subscribers.clear();
    this.count = 0;
  }

  private listen(): Promise<() => Promise<void>> {
    return this.source.listen(
      INTENT_EVENTS_CHANNEL,
      (payload) => this.deliver(payload),
      (error) => this.listenerLost(error),
    );
  }

  private deliver(payload: string): void {
    const intentId = intentIdOfNotification(payload);
    if (intentId === null) return;
    for (const wakeUp of [...(this.subscribers.get(intentId) ?? [])]) wakeUp();
  }

  private wakeEveryone(): void {
    for (const wakeUps of [...this.subscribers.values()]) {
      for (const wakeUp of [...wakeUps]) wakeUp();
    }
  }

  private listenerLost(error: Error): void {
    this.stopListening = null;
    this.scheduleRelisten(error);
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
      // Listening again before the wake-up: whatever was written while deaf is in the store now.
      this.wakeEveryone();
    } catch (error) {
      this.scheduleRelisten(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
