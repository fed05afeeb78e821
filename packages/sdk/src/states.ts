/**
 * The swap states as values: all of them in lifecycle order, the events a swap object emits
 * (states, and the leg events of a payout or refund offer), and the terminal test.
 */
import { IN_PROGRESS_STATES, LEG_EVENT_NAMES, LEG_STATES, TERMINAL_STATES } from './catalogue.js';
import type { SwapEventName, SwapState, TerminalState } from './types.js';

export { IN_PROGRESS_STATES, LEG_EVENT_NAMES, LEG_STATES, TERMINAL_STATES };

/** Every swap state: in-progress states in lifecycle order, then the terminal ones. */
export const SWAP_STATES: readonly SwapState[] = [...IN_PROGRESS_STATES, ...TERMINAL_STATES];

/** The event names of a swap object: every state but `pending`, where a swap starts. */
export const SWAP_EVENT_NAMES: readonly SwapEventName[] = SWAP_STATES.filter(
  (state): state is SwapEventName => state !== 'pending',
);

/** True for a state a swap ends in: `completed`, or a refund or failure outcome. */
export function isTerminal(state: string): state is TerminalState {
  return (TERMINAL_STATES as readonly string[]).includes(state);
}
