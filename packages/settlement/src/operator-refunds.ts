/**
 * Operator refunds (`poolparty admin refunds`; docs/spec/lifecycle.md#failures-and-refunds): the
 * refunds the engine gave up on, parked in the pool's `outgoing` books with an open
 * `refund_failed` flag. The subject is an intent id, or the deposit id of an unmatched transfer
 * whose refund failed.
 *
 * read → plan → write, in one transaction: the subject's open flag and refund attempts are read
 * (again under the pool's lock when the answer moves money), core's `planRefundRetry` or
 * `planRefundResolution` decides, and the answer is written: the next attempt recorded, or the
 * flag resolved with the parked amount taken off the books if it was released. `refund_failed`
 * is terminal in the lifecycle, so the intent keeps that state: a retried refund's facts (amount,
 * update id) are recorded on it when it commits, and its flag is resolved then (legs.ts). The
 * store records; only a worker talks to the ledger (with the embedded PGlite store, run the
 * command while the service is stopped: the next start submits).
 */
import {
  DomainError,
  type Instrument,
  latestRefundAttempt,
  type ParkedRefund,
  planRefundResolution,
  planRefundRetry,
  REFUND_FAILED,
  type RefundAttempt,
  type RefundRefusal,
  refundPoolOf,
  type TransferPayload,
} from '@poolparty/core';
import type { Database, Queryable } from '@poolparty/store';
import {
  getDeposit,
  getIntent,
  type LedgerCommandRecord,
  type OperatorFlag,
  openFlagsOfSubject,
  recordLedgerCommand,
  refundCommandsOf,
  resolveOperatorFlag,
} from '@poolparty/store';
import { lockPool, moveBalances } from './accounting.js';

/** Open refund cases listed at most. */
export const REFUND_CASES_MAX = 500;

/** An operator's answer the store's state does not allow; the message says why. */
export class RefundRefused extends DomainError<RefundRefusal> {
  override name = 'RefundRefused';
}

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

export interface RetriedRefund {
  readonly commandId: string;
  readonly amount: string;
  readonly receiver: string;
}

interface StoredAttempt extends RefundAttempt {
  readonly error: string | null;
}

function subjectOf(flag: OperatorFlag): string {
  const subject = flag.intentId ?? flag.depositId;
  if (subject === null) {
    throw new RefundRefused('not_found', `flag ${flag.id} names neither intent nor deposit`);
  }
  return subject;
}

function attemptOf(command: LedgerCommandRecord): StoredAttempt {
  return {
    commandId: command.commandId,
    intentId: command.intentId,
    depositId: command.depositId,
    attempt: command.attempt,
    status: command.status,
    payload: command.payload as TransferPayload,
    error: command.error,
  };
}

async function refundAttempts(q: Queryable, subjectId: string): Promise<StoredAttempt[]> {
  return (await refundCommandsOf(q, subjectId)).map(attemptOf);
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
    const last = latestRefundAttempt(await refundAttempts(db, subjectOf(flag)));
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

async function readParked(tx: Queryable, subjectId: string): Promise<ParkedRefund> {
  const flag = (await openRefundFlags(tx, subjectId))[0];
  return { subjectId, flagId: flag?.id ?? null, attempts: await refundAttempts(tx, subjectId) };
}

/**
 * What the answer is planned from, read again under the lock of the pool the refund left: every
 * transaction that moves the pool's money takes that lock first, so nothing changes the case
 * between the plan and its writes.
 */
async function readParkedUnderLock(tx: Queryable, subjectId: string): Promise<ParkedRefund> {
  const poolId = refundPoolOf(await readParked(tx, subjectId));
  if (poolId === null) return readParked(tx, subjectId);
  await lockPool(tx, poolId);
  return readParked(tx, subjectId);
}

/** Records the next attempt of the parked refund; a running worker submits it. */
export async function retryRefund(
  db: Database,
  subjectId: string,
  now: Date,
): Promise<RetriedRefund> {
  return db.transaction(async (tx) => {
    const plan = planRefundRetry(await readParkedUnderLock(tx, subjectId));
    if (plan.kind === 'refused') throw new RefundRefused(plan.code, plan.reason);
    const command = await recordLedgerCommand(tx, {
      commandId: plan.commandId,
      intentId: plan.intentId,
      depositId: plan.depositId,
      leg: 'refund',
      attempt: plan.attempt,
      payload: plan.payload,
      createdAt: now,
    });
    return {
      commandId: command.commandId,
      amount: plan.payload.amount,
      receiver: plan.payload.receiver,
    };
  });
}

/** Closes the subject's flag with the operator's note; `release` takes the amount off the books. */
export async function resolveRefund(
  db: Database,
  subjectId: string,
  input: { readonly note: string; readonly release: boolean; readonly now: Date },
): Promise<OperatorFlag> {
  return db.transaction(async (tx) => {
    const parked = input.release
      ? await readParkedUnderLock(tx, subjectId)
      : await readParked(tx, subjectId);
    const plan = planRefundResolution(parked, input);
    if (plan.kind === 'refused') throw new RefundRefused(plan.code, plan.reason);
    if (plan.release !== null) {
      const { poolId, movements } = plan.release;
      await moveBalances(tx, poolId, movements, input.now);
    }
    const resolved = await resolveOperatorFlag(tx, {
      id: plan.flagId,
      resolution: plan.resolution,
      now: input.now,
    });
    if (resolved === null) {
      throw new RefundRefused('precondition_failed', `flag ${plan.flagId} was resolved meanwhile`);
    }
    return resolved;
  });
}
