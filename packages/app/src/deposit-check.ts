/**
 * Before a deposit is sent for a swap that waited, the pair is quoted again: when the price moved
 * so far that the output now would be under the intent's minimum, the deposit would only come
 * back as a refund (`slippage_failed`), so it is not sent and the page says why, with the
 * numbers. Exact, on core's `Amount`. Pure.
 */
import { parseAmount } from './decimal.js';
import { formatAmount } from './format.js';

export interface WaitingSwapTerms {
  readonly expectedAmount: string;
  readonly inputToken: string;
  readonly outputToken: string;
  readonly minOutput: string;
}

/** Why the deposit is not sent, or null when the output now still reaches the minimum. */
export function depositRefusal(terms: WaitingSwapTerms, outputNow: string): string | null {
  const now = parseAmount(outputNow);
  const minimum = parseAmount(terms.minOutput);
  if (now === null || minimum === null || now.gte(minimum)) return null;
  return (
    `Nothing was sent: ${formatAmount(terms.expectedAmount)} ${terms.inputToken} now gives about ` +
    `${formatAmount(outputNow)} ${terms.outputToken}, under this swap's minimum of ` +
    `${formatAmount(terms.minOutput)} ${terms.outputToken}, so the deposit would come back as a ` +
    'refund. Cancel this swap and swap again at the new price, or send it once the price is back.'
  );
}
