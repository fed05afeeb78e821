/**
 * The swaps' outbox, `intent_events` (docs/spec/lifecycle.md#events), as a client reads it: each
 * event's `data` is the SwapStatus at that event — its state, the history up to it, the legs as
 * of it, and the other facts (deposit, a direct payout or refund) known when it is read.
 *
 * Leg events (`payout_offered`, `refund_accepted`, … — core's `LEG_EVENTS`) interleave with state
 * changes in commit order. Their `data` is the SwapStatus in the state the intent was in, with the
 * leg as the event left it (`payout.state = 'offered'` and its `offerId`, …). A client without a
 * position gets the current state and the leg events since it, so an offer that waits is never
 * missed.
 */
import {
  isTerminal,
  LEG_STATES,
  type Leg,
  type LegState,
  type SwapLeg,
  type SwapStatus,
} from '@poolparty/core';
import {
  type FailureReason,
  getIntent,
  type IntentEventRecord,
  type IntentRecord,
  listIntentEvents,
  readIntentOutboxes,
} from '@poolparty/store';
import { latestStateChange, type OutboxKind } from './outbox.js';
import { swapStatusView } from './swap-status.js';

function failureOfPayload(payload: unknown): FailureReason | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const { failureReason } = payload as { failureReason?: unknown };
  if (typeof failureReason !== 'object' || failureReason === null) return null;
  const { code, message } = failureReason as { code?: unknown; message?: unknown };
  return typeof code === 'string'
    ? { code, message: typeof message === 'string' ? message : '' }
    : null;
}

type LegFacts = Omit<Leg, 'amount'>;

/** The leg facts a leg event's payload recorded (the leg as the event left it). */
function legOfPayload(payload: unknown): LegFacts | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const { state, updateId, offerId, expiresAt } = payload as Record<string, unknown>;
  if (
    typeof state !== 'string' ||
    !(LEG_STATES as readonly string[]).includes(state) ||
    typeof updateId !== 'string' ||
    typeof offerId !== 'string' ||
    typeof expiresAt !== 'string'
  ) {
    return null;
  }
  return { state: state as LegState, updateId, offerId, expiresAt };
}

/**
 * A leg as of `seq`: the facts its latest leg event at or before `seq` recorded, null when its
 * offer came later, or `'as_now'` for a leg without leg events (direct, or not sent).
 */
function legFactsAsOf(
  leg: SwapLeg,
  events: readonly IntentEventRecord[],
  seq: number,
): LegFacts | null | 'as_now' {
  const ofLeg = events.filter((event) => event.legEvent?.startsWith(`${leg}_`));
  if (ofLeg.length === 0) return 'as_now';
  const latest = ofLeg.findLast((event) => event.seq <= seq);
  return latest === undefined ? null : legOfPayload(latest.payload);
}

/** The SwapStatus as of `event`, one of `events` (the intent's events, in order). */
function statusAtEvent(
  intent: IntentRecord,
  events: readonly IntentEventRecord[],
  event: IntentEventRecord,
): SwapStatus {
  const history = events.filter((earlier) => earlier.seq <= event.seq);
  const state = latestStateChange(events, event.seq) ?? event;
  const current = latestStateChange(events)?.seq === state.seq && intent.status === state.status;
  const record: IntentRecord = current
    ? intent
    : { ...intent, status: state.status, failureReason: failureOfPayload(state.payload) };
  const view = swapStatusView(record, history);
  const payout = legFactsAsOf('payout', events, event.seq);
  const refund = legFactsAsOf('refund', events, event.seq);
  const payoutAmount = intent.payout?.amount ?? intent.actualOutput;
  const owed = intent.refund;
  const asOf = { ...view };
  if (payout !== 'as_now') {
    asOf.payout =
      payout === null || payoutAmount === null
        ? null
        : { amount: payoutAmount.toString(), ...payout };
  }
  if (refund !== 'as_now') {
    asOf.refund =
      refund === null || owed === null
        ? null
        : {
            amount: owed.amount.toString(),
            networkFeeAmount: owed.networkFeeAmount.toString(),
            ...refund,
          };
  }
  return asOf;
}

/** Its notifications name the swap as `intentId` (the trigger of the initial migration). */
export const SWAP_OUTBOX: OutboxKind<IntentEventRecord, IntentRecord> = {
  channel: { name: 'intent_events', subjectField: 'intentId' },
  read: async (db, intentId) => {
    const events = await listIntentEvents(db, intentId);
    return { events, subject: await getIntent(db, intentId) };
  },
  readMany: readIntentOutboxes,
  isTerminal,
  viewAt: statusAtEvent,
};
