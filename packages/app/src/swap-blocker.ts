/**
 * Why the Swap button cannot be pressed now, in words, or null when it can: the page shows the
 * reason beside the disabled button, so a swap that would fail (no balance, no quote, the guard
 * refusing it, a swap of the same pool and token still waiting) is never started. Pure.
 */
import type { Quote } from '@poolparty/sdk';
import { parseAmount } from './decimal.js';
import { formatAmount } from './format.js';

export interface SwapReadiness {
  readonly canQuote: boolean;
  readonly walletConnected: boolean;
  readonly token: string | null;
  readonly amount: string;
  /** What the party can spend of the input token; null while unknown. */
  readonly spendable: string | null;
  readonly slippageOk: boolean;
  readonly quote: Quote | null;
  readonly quoteError: string | null;
  /** A swap of this party, pool and input token still waiting for its deposit. */
  readonly waitingSwap: boolean;
}

export function swapBlocker(state: SwapReadiness): string | null {
  const { token } = state;
  const amount = parseAmount(state.amount);
  if (!state.canQuote) return 'This service cannot quote or swap from these pages.';
  if (token === null) return 'Choose the tokens to swap.';
  if (amount === null || !amount.isPositive()) return 'Enter an amount above 0.';
  if (!state.walletConnected) return 'Connect a wallet to swap.';
  const spendable = state.spendable === null ? null : parseAmount(state.spendable);
  if (spendable !== null && amount.gt(spendable)) {
    return spendable.isZero()
      ? `Your party holds no ${token} it can spend. Get some ${token} first.`
      : `Your party can spend ${formatAmount(spendable.toString())} ${token}: lower the amount or get more ${token}.`;
  }
  if (!state.slippageOk) return 'Set a slippage limit within the allowed range.';
  if (state.waitingSwap) {
    return `Your earlier swap of ${token} in this pool is still waiting for its deposit: cancel it or finish it first.`;
  }
  if (state.quoteError !== null) return 'There is no quote for this swap (the reason is above).';
  if (state.quote === null) return 'Waiting for a quote…';
  if (state.quote.settlementSafety !== null) {
    return 'The pool cannot take this swap safely now (the reason is above).';
  }
  return null;
}
