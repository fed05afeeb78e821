/**
 * API-key look-ups for every `/v1` request, kept off the database on the hot path: a small cache
 * of recent look-ups (by key hash) and usage counters flushed in batches.
 *
 * A key that stops early (revoked, or its grace ended by a rotation at the cap) is announced by
 * the store on `API_KEY_CHANGES_CHANNEL`; every process hearing it (`hearKeyChanges`) forgets its
 * cached look-ups, so the key stops at once everywhere. The announcement is a hint: should one
 * be lost (the listener reconnecting), `CACHE_TTL_MS` bounds how long a stopped key can still be
 * honoured. Rate limits an operator sets with `poolparty admin keys limits` apply at once too: the
 * service calls `invalidate()` when the store announces an admin change (admin/change-feed.ts).
 */

import { keepRecent } from '@poolparty/core';
import type { Database, NotificationSource, ResilientListenerOptions } from '@poolparty/store';
import {
  API_KEY_CHANGES_CHANNEL,
  type ApiKeyWithDeveloper,
  findApiKeyByHash,
  ResilientListener,
  recordApiKeyUsage,
} from '@poolparty/store';
import { hashApiKey } from './api-keys.js';

const CACHE_TTL_MS = 10_000;
const CACHE_ENTRIES_MAX = 10_000;
const USAGE_FLUSH_INTERVAL_MS = 2_000;

interface CacheEntry {
  readonly key: ApiKeyWithDeveloper | null;
  readonly loadedAtMs: number;
}

interface Usage {
  count: number;
  lastUsedAt: Date;
}

export class ApiKeyDirectory {
  private readonly cache = new Map<string, CacheEntry>();
  /** Presented key → its hash; a pure function, so entries never go stale. */
  private readonly hashes = new Map<string, string>();
  private readonly pendingLoads = new Map<string, Promise<ApiKeyWithDeveloper | null>>();
  private readonly usage = new Map<string, Usage>();
  private readonly flushTimer: NodeJS.Timeout;

  constructor(
    private readonly db: Database,
    private readonly onFlushError: (error: unknown) => void = () => {},
  ) {
    this.flushTimer = setInterval(() => void this.flushUsage(), USAGE_FLUSH_INTERVAL_MS);
    this.flushTimer.unref();
  }

  /**
   * The key presented as `rawKey`, or null. Its hash is remembered in memory only (never stored),
   * so a client sending the same key on every request pays for hashing once.
   */
  async findPresented(rawKey: string): Promise<ApiKeyWithDeveloper | null> {
    return this.find(this.hashOf(rawKey));
  }

  /**
   * The key presented as `rawKey` when a fresh look-up of it is cached (null: known not to
   * exist), else undefined: lets the common case answer without waiting on a promise.
   */
  cachedPresented(rawKey: string): ApiKeyWithDeveloper | null | undefined {
    const cached = this.cache.get(this.hashOf(rawKey));
    return cached && Date.now() - cached.loadedAtMs < CACHE_TTL_MS ? cached.key : undefined;
  }

  /** The key with this hash, or null; unknown hashes are cached too, so probing costs no query. */
  async find(keyHash: string): Promise<ApiKeyWithDeveloper | null> {
    const nowMs = Date.now();
    const cached = this.cache.get(keyHash);
    if (cached && nowMs - cached.loadedAtMs < CACHE_TTL_MS) return cached.key;
    const pending = this.pendingLoads.get(keyHash);
    if (pending) return pending;
    const load = findApiKeyByHash(this.db, keyHash).finally(() =>
      this.pendingLoads.delete(keyHash),
    );
    this.pendingLoads.set(keyHash, load);
    const key = await load;
    this.remember(keyHash, { key, loadedAtMs: nowMs });
    return key;
  }

  /** Forgets every cached look-up: call after revoking or rotating a key. */
  invalidate(): void {
    this.cache.clear();
  }

  /**
   * Forgets every cached look-up whenever the store announces a key that stopped early, from
   * whichever process; and after the listener was lost, since announcements may have been missed
   * meanwhile. Listening before it returns; the returned function stops.
   */
  async hearKeyChanges(
    source: NotificationSource,
    options: Pick<ResilientListenerOptions, 'onListenerProblem'> = {},
  ): Promise<() => Promise<void>> {
    const forget = () => this.invalidate();
    const listener = await ResilientListener.open(
      source,
      API_KEY_CHANGES_CHANNEL,
      { onNotification: forget, onListeningAgain: forget },
      options,
    );
    return () => listener.close();
  }

  recordUse(keyId: string, at: Date): void {
    const usage = this.usage.get(keyId);
    if (usage) {
      usage.count++;
      if (at > usage.lastUsedAt) usage.lastUsedAt = at;
    } else {
      this.usage.set(keyId, { count: 1, lastUsedAt: at });
    }
  }

  async flushUsage(): Promise<void> {
    if (this.usage.size === 0) return;
    const batch = [...this.usage.entries()];
    this.usage.clear();
    try {
      for (const [keyId, usage] of batch) {
        await recordApiKeyUsage(this.db, keyId, usage.count, usage.lastUsedAt);
      }
    } catch (error) {
      this.onFlushError(error);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.flushTimer);
    await this.flushUsage();
  }

  private hashOf(rawKey: string): string {
    let keyHash = this.hashes.get(rawKey);
    if (keyHash === undefined) {
      keyHash = hashApiKey(rawKey);
      if (this.hashes.size >= CACHE_ENTRIES_MAX) this.hashes.clear();
      this.hashes.set(rawKey, keyHash);
    }
    return keyHash;
  }

  private remember(keyHash: string, entry: CacheEntry): void {
    keepRecent(this.cache, keyHash, entry, CACHE_ENTRIES_MAX);
  }
}
