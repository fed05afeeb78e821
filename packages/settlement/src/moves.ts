/**
 * The engine's only way to change an intent's state: the edge must be one core's lifecycle lists
 * (`assertTransition`; an unlisted edge is a bug and throws before anything is written), and the
 * store applies it as a compare-and-set with its event row (null when another writer moved the
 * intent first).
 */
import { assertTransition, type SwapState } from '@poolparty/core';
import type { Queryable } from '@poolparty/store';
import { type IntentRecord, type IntentTransition, transitionIntent } from '@poolparty/store';

export function moveIntent(tx: Queryable, move: IntentTransition): Promise<IntentRecord | null> {
  const from: readonly SwapState[] = typeof move.from === 'string' ? [move.from] : move.from;
  for (const state of from) assertTransition(state, move.to);
  return transitionIntent(tx, move);
}
