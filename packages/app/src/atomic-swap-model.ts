/**
 * An atomic swap as the swap card and the progress page show it (docs/spec/atomic-swaps.md, "The
 * web app"), pure: the two legs about to be signed, the time left to sign counted on the
 * service's clock, and each state's words with what the user can do next. The components draw
 * what these functions answer.
 */
import type { AtomicSwapProgress } from '@poolparty/core';
import type { AtomicSwap, AtomicSwapState } from '@poolparty/sdk/atomic';
import { parseAmount } from './decimal.js';
import { formatAmount } from './format.js';
import { atomicStateTitle } from './swap-state-titles.js';

/** One side of the transaction as it will move: an amount of a token. */
export interface LegAmount {
  readonly amount: string;
  readonly token: string;
}

/**
 * What the result shows of an atomic swap: the swap itself (the card has it) or its progress (the
 * swap's page reads that, as anyone with the id may).
 */
export interface AtomicSwapShown {
  readonly status: AtomicSwapState;
  readonly input: LegAmount;
  readonly output: LegAmount;
  readonly updateId: string | null;
  readonly excess: string | null;
  readonly failure: { readonly message: string } | null;
}

/** The progress's signed amounts as the legs: the input exactly, the output exactly. */
export function shownOfProgress(progress: AtomicSwapProgress): AtomicSwapShown {
  return {
    status: progress.status,
    input: { amount: progress.expectedAmount, token: progress.inputToken },
    output: { amount: progress.minOutput, token: progress.outputToken },
    updateId: progress.updateId,
    excess: progress.excess,
    failure: progress.failureReason,
  };
}

export interface LegLines {
  /** The input leg: exactly this leaves the party. */
  readonly send: string;
  /** The output leg: exactly this arrives. */
  readonly receive: string;
  /** Why the output is what it is: the quote less the slippage limit, the least accepted. */
  readonly receiveDetail: string;
}

/** What the review says of the legs, from the amounts the transaction itself holds. */
export function legLines(
  legs: { readonly input: LegAmount; readonly output: LegAmount },
  quotedOutput: string,
  slippageBps: number,
): LegLines {
  const { input, output } = legs;
  return {
    send: `You send exactly ${formatAmount(input.amount, 10)} ${input.token} to the pool`,
    receive: `You receive ${formatAmount(output.amount, 10)} ${output.token}`,
    receiveDetail: `The quote's ${formatAmount(quotedOutput, 10)} ${output.token} less your ${slippageBps / 100} % slippage limit: the least you accept, and exactly what you get.`,
  };
}

/**
 * When the signing window ends, on the clock `receivedAtMs` is read from (the browser's, used
 * only to measure time passing): the window the service left when it answered, `expiresAt` less
 * `updatedAt` — both the service's clock, the one moment it last wrote the swap (prepared, or
 * prepared again) — counted from the answer's arrival. The browser's own date is never compared
 * with `expiresAt`: it may be far off the service's (a devnet ledger clock moved forward).
 */
export function signingDeadline(
  swap: Pick<AtomicSwap, 'expiresAt' | 'updatedAt'>,
  receivedAtMs: number,
): number {
  const window = Date.parse(swap.expiresAt) - Date.parse(swap.updatedAt);
  return receivedAtMs + (Number.isFinite(window) ? Math.max(0, window) : 0);
}

export interface TimeLeft {
  /** Whole seconds left, rounded up: 0 once the window has ended. */
  readonly seconds: number;
  /** `m:ss`. */
  readonly text: string;
}

export function timeLeft(deadlineMs: number, nowMs: number): TimeLeft {
  const seconds = Math.max(0, Math.ceil((deadlineMs - nowMs) / 1000));
  return { seconds, text: `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}` };
}

/** What the user can do after the swap ended without moving anything. */
export type NextStep = { readonly kind: 'prepare'; readonly label: string } | null;

export interface AtomicOutcome {
  readonly title: string;
  readonly detail: string;
  readonly tone: 'good' | 'bad' | 'neutral';
  /** "The pool's curve paid Z more…", for a completed swap whose curve paid above the signed output. */
  readonly excess: string | null;
  readonly next: NextStep;
}

const NOTHING_MOVED = 'nothing was submitted and nothing left your party';

/** Each state's words, and the way on from it. */
export function atomicOutcome(
  swap: Pick<AtomicSwapShown, 'status' | 'excess' | 'failure' | 'output'>,
): AtomicOutcome {
  const title = atomicStateTitle(swap.status);
  const outcome = (
    detail: string,
    tone: AtomicOutcome['tone'],
    next: NextStep = null,
  ): AtomicOutcome => ({ title, detail, tone, excess: null, next });
  switch (swap.status) {
    case 'prepared':
      return outcome('The transaction waits for your signature until it expires.', 'neutral');
    case 'executing':
      return outcome('Your signature arrived; the ledger is settling both legs.', 'neutral');
    case 'completed':
      return {
        ...outcome('Both legs settled together, in one ledger update.', 'good'),
        excess: excessLine(swap),
      };
    case 'price_moved':
      return outcome(
        `Swaps before yours moved the pool's price: its curve now pays less than the output you signed, so ${NOTHING_MOVED}.`,
        'bad',
        { kind: 'prepare', label: 'Get a new price' },
      );
    case 'expired':
      return outcome(
        `No signature reached the service before the swap expired, so ${NOTHING_MOVED}.`,
        'bad',
        { kind: 'prepare', label: 'Prepare again' },
      );
    case 'rejected':
      return outcome(
        `${(swap.failure?.message ?? 'The service refused the swap').replace(/\.$/, '')}. Nothing left your party.`,
        'bad',
      );
    case 'cancelled':
      return outcome('Cancelled before signing: nothing moved.', 'neutral');
  }
}

/** The excess the curve paid above the signed output, which the pool keeps for its LPs. */
function excessLine(swap: Pick<AtomicSwapShown, 'excess' | 'output'>): string | null {
  const excess = swap.excess === null ? null : parseAmount(swap.excess);
  if (excess === null || !excess.isPositive()) return null;
  return `The pool's curve paid ${formatAmount(excess.toString(), 10)} ${swap.output.token} more, which stays with the LPs.`;
}
