/**
 * Which events a new status observation releases (docs/spec/lifecycle.md#events): each state and
 * each leg event fires at most once per swap object and in lifecycle order, whether statuses
 * arrive from the event stream, from polling, repeated, or out of order. When an observation skips
 * states (a poll between two changes), the skipped ones fire first, in order, but only those the
 * status's `history` proves were entered: a state is never invented.
 *
 * Leg events are read from the status itself, not from the stream's event names, so polling
 * releases them too: a payout or refund with an `offerId` was offered, and a state other than
 * `offered` says how the offer ended (`committed` is `…_accepted`). A leg that arrived directly has
 * no `offerId` and no leg events. Order within one observation: the in-progress states, then the
 * legs (payout first, each offer before its outcome), then a terminal state — the order in which
 * the service writes them.
 */
import { IN_PROGRESS_STATES, LEG_STATE_AFTER, TERMINAL_STATES } from '../catalogue.js';
import type { LegEventName, LegState, SwapEventName, SwapStatus } from '../types.js';

/** Any event a swap object emits: a state (but `pending`) or a leg event. */
export type SwapObjectEventName = SwapEventName | LegEventName;

/** An event to fire: the state entered or the leg event, and when, when known. */
export interface ProgressEvent {
  readonly name: SwapObjectEventName;
  /** When the state was entered, from `history`; null when the history does not say (legs). */
  readonly at: string | null;
}

/** What a swap object has already fired. Both parts only grow, so nothing fires twice. */
export interface Progress {
  /** Lifecycle rank of the latest fired state (0 is `pending`: nothing fired yet). */
  readonly rank: number;
  /** The leg events fired. */
  readonly legs: readonly LegEventName[];
}

export const INITIAL_PROGRESS: Progress = Object.freeze({ rank: 0, legs: Object.freeze([]) });

const TERMINAL_RANK = IN_PROGRESS_STATES.length;

/** Position in the lifecycle: in-progress states in order, every terminal state last. */
export function lifecycleRank(state: string): number {
  const index = (IN_PROGRESS_STATES as readonly string[]).indexOf(state);
  if (index >= 0) return index;
  return (TERMINAL_STATES as readonly string[]).includes(state) ? TERMINAL_RANK : -1;
}

/** The offer outcome that leaves a leg in each state: `LEG_STATE_AFTER` read backwards. */
const OUTCOME_OF = Object.fromEntries(
  Object.entries(LEG_STATE_AFTER).map(([outcome, state]) => [state, outcome]),
) as Readonly<Record<LegState, string>>;

/** The leg events a status shows happened, in the order they happened. */
export function legEventsOf(status: Pick<SwapStatus, 'payout' | 'refund'>): LegEventName[] {
  const events: LegEventName[] = [];
  for (const leg of ['payout', 'refund'] as const) {
    const facts = status[leg];
    if (facts === null || facts === undefined || facts.offerId === null) continue;
    events.push(`${leg}_offered`);
    if (facts.state !== 'offered') {
      events.push(`${leg}_${OUTCOME_OF[facts.state]}` as LegEventName);
    }
  }
  return events;
}

type Observed = Pick<SwapStatus, 'status' | 'history' | 'payout' | 'refund'>;

/** The events `status` releases after `progress`, in order, and the progress after them. */
export function advance(
  progress: Progress,
  status: Observed,
): { readonly events: ProgressEvent[]; readonly progress: Progress } {
  if (progress.rank === TERMINAL_RANK) return { events: [], progress };
  const targetRank = lifecycleRank(status.status);
  const enteredAt = new Map<string, string>();
  for (const entry of status.history) {
    if (!enteredAt.has(entry.status)) enteredAt.set(entry.status, entry.at);
  }
  const event = (state: string): ProgressEvent => ({
    name: state as SwapEventName,
    at: enteredAt.get(state) ?? null,
  });
  const events: ProgressEvent[] = [];
  let rank = progress.rank;
  if (targetRank > rank) {
    const skipped = IN_PROGRESS_STATES.slice(rank + 1, Math.min(targetRank, TERMINAL_RANK));
    events.push(...skipped.filter((state) => enteredAt.has(state)).map(event));
    if (targetRank < TERMINAL_RANK) {
      events.push(event(status.status));
      rank = targetRank;
    }
  }
  const legs = legEventsOf(status).filter((name) => !progress.legs.includes(name));
  events.push(...legs.map((name) => ({ name, at: null })));
  if (targetRank === TERMINAL_RANK) {
    events.push(event(status.status));
    rank = TERMINAL_RANK;
  }
  return { events, progress: { rank, legs: [...progress.legs, ...legs] } };
}

/** Everything `status` shows has been seen: the progress of an object resumed at it. */
export function seenThrough(status: Observed): Progress {
  return advance(INITIAL_PROGRESS, status).progress;
}

/**
 * Everything before the latest event `status` shows has been seen: the progress of an object
 * resumed after a stored event id, given the first event the stream sends after it (whose data
 * shows the swap as of that event).
 */
export function seenBefore(status: Observed): Progress {
  const { events } = advance(INITIAL_PROGRESS, status);
  let progress = INITIAL_PROGRESS;
  for (const { name } of events.slice(0, -1)) {
    const rank = lifecycleRank(name);
    progress =
      rank >= 0
        ? { ...progress, rank: Math.max(progress.rank, rank) }
        : { ...progress, legs: [...progress.legs, name as LegEventName] };
  }
  return progress;
}
