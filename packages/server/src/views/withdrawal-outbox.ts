/**
 * The withdrawals' outbox, `withdrawal_events` (docs/spec/liquidity.md#withdrawals), as a client
 * reads it: each event's `data` is the Withdrawal as of that event — its status and both payouts'
 * states then, the update that paid a side once it was paid, and the offer of a side once it was
 * offered.
 *
 * A change of status is a state event (`paying`, `completed`, `flagged`); a payout that moved
 * while the status stood is a leg event (`payout_offered`, `payout_paid`, …), as a swap's offers
 * are. The stream ends at `completed` or `flagged`: what follows a flag is an operator's act,
 * which a new stream or a read of the withdrawal shows.
 */
import type { Withdrawal } from '@poolparty/core';
import {
  getWithdrawal,
  listWithdrawalEvents,
  type PayoutState,
  payoutOffersOf,
  type WithdrawalEventRecord,
  type WithdrawalRecord,
} from '@poolparty/store';
import { withdrawalView } from './liquidity.js';
import type { OutboxKind } from './outbox.js';

/** A withdrawal's facts beside its events: it and the offers its payouts became. */
export interface WithdrawalFacts {
  readonly withdrawal: WithdrawalRecord;
  readonly offers: Partial<Record<'a' | 'b', string>>;
}

/** The states after which a withdrawal's stream ends. */
const STREAM_ENDS: readonly WithdrawalState[] = ['completed', 'flagged'];

type WithdrawalState = Withdrawal['status'];

/** A side's offer is shown from the event that made it an offer on; a payout before it had none. */
function offerAsOf(state: PayoutState, offerId: string | undefined): string | undefined {
  return state === 'pending' || state === 'none' ? undefined : offerId;
}

/** The withdrawal as of `event`: the record itself for its latest event, else its payouts then. */
export function withdrawalAtEvent(
  { withdrawal, offers }: WithdrawalFacts,
  events: readonly WithdrawalEventRecord[],
  event: WithdrawalEventRecord,
): Withdrawal {
  if (events.at(-1)?.seq === event.seq) return withdrawalView(withdrawal, offers);
  const then: WithdrawalRecord = {
    ...withdrawal,
    payoutA: event.payoutA,
    payoutB: event.payoutB,
    updateA: event.payoutA === 'paid' ? withdrawal.updateA : null,
    updateB: event.payoutB === 'paid' ? withdrawal.updateB : null,
    completedAt: event.status === 'completed' ? (withdrawal.completedAt ?? event.at) : null,
    updatedAt: event.at,
  };
  const offersThen: Partial<Record<'a' | 'b', string>> = {};
  const a = offerAsOf(event.payoutA, offers.a);
  const b = offerAsOf(event.payoutB, offers.b);
  if (a !== undefined) offersThen.a = a;
  if (b !== undefined) offersThen.b = b;
  return withdrawalView(then, offersThen);
}

/** Its notifications name the withdrawal as `withdrawalId` (migration 0018's trigger). */
export const WITHDRAWAL_OUTBOX: OutboxKind<WithdrawalEventRecord, WithdrawalFacts> = {
  channel: { name: 'withdrawal_events', subjectField: 'withdrawalId' },
  read: async (db, withdrawalId) => {
    const events = await listWithdrawalEvents(db, withdrawalId);
    const withdrawal = await getWithdrawal(db, withdrawalId);
    if (withdrawal === null) return { events, subject: null };
    return { events, subject: { withdrawal, offers: await payoutOffersOf(db, withdrawalId) } };
  },
  isTerminal: (status) => (STREAM_ENDS as readonly string[]).includes(status),
  viewAt: withdrawalAtEvent,
};
