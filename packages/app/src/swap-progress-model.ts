/**
 * The model behind the swap progress view, pure: what each swap state means to the person
 * swapping (docs/spec/lifecycle.md#states), the timeline the view draws (the in-progress states in
 * lifecycle order, each reached or not, then the outcome), and what the user must do now. The view
 * renders what these functions answer for a status; the transitions between states are core's
 * (`packages/core/src/lifecycle.ts`).
 */
import { IN_PROGRESS_STATES, type SwapState, type SwapStatus } from '@poolparty/sdk';
import { stateTitle } from './swap-state-titles.js';

export type Tone = 'good' | 'bad' | 'neutral';

export interface StateText {
  readonly title: string;
  readonly detail: string;
  readonly tone: Tone;
}

const DETAILS: Readonly<Record<SwapState, Omit<StateText, 'title'>>> = {
  pending: {
    detail: 'Send exactly the deposit amount from your party before the intent expires.',
    tone: 'neutral',
  },
  matched: {
    detail: 'Your transfer was seen on the ledger and matched to this swap.',
    tone: 'neutral',
  },
  deposit_received: {
    detail: 'The deposit is in the pool swap party and counts for this swap.',
    tone: 'neutral',
  },
  forwarded: {
    detail: 'The deposit moved into the pool to be priced.',
    tone: 'neutral',
  },
  processing: {
    detail: 'The pool prices the swap at the current reserves and checks your minimum output.',
    tone: 'neutral',
  },
  sending_output: {
    detail: 'The output is on its way to your party.',
    tone: 'neutral',
  },
  completed: {
    detail: 'The output arrived in your party.',
    tone: 'good',
  },
  slippage_failed: {
    detail:
      'The output at execution time was below your minimum (your slippage limit), so the swap did not run and your deposit was refunded.',
    tone: 'bad',
  },
  price_impact_exceeded: {
    detail:
      "The swap would have moved the pool's price more than the service allows; your deposit was refunded.",
    tone: 'bad',
  },
  insufficient_amount: {
    detail: 'The deposit did not cover the fees and the smallest swap; it was refunded.',
    tone: 'bad',
  },
  insufficient_liquidity: {
    detail: 'The pool could not pay this output; your deposit was refunded.',
    tone: 'bad',
  },
  output_failed: {
    detail:
      'The output could not be delivered (or its offer was rejected or expired), so the trade was reversed and your deposit refunded.',
    tone: 'bad',
  },
  no_output_holdings: {
    detail: 'The pool held nothing to pay out with; your deposit was refunded.',
    tone: 'bad',
  },
  failed: {
    detail: 'The swap failed; the reason is below. A deposit that arrived is refunded.',
    tone: 'bad',
  },
  refund_failed: {
    detail:
      "The refund could not be delivered (or its offer was rejected or expired). The operator returns the funds; keep this swap's id.",
    tone: 'bad',
  },
  expired: {
    detail:
      'No deposit arrived before the intent expired. Nothing was taken; a late deposit is refunded.',
    tone: 'bad',
  },
  cancelled: {
    detail: 'The swap was cancelled before any deposit.',
    tone: 'neutral',
  },
};

export function stateText(state: SwapState): StateText {
  return { title: stateTitle(state), ...DETAILS[state] };
}

export interface TimelineStep {
  readonly state: SwapState;
  readonly text: StateText;
  /** When the state was entered; null when it was not (yet). */
  readonly at: string | null;
  readonly current: boolean;
}

/**
 * The steps to draw: every in-progress state in order, then the terminal state once reached.
 * A state is "reached" when the history records it, or when a later state was entered (a state
 * can be skipped between two observations, e.g. a refund straight from `processing`).
 */
export function timelineOf(status: Pick<SwapStatus, 'status' | 'history'>): TimelineStep[] {
  const entered = new Map<SwapState, string>();
  for (const entry of status.history)
    if (!entered.has(entry.status)) entered.set(entry.status, entry.at);
  const steps: TimelineStep[] = IN_PROGRESS_STATES.map((state) => ({
    state,
    text: stateText(state),
    at: entered.get(state) ?? null,
    current: status.status === state,
  }));
  if (!(IN_PROGRESS_STATES as readonly string[]).includes(status.status)) {
    steps.push({
      state: status.status,
      text: stateText(status.status),
      at: entered.get(status.status) ?? null,
      current: true,
    });
  }
  return steps;
}

/** What the user must do now, if anything: send the deposit, or accept an offer. */
export type RequiredAction =
  | { readonly kind: 'deposit' }
  | {
      readonly kind: 'accept';
      readonly leg: 'payout' | 'refund';
      readonly offerId: string;
      readonly amount: string;
      readonly token: string;
      readonly tokenAdmin: string;
      readonly expiresAt: string | null;
    }
  | null;

export function requiredAction(status: SwapStatus): RequiredAction {
  if (status.payout?.state === 'offered' && status.payout.offerId !== null) {
    return {
      kind: 'accept',
      leg: 'payout',
      offerId: status.payout.offerId,
      amount: status.payout.amount,
      token: status.outputToken,
      tokenAdmin: status.outputTokenAdmin,
      expiresAt: status.payout.expiresAt,
    };
  }
  if (status.refund?.state === 'offered' && status.refund.offerId !== null) {
    return {
      kind: 'accept',
      leg: 'refund',
      offerId: status.refund.offerId,
      amount: status.refund.amount,
      token: status.inputToken,
      tokenAdmin: status.inputTokenAdmin,
      expiresAt: status.refund.expiresAt,
    };
  }
  if (status.status === 'pending' && status.deposit === null) return { kind: 'deposit' };
  return null;
}
