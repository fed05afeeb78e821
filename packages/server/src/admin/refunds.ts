/**
 * Operator refunds (`refund_failed`, `poolparty admin refunds`;
 * docs/spec/lifecycle.md#failures-and-refunds): the refunds the engine gave up on, parked in the
 * pool's `outgoing` books with an open operator flag.
 *
 * - `retry` records a new attempt of the same refund under the next attempt number
 *   (`<subject>:refund:<n>`), marked as the operator's; a running worker submits it and its
 *   confirmation from the update stream completes it. `refund_failed` is terminal in the
 *   lifecycle, so the intent keeps that state: the refund's facts (amount, update id) are
 *   recorded on it and the flag is resolved instead. Should the attempt fail too, the funds stay
 *   parked and the flag open. The store records; only a worker talks to the ledger (with the
 *   embedded PGlite store, run the command while the service is stopped: the next start submits).
 * - `resolve` closes the flag with a note, for funds an operator handled off-band. The amount
 *   stays parked in the books (out of the effective reserve) unless `release` says it left the
 *   swap party by other means: then it is taken out of `outgoing`, as the confirmation of a
 *   refund would, and the reconciler finds the books and the ledger agreeing again.
 * The subject is an intent id, or the deposit id of an unmatched transfer whose refund failed.
 */
import { Amount, type Instrument } from '@poolparty/core';
import type { OperatorRetry, TransferPayload } from '@poolparty/settlement';
import { debit, lockPool, moveBalances } from '@poolparty/settlement';
import type { Database, Queryable } from '@poolparty/store';
import {
  commandIdOf,
  getDeposit,
  getIntent,
  type LedgerCommandRecord,
  type OperatorFlag,
  openFlagsOfSubject,
  recordLedgerCommand,
  refundCommandsOf,
  resolveOperatorFlag,
} from '@poolparty/store';

/** A request the store's state does not allow; the message says why, for the operator. */
export class AdminError extends Error {
  override readonly name = 'AdminError';
}

export const REFUND_FAILED = 'refund_failed';
/** Open refund cases listed at most. */
export const REFUND_CASES_MAX = 500;

export interface RefundCase {
  readonly flagId: number;
  readonly intentId: string | null;
  readonly depositId: string | null;
  /** The intent's state, or the deposit's status for an unmatched transfer. */
  readonly status: string | null;
  readonly poolId: string | null;
  /** Null when no refund was ever recorded (a payout that could not be reversed). */
  readonly amount: string | null;
  readonly instrument: Instrument | null;
  readonly receiver: string | null;
  readonly error: string | null;
  readonly raisedAt: Date;
  /** The latest refund attempt. */
  readonly lastAttempt: { readonly commandId: string; readonly status: string } | null;
}

interface RefundAttempt extends LedgerCommandRecord {
  readonly payload: TransferPayload;
}

function subjectOf(flag: OperatorFlag): string {
  const subject = flag.intentId ?? flag.depositId;
  if (subject === null) throw new AdminError(`flag ${flag.id} names neither intent nor deposit`);
  return subject;
}

async function refundAttempts(q: Queryable, subjectId: string): Promise<RefundAttempt[]> {
  const commands = await refundCommandsOf(q, subjectId);
  return commands.map((command) => ({
    ...command,
    payload: command.payload as TransferPayload,
  }));
}

function openRefundFlags(q: Queryable, subjectId: string | null): Promise<OperatorFlag[]> {
  return openFlagsOfSubject(q, REFUND_FAILED, subjectId, REFUND_CASES_MAX);
}

async function statusOf(q: Queryable, flag: OperatorFlag): Promise<string | null> {
  if (flag.intentId !== null) return (await getIntent(q, flag.intentId))?.status ?? null;
  if (flag.depositId === null) return null;
  return (await getDeposit(q, flag.depositId))?.status ?? null;
}

/** The open `refund_failed` flags, oldest first, with what each parked. */
export async function listRefundCases(db: Queryable): Promise<RefundCase[]> {
  const cases: RefundCase[] = [];
  for (const flag of await openRefundFlags(db, null)) {
    const attempts = await refundAttempts(db, subjectOf(flag));
    const last = attempts[0];
    const details = (flag.details ?? {}) as { readonly error?: unknown };
    cases.push({
      flagId: flag.id,
      intentId: flag.intentId,
      depositId: flag.depositId,
      status: await statusOf(db, flag),
      poolId: last?.payload.poolId ?? null,
      amount: last?.payload.amount ?? null,
      instrument: last?.payload.instrument ?? null,
      receiver: last?.payload.receiver ?? null,
      error: last?.error ?? (typeof details.error === 'string' ? details.error : null),
      raisedAt: flag.createdAt,
      lastAttempt: last ? { commandId: last.commandId, status: last.status } : null,
    });
  }
  return cases;
}

/** Ids of liquidity's subjects (withdrawals, intents, deposits): their legs are no refunds. */
const LIQUIDITY_ID_PREFIXES = ['wdr_', 'liq_', 'lp:'] as const;

function noRefundFlag(subjectId: string): string {
  const none = `no open refund_failed flag for ${subjectId}`;
  if (!LIQUIDITY_ID_PREFIXES.some((prefix) => subjectId.startsWith(prefix))) return none;
  return `${none}: a liquidity payout or return is sent again by its flag (admin flags list, then admin flags retry <flagId>)`;
}

/** The subject's open flag and its latest refund attempt, which must not be in flight. */
async function parkedRefund(
  tx: Queryable,
  subjectId: string,
): Promise<{ readonly flag: OperatorFlag; readonly last: RefundAttempt | undefined }> {
  const flag = (await openRefundFlags(tx, subjectId))[0];
  if (flag === undefined) throw new AdminError(noRefundFlag(subjectId));
  const last = (await refundAttempts(tx, subjectId))[0];
  if (last !== undefined && (last.status === 'recorded' || last.status === 'submitted')) {
    throw new AdminError(
      `refund attempt ${last.commandId} of ${subjectId} is still ${last.status}; wait for its outcome`,
    );
  }
  return { flag, last };
}

export interface RetriedRefund {
  readonly commandId: string;
  readonly amount: string;
  readonly receiver: string;
}

/** Records the next attempt of the parked refund; a running worker submits it. */
export async function retryRefund(
  db: Database,
  subjectId: string,
  now: Date,
): Promise<RetriedRefund> {
  return db.transaction(async (tx) => {
    const { flag, last } = await parkedRefund(tx, subjectId);
    if (last === undefined) {
      throw new AdminError(
        `${subjectId} has no refund to retry (its trade could not be reversed); resolve it by hand`,
      );
    }
    if (last.payload.poolId !== null) await lockPool(tx, last.payload.poolId);
    const attempt = last.attempt + 1;
    const operatorRetry: OperatorRetry = { flagId: flag.id };
    const command = await recordLedgerCommand(tx, {
      commandId: commandIdOf(subjectId, 'refund', attempt),
      intentId: last.intentId,
      depositId: last.depositId,
      leg: 'refund',
      attempt,
      payload: { ...last.payload, operatorRetry },
      createdAt: now,
    });
    return {
      commandId: command.commandId,
      amount: last.payload.amount,
      receiver: last.payload.receiver,
    };
  });
}

/** Closes the subject's flag with the operator's note; `release` takes the amount off the books. */
export async function resolveRefund(
  db: Database,
  subjectId: string,
  input: { readonly note: string; readonly release: boolean; readonly now: Date },
): Promise<OperatorFlag> {
  if (input.note.trim().length === 0)
    throw new AdminError('a note saying what was done is required');
  return db.transaction(async (tx) => {
    const { flag, last } = await parkedRefund(tx, subjectId);
    let resolution = input.note;
    if (input.release) {
      const { poolId, side, amount } = last?.payload ?? {};
      if (poolId == null || side == null || amount === undefined) {
        throw new AdminError(`${subjectId} has no parked amount in a pool's books to release`);
      }
      await lockPool(tx, poolId);
      await moveBalances(tx, poolId, [debit(side, 'outgoing', Amount.parse(amount))], input.now);
      resolution = `${input.note} (released ${amount} from the books of ${poolId})`;
    }
    const resolved = await resolveOperatorFlag(tx, { id: flag.id, resolution, now: input.now });
    if (resolved === null) throw new AdminError(`flag ${flag.id} was resolved meanwhile`);
    return resolved;
  });
}
