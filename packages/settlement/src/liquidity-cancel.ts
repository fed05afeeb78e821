/**
 * Cancelling a liquidity intent (docs/spec/liquidity.md#cancel): under the pool's lock, which the
 * intake of the intent's deposits takes too, so a cancel and a deposit are applied one after the
 * other, never interleaved. A cancel applied first ends the intent, and a deposit ingested after
 * it goes back to its sender; a deposit applied first moves the intent out of `pending`, and the
 * cancel is refused. An intent is never both cancelled and keeping a deposit.
 */
import { DomainError } from '@poolparty/core';
import {
  type Database,
  getLiquidityIntentForParty,
  type LiquidityIntentRecord,
  transitionLiquidityIntent,
} from '@poolparty/store';
import { lockPool } from './accounting.js';

export interface LiquidityCancel {
  readonly liquidityIntentId: string;
  /** The party whose intent it must be (the wallet token's). */
  readonly providerParty: string;
  readonly now: Date;
}

/**
 * Cancels a pending intent of the party; null when the party has no such intent. A refusal
 * (`liquidity_intent_not_cancellable`) says what the intent is now.
 */
export async function cancelLiquidityIntent(
  db: Database,
  cancel: LiquidityCancel,
): Promise<LiquidityIntentRecord | null> {
  return db.transaction(async (tx) => {
    const { liquidityIntentId, providerParty, now } = cancel;
    const intent = await getLiquidityIntentForParty(tx, liquidityIntentId, providerParty);
    if (intent === null) return null;
    await lockPool(tx, intent.poolId);
    const cancelled = await transitionLiquidityIntent(tx, {
      liquidityIntentId,
      from: ['pending'],
      to: 'cancelled',
      at: now,
    });
    if (cancelled !== null) return cancelled;
    const current = await getLiquidityIntentForParty(tx, liquidityIntentId, providerParty);
    const status = current?.status ?? intent.status;
    const why =
      status === 'partial' || status === 'joining' ? 'a deposit arrived for it' : `it is ${status}`;
    throw new DomainError(
      'liquidity_intent_not_cancellable',
      `Liquidity intent ${liquidityIntentId} cannot be cancelled: ${why}; only a pending one can be cancelled.`,
    );
  });
}
