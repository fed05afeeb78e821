/**
 * The state histories of several intents at once, for listings (`GET /v1/track/{partyId}`): one
 * query per page and kind instead of one per intent.
 */
import type { AtomicSwapState, SwapState } from '@poolparty/core';
import { read } from './columns.js';
import type { Queryable } from './database.js';

export interface HistoryStep<S extends string = SwapState> {
  readonly status: S;
  readonly at: Date;
}

/** Bound of one read: a listing page is at most `INTENT_PAGE_SIZE_MAX` intents. */
export const HISTORY_INTENTS_MAX = 100;

/**
 * Each id's state changes, oldest first, read from `sql` (ids as `$1`, rows of `id`, `status`,
 * `at` in order); an id without events maps to `[]`.
 */
async function historiesOf<S extends string>(
  q: Queryable,
  sql: string,
  ids: readonly string[],
): Promise<Map<string, HistoryStep<S>[]>> {
  if (ids.length > HISTORY_INTENTS_MAX) {
    throw new RangeError(`at most ${HISTORY_INTENTS_MAX} intents per read, got ${ids.length}`);
  }
  const histories = new Map<string, HistoryStep<S>[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return histories;
  for (const row of await q.query(sql, [ids])) {
    histories.get(read.string(row.id))?.push({
      status: read.string(row.status) as S,
      at: read.date(row.at),
    });
  }
  return histories;
}

/** Each swap intent's state changes, oldest first (leg events are not state changes). */
export function listIntentHistories(
  q: Queryable,
  intentIds: readonly string[],
): Promise<Map<string, HistoryStep[]>> {
  return historiesOf<SwapState>(
    q,
    `SELECT intent_id AS id, status, at FROM intent_events
     WHERE intent_id = ANY($1::text[]) AND leg_event IS NULL ORDER BY intent_id, seq`,
    intentIds,
  );
}

/** Each atomic swap's state changes, oldest first: every row of its outbox is one. */
export function listAtomicSwapHistories(
  q: Queryable,
  atomicSwapIds: readonly string[],
): Promise<Map<string, HistoryStep<AtomicSwapState>[]>> {
  return historiesOf<AtomicSwapState>(
    q,
    `SELECT atomic_swap_id AS id, status, at FROM atomic_swap_events
     WHERE atomic_swap_id = ANY($1::text[]) ORDER BY atomic_swap_id, seq`,
    atomicSwapIds,
  );
}
