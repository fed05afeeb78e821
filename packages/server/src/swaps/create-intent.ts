/**
 * The decisions of `POST /v1/swaps` (docs/spec/lifecycle.md#intents), as pure functions: which
 * requests are refused with which problem, and what intent a priced quote becomes. The route
 * only reads the quote and writes what these return.
 *
 * Choices made here:
 * - The settlement-safety guard is judged before the price-impact cap: a blocked pool or trade is
 *   the more fundamental refusal, and the guard's verdict says why in machine-readable form.
 * - The deprecated `outputAddress` is accepted and ignored; the output always goes to the wallet
 *   party.
 */
import { type CreateSwapBody, DomainError, minOutput, validateSlippage } from '@poolparty/core';
import type { NewIntent } from '@poolparty/store';
import type { PricedQuote, QuoteRequest } from '../market/quoter.js';

/** An intent is valid for 24 hours; the response's `expiresAt` is authoritative. */
export const INTENT_VALIDITY_MS = 24 * 60 * 60 * 1000;

/** The slippage tolerance to use, or a 400: absent means the default (0.05). */
export function resolveSlippage(value: unknown): number {
  const check = validateSlippage(value);
  if (check.ok) return check.slippageTolerance;
  const { problem } = check;
  throw new DomainError(
    'validation_error',
    `slippageTolerance must be a finite number from ${problem.min} to ${problem.max}.`,
    { errors: [{ path: '/slippageTolerance', message: problem.reason.replaceAll('_', ' ') }] },
  );
}

/** `walletAddress` is optional, but when given it must be the wallet token's party. */
export function requireOwnWallet(walletAddress: string | undefined, walletParty: string): void {
  if (walletAddress === undefined || walletAddress === walletParty) return;
  throw new DomainError(
    'wallet_party_mismatch',
    "walletAddress must be the wallet token's party; deposits must come from that party.",
  );
}

/** What the quoter is asked: the body's pair and amount, unparsed, and its disambiguators. */
export function quoteRequestOf(body: CreateSwapBody): QuoteRequest {
  return {
    from: body.fromToken,
    to: body.toToken,
    amount: body.amount,
    ...(body.poolId !== undefined && { poolId: body.poolId }),
    ...(body.fromAdmin !== undefined && { fromAdmin: body.fromAdmin }),
    ...(body.toAdmin !== undefined && { toAdmin: body.toAdmin }),
  };
}

/** A trade the guard blocks, or whose price impact is beyond the cap, creates no intent. */
export function refuseUnsafeTrade(priced: Pick<PricedQuote, 'settlementSafety' | 'trade'>): void {
  const { settlementSafety, trade } = priced;
  if (settlementSafety !== null) {
    throw new DomainError('settlement_safety', settlementSafety.message, { settlementSafety });
  }
  if (trade.exceedsPriceImpactCap) {
    throw new DomainError(
      'price_impact_exceeded',
      `The price impact of this swap is above the cap of ${trade.maxPriceImpact}; swap a smaller amount.`,
      { maxPriceImpact: trade.maxPriceImpact },
    );
  }
}

/** Who creates the intent, and the identifiers and instant it is created with. */
export interface IntentOrigin {
  readonly intentId: string;
  readonly depositReference: string;
  readonly apiKeyId: string;
  readonly developerParty: string;
  readonly walletParty: string;
  readonly slippageTolerance: number;
  readonly now: Date;
}

/**
 * The intent a priced quote becomes: every amount as quoted, the deposit going to the pool's swap
 * party and the output to the wallet party.
 */
export function newIntentFrom(
  priced: Pick<PricedQuote, 'quote' | 'trade' | 'pool'>,
  origin: IntentOrigin,
): NewIntent {
  const { quote, trade, pool } = priced;
  return {
    intentId: origin.intentId,
    poolId: pool.poolId,
    apiKeyId: origin.apiKeyId,
    developerParty: origin.developerParty,
    walletParty: origin.walletParty,
    depositAddress: pool.swapParty,
    depositReference: origin.depositReference,
    inputToken: quote.inputToken,
    inputTokenAdmin: quote.inputTokenAdmin,
    outputToken: quote.outputToken,
    outputTokenAdmin: quote.outputTokenAdmin,
    expectedAmount: quote.totalInputAmount,
    quotedSwapAmount: quote.totalInputAmount,
    networkFeeAmount: quote.networkFeeAmount,
    poolFeeAmount: quote.poolFeeAmount,
    lpFeeAmount: quote.lpFeeAmount,
    platformFeeAmount: quote.platformFeeAmount,
    inputAmountAfterPoolFee: quote.inputAmountAfterPoolFee,
    expectedOutput: quote.outputAmount,
    minOutput: minOutput(trade.outputAmount, origin.slippageTolerance).toString(),
    slippageTolerance: origin.slippageTolerance,
    networkFeePolicy: quote.networkFeePolicy,
    platformFeePolicy: quote.platformFeePolicy,
    outputAddress: origin.walletParty,
    createdAt: origin.now,
    expiresAt: new Date(origin.now.getTime() + INTENT_VALIDITY_MS),
  };
}
