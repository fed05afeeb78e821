/**
 * The swap card's amounts in USD, each beside its amount: the quote gives the deposit, the
 * output, the network fee, the pool fee and their total in USD (docs/spec/amounts-and-fees.md,
 * `usd`), at the prices it was priced with. The other amounts on the card (the LP and platform
 * shares of the pool fee, what is swapped in the pool, the least received, the sensible minimum)
 * are valued at the same prices: the amount × the side's USD ÷ the side's amount, in one exact
 * step on core's `Amount`, cut down like the quote's own figures. No USD where the side has no
 * price. Pure.
 */
import type { Quote } from '@poolparty/sdk';
import { parseAmount } from './decimal.js';

/** An amount of a token and its USD value, which fix the token's USD price. */
export interface UsdReference {
  readonly amount: string;
  readonly usd: string | null;
}

/**
 * `amount` in USD at the price `reference` implies; null when the side has no USD price or a
 * figure is not an amount (or the reference amount is zero, which fixes no price).
 */
export function usdAt(amount: string, reference: UsdReference): string | null {
  if (reference.usd === null) return null;
  const value = parseAmount(amount);
  const usd = parseAmount(reference.usd);
  const of = parseAmount(reference.amount);
  if (value === null || usd === null || of === null || !of.isPositive()) return null;
  return value.mulDiv(usd.units, of.units, 'down').toString();
}

/** Each amount the card shows, in USD; null where there is no price. */
export interface QuoteUsdFigures {
  readonly input: string | null;
  readonly output: string | null;
  readonly networkFee: string | null;
  readonly poolFee: string | null;
  readonly lpFee: string | null;
  readonly platformFee: string | null;
  readonly totalFee: string | null;
  readonly swappedInput: string | null;
  /** The least received under the slippage limit; null without one. */
  readonly minOutput: string | null;
}

export type UsdQuote = Pick<
  Quote,
  | 'totalInputAmount'
  | 'outputAmount'
  | 'lpFeeAmount'
  | 'platformFeeAmount'
  | 'inputAmountAfterPoolFee'
> & {
  /** Absent from a service older than the quote's USD figures: then no USD is shown. */
  readonly usd?: Quote['usd'] | null;
};

/** The card's USD figures for `quote`, and for `minOutput` (of the output token) when given. */
export function quoteUsdFigures(quote: UsdQuote, minOutput: string | null): QuoteUsdFigures {
  const usd = quote.usd ?? null;
  const input: UsdReference = {
    amount: quote.totalInputAmount,
    usd: usd?.totalInputAmount ?? null,
  };
  const output: UsdReference = { amount: quote.outputAmount, usd: usd?.outputAmount ?? null };
  return {
    input: input.usd,
    output: output.usd,
    networkFee: usd?.networkFeeAmount ?? null,
    poolFee: usd?.poolFeeAmount ?? null,
    lpFee: usdAt(quote.lpFeeAmount, input),
    platformFee: usdAt(quote.platformFeeAmount, input),
    totalFee: usd?.totalFeeAmount ?? null,
    swappedInput: usdAt(quote.inputAmountAfterPoolFee, input),
    minOutput: minOutput === null ? null : usdAt(minOutput, output),
  };
}
