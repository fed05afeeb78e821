/**
 * Offer expiry (docs/spec/lifecycle.md#payout-and-refund-legs): a payout or refund offer the
 * receiver left unanswered past its deadline ends `expired`. Canton does not end it then: the
 * instruction stays pending, can no longer be accepted, and keeps the swap party's amount locked
 * until the sender withdraws it or the receiver rejects it. So the engine withdraws its own offers
 * once ledger time has passed their deadline (ledger time, because the ledger decides whether an
 * accept still succeeds; the service clock may run ahead of it).
 *
 * Exactly once, as every ledger command: the withdrawal is recorded (its id derived from the
 * offer) in the same transaction that takes it off the due list, then submitted like any other
 * command, and its confirmation on the update stream ends the leg `expired` (ingest.ts).
 */
import { LedgerError } from '@poolparty/ledger';
import { dueOfferWithdrawals, nextOfferWithdrawalAt, takeOfferWithdrawal } from '@poolparty/store';
import { PeriodicLooks } from './clock.js';
import type { EngineContext } from './context.js';
import { recordOfferWithdrawal } from './legs.js';

/**
 * Offer deadlines are looked at most once per this much service-clock time: an offer lives a day,
 * and a busy engine then sends one statement a second for them instead of one every round.
 */
export const OFFER_WITHDRAWAL_CHECK_MS = 1_000;
const withdrawalLooks = new PeriodicLooks(OFFER_WITHDRAWAL_CHECK_MS, 'at-once');

/** Records the withdrawals that fell due, in one bounded batch; returns how many it recorded. */
export async function withdrawExpiredOffers(ctx: EngineContext): Promise<number> {
  if (!withdrawalLooks.take(ctx, ctx.clock.now())) return 0;
  const next = await nextOfferWithdrawalAt(ctx.db);
  if (next === null) return 0;
  let ledgerNow: Date;
  try {
    ledgerNow = await ctx.ledger.now();
  } catch (error) {
    // The ledger is unreachable: nothing can be withdrawn now, and the other work goes on.
    if (!(error instanceof LedgerError)) throw error;
    ctx.log.warn('cannot read ledger time to withdraw expired offers', { error: error.message });
    return 0;
  }
  if (next.getTime() > ledgerNow.getTime()) return 0;
  const due = await dueOfferWithdrawals(ctx.db, ledgerNow, ctx.settings.expiryBatchMax);
  let recorded = 0;
  for (const command of due) {
    const took = await ctx.db.transaction(async (tx) => {
      if (!(await takeOfferWithdrawal(tx, command.commandId))) return false;
      // A deadline is only ever set together with the offer it is for.
      if (command.offerId === null) return false;
      await recordOfferWithdrawal(tx, command, command.offerId, ctx.clock.now());
      return true;
    });
    if (took) recorded += 1;
  }
  return recorded;
}
