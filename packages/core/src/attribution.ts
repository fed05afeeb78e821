/**
 * Deposit attribution (docs/spec/lifecycle.md#deposit-attribution): which pending intent, if any, a
 * transfer to a pool's swap party pays for, and what happens to a deposit no intent takes.
 *
 * Order of attribution:
 * 1. the transfer's reason names a pending intent's `depositReference`, and the sender is that
 *    intent's party and the instrument its input;
 * 2. otherwise the sender's single pending intent for the pool and instrument (the active-intent
 *    guard makes it unique), so wallets without reason metadata still match.
 * The amount must equal `expectedAmount` exactly, and the deposit must arrive (ledger record
 * time) before the intent expires: the expiry sweep runs on a timer, so a pending intent past its
 * `expiresAt` is treated as already expired rather than left to a race with the sweep.
 *
 * Anything else is unmatched, with a reason an operator can read. An unmatched two-step offer is
 * rejected (its holdings return to the sender at no cost); an unmatched one-step transfer, already
 * in custody, is refunded minus the network fee, and one that does not exceed the fee is kept as
 * the fee with a record for the operator — never silently.
 */
import type { Amount } from './amount.js';
import { type Instrument, sameInstrument } from './instrument.js';
import type { SwapState } from './swap-state.js';
import { TokenAmount } from './token-amount.js';

/** A transfer or offer that reached a pool's swap party. */
export interface ObservedDeposit {
  readonly poolId: string;
  readonly sender: string;
  readonly instrument: Instrument;
  readonly amount: Amount;
  /** The transfer's reason metadata, when it has one. */
  readonly reference: string | null;
  /** Record time of the update that brought it. */
  readonly receivedAt: Date;
}

/** What attribution needs to know of an intent. */
export interface IntentCandidate {
  readonly intentId: string;
  readonly poolId: string;
  readonly walletParty: string;
  readonly input: Instrument;
  readonly expectedAmount: Amount;
  readonly networkFeeAmount: Amount;
  readonly status: SwapState;
  readonly expiresAt: Date;
}

export interface AttributionCandidates {
  /** The two instruments of the pool the receiving swap party belongs to. */
  readonly poolInstruments: readonly [Instrument, Instrument];
  /** The intent whose `depositReference` equals the deposit's reason, whatever its state. */
  readonly byReference: IntentCandidate | null;
  /** The sender's pending intent for this pool and instrument. */
  readonly pendingOfSender: IntentCandidate | null;
}

const UNMATCHED_REASONS = [
  'wrong_instrument',
  'wrong_party',
  'wrong_amount',
  'no_intent',
  'intent_expired',
  'intent_cancelled',
  'intent_already_funded',
] as const;

export type UnmatchedReason = (typeof UNMATCHED_REASONS)[number];

export type Attribution =
  | {
      readonly kind: 'matched';
      readonly intent: IntentCandidate;
      readonly by: 'reference' | 'sender';
    }
  | {
      readonly kind: 'unmatched';
      readonly reason: UnmatchedReason;
      /**
       * The intent the deposit was most likely meant for (same instrument), whose network fee
       * the refund charges; null when there is none and the fee must be estimated.
       */
      readonly intent: IntentCandidate | null;
    };

export function attributeDeposit(
  deposit: ObservedDeposit,
  candidates: AttributionCandidates,
): Attribution {
  if (!candidates.poolInstruments.some((i) => sameInstrument(i, deposit.instrument))) {
    return { kind: 'unmatched', reason: 'wrong_instrument', intent: null };
  }
  const { byReference } = candidates;
  const referenced = byReference && fitsDeposit(byReference, deposit) ? byReference : null;
  const pendingOfSender =
    candidates.pendingOfSender && fitsDeposit(candidates.pendingOfSender, deposit)
      ? candidates.pendingOfSender
      : null;
  const chosen = referenced ?? pendingOfSender;
  if (chosen === null) {
    return { kind: 'unmatched', reason: whyNoIntent(deposit, byReference), intent: feeIntent() };
  }
  if (deposit.receivedAt.getTime() >= chosen.expiresAt.getTime()) {
    return { kind: 'unmatched', reason: 'intent_expired', intent: chosen };
  }
  // Bound to their instruments, so that a deposit of another instrument can never pass as the
  // intent's amount: comparing the two throws rather than answering.
  const paid = TokenAmount.of(deposit.instrument, deposit.amount);
  if (!paid.eq(TokenAmount.of(chosen.input, chosen.expectedAmount))) {
    return { kind: 'unmatched', reason: 'wrong_amount', intent: chosen };
  }
  return { kind: 'matched', intent: chosen, by: chosen === referenced ? 'reference' : 'sender' };

  function feeIntent(): IntentCandidate | null {
    return byReference && sameInstrument(byReference.input, deposit.instrument)
      ? byReference
      : null;
  }
}

/** A pending intent of the sender, for this pool and instrument. */
function fitsDeposit(intent: IntentCandidate, deposit: ObservedDeposit): boolean {
  return (
    intent.status === 'pending' &&
    intent.walletParty === deposit.sender &&
    intent.poolId === deposit.poolId &&
    sameInstrument(intent.input, deposit.instrument)
  );
}

/** Why the intent a reference names does not take the deposit, as precisely as it can tell. */
function whyNoIntent(
  deposit: ObservedDeposit,
  byReference: IntentCandidate | null,
): UnmatchedReason {
  if (byReference === null) return 'no_intent';
  if (byReference.walletParty !== deposit.sender) return 'wrong_party';
  if (byReference.poolId !== deposit.poolId) return 'no_intent';
  if (!sameInstrument(byReference.input, deposit.instrument)) return 'wrong_instrument';
  if (byReference.status === 'expired') return 'intent_expired';
  if (byReference.status === 'cancelled') return 'intent_cancelled';
  return 'intent_already_funded';
}

/** What becomes of an unmatched deposit. */
export type DepositReturn =
  /** A two-step offer not yet in custody: rejected, it returns whole at no cost. */
  | { readonly kind: 'reject_offer' }
  /** In custody: `amount` goes back, `networkFeeAmount` pays for the refund transfer. */
  | { readonly kind: 'refund'; readonly amount: Amount; readonly networkFeeAmount: Amount }
  /** In custody but not larger than the fee: kept as the fee, and flagged for an operator. */
  | { readonly kind: 'keep_as_fee'; readonly networkFeeAmount: Amount };

export function returnOfUnmatched(
  deposit: { readonly amount: Amount; readonly twoStep: boolean },
  networkFeeAmount: Amount,
): DepositReturn {
  if (deposit.twoStep) return { kind: 'reject_offer' };
  if (deposit.amount.lte(networkFeeAmount)) {
    return { kind: 'keep_as_fee', networkFeeAmount: deposit.amount };
  }
  return { kind: 'refund', amount: deposit.amount.sub(networkFeeAmount), networkFeeAmount };
}

/** `deposit − networkFee` to return, and what is kept; nothing is returned when that is not positive. */
export function refundOfDeposit(
  deposit: Amount,
  networkFee: Amount,
): { readonly refund: Amount; readonly kept: Amount } {
  const refund = deposit.subOrZero(networkFee);
  return { refund, kept: deposit.sub(refund) };
}
