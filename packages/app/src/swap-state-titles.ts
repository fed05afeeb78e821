/**
 * Each swap state's title, as the toasts, the party's swaps and the progress page name it
 * (`Completed`, `Refunded: the price moved`), and a toast's line around a title. Apart from the
 * progress page's longer texts (swap-progress-model.ts) so the pages every visitor loads first
 * carry the titles alone. Pure.
 */
import type { SwapState } from '@poolparty/sdk';
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

export function stateTitle(state: SwapState): string {
  return TITLES[state];
}

/** A toast's words: the outcome (a state's title, an atomic swap's too) and what was swapped. */
export function toastText(title: string, amount: string, from: string, to: string): string {
  return `Swap ${title.toLowerCase()}: ${formatAmount(amount)} ${from} → ${to}`;
}
