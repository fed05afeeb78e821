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
import { lockPool } from './accounting.js';
import { expireAtomicSwaps } from './atomic-swap-endings.js';
import { atomicSwapPortOf, resolveExecutingSwaps } from './atomic-swap-execution.js';
import { PeriodicLooks } from './clock.js';
import type { EngineContext } from './context.js';
import { refundLiquidityIntent } from './liquidity-legs.js';

/**
 * Pending swap intents are looked at most once per this much service-clock time. A deposit whose
 * record time is past its intent's expiry is returned whether or not this look has run, so a
 * second's lateness changes no outcome, and a busy engine sends one statement a second for it
 * instead of one every round (several a swap).
 */
export const SWAP_EXPIRY_CHECK_MS = 1_000;
/**
 * Liquidity intents are looked at most once per this much service-clock time: an intent lives a
 * day, so ten seconds' lateness is nothing, and the busy rounds of a burst of swaps, even on a
 * slow machine, send no statement for them.
 */
export const LIQUIDITY_EXPIRY_CHECK_MS = 10_000;
const swapExpiryLooks = new PeriodicLooks(SWAP_EXPIRY_CHECK_MS, 'at-once');
/**
 * Atomic swaps are looked at once per this much service-clock time: a prepared one's reservation
 * outlives its `expiresAt` by at most this, and an execution left open is looked up as often.
 */
export const ATOMIC_SWAP_CHECK_MS = 1_000;
const atomicSwapLooks = new PeriodicLooks(ATOMIC_SWAP_CHECK_MS, 'at-once');
// The first look comes one interval after the engine's first round, not in it.
const liquidityExpiryLooks = new PeriodicLooks(LIQUIDITY_EXPIRY_CHECK_MS, 'after-interval');

const LIQUIDITY_EXPIRED = {
  code: 'expired',
  message: 'The liquidity intent expired with one side in; that side is returned.',
};

/** Expires one bounded batch of due swap intents; returns how many expired. */
export async function expireSwapIntents(ctx: EngineContext): Promise<number> {
  const now = ctx.clock.now();
  if (!swapExpiryLooks.take(ctx, now)) return 0;
  const expired = await expireDueIntents(ctx.db, now, ctx.settings.expiryBatchMax);
  if (expired.length > 0) ctx.step('expiry_committed');
  return expired.length;
}

/** Expires one bounded batch of due liquidity intents; returns how many expired or refunded. */
export async function expireLiquidityIntents(ctx: EngineContext): Promise<number> {
  const now = ctx.clock.now();
  if (!liquidityExpiryLooks.take(ctx, now)) return 0;
  const due = await dueLiquidityIntents(ctx.db, now, ctx.settings.expiryBatchMax);
  for (const intent of due) {
    await ctx.db.transaction(async (tx) => {
      if (intent.status === 'partial') {
        // Only from `partial`: an intent whose second side arrived meanwhile completes instead.
        return refundLiquidityIntent(tx, intent, LIQUIDITY_EXPIRED, now, ['partial']);
      }
      // Under the pool's lock, as a deposit's intake: a deposit and the expiry apply one at a time.
      await lockPool(tx, intent.poolId);
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

/**
 * Expires one bounded batch of prepared atomic swaps past `expiresAt` (releasing their
 * reservations) and, where the ledger takes atomic swaps, resolves those left `executing`.
 */
export async function endAtomicSwaps(ctx: EngineContext): Promise<number> {
  const now = ctx.clock.now();
  if (!atomicSwapLooks.take(ctx, now)) return 0;
  const expired = await expireAtomicSwaps(ctx.db, now, ctx.settings.expiryBatchMax);
  const atomicSwaps = atomicSwapPortOf(ctx.ledger);
  if (atomicSwaps === null) return expired;
  return expired + (await resolveExecutingSwaps({ ...ctx, atomicSwaps }));
}
