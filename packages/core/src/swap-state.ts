/**
 * The states a swap intent passes through (docs/spec/lifecycle.md#states). The transition table
 * that connects them lives in `lifecycle.ts`.
 */
export const IN_PROGRESS_STATES = [
  'pending',
  'matched',
  'deposit_received',
  'forwarded',
  'processing',
  'sending_output',
] as const;

export const TERMINAL_STATES = [
  'completed',
  'slippage_failed',
  'price_impact_exceeded',
  'insufficient_amount',
  'insufficient_liquidity',
  'output_failed',
  'no_output_holdings',
  'failed',
  'refund_failed',
  'expired',
  'cancelled',
] as const;

export const SWAP_STATES = [...IN_PROGRESS_STATES, ...TERMINAL_STATES] as const;

export type InProgressState = (typeof IN_PROGRESS_STATES)[number];
export type TerminalState = (typeof TERMINAL_STATES)[number];
export type SwapState = (typeof SWAP_STATES)[number];

/** The states a client sees as events: every state but `pending`, which is the starting point. */
export const SWAP_EVENT_NAMES = SWAP_STATES.filter(
  (state): state is Exclude<SwapState, 'pending'> => state !== 'pending',
);

const terminal: ReadonlySet<string> = new Set(TERMINAL_STATES);

export function isTerminal(state: string): state is TerminalState {
  return terminal.has(state);
}
