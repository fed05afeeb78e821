/**
 * An operator's answer to a refund the engine gave up on (`refund_failed`, `poolparty admin
 * refunds`; docs/spec/lifecycle.md#failures-and-refunds): the refund is parked in the pool's
 * `outgoing` books with an open operator flag, and the operator either retries it or resolves the
 * case by hand. Pure: the settlement shell reads the subject's open flag and its refund attempts
 * (under the pool's lock when it writes), asks this, and writes the answer in the same
 * transaction.
 *
 * - A retry is the next attempt of the same refund (`<subject>:refund:<n>`), marked as the
 *   operator's; a running worker submits it and its confirmation from the update stream
 *   completes it. Should it fail too, the funds stay parked and the flag open.
 * - A resolution closes the flag with the operator's note. The amount stays parked (out of the
 *   effective reserve) unless `release` says it left the swap party by other means: then it
 *   leaves `outgoing`, as the refund's confirmation would take it, so the books and the ledger
 *   agree again.
 *
 * Either is refused while an attempt is in flight: its outcome is not known yet, and a second
 * attempt beside it could pay twice.
 */
import { Amount } from './amount.js';
import type { TransferPayload } from './legs.js';
import { debit, type Movement } from './pool-books.js';

/** The operator flag a refund the engine gave up on raises. */
export const REFUND_FAILED = 'refund_failed';

/** One recorded attempt of a subject's refund, as the store has it. */
export interface RefundAttempt {
  readonly commandId: string;
  readonly intentId: string | null;
  readonly depositId: string | null;
  readonly attempt: number;
  readonly status: 'recorded' | 'submitted' | 'committed' | 'failed';
  readonly payload: TransferPayload;
}

/** What an operator's answer is planned from. */
export interface ParkedRefund {
  /** An intent id, or the deposit id of an unmatched transfer whose refund failed. */
  readonly subjectId: string;
  /** The subject's oldest open `refund_failed` flag; null when it has none. */
  readonly flagId: number | null;
  /** Every refund attempt of the subject, in any order. */
  readonly attempts: readonly RefundAttempt[];
}

/** Why an operator's answer is refused, as a catalogue code. */
export type RefundRefusal = 'not_found' | 'precondition_failed' | 'validation_error';

export interface RefusedRefundAnswer {
  readonly kind: 'refused';
  readonly code: RefundRefusal;
  readonly reason: string;
}

export type RefundRetryPlan =
  | RefusedRefundAnswer
  | {
      readonly kind: 'retry';
      readonly flagId: number;
      readonly commandId: string;
      readonly attempt: number;
      readonly intentId: string | null;
      readonly depositId: string | null;
      readonly payload: TransferPayload;
    };

export type RefundResolutionPlan =
  | RefusedRefundAnswer
  | {
      readonly kind: 'resolve';
      readonly flagId: number;
      /** The flag's resolution: the note, and what was released if anything. */
      readonly resolution: string;
      /** What leaves the pool's books; null when the amount stays parked. */
      readonly release: { readonly poolId: string; readonly movements: readonly Movement[] } | null;
    };

/** The subject's latest refund attempt: the one whose outcome the case is about. */
export function latestRefundAttempt<A extends RefundAttempt>(
  attempts: readonly A[],
): A | undefined {
  let latest: A | undefined;
  for (const attempt of attempts) if (!latest || attempt.attempt > latest.attempt) latest = attempt;
  return latest;
}

/** The pool whose books the subject's refund left, to lock before writing; null when none. */
export function refundPoolOf(parked: ParkedRefund): string | null {
  return latestRefundAttempt(parked.attempts)?.payload.poolId ?? null;
}

/** The next attempt of the parked refund, or why there is none to send. */
export function planRefundRetry(parked: ParkedRefund): RefundRetryPlan {
  const open = openCase(parked);
  if ('kind' in open) return open;
  const { flagId, latest } = open;
  if (latest === undefined) {
    return refused(
      'precondition_failed',
      `${parked.subjectId} has no refund to retry (its trade could not be reversed); resolve it by hand`,
    );
  }
  const attempt = latest.attempt + 1;
  return {
    kind: 'retry',
    flagId,
    commandId: `${parked.subjectId}:refund:${attempt}`,
    attempt,
    intentId: latest.intentId,
    depositId: latest.depositId,
    payload: { ...latest.payload, operatorRetry: { flagId } },
  };
}

/** The flag closed with the operator's note and, with `release`, the parked amount taken out. */
export function planRefundResolution(
  parked: ParkedRefund,
  input: { readonly note: string; readonly release: boolean },
): RefundResolutionPlan {
  if (input.note.trim().length === 0) {
    return refused('validation_error', 'a note saying what was done is required');
  }
  const open = openCase(parked);
  if ('kind' in open) return open;
  if (!input.release) {
    return { kind: 'resolve', flagId: open.flagId, resolution: input.note, release: null };
  }
  const { poolId, side, amount } = open.latest?.payload ?? {};
  if (poolId == null || side == null || amount === undefined) {
    return refused(
      'precondition_failed',
      `${parked.subjectId} has no parked amount in a pool's books to release`,
    );
  }
  return {
    kind: 'resolve',
    flagId: open.flagId,
    resolution: `${input.note} (released ${amount} from the books of ${poolId})`,
    release: { poolId, movements: [debit(side, 'outgoing', Amount.parse(amount))] },
  };
}

/** The open flag and the latest attempt, which must not be in flight; or why not. */
function openCase(
  parked: ParkedRefund,
): { readonly flagId: number; readonly latest: RefundAttempt | undefined } | RefusedRefundAnswer {
  if (parked.flagId === null) return refused('not_found', noRefundFlag(parked.subjectId));
  const latest = latestRefundAttempt(parked.attempts);
  if (latest !== undefined && (latest.status === 'recorded' || latest.status === 'submitted')) {
    return refused(
      'precondition_failed',
      `refund attempt ${latest.commandId} of ${parked.subjectId} is still ${latest.status}; wait for its outcome`,
    );
  }
  return { flagId: parked.flagId, latest };
}

/** Ids of liquidity's subjects (withdrawals, intents, deposits): their legs are no refunds. */
const LIQUIDITY_ID_PREFIXES = ['wdr_', 'liq_', 'lp:'] as const;

function noRefundFlag(subjectId: string): string {
  const none = `no open refund_failed flag for ${subjectId}`;
  if (!LIQUIDITY_ID_PREFIXES.some((prefix) => subjectId.startsWith(prefix))) return none;
  return `${none}: a liquidity payout or return is sent again by its flag (admin flags list, then admin flags retry <flagId>)`;
}

function refused(code: RefundRefusal, reason: string): RefusedRefundAnswer {
  return { kind: 'refused', code, reason };
}
