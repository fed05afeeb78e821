/**
 * A swap the card would let go: a connected wallet holding 1000 Amulet asks to swap 100 with a
 * fine slippage and a quote the service answered; each test changes the one fact it is about.
 */
import type { SwapReadiness } from '../../src/swap-blocker.js';

export function readyToSwap(quote: SwapReadiness['quote']): SwapReadiness {
  return {
    canQuote: true,
    walletConnected: true,
    token: 'Amulet',
    amount: '100',
    spendable: '1000',
    slippageOk: true,
    quote,
    quoteError: null,
    waitingSwap: false,
  };
}
