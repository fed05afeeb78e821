/**
 * The swap lifecycle as data (docs/spec/lifecycle.md#transitions): every edge the engine may take,
 * what takes it, and what must be returned to the depositor before the target state is written. The
 * engine can only move an intent along an edge listed here; the states themselves live in
 * `swap-state.ts`.
 *
 * Design decisions:
 * - Edges never skip a state, so clients see every event once, in lifecycle order.
 *   A one-step deposit that arrives in custody takes pending → matched → deposit_received in one
 *   store transaction.
 * - Whether a deposit is refunded is decided in exactly two places: `processing` (before payout)
 *   and `sending_output` (payout failed). The refund is submitted while the intent stays there and
 *   the terminal state is written only after the refund commits, so a crash between
 *   the two leaves an in-progress intent that reconciliation finishes, never a terminal state that
 *   claims a refund which did not happen.
 * - `deposit_received` and `forwarded` have no failure edges: a deposit in custody is only judged
 *   by the executor, so a paused or broken pool is reported from `processing` as `failed` with a
 *   `failureReason`, and every refund of a deposit in custody goes through the same path.
 * - From `matched` the deposit may still be an offer the service has not accepted. If it cannot be
 *   taken into custody the offer is rejected (or was withdrawn or expired by the sender) and its
 *   holdings return to the sender at no cost: no refund transfer, and nothing that can fail.
 */
import { BaseError } from './base-error.js';
import type { InProgressState, SwapState } from './swap-state.js';
import { SWAP_STATES } from './swap-state.js';

/** What the engine observed or decided that moves an intent along an edge. */
export const TRIGGERS = [
  'deposit_attributed',
  'deposit_in_custody',
  'custody_failed',
  'queued',
  'execution_started',
  'payout_submitted',
  'payout_committed',
  'payout_failed',
  'slippage_exceeded',
  'price_impact_exceeded',
  'amount_below_network_fee',
  'liquidity_insufficient',
  'output_holdings_missing',
  'execution_failed',
  'refund_abandoned',
  'cancel',
  'expire',
] as const;

export type Trigger = (typeof TRIGGERS)[number];

/**
 * What is owed to the depositor when an edge is taken; the refund commits before the edge does.
 * - `none`: nothing was deposited, or the payout completed.
 * - `offer_returned`: the deposit never entered custody; its offer goes back at no cost.
 * - `deposit_minus_network_fee`: a transfer of `deposit − networkFeeAmount` with reason
 *   `refund:<intentId>`; nothing is sent when that is not positive (`insufficient_amount`).
 * - `reversal`: the trade's reserve movements are undone, then `deposit − networkFeeAmount` is refunded.
 * - `operator`: the refund could not commit after retries; the funds stay parked and flagged.
 */
export type RefundPolicy =
  | 'none'
  | 'offer_returned'
  | 'deposit_minus_network_fee'
  | 'reversal'
  | 'operator';

export interface Transition {
  readonly from: InProgressState;
  readonly to: SwapState;
  readonly trigger: Trigger;
  readonly refund: RefundPolicy;
  readonly why: string;
}

const edges: readonly Transition[] = [
  {
    from: 'pending',
    to: 'matched',
    trigger: 'deposit_attributed',
    refund: 'none',
    why: 'a ledger deposit was attributed to this intent and the pair is claimed',
  },
  {
    from: 'pending',
    to: 'cancelled',
    trigger: 'cancel',
    refund: 'none',
    why: 'the wallet party cancelled before any deposit was attributed',
  },
  {
    from: 'pending',
    to: 'expired',
    trigger: 'expire',
    refund: 'none',
    why: 'no deposit arrived before expiresAt; a later deposit is unmatched and refunded as such',
  },
  {
    from: 'matched',
    to: 'deposit_received',
    trigger: 'deposit_in_custody',
    refund: 'none',
    why: 'a one-step transfer landed, or the service accepted the offer and the accept committed',
  },
  {
    from: 'matched',
    to: 'failed',
    trigger: 'custody_failed',
    refund: 'offer_returned',
    why: 'the offer was withdrawn, expired or could not be accepted, so it returns to the sender',
  },
  {
    from: 'deposit_received',
    to: 'forwarded',
    trigger: 'queued',
    refund: 'none',
    why: "the deposit joined the pool's settlement queue",
  },
  {
    from: 'forwarded',
    to: 'processing',
    trigger: 'execution_started',
    refund: 'none',
    why: "the pool's executor took the intent and locked the pool row",
  },
  {
    from: 'processing',
    to: 'sending_output',
    trigger: 'payout_submitted',
    refund: 'none',
    why: 'guard and pricing passed, reserves moved, the payout command was recorded and submitted',
  },
  {
    from: 'processing',
    to: 'slippage_failed',
    trigger: 'slippage_exceeded',
    refund: 'deposit_minus_network_fee',
    why: 'the output at execution was below minOutput; written once the refund committed',
  },
  {
    from: 'processing',
    to: 'price_impact_exceeded',
    trigger: 'price_impact_exceeded',
    refund: 'deposit_minus_network_fee',
    why: 'the impact at execution exceeded the cap; written once the refund committed',
  },
  {
    from: 'processing',
    to: 'insufficient_amount',
    trigger: 'amount_below_network_fee',
    refund: 'deposit_minus_network_fee',
    why: 'the deposit did not exceed the network fee; any positive remainder is refunded first',
  },
  {
    from: 'processing',
    to: 'insufficient_liquidity',
    trigger: 'liquidity_insufficient',
    refund: 'deposit_minus_network_fee',
    why: 'the output reserve cannot cover the output; written once the refund committed',
  },
  {
    from: 'processing',
    to: 'no_output_holdings',
    trigger: 'output_holdings_missing',
    refund: 'deposit_minus_network_fee',
    why: 'the swap party holds no usable output holdings; written once the refund committed',
  },
  {
    from: 'processing',
    to: 'failed',
    trigger: 'execution_failed',
    refund: 'deposit_minus_network_fee',
    why: 'the guard blocked the payout or another failure occurred; failureReason names it',
  },
  {
    from: 'processing',
    to: 'refund_failed',
    trigger: 'refund_abandoned',
    refund: 'operator',
    why: 'a refund decided before payout could not commit after retries; an operator takes over',
  },
  {
    from: 'sending_output',
    to: 'completed',
    trigger: 'payout_committed',
    refund: 'none',
    why: 'the payout committed (for a two-step payout: the receiver accepted it)',
  },
  {
    from: 'sending_output',
    to: 'output_failed',
    trigger: 'payout_failed',
    refund: 'reversal',
    why: 'the payout was rejected, withdrawn or expired; the trade was reversed and refunded',
  },
  {
    from: 'sending_output',
    to: 'refund_failed',
    trigger: 'refund_abandoned',
    refund: 'operator',
    why: 'the payout failed and its refund could not commit after retries; an operator takes over',
  },
];

/** The lifecycle. (from, trigger) picks at most one edge, so an observation decides the next state. */
export const EDGES: readonly Transition[] = Object.freeze(edges.map((edge) => Object.freeze(edge)));

function buildTransitions(): Readonly<Record<SwapState, readonly SwapState[]>> {
  const table = Object.fromEntries(
    SWAP_STATES.map((state) => [state, [] as SwapState[]]),
  ) as Record<SwapState, SwapState[]>;
  for (const edge of EDGES) table[edge.from].push(edge.to);
  for (const state of SWAP_STATES) Object.freeze(table[state]);
  return Object.freeze(table);
}

/** Every allowed edge by source state; terminal states map to an empty list. */
export const TRANSITIONS: Readonly<Record<SwapState, readonly SwapState[]>> = buildTransitions();

export class IllegalTransitionError extends BaseError<'illegal_transition'> {
  constructor(
    readonly from: SwapState,
    readonly to: SwapState,
  ) {
    super('illegal_transition', `illegal swap transition ${from} → ${to}`);
    this.name = 'IllegalTransitionError';
  }
}

export function canTransition(from: SwapState, to: SwapState): boolean {
  return TRANSITIONS[from].includes(to);
}

/** Guards every state write in the engine: an unlisted edge is a bug, never a state to store. */
export function assertTransition(from: SwapState, to: SwapState): void {
  if (!canTransition(from, to)) throw new IllegalTransitionError(from, to);
}

export function nextStates(from: SwapState): readonly SwapState[] {
  return TRANSITIONS[from];
}

/** The edge `from → to` with its trigger and refund policy, or undefined when there is none. */
export function transitionBetween(from: SwapState, to: SwapState): Transition | undefined {
  return EDGES.find((edge) => edge.from === from && edge.to === to);
}

/** The state `trigger` moves an intent in `from` to, or undefined when it does not apply there. */
export function stateAfter(from: SwapState, trigger: Trigger): SwapState | undefined {
  return EDGES.find((edge) => edge.from === from && edge.trigger === trigger)?.to;
}

/**
 * What must reach the depositor before `from → to` is written. Keyed by edge, not by target:
 * `failed` owes an offer return from `matched` but a refund transfer from `processing`.
 */
export function refundPolicy(from: SwapState, to: SwapState): RefundPolicy {
  const edge = transitionBetween(from, to);
  if (edge === undefined) throw new IllegalTransitionError(from, to);
  return edge.refund;
}

// --- pending legs ------------------------------------------------------------------------------

/**
 * The two transfers the service sends the depositor
 * (docs/spec/lifecycle.md#payout-and-refund-legs). Each is a "leg" of the swap; a
 * leg to a party without a transfer pre-approval for the token is a two-step offer the party must
 * accept, and while it waits the swap stays in the state that sent it.
 */
const SWAP_LEGS = ['payout', 'refund'] as const;
export type SwapLeg = (typeof SWAP_LEGS)[number];

/**
 * Where a leg is (`Leg.state`): `offered` waits for the receiver; `committed` arrived
 * (directly, or the receiver accepted the offer); `rejected` the receiver refused the offer;
 * `expired` the offer ran out (or was withdrawn) unanswered. Only `offered` can still change.
 */
export const LEG_STATES = ['offered', 'committed', 'rejected', 'expired'] as const;
export type LegState = (typeof LEG_STATES)[number];

/** What happened to a leg's offer: the ledger event, in the leg's own words. */
const OFFER_OUTCOMES = ['offered', 'accepted', 'rejected', 'expired'] as const;
export type OfferOutcome = (typeof OFFER_OUTCOMES)[number];

/** A leg event's name: `<leg>_<outcome>`, e.g. `payout_offered`, `refund_accepted`. */
export type LegEventName = `${SwapLeg}_${OfferOutcome}`;

export interface LegEvent {
  readonly name: LegEventName;
  readonly leg: SwapLeg;
  readonly outcome: OfferOutcome;
  /** The leg's state once the event happened. */
  readonly legState: LegState;
  /** The swap states the intent can be in when it happens (the leg waits there). */
  readonly during: readonly InProgressState[];
  readonly why: string;
}

/** The leg state each offer outcome leaves the leg in. */
export const LEG_STATE_AFTER: Readonly<Record<OfferOutcome, LegState>> = Object.freeze({
  offered: 'offered',
  accepted: 'committed',
  rejected: 'rejected',
  expired: 'expired',
});

/**
 * The payout is sent from `sending_output`; a refund from `processing` (refused before payout) or
 * `sending_output` (the payout failed). A refund never leaves a terminal state's intent through
 * the engine, so no leg event follows a terminal one (an operator's later refund after
 * `refund_failed` shows in the status only; the event stream has ended by then).
 */
const legWaitsIn: Readonly<Record<SwapLeg, readonly InProgressState[]>> = {
  payout: ['sending_output'],
  refund: ['processing', 'sending_output'],
};

const legWhy: Readonly<Record<OfferOutcome, string>> = {
  offered: 'the transfer became a two-step offer: the receiver must accept it in their wallet',
  accepted: 'the receiver accepted the offer and the transfer committed',
  rejected: 'the receiver rejected the offer; its holdings returned to the swap party',
  expired: 'the offer expired (or was withdrawn) before the receiver answered',
};

/**
 * Every leg event, payout first, each leg in the order its events can happen: an offer, then at
 * most one outcome. Leg events describe offers only: a transfer that committed directly (the
 * receiver pre-approves the token) is told by the state event alone (`completed`, or the refund's
 * terminal state). They are events of the same stream as the state events and keep
 * the lifecycle's order: a leg's events come after the state it waits in and before the state
 * its outcome leads to (`completed`, `output_failed` with a refund, a refunded failure, or
 * `refund_failed`).
 */
export const LEG_EVENTS: readonly LegEvent[] = Object.freeze(
  SWAP_LEGS.flatMap((leg) =>
    OFFER_OUTCOMES.map((outcome) =>
      Object.freeze({
        name: `${leg}_${outcome}` as LegEventName,
        leg,
        outcome,
        legState: LEG_STATE_AFTER[outcome],
        during: legWaitsIn[leg],
        why: legWhy[outcome],
      }),
    ),
  ),
);

export const LEG_EVENT_NAMES: readonly LegEventName[] = Object.freeze(
  LEG_EVENTS.map((event) => event.name),
);

export function isLegEventName(value: unknown): value is LegEventName {
  return typeof value === 'string' && (LEG_EVENT_NAMES as readonly string[]).includes(value);
}

export function legEventName(leg: SwapLeg, outcome: OfferOutcome): LegEventName {
  return `${leg}_${outcome}`;
}

/**
 * Whether a leg in `from` (null: not offered yet) may take `outcome`: an offer is made once, and
 * an offered leg ends once. Anything else is a repeated or stale observation to ignore.
 */
export function canTakeOfferOutcome(from: LegState | null, outcome: OfferOutcome): boolean {
  return outcome === 'offered' ? from === null : from === 'offered';
}
