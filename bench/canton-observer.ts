/**
 * What the canton-path bench sees of its swaps, each moment on its own clock: the deposits and
 * payouts, and the atomic swaps' executions, on an update stream of its own (the JSON Ledger
 * API's WebSocket, as the workers read it), and the intents' and atomic swaps' ends as the store
 * announces them (LISTEN on their events' channels).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type LedgerPort, REASON_META_KEY } from '@poolparty/ledger';
import pg from 'pg';
import type { AtomicMoments, SwapMoments } from './canton-timing.js';

/** The store's NOTIFY channel of intent events (payload: `{ seq, intentId, status }`). */
const INTENT_EVENTS_CHANNEL = 'intent_events';
/** The store's NOTIFY channel of atomic swap events (payload: `{ seq, atomicSwapId, status }`). */
const ATOMIC_EVENTS_CHANNEL = 'atomic_swap_events';
/** An atomic swap's ledger command id, as settlement gives it: `atomic-<atomicSwapId>-<n>`. */
const ATOMIC_COMMAND = /^atomic-(.+)-\d+$/;
/** The states an atomic swap ends in. */
const ATOMIC_TERMINAL = new Set(['completed', 'price_moved', 'rejected', 'expired', 'cancelled']);
/** The states an intent ends in: a wait for it is over. */
const TERMINAL = new Set([
  'completed',
  'refunded',
  'failed',
  'expired',
  'cancelled',
  'slippage_failed',
]);
/** How often a wait looks at what arrived; the moments are stamped on arrival, not here. */
const LOOK_EVERY_MS = 2;
const PAYOUT_REASON_PREFIX = 'payout:';

export class CantonObserver {
  private readonly depositSeen = new Map<string, number>();
  private readonly payoutSeen = new Map<string, number>();
  private readonly ended = new Map<string, { readonly status: string; readonly at: number }>();
  /** Atomic swaps' executions on the stream, by atomic swap id. */
  private readonly executionSeen = new Map<string, number>();
  /** Intents the store has moved on from `pending` (their deposit arrived, or they ended). */
  private readonly leftPendingIds = new Set<string>();
  private readonly stopping = new AbortController();
  private following: Promise<void> = Promise.resolve();

  private constructor(private readonly store: pg.Client) {}

  /** Follows `parties`' updates from the ledger's end now, and the store's intent events. */
  static async open(ledger: LedgerPort, parties: readonly string[], postgresUrl: string) {
    const store = new pg.Client({ connectionString: postgresUrl });
    await store.connect();
    const observer = new CantonObserver(store);
    store.on('notification', (message) =>
      message.channel === ATOMIC_EVENTS_CHANNEL
        ? observer.heardAtomic(message.payload)
        : observer.heard(message.payload),
    );
    await store.query(`LISTEN ${INTENT_EVENTS_CHANNEL}`);
    await store.query(`LISTEN ${ATOMIC_EVENTS_CHANNEL}`);
    observer.following = observer.follow(ledger, await ledger.ledgerEnd(), parties);
    return observer;
  }

  private heard(payload: string | undefined): void {
    if (payload === undefined) return;
    const { intentId, status } = JSON.parse(payload) as { intentId: string; status: string };
    if (status !== 'pending') this.leftPendingIds.add(intentId);
    if (TERMINAL.has(status) && !this.ended.has(intentId)) {
      this.ended.set(intentId, { status, at: Date.now() });
    }
  }

  private heardAtomic(payload: string | undefined): void {
    if (payload === undefined) return;
    const { atomicSwapId, status } = JSON.parse(payload) as {
      atomicSwapId: string;
      status: string;
    };
    if (ATOMIC_TERMINAL.has(status) && !this.ended.has(atomicSwapId)) {
      this.ended.set(atomicSwapId, { status, at: Date.now() });
    }
  }

  private async follow(ledger: LedgerPort, from: number, parties: readonly string[]) {
    const updates = ledger.updates(from, { parties, signal: this.stopping.signal });
    try {
      for await (const update of updates) {
        const at = Date.now();
        const atomic = ATOMIC_COMMAND.exec(update.commandId ?? '')?.[1];
        if (atomic !== undefined) this.executionSeen.set(atomic, at);
        for (const event of update.events) {
          if (event.kind !== 'transfer') continue;
          const reason = event.meta[REASON_META_KEY];
          if (reason === undefined) continue;
          if (reason.startsWith(PAYOUT_REASON_PREFIX)) {
            this.payoutSeen.set(reason.slice(PAYOUT_REASON_PREFIX.length), at);
          } else if (!this.depositSeen.has(reason)) {
            this.depositSeen.set(reason, at);
          }
        }
      }
    } catch (error) {
      if (!this.stopping.signal.aborted) throw error;
    }
  }

  /** When the intent completed, or null when it did not (yet). */
  completedAt(intentId: string): number | null {
    const end = this.ended.get(intentId);
    return end?.status === 'completed' ? end.at : null;
  }

  /** How many of the intents ended in each state ("running" for those that did not end). */
  endings(intentIds: readonly string[]): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const id of intentIds) {
      const status = this.ended.get(id)?.status ?? 'running';
      counts[status] = (counts[status] ?? 0) + 1;
    }
    return counts;
  }

  /** Waits until the intent is no longer `pending` or `waitMs` passed. */
  async leftPending(intentId: string, waitMs: number): Promise<void> {
    const deadline = Date.now() + waitMs;
    while (!this.leftPendingIds.has(intentId) && Date.now() < deadline) await sleep(LOOK_EVERY_MS);
  }

  /** Waits until the intent ended or `waitMs` passed. */
  async completion(intentId: string, waitMs: number): Promise<void> {
    const deadline = Date.now() + waitMs;
    while (!this.ended.has(intentId) && Date.now() < deadline) await sleep(LOOK_EVERY_MS);
  }

  /** Waits until every intent ended or `waitMs` passed, telling how many ended now and then. */
  async allCompleted(
    intentIds: readonly string[],
    waitMs: number,
    onProgress: (ended: number) => void,
    progressEveryMs = 2_000,
  ): Promise<void> {
    const deadline = Date.now() + waitMs;
    let toldAt = Date.now();
    for (;;) {
      const ended = intentIds.filter((id) => this.ended.has(id)).length;
      if (ended === intentIds.length || Date.now() >= deadline) return;
      if (Date.now() - toldAt >= progressEveryMs) {
        onProgress(ended);
        toldAt = Date.now();
      }
      await sleep(LOOK_EVERY_MS * 10);
    }
  }

  momentsOf(intentId: string, depositReference: string, depositSubmitted: number): SwapMoments {
    return {
      depositSubmitted,
      depositSeen: this.depositSeen.get(depositReference) ?? null,
      payoutSeen: this.payoutSeen.get(intentId) ?? null,
      completed: this.completedAt(intentId),
      ending: this.ended.get(intentId)?.status ?? 'running',
    };
  }

  /** An atomic swap's moments from its signature on; `ledgerMs` as the bench measured it. */
  atomicMomentsOf(atomicSwapId: string, signed: number, ledgerMs: number | null): AtomicMoments {
    return {
      ledgerMs,
      signed,
      executionSeen: this.executionSeen.get(atomicSwapId) ?? null,
      completed: this.completedAt(atomicSwapId),
      ending: this.ended.get(atomicSwapId)?.status ?? 'running',
    };
  }

  /** PostgreSQL's count of the database's transactions (committed and rolled back) so far. */
  async storeTransactions(): Promise<number> {
    const { rows } = await this.store.query<{ n: string }>(
      `SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()`,
    );
    return Number(rows[0]?.n ?? Number.NaN);
  }

  async close(): Promise<void> {
    this.stopping.abort();
    await this.following.catch(() => {});
    await this.store.end();
  }
}
