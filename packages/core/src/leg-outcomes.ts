/**
 * What the outcome of a ledger leg does to a pool's books, and what a refund sends: the decisions
 * the settlement engine takes between reading the store and writing to it, as pure functions over
 * plain data. The engine reads under the pool's lock, asks one of these, and writes the answer;
 * a second delivery of the same outcome finds the state it waited on gone and writes nothing.
 */
import { Amount } from './amount.js';
import { otherSide, type RefundSettlement, type TransferPayload } from './legs.js';
import {
  applyMovements,
  credit,
  debit,
  type Movement,
  networkCost,
  type PoolBooks,
  type Side,
} from './pool-books.js';
import type { FailureReason } from './schemas/swap.js';
import { type ExecutionDecision, type IntentFees, reversalOf } from './settlement.js';

/**
 * A transfer the swap party sent (a payout, a refund, a collection) arrived at its receiver: the
 * amount leaves `outgoing` as it left the holdings, and what the transfer burned beyond it
 * (Amulet's fees) is a network cost of the side.
 */
export function transferArrived(
  books: PoolBooks,
  side: Side,
  amount: Amount,
  feesBurned: Amount,
): Movement[] {
  return [debit(side, 'outgoing', amount), ...networkCost(books, side, feesBurned)];
}

export interface ArrivedPayout {
  readonly poolId: string;
  readonly side: Side;
  readonly amount: Amount;
  readonly feesBurned: Amount;
}

/**
 * Payouts that arrived one after the other (stream order), planned together: each one's network
 * cost is taken from the books as the payouts before it left them, so the result per pool equals
 * applying them one at a time. Throws `AccountingError` where a bucket would go negative, before
 * anything is written. `books` holds every pool the payouts name.
 */
export function payoutsArrived(
  books: ReadonlyMap<string, PoolBooks>,
  payouts: readonly ArrivedPayout[],
): Map<string, Movement[]> {
  const current = new Map(books);
  const movements = new Map<string, Movement[]>();
  for (const { poolId, side, amount, feesBurned } of payouts) {
    const before = current.get(poolId);
    if (before === undefined) throw new Error(`no books read for pool ${poolId}`);
    const moves = transferArrived(before, side, amount, feesBurned);
    current.set(poolId, applyMovements(before, moves));
    movements.set(poolId, [...(movements.get(poolId) ?? []), ...moves]);
  }
  return movements;
}

export interface CustodyPlan {
  readonly movements: readonly Movement[];
  /**
   * The holdings arrived although the intent had moved on (a cancel or an expiry won the race):
   * they are owed back, and only a person can say how, so an operator is told.
   */
  readonly owedBack: boolean;
}

/**
 * A deposit offer the service accepted is in custody: in flight for the intent that waited for
 * it, or set aside as owed when the intent no longer waited.
 */
export function custodyOf(side: Side, amount: Amount, intentWaited: boolean): CustodyPlan {
  return intentWaited
    ? { movements: [credit(side, 'inflight', amount)], owedBack: false }
    : { movements: [credit(side, 'outgoing', amount)], owedBack: true };
}

/**
 * What an execution decision moves in the books: a trade takes the deposit out of `inflight`,
 * adds the priced input and the LP fee to the input reserve and the platform and network fees to
 * `fees`, and moves the output from the output reserve to `outgoing`; a refund sets the refund
 * aside in `outgoing` and keeps the rest as fees. No holding moves until the payout leaves.
 */
export function executionMovements(swap: {
  readonly decision: ExecutionDecision;
  readonly inputSide: Side;
  readonly deposit: Amount;
}): Movement[] {
  const { decision, inputSide, deposit } = swap;
  if (decision.kind === 'execute') {
    const outputSide = otherSide(inputSide);
    return [
      debit(inputSide, 'inflight', deposit),
      credit(inputSide, 'reserve', decision.inputReserveAdded),
      credit(inputSide, 'fees', decision.feesCollected),
      debit(outputSide, 'reserve', decision.output),
      credit(outputSide, 'outgoing', decision.output),
    ];
  }
  return [
    debit(inputSide, 'inflight', deposit),
    credit(inputSide, 'outgoing', decision.refund),
    credit(inputSide, 'fees', decision.kept),
  ];
}

export interface PayoutReversal {
  readonly inputSide: Side;
  /** What is owed to the depositor: the deposit less the network fee. */
  readonly refund: Amount;
  readonly movements: readonly Movement[];
}

/**
 * A payout that cannot reach its receiver undoes the trade (`output_failed`): the output returns
 * from `outgoing` to the output reserve, the input reserve gives back what the trade added, the
 * platform fee is released, and the refund is set aside in `outgoing` on the input side.
 */
export function payoutReversal(input: {
  readonly deposit: Amount;
  readonly fees: IntentFees;
  readonly outputSide: Side;
  readonly output: Amount;
}): PayoutReversal {
  const { outputSide } = input;
  const inputSide = otherSide(outputSide);
  const reversal = reversalOf(input.deposit, input.fees, input.output);
  return {
    inputSide,
    refund: reversal.refund,
    movements: [
      debit(inputSide, 'reserve', reversal.inputReserveRemoved),
      debit(inputSide, 'fees', reversal.feesReleased),
      credit(inputSide, 'outgoing', reversal.refund),
      credit(outputSide, 'reserve', reversal.outputReserveRestored),
      debit(outputSide, 'outgoing', reversal.outputReserveRestored),
    ],
  };
}

/** The fee amounts an intent recorded at creation, picked out of its record. */
export function intentFeesOf(recorded: IntentFees): IntentFees {
  return {
    networkFeeAmount: recorded.networkFeeAmount,
    lpFeeAmount: recorded.lpFeeAmount,
    platformFeeAmount: recorded.platformFeeAmount,
    inputAmountAfterPoolFee: recorded.inputAmountAfterPoolFee,
  };
}

/** The intent a refund returns a deposit to: who sent it, from which pool, in which token. */
export interface RefundedIntent {
  readonly intentId: string;
  readonly poolId: string;
  readonly depositAddress: string;
  readonly walletParty: string;
  readonly inputToken: string;
  readonly inputTokenAdmin: string;
}

/**
 * An intent's refund: nothing to send when nothing is owed (the terminal state is written at
 * once), otherwise a transfer of the refund from the swap party back to the depositor, whose
 * commit writes the terminal state.
 */
export type RefundPlan =
  | { readonly kind: 'nothing_owed' }
  | { readonly kind: 'transfer'; readonly payload: TransferPayload };

export function planIntentRefund(input: {
  readonly intent: RefundedIntent;
  readonly side: Side;
  readonly settle: RefundSettlement;
  readonly refund: Amount;
}): RefundPlan {
  const { intent, side, settle, refund } = input;
  if (!refund.isPositive()) return { kind: 'nothing_owed' };
  return {
    kind: 'transfer',
    payload: {
      kind: 'transfer',
      poolId: intent.poolId,
      side,
      sender: intent.depositAddress,
      receiver: intent.walletParty,
      instrument: { id: intent.inputToken, admin: intent.inputTokenAdmin },
      amount: refund.toString(),
      reason: `refund:${intent.intentId}`,
      settle,
    },
  };
}

/**
 * What a payout or refund that became a two-step offer records beside the offer: a refund keeps
 * its amount and network fee on the intent while the receiver decides; a payout records nothing
 * more (its amount is the intent's output).
 */
export function offeredRefundOf(
  leg: 'payout' | 'refund',
  payload: TransferPayload,
): { readonly amount: Amount; readonly networkFeeAmount: Amount } | null {
  if (leg !== 'refund') return null;
  const networkFee = payload.settle?.networkFeeAmount;
  return {
    amount: Amount.parse(payload.amount),
    networkFeeAmount: networkFee === undefined ? Amount.ZERO : Amount.parse(networkFee),
  };
}

/**
 * How an offer a swap party made ended: its receiver accepted or rejected it, or it came back
 * (`withdrawn` by a hand other than the service's, `expired` when the service withdrew it after
 * its deadline; both mean it went unanswered).
 */
export type SwapPartyOfferEnding = 'accepted' | 'rejected' | 'withdrawn' | 'expired';

export type OfferOutcomeStep =
  | { readonly kind: 'finish_transfer' }
  | { readonly kind: 'finish_collection' }
  | { readonly kind: 'reverse_payout'; readonly failureReason: FailureReason }
  | { readonly kind: 'abandon_refund'; readonly error: string }
  | { readonly kind: 'return_collection'; readonly error: string }
  | { readonly kind: 'finish_liquidity_leg' }
  | { readonly kind: 'fail_liquidity_leg'; readonly error: string }
  | { readonly kind: 'finish_sweep' }
  | { readonly kind: 'return_sweep'; readonly error: string };

export interface OfferOutcomePlan {
  /** What the payout's or refund's leg records (with its event) before the state it leads to. */
  readonly legOutcome: 'accepted' | 'rejected' | 'expired' | null;
  readonly step: OfferOutcomeStep | null;
}

const NO_OUTCOME: OfferOutcomePlan = { legOutcome: null, step: null };

/**
 * A treasury sweep's offer (docs/spec/treasury.md): accepted, the fees arrived at the treasury;
 * otherwise they are back among the pool's fees, to be swept again. No leg of a swap records it.
 */
function planSweepOfferOutcome(ending: SwapPartyOfferEnding): OfferOutcomePlan {
  if (ending === 'accepted') return { legOutcome: null, step: { kind: 'finish_sweep' } };
  return {
    legOutcome: null,
    step: { kind: 'return_sweep', error: `the sweep offer was ${ending}` },
  };
}

/**
 * What the end of an offer a swap party made means, given the leg that made it (null when no
 * command of the service's made it: nothing to do). An accepted offer is a transfer that arrived.
 * One that came back unaccepted reverses a payout's trade and refunds the input, leaves a refund
 * parked for an operator, and returns a collection's or a sweep's amount to the fees.
 */
export function planOfferOutcome(
  leg: string | null,
  ending: SwapPartyOfferEnding,
): OfferOutcomePlan {
  if (leg === 'lp_return' || leg === 'lp_payout') return liquidityOfferOutcome(leg, ending);
  if (leg === 'sweep') return planSweepOfferOutcome(ending);
  if (leg !== 'payout' && leg !== 'refund' && leg !== 'collect') return NO_OUTCOME;
  if (ending === 'accepted') {
    return leg === 'collect'
      ? { legOutcome: null, step: { kind: 'finish_collection' } }
      : { legOutcome: 'accepted', step: { kind: 'finish_transfer' } };
  }
  const legOutcome = ending === 'rejected' ? 'rejected' : 'expired';
  switch (leg) {
    case 'payout':
      return {
        legOutcome,
        step: {
          kind: 'reverse_payout',
          failureReason: {
            code: 'output_failed',
            message: `The payout offer was ${ending}; the trade was reversed and the input refunded.`,
          },
        },
      };
    case 'refund':
      return {
        legOutcome,
        step: { kind: 'abandon_refund', error: `the refund offer was ${ending}` },
      };
    case 'collect':
      return {
        legOutcome: null,
        step: { kind: 'return_collection', error: `the collection offer was ${ending}` },
      };
  }
}

/**
 * A liquidity return or a withdrawal's payout that became an offer: accepted, it arrived; back
 * unaccepted, the amount stays with the pool's party and an operator decides.
 */
function liquidityOfferOutcome(
  leg: 'lp_return' | 'lp_payout',
  ending: SwapPartyOfferEnding,
): OfferOutcomePlan {
  if (ending === 'accepted') return { legOutcome: null, step: { kind: 'finish_liquidity_leg' } };
  const what = leg === 'lp_payout' ? 'withdrawal payout' : 'liquidity return';
  return {
    legOutcome: null,
    step: { kind: 'fail_liquidity_leg', error: `the ${what} offer was ${ending}` },
  };
}
