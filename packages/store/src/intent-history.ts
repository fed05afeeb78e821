/**
 * The state histories of several intents at once, for listings (`GET /v1/track/{partyId}`): one
 * query per page instead of one per intent.
 */
import type { SwapState } from '@poolparty/core';
import { read } from './columns.js';
import type { Queryable } from './database.js';

export interface HistoryStep {
  readonly status: SwapState;
  readonly at: Date;
}

/** Bound of one read: a listing page is at most `INTENT_PAGE_SIZE_MAX` intents. */
export const HISTORY_INTENTS_MAX = 100;

/**
 * Each intent's state changes, oldest first (leg events are not state changes); an intent without
 * events maps to `[]`.
 */
export async function listIntentHistories(
  q: Queryable,
  intentIds: readonly string[],
): Promise<Map<string, HistoryStep[]>> {
  if (intentIds.length > HISTORY_INTENTS_MAX) {
    throw new RangeError(
      `at most ${HISTORY_INTENTS_MAX} intents per read, got ${intentIds.length}`,
    );
  }
  const histories = new Map<string, HistoryStep[]>(intentIds.map((id) => [id, []]));
  if (intentIds.length === 0) return histories;
  const rows = await q.query(
    `SELECT intent_id, status, at FROM intent_events
     WHERE intent_id = ANY($1::text[]) AND leg_event IS NULL ORDER BY intent_id, seq`,
    [intentIds],
  );
  for (const row of rows) {
    histories.get(read.string(row.intent_id))?.push({
      status: read.string(row.status) as SwapState,
      at: read.date(row.at),
    });
  }
  return histories;
}
