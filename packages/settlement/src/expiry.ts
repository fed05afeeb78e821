/**
 * Expiry (`expired`, docs/spec/lifecycle.md#cancel-and-expiry): pending intents past `expiresAt` on
 * the service clock expire. A deposit that arrives later finds no pending intent and is returned as
 * unmatched; one whose ledger record time is past `expiresAt` is unmatched even before this sweep
 * runs (attribution).
 */
import { expireDueIntents } from '@poolparty/store';
import type { EngineContext } from './context.js';

/** Expires one bounded batch; returns how many intents expired. */
export async function expireDue(ctx: EngineContext): Promise<number> {
  const expired = await expireDueIntents(ctx.db, ctx.clock.now(), ctx.settings.expiryBatchMax);
  if (expired.length > 0) ctx.step('expiry_committed');
  return expired.length;
}
