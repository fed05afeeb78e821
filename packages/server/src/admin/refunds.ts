/**
 * `poolparty admin refunds` (`refund_failed`; docs/spec/lifecycle.md#failures-and-refunds): the
 * refunds the engine gave up on, listed, retried or resolved by settlement (its
 * operator-refunds.ts, which reads, asks core's planner and writes in one transaction). What is
 * left here is the command's side: settlement's refusals told as the operator's `AdminError`,
 * whose message the command prints.
 */

import {
  listRefundCases as listCases,
  type RefundCase,
  RefundRefused,
  type RetriedRefund,
  resolveRefund as resolveCase,
  retryRefund as retryCase,
} from '@poolparty/settlement';
import type { Database, OperatorFlag, Queryable } from '@poolparty/store';
import { AdminError } from './admin-error.js';

export type { RefundCase, RetriedRefund };

/** The open `refund_failed` cases, oldest first, with what each parked. */
export function listRefundCases(db: Queryable): Promise<RefundCase[]> {
  return toldAsAdmin(() => listCases(db));
}

/** Records the next attempt of the parked refund; a running worker submits it. */
export function retryRefund(db: Database, subjectId: string, now: Date): Promise<RetriedRefund> {
  return toldAsAdmin(() => retryCase(db, subjectId, now));
}

/** Closes the subject's flag with the operator's note; `release` takes the amount off the books. */
export function resolveRefund(
  db: Database,
  subjectId: string,
  input: { readonly note: string; readonly release: boolean; readonly now: Date },
): Promise<OperatorFlag> {
  return toldAsAdmin(() => resolveCase(db, subjectId, input));
}

async function toldAsAdmin<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof RefundRefused) throw new AdminError(error.code, error.message);
    throw error;
  }
}
