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
  ADMIN_CHANGES_CHANNEL,
  type NotificationSource,
  ResilientListener,
  type ResilientListenerOptions,
} from '@poolparty/store';

export type OnAdminChange = () => void;

export type AdminChangeFeedOptions = Pick<ResilientListenerOptions, 'onListenerProblem'>;

export class AdminChangeFeed {
  private readonly subscribers = new Set<OnAdminChange>();
  private listener: ResilientListener | null = null;

  private constructor() {}

  /** Listening before it returns. */
  static async open(
    source: NotificationSource,
    options: AdminChangeFeedOptions = {},
  ): Promise<AdminChangeFeed> {
    const feed = new AdminChangeFeed();
    const announce = () => feed.announce();
    feed.listener = await ResilientListener.open(
      source,
      ADMIN_CHANGES_CHANNEL,
      // After a break every subscriber is told: changes made meanwhile were not announced.
      { onNotification: announce, onListeningAgain: announce },
      options,
    );
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
    await this.listener?.close();
    this.subscribers.clear();
  }

  private announce(): void {
    for (const onChange of [...this.subscribers]) onChange();
  }
}
