/**
 * "Subject X has new events", delivered to the subscribers of this process
 * (docs/spec/lifecycle.md#events). Every row written to an outbox (`intent_events`,
 * `liquidity_events`) raises a notification on the outbox's channel (a trigger of its migration)
 * naming the row's subject; on PostgreSQL it reaches every process through `LISTEN`, so an SSE
 * subscriber on any `api` process hears of a state change written by any worker.
 *
 * A notification is only a hint: subscribers re-read the outbox from their own position, so a
 * lost, repeated or reordered hint can delay an event but never drop or duplicate one. When the
 * listening connection breaks, the hub listens again with a growing delay and then wakes every
 * subscriber, which re-reads whatever was written while nobody was listening.
 *
 * The channel is per database, not per schema: processes on other schemas of the same database
 * wake this one for subjects it does not know, which costs a lookup and nothing else.
 */
import { BaseError } from '@poolparty/core';
import {
  type NotificationSource,
  ResilientListener,
  type ResilientListenerOptions,
} from '@poolparty/store';
import { EVENT_SUBSCRIBERS_MAX } from '../config.js';

export type { NotificationSource } from '@poolparty/store';

/** An outbox's NOTIFY channel and the member of its payload that names the subject. */
export interface OutboxChannel {
  readonly name: string;
  readonly subjectField: string;
}

/**
 * The subscriptions a process may hold, shared by its hubs so that one bound covers every kind
 * of stream the process serves.
 */
class SubscriberBudget {
  private held = 0;

  constructor(readonly max: number = EVENT_SUBSCRIBERS_MAX) {}

  get count(): number {
    return this.held;
  }

  /** Takes one subscription; throws `SubscribersFullError` when none is left. */
  take(): void {
    if (this.held >= this.max) throw new SubscribersFullError(this.max);
    this.held++;
  }

  give(count = 1): void {
    this.held = Math.max(0, this.held - count);
  }
}

export interface EventHubOptions extends ResilientListenerOptions {
  /** Ignored when `budget` is given: the budget's bound applies. */
  readonly subscribersMax?: number;
  /** Shared with the process's other hubs; a budget of its own by default. */
  readonly budget?: SubscriberBudget;
}

export class SubscribersFullError extends BaseError<'subscribers_full'> {
  override readonly name = 'SubscribersFullError';
  constructor(readonly subscribersMax: number) {
    super(
      'subscribers_full',
      `all ${subscribersMax} event subscriptions of this process are in use`,
    );
  }
}

/** Called when the subject may have new events; the subscriber reads the store to find out. */
export type WakeUp = () => void;

/** The subject a notification names; null for anything that is not one of ours. */
function subjectOfNotification(payload: string, subjectField: string): string | null {
  try {
    const parsed: unknown = JSON.parse(payload);
    if (typeof parsed !== 'object' || parsed === null) return null;
    const subject = (parsed as Record<string, unknown>)[subjectField];
    return typeof subject === 'string' ? subject : null;
  } catch {
    return null;
  }
}

export class EventHub {
  private readonly subscribers = new Map<string, Set<WakeUp>>();
  private count = 0;
  private listener: ResilientListener | null = null;
  private closed = false;
  readonly budget: SubscriberBudget;

  private constructor(
    private readonly channel: OutboxChannel,
    options: EventHubOptions,
  ) {
    this.budget = options.budget ?? new SubscriberBudget(options.subscribersMax);
  }

  /** Listening before it returns, so nothing written after `listen` goes unannounced. */
  static async listen(
    source: NotificationSource,
    channel: OutboxChannel,
    options: EventHubOptions = {},
  ): Promise<EventHub> {
    const hub = new EventHub(channel, options);
    hub.listener = await ResilientListener.open(
      source,
      channel.name,
      {
        onNotification: (payload) => hub.deliver(payload),
        // Listening again before the wake-up: whatever was written while deaf is in the store now.
        onListeningAgain: () => hub.wakeEveryone(),
      },
      options,
    );
    return hub;
  }

  /** This hub's subscriptions (the budget may be shared with other hubs). */
  get subscriberCount(): number {
    return this.count;
  }

  get subscribersMax(): number {
    return this.budget.max;
  }

  /**
   * Wakes `wakeUp` whenever the subject may have new events, until the returned function runs.
   * Subscribe before the first read, so a change between the read and the subscription is heard.
   * Throws `SubscribersFullError` when the process has no subscription left.
   */
  subscribe(subjectId: string, wakeUp: WakeUp): () => void {
    if (this.closed) throw new Error(`the ${this.channel.name} event hub is closed`);
    this.budget.take();
    let wakeUps = this.subscribers.get(subjectId);
    if (wakeUps === undefined) {
      wakeUps = new Set();
      this.subscribers.set(subjectId, wakeUps);
    }
    // A wrapper per subscription: the same function subscribed twice is two subscriptions.
    const subscription: WakeUp = () => wakeUp();
    wakeUps.add(subscription);
    this.count++;
    let active = true;
    return () => {
      if (!active || this.closed) return;
      active = false;
      this.count--;
      this.budget.give();
      wakeUps.delete(subscription);
      if (wakeUps.size === 0 && this.subscribers.get(subjectId) === wakeUps) {
        this.subscribers.delete(subjectId);
      }
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.listener?.close();
    this.subscribers.clear();
    this.budget.give(this.count);
    this.count = 0;
  }

  private deliver(payload: string): void {
    const subjectId = subjectOfNotification(payload, this.channel.subjectField);
    if (subjectId === null) return;
    for (const wakeUp of [...(this.subscribers.get(subjectId) ?? [])]) wakeUp();
  }

  private wakeEveryone(): void {
    for (const wakeUps of [...this.subscribers.values()]) {
      for (const wakeUp of [...wakeUps]) wakeUp();
    }
  }
}
