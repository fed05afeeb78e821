/**
 * The network fee's weight in a swap: the payout transfer's fee is about the same whatever the
 * amount, so on a small swap it eats a large part of the input (100 Amulet paying 8.28 Amulet).
 * The page highlights it above `NETWORK_FEE_SHARE_NOTICE` and names the smallest amount whose fee
 * stays within that share. Exact, on core's `Amount`. Pure.
 */
import type { Quote } from '@poolparty/sdk';
import { parseAmount } from './decimal.js';

/** Above this share of the input (2 %, in basis points) the network fee is highlighted. */
export const NETWORK_FEE_SHARE_NOTICE_BPS = 200n;
const BPS = 10_000n;

export interface NetworkFeeWeight {
  /** networkFeeAmount / totalInputAmount, as a fraction for display. */
  readonly share: number;
  /** The share is above `NETWORK_FEE_SHARE_NOTICE_BPS`. */
  readonly heavy: boolean;
  /** The least input whose network fee (at this fee) is within the noticed share. */
  readonly sensibleMinimum: string;
}

/**
 * The quote's fields this reads: the share where the service gives it (`networkFeeShare`),
 * else computed from the network fee and the input; null when the figures do not parse.
 */
export type NetworkFeeQuote = Pick<Quote, 'networkFeeAmount' | 'totalInputAmount'> & {
  readonly networkFeeShare?: number | string | null;
};

export function networkFeeWeight(quote: NetworkFeeQuote): NetworkFeeWeight | null {
  const fee = parseAmount(quote.networkFeeAmount);
  const input = parseAmount(quote.totalInputAmount);
  if (fee === null || input === null || !input.isPositive()) return null;
  // fee / input > notice  ⇔  fee × 10 000 > input × notice: exact, no float.
  const heavy = fee
    .mulDiv(BPS, 1n, 'down')
    .gt(input.mulDiv(NETWORK_FEE_SHARE_NOTICE_BPS, 1n, 'down'));
  const given = quote.networkFeeShare;
  const share =
    given !== undefined && given !== null && Number.isFinite(Number(given))
      ? Number(given)
      : Number(quote.networkFeeAmount) / Number(quote.totalInputAmount);
  return {
    share,
    heavy,
    sensibleMinimum: fee.mulDiv(BPS, NETWORK_FEE_SHARE_NOTICE_BPS, 'up').toString(),
  };
}
