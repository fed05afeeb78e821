/**
 * Expiry (`expired`, docs/spec/lifecycle.md#cancel-and-expiry): pending intents past `expiresAt` on
 * the service clock expire. A deposit that arrives later finds no pending intent and is returned as
 * unmatched; one whose ledger record time is past `expiresAt` is unmatched even before this sweep
 * runs (attribution).
 *
 * Liquidity intents (docs/spec/liquidity.md#intents) expire the same way: a pending one ends
 * `expired`; a partial one — one side in — returns that side and ends `refunded`.
 */
import { dueLiquidityIntents, expireDueIntents, transitionLiquidityIntent } from '@poolparty/store';
import type { EngineContext } from './context.js';
import { refundLiquidityIntent } from './liquidity-legs.js';

/**
 * Liquidity intents are looked at most once per this much service-clock time: an intent lives a
 * day, so ten seconds' lateness is nothing, and the busy rounds of a burst of swaps, even on a
 * slow machine, send no statement for them.
 */
export const LIQUIDITY_EXPIRY_CHECK_MS = 10_000;
const lastLiquidityCheck = new WeakMap<EngineContext, number>();

const LIQUIDITY_EXPIRED = {
  code: 'expired',
  message: 'The liquidity intent expired with one side in; that side is returned.',
};

/** Expires one bounded batch of each kind; returns how many intents expired. */
export async function expireDue(ctx: EngineContext): Promise<number> {
  const expired = await expireDueIntents(ctx.db, ctx.clock.now(), ctx.settings.expiryBatchMax);
  if (expired.length > 0) ctx.step('expiry_committed');
  return expired.length + (await expireLiquidityIntents(ctx));
}

async function expireLiquidityIntents(ctx: EngineContext): Promise<number> {
  const now = ctx.clock.now();
  // The first look comes one interval after the engine's first round, not in it.
  const last = lastLiquidityCheck.get(ctx) ?? now.getTime();
  if (!lastLiquidityCheck.has(ctx)) lastLiquidityCheck.set(ctx, last);
  if (now.getTime() - last < LIQUIDITY_EXPIRY_CHECK_MS) return 0;
  lastLiquidityCheck.set(ctx, now.getTime());
  const due = await dueLiquidityIntents(ctx.db, now, ctx.settings.expiryBatchMax);
  for (const intent of due) {
    await ctx.db.transaction(async (tx) => {
      if (intent.status === 'partial') {
        // Only from `partial`: an intent whose second side arrived meanwhile completes instead.
        return refundLiquidityIntent(tx, intent, LIQUIDITY_EXPIRED, now, ['partial']);
      }
      await transitionLiquidityIntent(tx, {
        liquidityIntentId: intent.liquidityIntentId,
        from: ['pending'],
        to: 'expired',
        at: now,
      });
    });
  }
  return due.length;
}
