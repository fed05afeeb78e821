/**
 * The execution decision (docs/spec/lifecycle.md#execution): once a deposit is in custody and the
 * pool is locked, whether the swap pays out, and if not, which terminal state it ends in and what
 * is refunded.
 *
 * The fee amounts are the intent's, fixed when it was created; only the output is priced again,
 * against the reserves at execution. Checks run in a fixed order, the first failing one decides:
 *
 * 1. `insufficient_amount`: the deposit does not exceed the network fee at execution (the payout's
 *    cost re-estimated now, never below the fee the intent charges). Nothing remains to refund.
 * 2. `failed` (`pool_paused`): a paused pool executes nothing.
 * 3. `insufficient_liquidity`: the output reserve is empty or the priced output rounds to nothing.
 * 4. `no_output_holdings`: the swap party's unlocked ledger holdings of the output instrument do
 *    not cover the output, so the payout could not be sent whatever the books say.
 * 5. `price_impact_exceeded`: the impact at execution is above the cap.
 * 6. `slippage_failed`: the output is below `minOutput`.
 * 7. `failed` with the guard's code: the settlement-safety guard blocks the payout.
 * Every failure refunds `deposit − networkFeeAmount` (nothing when that is not positive). The
 * failure reason's code is the terminal state, or for `failed` what failed (the guard's code).
 */
import { AMOUNT_SCALE, Amount } from './amount.js';
import { refundOfDeposit } from './attribution.js';
import { evaluateSettlementSafety, type GuardSnapshot, type GuardThresholds } from './guard.js';
import { constantProductOutput, priceImpact, type Reserves } from './pricing.js';
import { compareRatio, formatRatio, type Ratio, ratio, ratioFromNumber } from './ratio.js';
import type { FailureReason } from './schemas/swap.js';

const EXECUTION_FAILURES = [
  'insufficient_amount',
  'insufficient_liquidity',
  'no_output_holdings',
  'price_impact_exceeded',
  'slippage_failed',
  'failed',
] as const;

export type ExecutionFailure = (typeof EXECUTION_FAILURES)[number];

/** The fee amounts persisted on the intent at creation. */
export interface IntentFees {
  readonly networkFeeAmount: Amount;
  readonly lpFeeAmount: Amount;
  readonly platformFeeAmount: Amount;
  readonly inputAmountAfterPoolFee: Amount;
}

export interface ExecutionInput {
  /** The deposit in custody; attribution made it equal to the intent's `expectedAmount`. */
  readonly deposit: Amount;
  readonly fees: IntentFees;
  /** The payout leg's network fee estimated now, in the input token. */
  readonly networkFeeAtExecution: Amount;
  readonly minOutput: Amount;
  /** Effective reserves now, input side first. */
  readonly reserves: Reserves;
  readonly maxPriceImpact: Ratio;
  /** Unlocked ledger holdings of the output instrument owned by the swap party. */
  readonly outputHoldings: Amount;
  readonly poolActive: boolean;
  readonly guard: {
    readonly snapshot: GuardSnapshot;
    readonly thresholds?: Partial<GuardThresholds>;
  };
}

export type ExecutionDecision =
  | {
      readonly kind: 'execute';
      readonly output: Amount;
      readonly priceImpact: Ratio;
      /** What joins the input reserve: the priced input plus the LP fee. */
      readonly inputReserveAdded: Amount;
      /** What the swap party sets aside as fees: platform fee plus network fee. */
      readonly feesCollected: Amount;
    }
  | {
      readonly kind: 'refund';
      readonly outcome: ExecutionFailure;
      readonly failureReason: FailureReason;
      /** Sent back to the depositor; zero means no refund transfer at all. */
      readonly refund: Amount;
      /** Kept by the swap party as the network fee. */
      readonly kept: Amount;
    };

/** Throws when the intent's fee amounts do not add up to the deposit: a corrupted intent. */
export function assertIntentConserved(deposit: Amount, fees: IntentFees): void {
  const parts = [
    fees.networkFeeAmount,
    fees.lpFeeAmount,
    fees.platformFeeAmount,
    fees.inputAmountAfterPoolFee,
  ];
  if (!Amount.sum(parts).eq(deposit)) {
    throw new Error(`the intent's fee amounts do not add up to the deposit ${deposit.toString()}`);
  }
}

export function decideExecution(input: ExecutionInput): ExecutionDecision {
  const { deposit, fees, reserves } = input;
  assertIntentConserved(deposit, fees);
  const feeNow = Amount.max(fees.networkFeeAmount, input.networkFeeAtExecution);
  if (deposit.lte(feeNow)) {
    return refundAs(input, 'insufficient_amount', 'insufficient_amount', feeNow, [
      `deposit ${deposit} does not exceed the network fee ${feeNow} at execution`,
    ]);
  }
  if (!input.poolActive) {
    return refundAs(input, 'failed', 'pool_paused', fees.networkFeeAmount, ['the pool is paused']);
  }
  const pricedInput = fees.inputAmountAfterPoolFee;
  const output = constantProductOutput(reserves, pricedInput);
  if (!reserves.output.isPositive() || !output.isPositive() || output.gte(reserves.output)) {
    return refundAs(
      input,
      'insufficient_liquidity',
      'insufficient_liquidity',
      fees.networkFeeAmount,
      [`output reserve ${reserves.output} cannot cover an output for ${pricedInput}`],
    );
  }
  if (input.outputHoldings.lt(output)) {
    return refundAs(input, 'no_output_holdings', 'no_output_holdings', fees.networkFeeAmount, [
      `the swap party holds ${input.outputHoldings} usable output, needs ${output}`,
    ]);
  }
  const impact = priceImpact(reserves, pricedInput, output);
  if (compareRatio(impact, input.maxPriceImpact) > 0) {
    return refundAs(
      input,
      'price_impact_exceeded',
      'price_impact_exceeded',
      fees.networkFeeAmount,
      [
        `price impact ${formatRatio(impact, 'up', 6)} is above the cap ${formatRatio(input.maxPriceImpact, 'down')}`,
      ],
    );
  }
  if (output.lt(input.minOutput)) {
    return refundAs(input, 'slippage_failed', 'slippage_failed', fees.networkFeeAmount, [
      `output ${output} is below minOutput ${input.minOutput}`,
    ]);
  }
  const verdict = evaluateSettlementSafety(
    input.guard.snapshot,
    { output, pricedInput },
    input.guard.thresholds,
  );
  if (verdict !== null) {
    return refundAs(input, 'failed', verdict.code, fees.networkFeeAmount, [
      `${verdict.message} (${verdict.reason})`,
    ]);
  }
  return {
    kind: 'execute',
    output,
    priceImpact: impact,
    inputReserveAdded: pricedInput.add(fees.lpFeeAmount),
    feesCollected: fees.platformFeeAmount.add(fees.networkFeeAmount),
  };
}

function refundAs(
  input: ExecutionInput,
  outcome: ExecutionFailure,
  code: string,
  networkFee: Amount,
  message: readonly string[],
): ExecutionDecision {
  const { refund, kept } = refundOfDeposit(input.deposit, networkFee);
  return {
    kind: 'refund',
    outcome,
    failureReason: { code, message: message.join(' ') },
    refund,
    kept,
  };
}

/** A price-impact cap given as a decimal string (`"0.15"`, as stored) or a number, read exactly. */
export function priceImpactCapRatio(cap: Amount | number): Ratio {
  if (typeof cap === 'number') return ratioFromNumber(cap);
  return ratio(cap.units, AMOUNT_SCALE);
}

/**
 * How a committed trade is undone when its payout fails (`output_failed`): the input
 * reserve gives back what the trade added, the output returns to the output reserve, the platform
 * fee is no longer collected, and `deposit − networkFeeAmount` is owed to the depositor. The
 * network fee stays collected: it pays for the failed payout and the refund.
 */
export interface TradeReversal {
  readonly inputReserveRemoved: Amount;
  readonly outputReserveRestored: Amount;
  readonly feesReleased: Amount;
  readonly refund: Amount;
}

export function reversalOf(deposit: Amount, fees: IntentFees, output: Amount): TradeReversal {
  assertIntentConserved(deposit, fees);
  return {
    inputReserveRemoved: fees.inputAmountAfterPoolFee.add(fees.lpFeeAmount),
    outputReserveRestored: output,
    feesReleased: fees.platformFeeAmount,
    refund: refundOfDeposit(deposit, fees.networkFeeAmount).refund,
  };
}
