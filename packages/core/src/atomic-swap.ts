/**
 * Atomic swaps (docs/spec/atomic-swaps.md): both legs — the trader's input to the pool's swap
 * party and the pool's output to the trader — in one prepared transaction the trader signs, so
 * the pool never holds the trader's input without having paid.
 *
 * The decisions, each a pure function over plain data:
 * - `signedAmounts`: what the trader signs. The input is the quote's `totalInputAmount`, exact;
 *   the output is the quote's output less the trader's slippage tolerance (`minOutput`, the same
 *   bound the deposit flow guarantees). A signed amount cannot follow the curve, so it must be one
 *   the curve still covers after the swaps that commit between prepare and execute.
 * - `decideAtomicExecution`: at execution the pool pays the signed output only if its curve, at
 *   that moment, pays at least that much for the signed input; otherwise nothing is submitted
 *   (`price_moved`). What the curve pays above the signed output (`excess`) stays in the pool's
 *   output reserve: the LPs'.
 * - `ATOMIC_SWAP_LIFECYCLE` and `isAtomicSwapMove`: the states and the legal moves between them.
 * - `atomicSwapExpiry` and `signatureTiming`: when a prepared swap expires and whether a
 *   signature arrived in time.
 */
import { Amount } from './amount.js';
import { evaluateSettlementSafety, type GuardSnapshot, type GuardThresholds } from './guard.js';
import { constantProductOutput, priceImpact, type Reserves } from './pricing.js';
import { minOutput } from './quote.js';
import { compareRatio, formatRatio, type Ratio } from './ratio.js';
import { assertIntentConserved, type IntentFees } from './settlement.js';

// --- states -----------------------------------------------------------------------------------

/** The prefix of every atomic swap's id (`atm_…`); a swap intent's id never has it. */
export const ATOMIC_SWAP_ID_PREFIX = 'atm_';

/** Whether `id` names an atomic swap rather than a swap intent: where both kinds are served. */
export function isAtomicSwapId(id: string): boolean {
  return id.startsWith(ATOMIC_SWAP_ID_PREFIX);
}

export const ATOMIC_SWAP_STATES = [
  'prepared',
  'executing',
  'completed',
  'price_moved',
  'rejected',
  'expired',
  'cancelled',
] as const;
export type AtomicSwapState = (typeof ATOMIC_SWAP_STATES)[number];

/** The states an atomic swap ends in; in every one but `completed` nothing moved. */
export const ATOMIC_SWAP_TERMINAL_STATES = [
  'completed',
  'price_moved',
  'rejected',
  'expired',
  'cancelled',
] as const satisfies readonly AtomicSwapState[];

/** `[from, to]`: every step an atomic swap may take, and nothing else. */
const ATOMIC_SWAP_EDGES: readonly (readonly [AtomicSwapState, AtomicSwapState])[] = [
  // A valid signature arrived before `expiresAt`: the execution check and the submission follow.
  ['prepared', 'executing'],
  // Nobody signed by `expiresAt`: the reservation of the pool's holdings is released.
  ['prepared', 'expired'],
  // The trader cancelled before signing.
  ['prepared', 'cancelled'],
  // The ledger committed both legs in one update.
  ['executing', 'completed'],
  // The curve at execution pays less than the signed output: nothing was submitted.
  ['executing', 'price_moved'],
  // A paused pool, the price-impact cap, the guard, or a ledger refusal re-preparing cannot mend.
  ['executing', 'rejected'],
  // The ledger refused the legs' deadline (`expiresAt`), or the command provably never committed.
  ['executing', 'expired'],
  // The ledger refused a spent input: prepared again with other holdings, for a new signature.
  ['executing', 'prepared'],
];

/** The atomic swap's lifecycle, in the shape of every kind of intent's (intent-lifecycles.ts). */
export const ATOMIC_SWAP_LIFECYCLE = Object.freeze({
  kind: 'atomic_swap' as const,
  states: ATOMIC_SWAP_STATES,
  terminal: ATOMIC_SWAP_TERMINAL_STATES,
  edges: Object.freeze(ATOMIC_SWAP_EDGES.map((edge) => Object.freeze(edge))),
});

export function isAtomicSwapState(value: string): value is AtomicSwapState {
  return (ATOMIC_SWAP_STATES as readonly string[]).includes(value);
}

export function isAtomicSwapTerminal(state: AtomicSwapState): boolean {
  return (ATOMIC_SWAP_TERMINAL_STATES as readonly string[]).includes(state);
}

/** Whether one step from `from` to `to` is legal. */
export function isAtomicSwapMove(from: AtomicSwapState, to: AtomicSwapState): boolean {
  return ATOMIC_SWAP_EDGES.some(([a, b]) => a === from && b === to);
}

// --- amounts ----------------------------------------------------------------------------------

/** The quote an atomic swap is prepared from: its exact input and its output at prepare. */
export interface AtomicQuote {
  /** `totalInputAmount`: what the trader's leg moves to the pool, fees included. */
  readonly input: Amount;
  /** The quote's `outputAmount`: the curve's output for the priced input at prepare. */
  readonly quotedOutput: Amount;
}

export type SignedAmounts =
  | {
      readonly kind: 'signable';
      /** The input leg's amount: exactly the quote's input. */
      readonly input: Amount;
      /** The output leg's amount: the quoted output less the slippage tolerance. */
      readonly output: Amount;
      readonly quotedOutput: Amount;
    }
  /** The tolerance leaves no output to sign: there is no swap to prepare. */
  | { readonly kind: 'output_rounds_to_zero'; readonly quotedOutput: Amount };

/** What the trader signs for a quote and a slippage tolerance (see the module's note). */
export function signedAmounts(quote: AtomicQuote, slippageTolerance: number): SignedAmounts {
  const output = minOutput(quote.quotedOutput, slippageTolerance);
  if (!output.isPositive()) {
    return { kind: 'output_rounds_to_zero', quotedOutput: quote.quotedOutput };
  }
  return { kind: 'signable', input: quote.input, output, quotedOutput: quote.quotedOutput };
}

// --- execution --------------------------------------------------------------------------------

export interface AtomicExecutionInput {
  /** The amounts of the two legs, as signed. */
  readonly signed: { readonly input: Amount; readonly output: Amount };
  /** The quote's fee breakdown, fixed at prepare; its parts add up to the signed input. */
  readonly fees: IntentFees;
  /** The pool's effective reserves at execution, input side first. */
  readonly reserves: Reserves;
  readonly maxPriceImpact: Ratio;
  readonly poolActive: boolean;
  readonly guard: {
    readonly snapshot: GuardSnapshot;
    readonly thresholds?: Partial<GuardThresholds>;
  };
}

/** What a committed atomic swap moves in the pool's books, and what the curve paid beside it. */
export interface AtomicSwapCommitment {
  /** What the curve pays at these reserves for the signed input's priced part. */
  readonly curveOutput: Amount;
  /** What the output leg pays: the signed output, never more. */
  readonly paid: Amount;
  /** `curveOutput − paid`, never below zero: stays in the output reserve, the LPs'. */
  readonly excess: Amount;
  /** What joins the input reserve: the priced input plus the LP fee. */
  readonly inputReserveAdded: Amount;
  /** What the swap party sets aside as fees: platform fee plus network fee. */
  readonly feesCollected: Amount;
}

/**
 * The books' moves of a swap the ledger committed, at the reserves it is recorded against. The
 * excess is clamped at zero: a swap found committed after a restart is recorded whatever the
 * curve says since, and its output is the signed one either way.
 */
export function atomicSwapCommitment(
  signedOutput: Amount,
  fees: IntentFees,
  reserves: Reserves,
): AtomicSwapCommitment {
  const curveOutput = constantProductOutput(reserves, fees.inputAmountAfterPoolFee);
  return {
    curveOutput,
    paid: signedOutput,
    excess: curveOutput.gt(signedOutput) ? curveOutput.sub(signedOutput) : Amount.ZERO,
    inputReserveAdded: fees.inputAmountAfterPoolFee.add(fees.lpFeeAmount),
    feesCollected: fees.platformFeeAmount.add(fees.networkFeeAmount),
  };
}

export type AtomicExecutionDecision =
  | ({ readonly kind: 'execute'; readonly priceImpact: Ratio } & AtomicSwapCommitment)
  | {
      readonly kind: 'refuse';
      /** The swap's terminal state: `price_moved` for the curve, `rejected` for the rest. */
      readonly state: 'price_moved' | 'rejected';
      /** `price_moved`, `pool_paused`, `price_impact_exceeded` or the guard's code. */
      readonly code: string;
      readonly message: string;
    };

function refuse(
  state: 'price_moved' | 'rejected',
  code: string,
  message: string,
): AtomicExecutionDecision {
  return { kind: 'refuse', state, code, message };
}

/**
 * Whether the pool executes a signed atomic swap now. Checks run in a fixed order, the first
 * failing one decides: a paused pool (`pool_paused`); the curve's output for the signed input
 * below the signed output (`price_moved`, an empty output side included); the price impact at
 * execution above the cap; the settlement-safety guard on the output actually paid.
 */
export function decideAtomicExecution(input: AtomicExecutionInput): AtomicExecutionDecision {
  const { signed, fees, reserves } = input;
  // A breakdown that does not add up to the signed input is a corrupted swap, not a refusal.
  assertIntentConserved(signed.input, fees);
  if (!input.poolActive) return refuse('rejected', 'pool_paused', 'the pool is paused');
  const pricedInput = fees.inputAmountAfterPoolFee;
  const curveOutput = constantProductOutput(reserves, pricedInput);
  if (curveOutput.lt(signed.output) || curveOutput.gte(reserves.output)) {
    return refuse(
      'price_moved',
      'price_moved',
      `the pool's curve pays ${curveOutput} for ${pricedInput} now, below the signed output ${signed.output}`,
    );
  }
  const impact = priceImpact(reserves, pricedInput, curveOutput);
  if (compareRatio(impact, input.maxPriceImpact) > 0) {
    return refuse(
      'rejected',
      'price_impact_exceeded',
      `price impact ${formatRatio(impact, 'up', 6)} is above the cap ${formatRatio(input.maxPriceImpact, 'down')}`,
    );
  }
  const verdict = evaluateSettlementSafety(
    input.guard.snapshot,
    { output: signed.output, pricedInput },
    input.guard.thresholds,
  );
  if (verdict !== null) {
    return refuse('rejected', verdict.code, `${verdict.message} (${verdict.reason})`);
  }
  return {
    kind: 'execute',
    ...atomicSwapCommitment(signed.output, fees, reserves),
    priceImpact: impact,
  };
}

// --- time -------------------------------------------------------------------------------------

/** How long a prepared swap waits for its signature, by default: a wallet signs within it. */
export const ATOMIC_SWAP_SIGNING_WINDOW_MS = 60_000;
/**
 * The longest signing window: Canton executes a prepared transaction only within its
 * synchronizer's preparation-time tolerance (24 h by default); a shorter window keeps the pool's
 * reserved holdings and the signed price from ageing.
 */
export const ATOMIC_SWAP_SIGNING_WINDOW_MAX_MS = 10 * 60_000;
/**
 * How far ledger time may trail record time (Canton's default ledger-time / record-time
 * tolerance): a command not committed by `expiresAt` plus this never commits, since both legs
 * carry `expiresAt` as their deadline.
 */
export const LEDGER_TIME_TOLERANCE_MS = 60_000;

/** The `expiresAt` of a swap prepared at `preparedAt` (ledger time). */
export function atomicSwapExpiry(
  preparedAt: Date,
  windowMs: number = ATOMIC_SWAP_SIGNING_WINDOW_MS,
): Date {
  if (
    !(Number.isInteger(windowMs) && windowMs > 0 && windowMs <= ATOMIC_SWAP_SIGNING_WINDOW_MAX_MS)
  ) {
    throw new RangeError(
      `an atomic swap's signing window is 1 to ${ATOMIC_SWAP_SIGNING_WINDOW_MAX_MS} ms, not ${windowMs}`,
    );
  }
  return new Date(preparedAt.getTime() + windowMs);
}

/**
 * Whether a signature that arrives at `now` (ledger time) may still be executed: strictly before
 * `expiresAt`, as the legs' deadline is exclusive.
 */
export function signatureTiming(now: Date, expiresAt: Date): 'in_time' | 'atomic_swap_expired' {
  return now.getTime() < expiresAt.getTime() ? 'in_time' : 'atomic_swap_expired';
}

/**
 * What an `executing` swap whose command the ledger does not know has become, at ledger time
 * `now`: still `executing` (it may yet commit) until `expiresAt` plus the tolerance, then
 * `expired` (it never will).
 */
export function unresolvedExecution(now: Date, expiresAt: Date): 'executing' | 'expired' {
  return now.getTime() >= expiresAt.getTime() + LEDGER_TIME_TOLERANCE_MS ? 'expired' : 'executing';
}
