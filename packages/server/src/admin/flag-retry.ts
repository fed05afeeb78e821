/**
 * `poolparty admin flags retry <flagId>`: sends again, once, what a flag says the service gave up
 * sending — a withdrawal's payout, an amount returned to a liquidity provider, a deposit whose
 * forward failed (back to its sender from the LP party: its intent no longer waits for it), or a
 * swap's refund (as `admin refunds retry` does). The settlement code decides and records the new
 * attempt with the flag resolved and the audit row, in one transaction under the pool's lock
 * (settlement's resend.ts); a refund's flag stays open until its attempt commits (settlement's
 * operator-refunds.ts). A running worker submits the attempt; with the embedded store, run the
 * command while the service is stopped and the next start submits it.
 */
import { REFUND_FAILED } from '@poolparty/core';
import { RESEND_ACTION, ResendRefused, resendFlagged } from '@poolparty/settlement';
import type { Database } from '@poolparty/store';
import { getOperatorFlag, recordAdminAction } from '@poolparty/store';
import { AdminError } from './admin-error.js';
import { describeInstrument } from './pool-opening.js';
import { retryRefund } from './refunds.js';

export interface Who {
  readonly actor: string;
  readonly now: Date;
}

/** Records the re-send of flag `flagId`; answers the line the command prints. */
export async function retryFlag(db: Database, flagId: number, who: Who): Promise<string> {
  const flag = await getOperatorFlag(db, flagId);
  if (flag === null) throw new AdminError('not_found', `no flag ${flagId}`);
  if (flag.kind === REFUND_FAILED && flag.resolvedAt === null) {
    return retryRefundFlag(db, flagId, flag.intentId ?? flag.depositId, who);
  }
  try {
    const resent = await resendFlagged(db, flagId, who);
    const what = `${resent.amount} ${describeInstrument(resent.instrument)} to ${resent.receiver}`;
    return `flag ${flagId} (${resent.kind}): recorded ${resent.commandId}, ${what}, in place of ${resent.replaces}; a running worker submits it`;
  } catch (error) {
    if (error instanceof ResendRefused) throw new AdminError('precondition_failed', error.message);
    throw error;
  }
}

/** A swap's parked refund: its next attempt, as `admin refunds retry` records it. */
async function retryRefundFlag(
  db: Database,
  flagId: number,
  subject: string | null,
  who: Who,
): Promise<string> {
  if (subject === null)
    throw new AdminError('not_found', `flag ${flagId} names neither intent nor deposit`);
  const retried = await retryRefund(db, subject, who.now);
  await recordAdminAction(db, {
    actor: who.actor,
    action: RESEND_ACTION,
    subject: `flag ${flagId}`,
    details: { kind: REFUND_FAILED, refundOf: subject, commandId: retried.commandId },
    at: who.now,
  });
  return `flag ${flagId} (${REFUND_FAILED}): recorded ${retried.commandId}, ${retried.amount} to ${retried.receiver}; the flag closes once it commits`;
}
