/**
 * Each swap state's title, as the toasts, the party's swaps and the progress page name it
 * (`Completed`, `Refunded: the price moved`), an atomic swap's likewise, and a toast's line
 * around a title. Apart from the progress page's longer texts (swap-progress-model.ts) so the
 * pages every visitor loads first carry the titles alone. Pure.
 */
import type { AnySwapStatus, AtomicSwapState, SwapState } from '@poolparty/sdk';
import { formatAmount } from './format.js';

const TITLES: Readonly<Record<SwapState, string>> = {
  pending: 'Waiting for your deposit',
  matched: 'Deposit matched',
  deposit_received: 'Deposit received',
  forwarded: 'Forwarded to the pool',
  processing: 'Pricing the swap',
  sending_output: 'Sending your output',
  completed: 'Completed',
  slippage_failed: 'Refunded: the price moved',
  price_impact_exceeded: 'Refunded: price impact too large',
  insufficient_amount: 'Refunded: deposit too small',
  insufficient_liquidity: 'Refunded: not enough liquidity',
  output_failed: 'Refunded: the payout did not go through',
  no_output_holdings: 'Refunded: the pool had no output holdings',
  failed: 'Failed',
  refund_failed: 'Refund failed',
  expired: 'Expired',
  cancelled: 'Cancelled',
};

/** An atomic swap's states: the states it shares with the deposit flow keep their titles. */
const ATOMIC_TITLES: Readonly<Record<AtomicSwapState, string>> = {
  prepared: 'Waiting for your signature',
  executing: 'Executing both legs',
  completed: TITLES.completed,
  price_moved: 'Not executed: the price moved',
  rejected: 'Not executed: refused',
  // Unsigned in time, or signed and never taken by the ledger: either way nothing moved.
  expired: 'Expired: nothing moved',
  cancelled: TITLES.cancelled,
};

export function stateTitle(state: SwapState): string {
  return TITLES[state];
}

export function atomicStateTitle(state: AtomicSwapState): string {
  return ATOMIC_TITLES[state];
}

/** The title of a listed swap's state, whichever its kind. */
export function listedStateTitle(swap: AnySwapStatus): string {
  return swap.kind === 'atomic' ? ATOMIC_TITLES[swap.status] : TITLES[swap.status];
}

/** A toast's words: the outcome (a state's title, an atomic swap's too) and what was swapped. */
export function toastText(title: string, amount: string, from: string, to: string): string {
  return `Swap ${title.toLowerCase()}: ${formatAmount(amount)} ${from} → ${to}`;
}
