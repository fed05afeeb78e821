/**
 * The ledger legs the settlement engine sends (docs/spec/lifecycle.md): a transfer out of a swap
 * party (a payout, a refund, a developer's collection) or an action on an offer (accepting or
 * rejecting a deposit offer, withdrawing one of the swap party's own offers). The payload is
 * recorded with the command before it is submitted, so what was sent can always be read back.
 */
import type { Instrument } from './instrument.js';
import type { Side } from './pool-books.js';
import type { FailureReason } from './schemas/swap.js';
import type { SwapState } from './swap-state.js';

/** The terminal state an intent refund writes once it commits, and the state it waits in. */
export interface RefundSettlement {
  readonly from: 'processing' | 'sending_output';
  readonly to: SwapState;
  readonly failureReason: FailureReason;
  readonly networkFeeAmount: string;
}

/** Which operator flag an operator's new attempt (a refund, a payout or return re-sent) answers. */
export interface OperatorRetry {
  readonly flagId: number;
  /** The command given up on that the attempt sends again (`admin flags retry`). */
  readonly replaces?: string;
}

export interface TransferPayload {
  readonly kind: 'transfer';
  /** The pool whose books the amount leaves; null for an instrument that is not a pool side. */
  readonly poolId: string | null;
  readonly side: Side | null;
  readonly sender: string;
  readonly receiver: string;
  readonly instrument: Instrument;
  readonly amount: string;
  readonly reason: string;
  /** Set on an intent's refund. */
  readonly settle?: RefundSettlement;
  /**
   * Set on an operator's new attempt at a refund that ended `refund_failed` (it takes precedence
   * over `settle`, which it keeps for the record), or at a liquidity payout or return re-sent
   * (only a record there: the attempt is confirmed as any of its leg).
   */
  readonly operatorRetry?: OperatorRetry;
}

export interface OfferActionPayload {
  /** `accept`, `reject`: a deposit offer to a swap party; `withdraw`: a swap party's own offer. */
  readonly kind: 'accept' | 'reject' | 'withdraw';
  readonly poolId: string | null;
  readonly offerId: string;
  readonly actor: string;
}

export type CommandPayload = TransferPayload | OfferActionPayload;

/** The side of the pool that trades `instrument` (the caller knows the pool trades it). */
export function sideOf(pool: { readonly tokenA: Instrument }, instrument: Instrument): Side {
  return pool.tokenA.id === instrument.id && pool.tokenA.admin === instrument.admin ? 'a' : 'b';
}

/** The other side of a pool. */
export function otherSide(side: Side): Side {
  return side === 'a' ? 'b' : 'a';
}
