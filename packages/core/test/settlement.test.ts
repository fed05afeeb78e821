import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Amount } from '../src/amount.js';
import { feeBreakdown } from '../src/fees.js';
import type { GuardSnapshot } from '../src/guard.js';
import { constantProductOutput } from '../src/pricing.js';
import { ratio } from '../src/ratio.js';
import {
  assertIntentConserved,
  decideExecution,
  type ExecutionInput,
  type IntentFees,
  priceImpactCapRatio,
  reversalOf,
} from '../src/settlement.js';

const reserves = { input: Amount.of(1_000_000), output: Amount.of(145_000) };
const networkFee = Amount.parse('8.275862069');

function feesFor(amount: Amount): IntentFees {
  const breakdown = feeBreakdown({ amount, estimatedNetworkFee: networkFee });
  if (breakdown.kind !== 'priced') throw new Error('below minimum');
  return breakdown;
}

function snapshot(overrides: Partial<GuardSnapshot> = {}): GuardSnapshot {
  return {
    inputReserve: reserves.input,
    outputReserve: reserves.output,
    trailingHourOutputs: Amount.ZERO,
    outputReserveAtWindowStart: reserves.output,
    timeWeightedPrice: null,
    reference: null,
    accounting: { incompleteCompletedSwaps: 0, lastReconciliationMismatch: false },
    ...overrides,
  };
}

function input(overrides: Partial<ExecutionInput> = {}): ExecutionInput {
  const deposit = overrides.deposit ?? Amount.of(1000);
  const fees = overrides.fees ?? feesFor(deposit);
  const output = constantProductOutput(reserves, fees.inputAmountAfterPoolFee);
  return {
    deposit,
    fees,
    networkFeeAtExecution: networkFee,
    minOutput: output.mulDiv(95n, 100n, 'down'),
    reserves,
    maxPriceImpact: ratio(15n, 100n),
    outputHoldings: reserves.output,
    poolActive: true,
    guard: { snapshot: snapshot() },
    ...overrides,
  };
}

describe('decideExecution', () => {
  it('executes at the current reserves, with the fees the intent fixed', () => {
    const given = input();
    const decision = decideExecution(given);
    const expected = constantProductOutput(reserves, given.fees.inputAmountAfterPoolFee);
    expect(decision).toMatchObject({
      kind: 'execute',
      output: expected,
      inputReserveAdded: given.fees.inputAmountAfterPoolFee.add(given.fees.lpFeeAmount),
      feesCollected: given.fees.platformFeeAmount.add(given.fees.networkFeeAmount),
    });
  });

  const refundAfterFee = Amount.of(1000).sub(networkFee);
  const failures: [string, Partial<ExecutionInput>, string, string][] = [
    [
      'the fee at execution reaches the deposit',
      { networkFeeAtExecution: Amount.of(1000) },
      'insufficient_amount',
      'insufficient_amount',
    ],
    ['a paused pool', { poolActive: false }, 'failed', 'pool_paused'],
    [
      'an empty output reserve',
      { reserves: { input: reserves.input, output: Amount.ZERO } },
      'insufficient_liquidity',
      'insufficient_liquidity',
    ],
    [
      'an output that rounds to nothing',
      { reserves: { input: reserves.input, output: Amount.fromUnits(1n) } },
      'insufficient_liquidity',
      'insufficient_liquidity',
    ],
    [
      'holdings below the output',
      { outputHoldings: Amount.of(1) },
      'no_output_holdings',
      'no_output_holdings',
    ],
    [
      'impact above the cap',
      { maxPriceImpact: ratio(1n, 1_000_000n) },
      'price_impact_exceeded',
      'price_impact_exceeded',
    ],
    ['output below minOutput', { minOutput: Amount.of(145) }, 'slippage_failed', 'slippage_failed'],
    [
      'a guard block',
      {
        guard: {
          snapshot: snapshot({
            accounting: { incompleteCompletedSwaps: 1, lastReconciliationMismatch: false },
          }),
        },
      },
      'failed',
      'incomplete_completed_accounting',
    ],
  ];
  for (const [name, overrides, outcome, code] of failures) {
    it(`refunds on ${name}: ${outcome}`, () => {
      const decision = decideExecution(input(overrides));
      expect(decision).toMatchObject({ kind: 'refund', outcome, failureReason: { code } });
      if (decision.kind !== 'refund') return;
      if (outcome === 'insufficient_amount') {
        expect(decision.refund).toEqual(Amount.ZERO);
        expect(decision.kept).toEqual(Amount.of(1000));
      } else {
        expect(decision.refund).toEqual(refundAfterFee);
        expect(decision.kept).toEqual(networkFee);
      }
    });
  }

  it('judges in a fixed order: the first failing check decides', () => {
    const everything = input({
      poolActive: false,
      outputHoldings: Amount.ZERO,
      minOutput: Amount.of(145),
    });
    expect(decideExecution(everything)).toMatchObject({
      outcome: 'failed',
      failureReason: { code: 'pool_paused' },
    });
    expect(
      decideExecution(input({ outputHoldings: Amount.ZERO, minOutput: Amount.of(145) })),
    ).toMatchObject({
      outcome: 'no_output_holdings',
    });
  });

  it('refuses an intent whose amounts do not add up', () => {
    const fees = { ...feesFor(Amount.of(1000)), lpFeeAmount: Amount.ZERO };
    expect(() => decideExecution(input({ fees }))).toThrow(/do not add up/);
  });

  it('refunds plus keeps exactly the deposit, and never pays more than the curve (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 9, max: 200_000 }),
        fc.integer({ min: 0, max: 2000 }),
        (whole, minBps) => {
          const deposit = Amount.of(whole);
          const fees = feesFor(deposit);
          const curve = constantProductOutput(reserves, fees.inputAmountAfterPoolFee);
          const decision = decideExecution(
            input({
              deposit,
              fees,
              minOutput: curve.mulDiv(BigInt(10_000 - minBps), 10_000n, 'down'),
            }),
          );
          if (decision.kind === 'execute') {
            expect(decision.output.lte(curve)).toBe(true);
            expect(decision.inputReserveAdded.add(decision.feesCollected)).toEqual(deposit);
          } else {
            expect(decision.refund.add(decision.kept)).toEqual(deposit);
          }
        },
      ),
    );
  });
});

describe('reversalOf', () => {
  it('undoes the reserve movements and owes the deposit minus the network fee', () => {
    const deposit = Amount.of(1000);
    const fees = feesFor(deposit);
    const output = Amount.parse('143.5');
    const reversal = reversalOf(deposit, fees, output);
    expect(reversal.inputReserveRemoved).toEqual(
      fees.inputAmountAfterPoolFee.add(fees.lpFeeAmount),
    );
    expect(reversal.outputReserveRestored).toEqual(output);
    expect(reversal.feesReleased).toEqual(fees.platformFeeAmount);
    expect(reversal.refund).toEqual(deposit.sub(fees.networkFeeAmount));
    // Everything the trade booked on the input side comes back out, but the network fee.
    expect(
      reversal.inputReserveRemoved.add(reversal.feesReleased).add(fees.networkFeeAmount),
    ).toEqual(deposit);
  });

  it('refuses inconsistent fees', () => {
    expect(() => assertIntentConserved(Amount.of(1), feesFor(Amount.of(1000)))).toThrow();
  });
});

describe('priceImpactCapRatio', () => {
  it('reads a stored decimal and a configured number exactly', () => {
    expect(priceImpactCapRatio(Amount.parse('0.15'))).toEqual(
      ratio(1_500_000_000n, 10_000_000_000n),
    );
    expect(priceImpactCapRatio(0.15)).toEqual(ratio(1_500_000_000n, 10_000_000_000n));
    expect(() => priceImpactCapRatio(Amount.parse('-1'))).toThrow();
  });
});
