/**
 * Opening a swap intent (docs/spec/lifecycle.md#intents): a priced quote, refused when the guard
 * blocks it or its price impact is beyond the cap, becomes an intent holding every amount as
 * quoted, its deposit going to the pool's swap party and its output to the wallet party. The route
 * quotes; this decides and writes, on the skeleton every kind of intent opens on.
 *
 * The settlement-safety guard is judged before the price-impact cap: a blocked pool or trade is
 * the more fundamental refusal, and the guard's verdict says why in machine-readable form.
 */
import {
  DomainError,
  minOutput,
  type PricedTrade,
  type SettlementSafety,
  type WireQuote,
} from '@poolparty/core';
import {
  ActiveIntentExistsError,
  type Database,
  type IntentRecord,
  insertIntent,
  type NewIntent,
  type PoolRecord,
} from '@poolparty/store';
import { newIntentId } from './identifiers.js';
import { type IntentIdentifiers, type OpeningAnswer, openIntent } from './intent-opening.js';

/** An intent is valid for 24 hours; the response's `expiresAt` is authoritative. */
export const INTENT_VALIDITY_MS = 24 * 60 * 60 * 1000;

/** The unique constraints a fresh swap intent id or deposit reference can collide with. */
export const SWAP_IDENTIFIER_CONSTRAINTS = ['intents_pkey', 'intents_deposit_reference_key'];

/** A quote as the quoter prices it: what a swap intent is opened from. */
export interface PricedSwap {
  readonly quote: WireQuote;
  readonly pool: Pick<PoolRecord, 'poolId' | 'swapParty'>;
  readonly trade: Pick<
    PricedTrade,
    'outputAmount' | 'fees' | 'exceedsPriceImpactCap' | 'maxPriceImpact'
  >;
  readonly settlementSafety: SettlementSafety | null;
}

/** Who opens the intent, and the instant it is opened at. */
export interface IntentOrigin {
  readonly apiKeyId: string;
  readonly developerParty: string;
  readonly walletParty: string;
  readonly slippageTolerance: number;
  readonly now: Date;
}

/** A trade the guard blocks, or whose price impact is beyond the cap, creates no intent. */
export function refuseUnsafeTrade(priced: Pick<PricedSwap, 'settlementSafety' | 'trade'>): void {
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

/** The intent a priced quote becomes, every amount as quoted. */
export function newIntentFrom(
  priced: Pick<PricedSwap, 'quote' | 'trade' | 'pool'>,
  origin: IntentOrigin & IntentIdentifiers,
): NewIntent {
  const { quote, trade, pool } = priced;
  const { fees } = trade;
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
    expectedAmount: fees.amount,
    quotedSwapAmount: fees.amount,
    networkFeeAmount: fees.networkFeeAmount,
    poolFeeAmount: fees.poolFeeAmount,
    lpFeeAmount: fees.lpFeeAmount,
    platformFeeAmount: fees.platformFeeAmount,
    inputAmountAfterPoolFee: fees.inputAmountAfterPoolFee,
    expectedOutput: trade.outputAmount,
    minOutput: minOutput(trade.outputAmount, origin.slippageTolerance),
    slippageTolerance: origin.slippageTolerance,
    networkFeePolicy: quote.networkFeePolicy,
    platformFeePolicy: quote.platformFeePolicy,
    outputAddress: origin.walletParty,
    createdAt: origin.now,
    expiresAt: new Date(origin.now.getTime() + INTENT_VALIDITY_MS),
  };
}

function activeIntentRefusal(error: unknown): DomainError | null {
  if (!(error instanceof ActiveIntentExistsError)) return null;
  return new DomainError(
    'active_intent_exists',
    `Intent ${error.intentId} of this party, pool and input token is still pending; fund or cancel it first.`,
    { intentId: error.intentId },
  );
}

/**
 * Opens the swap intent a priced quote becomes, answering `view` of it (stored under the request's
 * idempotency key with the intent when `answer` is given).
 */
export function openSwapIntent<V>(
  db: Database,
  request: { readonly priced: PricedSwap; readonly origin: IntentOrigin },
  respond: { readonly view: (intent: IntentRecord) => V; readonly answer: OpeningAnswer | null },
): Promise<V> {
  refuseUnsafeTrade(request.priced);
  return openIntent(
    db,
    {
      identifierConstraints: SWAP_IDENTIFIER_CONSTRAINTS,
      newIntentId: () => newIntentId(),
      insert: (q, ids) =>
        insertIntent(q, newIntentFrom(request.priced, { ...request.origin, ...ids })),
      view: respond.view,
      refusal: activeIntentRefusal,
    },
    respond.answer,
  );
}
