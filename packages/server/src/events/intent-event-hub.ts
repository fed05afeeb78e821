/**
 * "Intent X has new events", delivered to the subscribers of this process
 * (docs/spec/lifecycle.md#events). Every row written to `intent_events` raises a notification on
 * the `intent_events` channel (a trigger of the initial migration); on PostgreSQL it reaches every
 * process through `LISTEN`, so an SSE subscriber on any `api` process hears of a state change
 * written by any worker.
 *
 * A notification is only a hint: subscribers re-read the outbox from their own position, so a
 * lost, repeated or reordered hint can delay an event but never drop or duplicate one. When the
 * listening connection breaks, the hub listens again with a growing delay and then wakes every
 * subscriber, which re-reads whatever was written while nobody was listening.
 *
 * The channel is per database, not per schema: processes on other schemas of the same database
 * wake this one for intents it does not know, which costs a lookup and nothing else.
 */
import {
  type NotificationSource,
  ResilientListener,
  type ResilientListenerOptions,
} from '@poolparty/store';

export type { NotificationSource } from '@poolparty/store';

export const INTENT_EVENTS_CHANNEL = 'intent_events';

/**
 * Concurrent subscriptions per process; each is an open SSE response. Past this a stream is
 * refused (429 `rate_limited`) and the SDK polls `GET /v1/swaps/{intentId}` instead.
 */
export const EVENT_SUBSCRIBERS_MAX = 1_000;

export interface IntentEventHubOptions extends ResilientListenerOptions {
  readonly subscribersMax?: number;
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

export class IntentEventHub {
  private readonly subscribers = new Map<string, Set<WakeUp>>();
  private count = 0;
  private listener: ResilientListener | null = null;
  private closed = false;

  private constructor(private readonly options: IntentEventHubOptions) {}

  /** Listening before it returns, so nothing written after `open` goes unannounced. */
  static async open(
    source: NotificationSource,
    options: IntentEventHubOptions = {},
  ): Promise<IntentEventHub> {
    const hub = new IntentEventHub(options);
    hub.listener = await ResilientListener.open(
      source,
      INTENT_EVENTS_CHANNEL,
      {
        onNotification: (payload) => hub.deliver(payload),
        // Listening again before the wake-up: whatever was written while deaf is in the store now.
        onListeningAgain: () => hub.wakeEveryone(),
      },
      options,
    );
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
    await this.listener?.close();
    this.subscribers.clear();
    this.count = 0;
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
}
