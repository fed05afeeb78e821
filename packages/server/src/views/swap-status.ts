/**
 * A swap as the client reads it: the SwapStatus of a status query, a track listing and an event
 * (docs/spec/lifecycle.md#swapstatus), and the progress anyone holding its id may see. Every key
 * is always present; facts of a stage that has not happened are `null`.
 *
 * A payout or refund appears once its transfer committed, or as soon as it became an offer the
 * depositor must accept (`Leg` state `offered`), so a wallet can ask its user to accept
 * while the swap waits. A refund that is owed but neither committed nor offered is not shown: the
 * intent is still in progress and says so through its status.
 */
import {
  isTerminal,
  type Leg,
  type RefundLeg,
  type SwapProgress,
  type SwapState,
  type SwapStatus,
} from '@poolparty/core';
import type { IntentRecord, LegOffer } from '@poolparty/store';

/** One state change, as the store's events and histories both carry it. */
export interface StateChange {
  readonly status: SwapState;
  readonly at: Date;
  /** Set on a leg event, which is no state change and stays out of `history`. */
  readonly legEvent?: string | null;
}

type LegFacts = Omit<Leg, 'amount'>;

function offerLeg(offer: LegOffer): LegFacts {
  return {
    state: offer.state,
    updateId: offer.updateId,
    offerId: offer.offerId,
    expiresAt: offer.expiresAt.toISOString(),
  };
}

/**
 * The leg from its offer (when it was one) and its committed update: an offer shows until a
 * committed transfer other than its own acceptance supersedes it (an operator's direct refund
 * after a rejected offer).
 */
function legFacts(offer: LegOffer | null, committedUpdateId: string | null): LegFacts | null {
  if (offer !== null && (committedUpdateId === null || offer.state === 'committed')) {
    return offerLeg(offer);
  }
  if (committedUpdateId === null) return null;
  return { state: 'committed', updateId: committedUpdateId, offerId: null, expiresAt: null };
}

function payoutLegView(intent: IntentRecord): Leg | null {
  const facts = legFacts(intent.payoutOffer, intent.payout?.updateId ?? null);
  const amount = intent.payout?.amount ?? intent.actualOutput;
  return facts === null || amount === null ? null : { amount: amount.toString(), ...facts };
}

function refundLegView(intent: IntentRecord): RefundLeg | null {
  const { refund } = intent;
  const facts = legFacts(intent.refundOffer, refund?.updateId ?? null);
  if (facts === null || refund === null) return null;
  return {
    amount: refund.amount.toString(),
    networkFeeAmount: refund.networkFeeAmount.toString(),
    ...facts,
  };
}

/**
 * `history` is the intent's own events, oldest first, as the store lists them; leg events among
 * them are left out (they are not state changes).
 */
export function swapStatusView(intent: IntentRecord, history: readonly StateChange[]): SwapStatus {
  const { deposit } = intent;
  return {
    kind: 'deposit',
    intentId: intent.intentId,
    poolId: intent.poolId,
    status: intent.status,
    terminal: isTerminal(intent.status),
    inputToken: intent.inputToken,
    inputTokenAdmin: intent.inputTokenAdmin,
    outputToken: intent.outputToken,
    outputTokenAdmin: intent.outputTokenAdmin,
    expectedAmount: intent.expectedAmount.toString(),
    expectedOutput: intent.expectedOutput.toString(),
    minOutput: intent.minOutput.toString(),
    actualOutput: intent.actualOutput?.toString() ?? null,
    slippageTolerance: intent.slippageTolerance,
    depositAddress: intent.depositAddress,
    depositReference: intent.depositReference,
    outputAddress: intent.outputAddress,
    createdAt: intent.createdAt.toISOString(),
    matchedAt: intent.matchedAt?.toISOString() ?? null,
    completedAt: intent.status === 'completed' ? (intent.completedAt?.toISOString() ?? null) : null,
    expiresAt: intent.expiresAt.toISOString(),
    failureReason: intent.failureReason,
    deposit: deposit && {
      ...deposit,
      amount: deposit.amount.toString(),
      receivedAt: deposit.receivedAt.toISOString(),
    },
    payout: payoutLegView(intent),
    refund: refundLegView(intent),
    history: history
      .filter((change) => change.legEvent == null)
      .map((change) => ({ status: change.status, at: change.at.toISOString() })),
  };
}

/**
 * The status as anyone holding the swap's id reads it: without the parties and the deposit
 * reference, which only the swap's own wallet needs.
 */
export function swapProgressView(status: SwapStatus): SwapProgress {
  const { depositAddress, depositReference, outputAddress, ...progress } = status;
  return progress;
}
