import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Amount } from '../src/amount.js';
import {
  ATOMIC_SWAP_LIFECYCLE,
  ATOMIC_SWAP_SIGNING_WINDOW_MAX_MS,
  ATOMIC_SWAP_STATES,
  ATOMIC_SWAP_TERMINAL_STATES,
  type AtomicExecutionInput,
  type AtomicSwapState,
  atomicSwapExpiry,
  decideAtomicExecution,
  isAtomicSwapMove,
  isAtomicSwapTerminal,
  LEDGER_TIME_TOLERANCE_MS,
  signatureTiming,
  signedAmounts,
  unresolvedExecution,
} from '../src/atomic-swap.js';
import { ERROR_CATALOGUE } from '../src/errors.js';
import { feeBreakdown } from '../src/fees.js';
import type { GuardSnapshot } from '../src/guard.js';
import { constantProductOutput, type Reserves } from '../src/pricing.js';
import { ratio } from '../src/ratio.js';
import type { IntentFees } from '../src/settlement.js';

const reserves: Reserves = { input: Amount.of(1_000_000), output: Amount.of(145_000) };
const networkFee = Amount.parse('8.275862069');

function feesFor(amount: Amount, poolFeeBps = 30): IntentFees {
  const breakdown = feeBreakdown({ amount, estimatedNetworkFee: networkFee, poolFeeBps });
  if (breakdown.kind !== 'priced') throw new Error('below minimum');
  return breakdown;
}

function snapshot(at: Reserves): GuardSnapshot {
  return {
    inputReserve: at.input,
    outputReserve: at.output,
    trailingHourOutputs: Amount.ZERO,
    outputReserveAtWindowStart: at.output,
    timeWeightedPrice: null,
    reference: null,
    accounting: { incompleteCompletedSwaps: 0, lastReconciliationMismatch: false },
  };
}

/** A swap of `amount` quoted at `quotedAt` and signed with `slippage`, executed at `now`. */
function execution(
  amount: Amount,
  slippage: number,
  quotedAt: Reserves,
  now: Reserves,
  overrides: Partial<AtomicExecutionInput> = {},
): AtomicExecutionInput {
  const fees = feesFor(amount);
  const quotedOutput = constantProductOutput(quotedAt, fees.inputAmountAfterPoolFee);
  const signed = signedAmounts({ input: amount, quotedOutput }, slippage);
  if (signed.kind !== 'signable') throw new Error('nothing to sign');
  return {
    signed,
    fees,
    reserves: now,
    maxPriceImpact: ratio(15n, 100n),
    poolActive: true,
    // A guard with loose limits: the tests of the guard are the guard's own.
    guard: {
      snapshot: snapshot(now),
      thresholds: {
        outputReserveShareMax: 1,
        outputVelocityShareMax: 1,
        reservePriceDeviationMax: 1,
      },
    },
    ...overrides,
  };
}

describe('signedAmounts', () => {
  it('signs the exact input and the quoted output less the slippage tolerance', () => {
    const signed = signedAmounts({ input: Amount.of(1000), quotedOutput: Amount.of(140) }, 0.01);
    expect(signed).toEqual({
      kind: 'signable',
      input: Amount.of(1000),
      output: Amount.parse('138.6'),
      quotedOutput: Amount.of(140),
    });
  });

  it('rounds the signed output down, never above the quote', () => {
    const signed = signedAmounts(
      { input: Amount.of(3), quotedOutput: Amount.parse('0.0000000003') },
      0.5,
    );
    expect(signed).toMatchObject({ kind: 'signable', output: Amount.parse('0.0000000001') });
  });

  it('has nothing to sign when the tolerance leaves no output', () => {
    const signed = signedAmounts(
      { input: Amount.of(1), quotedOutput: Amount.parse('0.0000000001') },
      0.05,
    );
    expect(signed.kind).toBe('output_rounds_to_zero');
  });
});

describe('decideAtomicExecution', () => {
  it('executes at an unmoved pool, paying the signed output and keeping the excess in the pool', () => {
    const decision = decideAtomicExecution(execution(Amount.of(1000), 0.01, reserves, reserves));
    const fees = feesFor(Amount.of(1000));
    const curve = constantProductOutput(reserves, fees.inputAmountAfterPoolFee);
    expect(decision).toMatchObject({
      kind: 'execute',
      curveOutput: curve,
      paid: curve.mulDiv(99n, 100n, 'down'),
      excess: curve.sub(curve.mulDiv(99n, 100n, 'down')),
      inputReserveAdded: fees.inputAmountAfterPoolFee.add(fees.lpFeeAmount),
      feesCollected: fees.platformFeeAmount.add(fees.networkFeeAmount),
    });
  });

  it('refuses with price_moved when swaps in the same direction moved the curve past the signed output', () => {
    const moved = { input: reserves.input.add(Amount.of(20_000)), output: Amount.of(142_000) };
    const decision = decideAtomicExecution(execution(Amount.of(1000), 0.001, reserves, moved));
    expect(decision).toMatchObject({ kind: 'refuse', state: 'price_moved', code: 'price_moved' });
  });

  it('refuses with price_moved when the output side is empty', () => {
    const empty = { input: reserves.input, output: Amount.ZERO };
    const decision = decideAtomicExecution(execution(Amount.of(1000), 0.05, reserves, empty));
    expect(decision).toMatchObject({ kind: 'refuse', state: 'price_moved' });
  });

  it('refuses a paused pool before anything else', () => {
    const decision = decideAtomicExecution(
      execution(Amount.of(1000), 0.01, reserves, reserves, { poolActive: false }),
    );
    expect(decision).toMatchObject({ kind: 'refuse', state: 'rejected', code: 'pool_paused' });
  });

  it('refuses an impact above the cap', () => {
    const decision = decideAtomicExecution(
      execution(Amount.of(1000), 0.01, reserves, reserves, { maxPriceImpact: ratio(0n, 1n) }),
    );
    expect(decision).toMatchObject({ code: 'price_impact_exceeded', state: 'rejected' });
  });

  it('refuses what the guard blocks, judged on the output the pool pays', () => {
    const given = execution(Amount.of(100_000), 0.01, reserves, reserves);
    const decision = decideAtomicExecution({
      ...given,
      guard: { snapshot: snapshot(reserves), thresholds: { outputReserveShareMax: 0.001 } },
    });
    expect(decision).toMatchObject({ code: 'output_reserve_share_exceeded', state: 'rejected' });
  });

  it('throws on a fee breakdown that does not add up to the signed input', () => {
    const given = execution(Amount.of(1000), 0.01, reserves, reserves);
    expect(() =>
      decideAtomicExecution({ ...given, signed: { ...given.signed, input: Amount.of(999) } }),
    ).toThrow(/do not add up/);
  });
});

const amountArb = fc
  .bigInt({ min: 100_000_000_000n, max: 10_000_000_000_000_000n })
  .map((units) => Amount.fromUnits(units));
const reserveArb = fc
  .bigInt({ min: 1_000_000_000_000n, max: 100_000_000_000_000_000_000n })
  .map((units) => Amount.fromUnits(units));
const slippageArb = fc.integer({ min: 1, max: 50 }).map((thousandths) => thousandths / 1000);
/** A move of the pool between prepare and execute: input added (+) or taken (−), in thousandths. */
const driftArb = fc.integer({ min: -200, max: 200 });
/** A swap quoted at `quotedAt` with its slippage, and how far the pool drifts before execution. */
const scenarioArb = fc.record({
  amount: amountArb,
  quotedAt: fc.record({ input: reserveArb, output: reserveArb }),
  slippage: slippageArb,
  drift: driftArb,
});

function drifted(at: Reserves, drift: number): Reserves {
  // A constant-product move: the input side scaled, the output side inversely, k kept (or grown).
  const scale = BigInt(1000 + drift);
  const input = at.input.mulDiv(scale, 1000n, 'down');
  const output = at.output.mulDiv(1000n, scale, 'up');
  return { input, output };
}

describe('atomic swap money (properties)', () => {
  it('conserves the input, pays no more than the curve, and keeps a non-negative excess in the pool', () => {
    fc.assert(
      fc.property(scenarioArb, ({ amount, quotedAt, slippage, drift }) => {
        const fees = feesFor(amount);
        const quotedOutput = constantProductOutput(quotedAt, fees.inputAmountAfterPoolFee);
        const signed = signedAmounts({ input: amount, quotedOutput }, slippage);
        fc.pre(signed.kind === 'signable');
        if (signed.kind !== 'signable') return;
        // What is signed: the input exactly, an output never above the quote.
        expect(signed.input.eq(amount)).toBe(true);
        expect(signed.output.lte(quotedOutput)).toBe(true);
        const now = drifted(quotedAt, drift);
        const decision = decideAtomicExecution(execution(amount, slippage, quotedAt, now));
        if (decision.kind === 'refuse') {
          expect(['price_moved', 'rejected']).toContain(decision.state);
          return;
        }
        // Conservation: everything the trader sent is the pool's gain, bucket by bucket.
        expect(decision.inputReserveAdded.add(decision.feesCollected).eq(amount)).toBe(true);
        expect(decision.paid.eq(signed.output)).toBe(true);
        expect(decision.paid.lte(decision.curveOutput)).toBe(true);
        expect(decision.excess.gte(Amount.ZERO)).toBe(true);
        expect(decision.paid.add(decision.excess).eq(decision.curveOutput)).toBe(true);
        // The pool never sells below its curve: x·y does not shrink.
        const xAfter = now.input.add(decision.inputReserveAdded).units;
        const yAfter = now.output.sub(decision.paid).units;
        expect(xAfter * yAfter >= now.input.units * now.output.units).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses with price_moved exactly when the curve now pays less than the signed output', () => {
    fc.assert(
      fc.property(scenarioArb, ({ amount, quotedAt, slippage: s, drift: d }) => {
        const now = drifted(quotedAt, d);
        const fees = feesFor(amount);
        const quotedOutput = constantProductOutput(quotedAt, fees.inputAmountAfterPoolFee);
        const signed = signedAmounts({ input: amount, quotedOutput }, s);
        fc.pre(signed.kind === 'signable');
        if (signed.kind !== 'signable') return;
        const curve = constantProductOutput(now, fees.inputAmountAfterPoolFee);
        const decision = decideAtomicExecution(
          execution(amount, s, quotedAt, now, { maxPriceImpact: ratio(1n, 1n) }),
        );
        const moved = curve.lt(signed.output) || curve.gte(now.output);
        expect(decision.kind === 'refuse' && decision.state === 'price_moved').toBe(moved);
      }),
      { numRuns: 300 },
    );
  });

  it('never refuses for price at the reserves it was quoted at', () => {
    fc.assert(
      fc.property(amountArb, reserveArb, reserveArb, slippageArb, (amount, x, y, slippage) => {
        const quotedAt = { input: x, output: y };
        const fees = feesFor(amount);
        const quotedOutput = constantProductOutput(quotedAt, fees.inputAmountAfterPoolFee);
        fc.pre(
          quotedOutput.lt(y) &&
            signedAmounts({ input: amount, quotedOutput }, slippage).kind === 'signable',
        );
        const decision = decideAtomicExecution(execution(amount, slippage, quotedAt, quotedAt));
        expect(decision.kind === 'refuse' && decision.state === 'price_moved').toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});

describe('the atomic swap lifecycle', () => {
  it('ends in completed, price_moved, rejected, expired or cancelled, and leaves none of them', () => {
    expect([...ATOMIC_SWAP_TERMINAL_STATES]).toEqual([
      'completed',
      'price_moved',
      'rejected',
      'expired',
      'cancelled',
    ]);
    for (const from of ATOMIC_SWAP_TERMINAL_STATES) {
      for (const to of ATOMIC_SWAP_STATES)
        expect(isAtomicSwapMove(from, to), `${from}→${to}`).toBe(false);
    }
  });

  it.each([
    ['prepared', 'executing', true],
    ['prepared', 'expired', true],
    ['prepared', 'cancelled', true],
    ['executing', 'completed', true],
    ['executing', 'price_moved', true],
    ['executing', 'rejected', true],
    ['executing', 'expired', true],
    ['executing', 'prepared', true],
    // A signed swap is the ledger's now: it cannot be cancelled, nor can an unsigned one complete.
    ['executing', 'cancelled', false],
    ['prepared', 'completed', false],
    ['prepared', 'price_moved', false],
  ] as const)('moves %s → %s: %s', (from, to, legal) => {
    expect(isAtomicSwapMove(from as AtomicSwapState, to as AtomicSwapState)).toBe(legal);
  });

  it('reaches a terminal state from every state', () => {
    for (const start of ATOMIC_SWAP_STATES) {
      const seen = new Set<AtomicSwapState>([start]);
      const queue: AtomicSwapState[] = [start];
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        for (const [from, to] of ATOMIC_SWAP_LIFECYCLE.edges) {
          if (from === next && !seen.has(to)) {
            seen.add(to);
            queue.push(to);
          }
        }
      }
      expect([...seen].some(isAtomicSwapTerminal), start).toBe(true);
    }
  });
});

describe('atomic swap time', () => {
  const preparedAt = new Date('2026-11-22T13:40:00.000Z');

  it('expires a signing window after it was prepared, a window of at most ten minutes', () => {
    expect(atomicSwapExpiry(preparedAt).toISOString()).toBe('2026-11-22T13:41:00.000Z');
    expect(atomicSwapExpiry(preparedAt, 5000).toISOString()).toBe('2026-11-22T13:40:05.000Z');
    expect(() => atomicSwapExpiry(preparedAt, ATOMIC_SWAP_SIGNING_WINDOW_MAX_MS + 1)).toThrow(
      RangeError,
    );
    expect(() => atomicSwapExpiry(preparedAt, 0)).toThrow(RangeError);
  });

  it('takes a signature strictly before expiresAt', () => {
    const expiresAt = atomicSwapExpiry(preparedAt);
    expect(signatureTiming(new Date(expiresAt.getTime() - 1), expiresAt)).toBe('in_time');
    expect(signatureTiming(expiresAt, expiresAt)).toBe('atomic_swap_expired');
  });

  it('calls an unresolved execution expired only once the ledger can no longer commit it', () => {
    const expiresAt = atomicSwapExpiry(preparedAt);
    const edge = expiresAt.getTime() + LEDGER_TIME_TOLERANCE_MS;
    expect(unresolvedExecution(new Date(edge - 1), expiresAt)).toBe('executing');
    expect(unresolvedExecution(new Date(edge), expiresAt)).toBe('expired');
  });

  it('has catalogue codes for what a client is refused', () => {
    expect(ERROR_CATALOGUE.price_moved).toMatchObject({ status: 409, sdkClass: 'ConflictError' });
    expect(ERROR_CATALOGUE.atomic_swap_expired).toMatchObject({
      status: 409,
      sdkClass: 'ConflictError',
    });
    expect(ERROR_CATALOGUE.invalid_transaction_signature).toMatchObject({
      status: 401,
      sdkClass: 'AuthenticationError',
    });
  });
});
