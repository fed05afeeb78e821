/**
 * The amount after Flip: the amount moves with its token, so what the quote would have given
 * becomes what is sent (900 Amulet → 5.4 USDCx turns into 5.4 USDCx → Amulet), not the same
 * number under the other token. Without a quote of this exact pair and amount, the number stays.
 * Pure.
 */
import type { Quote } from '@poolparty/sdk';

export interface FlipSide {
  readonly name: string;
  readonly admin: string;
}

export function amountAfterFlip(
  amount: string,
  quote: Pick<
    Quote,
    | 'inputToken'
    | 'inputTokenAdmin'
    | 'outputToken'
    | 'outputTokenAdmin'
    | 'totalInputAmount'
    | 'outputAmount'
  > | null,
  from: FlipSide | null,
  to: FlipSide | null,
): string {
  if (quote === null || from === null || to === null) return amount;
  const same =
    quote.inputToken === from.name &&
    quote.inputTokenAdmin === from.admin &&
    quote.outputToken === to.name &&
    quote.outputTokenAdmin === to.admin &&
    quote.totalInputAmount === amount;
  return same ? quote.outputAmount : amount;
}
