/**
 * Which events a new status observation releases (SPEC §7.6): each state fires at most once per
 * swap object and in lifecycle order, whether statuses arrive from the event stream, from polling,
 * repeated, or out of order. When an observation skips states (a poll between two changes), the
 * skipped ones fire first, in order, but only those the status's `history` proves were entered:
 * a state is never invented.
 */
import { IN_PROGRESS_STATES, TERMINAL_STATES } from '../catalogue.js';
import type { SwapEventName, SwapStatus } from '../types.js';

/** An event to fire: the state entered and when, when known. */
export interface ProgressEvent {
  readonly name: SwapEventName;
  /** When the state was entered, from `history`; null when the history does not say. */
  readonly at: string | null;
}

/**
 * What a swap object has already fired: the lifecycle rank of the latest fired state (0 is
 * `pending`: nothing fired yet). Ranks only grow, so no state can fire twice or out of order.
 */
export type Progress = number;

export const INITIAL_PROGRESS: Progress = 0;

const TERMINAL_RANK = IN_PROGRESS_STATES.length;

/** Position in the lifecycle: in-progress states in order, every terminal state last. */
export function lifecycleRank(state: string): number {
  const index = (IN_PROGRESS_STATES as readonly string[]).indexOf(state);
  if (index >= 0) return index;
  return (TERMINAL_STATES as readonly string[]).includes(state) ? TERMINAL_RANK : -1;
}

/** The events `status` releases after `progress`, in order, and the progress after them. */
export function advance(
  progress: Progress,
  status: Pick<SwapStatus, 'status' | 'history'>,
): { readonly events: ProgressEvent[]; readonly progress: Progress } {
  const targetRank = lifecycleRank(status.status);
  if (targetRank <= progress || progress === TERMINAL_RANK) {
    return { events: [], progress };
  }
  const enteredAt = new Map<string, string>();
  for (const entry of status.history) {
    if (!enteredAt.has(entry.status)) enteredAt.set(entry.status, entry.at);
  }
  const skipped = IN_PROGRESS_STATES.slice(progress + 1, targetRank).filter((state) =>
    enteredAt.has(state),
  );
  const events = [...skipped, status.status].map((state) => ({
    name: state as SwapEventName,
    at: enteredAt.get(state) ?? null,
  }));
  return { events, progress: targetRank };
}
