/**
 * Why the Swap button cannot be pressed now, or null when it can: a short label the button itself
 * shows (`Insufficient Amulet balance`, `Price impact too high`, `Pool paused: price moved`) and
 * the sentence beside it that says what to do. A swap that would fail (no balance, no quote, the
 * price impact above the service's cap, the guard refusing it, a swap of the same pool and token
 * still waiting) is never started, so no request is sent for it. Pure.
 */
import type { Quote } from '@poolparty/sdk';
import { parseAmount } from './decimal.js';
import { formatAmount, formatPercent } from './format.js';

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

export interface SwapBlock {
  /** What the button says instead of "Swap". */
  readonly label: string;
  /** The sentence beside the button: why, and what to do. */
  readonly detail: string;
}

/** The guard's rules as the button names them: the pool is paused for this swap, and why. */
const GUARD_LABELS: Readonly<Record<string, string>> = {
  output_reserve_share_exceeded: 'Pool paused: swap too large',
  output_velocity_exceeded: 'Pool paused: too much flow',
  reserve_price_deviation_exceeded: 'Pool paused: price moved',
  reference_price_deviation_exceeded: 'Pool paused: price moved',
};

export function swapBlock(state: SwapReadiness): SwapBlock | null {
  const { token } = state;
  const amount = parseAmount(state.amount);
  if (!state.canQuote) {
    return block('Swap unavailable', 'This service cannot quote or swap from these pages.');
  }
  if (token === null) return block('Choose tokens', 'Choose the tokens to swap.');
  if (amount === null || !amount.isPositive()) {
    return block('Enter an amount', 'Enter an amount above 0.');
  }
  if (!state.walletConnected) return block('Connect a wallet', 'Connect a wallet to swap.');
  const spendable = state.spendable === null ? null : parseAmount(state.spendable);
  if (spendable !== null && amount.gt(spendable)) {
    return block(
      `Insufficient ${token} balance`,
      spendable.isZero()
        ? `Your party holds no ${token} it can spend. Get some ${token} first.`
        : `Your party can spend ${formatAmount(spendable.toString())} ${token}: lower the amount or get more ${token}.`,
    );
  }
  if (!state.slippageOk) {
    return block('Fix the slippage limit', 'Set a slippage limit within the allowed range.');
  }
  if (state.waitingSwap) {
    return block(
      'Earlier swap waiting',
      `Your earlier swap of ${token} in this pool is still waiting for its deposit: cancel it or finish it first.`,
    );
  }
  return quoteBlock(state);
}

/** What the quote itself blocks: none yet, a refusal, an impact above the cap, the guard. */
function quoteBlock(state: SwapReadiness): SwapBlock | null {
  const { quote } = state;
  if (state.quoteError !== null) {
    return block('No quote', 'There is no quote for this swap (the reason is above).');
  }
  if (quote === null) return block('Getting a quote…', 'Waiting for a quote…');
  if (Number(quote.priceImpact) > quote.maxPriceImpact) {
    return block(
      'Price impact too high',
      `This swap would move the price by ${formatPercent(quote.priceImpact)}; the service refuses above ${formatPercent(quote.maxPriceImpact)}. Lower the amount.`,
    );
  }
  if (quote.settlementSafety !== null) {
    return block(
      GUARD_LABELS[quote.settlementSafety.code] ?? 'Pool paused',
      'The pool cannot take this swap safely now (the reason is above).',
    );
  }
  return null;
}

function block(label: string, detail: string): SwapBlock {
  return { label, detail };
}

/** The sentence alone, for where only the reason is shown. */
export function swapBlocker(state: SwapReadiness): string | null {
  return swapBlock(state)?.detail ?? null;
}
