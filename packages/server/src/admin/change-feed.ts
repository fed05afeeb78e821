/**
 * "An operator changed something": how a running service hears of `poolparty admin` changes
 * (discounts, key limits, pool status) made by another process, so they take effect at once
 * instead of after the caches' periodic re-reads.
 *
 * Every admin change writes an `admin_audit` row, whose trigger notifies `admin_changes`; on
 * PostgreSQL that reaches every process through `LISTEN`. The notification is only a hint: the
 * subscribers (the quoter, the API-key directory) re-read the store, and their periodic re-reads
 * bound the delay when a hint is lost (the listener reconnecting, say). After a reconnect every
 * subscriber is told, since changes made while nobody listened were not announced.
 */
import {
  type NotificationSource,
  nextRelistenDelayMs,
  RELISTEN_DELAY_MS_MAX,
  RELISTEN_DELAY_MS_MIN,
} from '../events/intent-event-hub.js';
import { ADMIN_CHANGES_CHANNEL } from '../store/admin-audit.js';

export type OnAdminChange = () => void;

export interface AdminChangeFeedOptions {
  readonly onListenerProblem?: (error: Error, retryInMs: number) => void;
}

export class AdminChangeFeed {
  private readonly subscribers = new Set<OnAdminChange>();
  private stopListening: (() => Promise<void>) | null = null;
  private relistenTimer: NodeJS.Timeout | null = null;
  private relistenDelayMs: number | null = null;
  private closed = false;

  private constructor(
    private readonly source: NotificationSource,
    private readonly options: AdminChangeFeedOptions,
  ) {}

  /** Listening before it returns. */
  static async open(
    source: NotificationSource,
    options: AdminChangeFeedOptions = {},
  ): Promise<AdminChangeFeed> {
    const feed = new AdminChangeFeed(source, options);
    feed.stopListening = await feed.listen();
    return feed;
  }

  /** Calls `onChange` after each announced change, until the returned function runs. */
  subscribe(onChange: OnAdminChange): () => void {
    const subscription: OnAdminChange = () => onChange();
    this.subscribers.add(subscription);
    return () => {
      this.subscribers.delete(subscription);
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
  }

  private listen(): Promise<() => Promise<void>> {
    return this.source.listen(
      ADMIN_CHANGES_CHANNEL,
      () => this.announce(),
      (error) => this.listenerLost(error),
    );
  }

  private announce(): void {
    for (const onChange of [...this.subscribers]) onChange();
  }

  private listenerLost(error: Error): void {
    this.stopListening = null;
    this.scheduleRelisten(error);
  }

  private scheduleRelisten(error: Error): void {
    if (this.closed) return;
    const delayMs = nextRelistenDelayMs(
      this.relistenDelayMs,
      RELISTEN_DELAY_MS_MIN,
      RELISTEN_DELAY_MS_MAX,
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
      this.announce();
    } catch (error) {
      this.scheduleRelisten(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
