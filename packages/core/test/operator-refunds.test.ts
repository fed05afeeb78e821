import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Amount } from '../src/amount.js';
import type { TransferPayload } from '../src/legs.js';
import {
  latestRefundAttempt,
  type ParkedRefund,
  planRefundResolution,
  planRefundRetry,
  type RefundAttempt,
  refundPoolOf,
} from '../src/operator-refunds.js';
import { applyMovements, type Side } from '../src/pool-books.js';
import { books } from './support/books.js';

const AMULET = { id: 'Amulet', admin: 'DSO::1220aa' };

const refund: TransferPayload = {
  kind: 'transfer',
  poolId: 'amulet-usdcx',
  side: 'a',
  sender: 'swap::1220bb',
  receiver: 'alice::1220cc',
  instrument: AMULET,
  amount: '998.5',
  reason: 'refund:swp_1',
};

const attemptOf = (attempt: number, overrides: Partial<RefundAttempt> = {}): RefundAttempt => ({
  commandId: `swp_1:refund:${attempt}`,
  intentId: 'swp_1',
  depositId: null,
  attempt,
  status: 'failed',
  payload: refund,
  ...overrides,
});

/** Intent swp_1's refund given up on at attempt 0, its flag 7 open. */
function parked(overrides: Partial<ParkedRefund> = {}): ParkedRefund {
  return { subjectId: 'swp_1', flagId: 7, attempts: [attemptOf(0)], ...overrides };
}

describe('an operator retry of a parked refund', () => {
  it('is the next attempt of the same transfer, marked as answering the flag', () => {
    expect(planRefundRetry(parked({ attempts: [attemptOf(0), attemptOf(1)] }))).toEqual({
      kind: 'retry',
      flagId: 7,
      commandId: 'swp_1:refund:2',
      attempt: 2,
      intentId: 'swp_1',
      depositId: null,
      payload: { ...refund, operatorRetry: { flagId: 7 } },
    });
  });

  it('serves an unmatched deposit as its subject', () => {
    const deposit = attemptOf(0, {
      commandId: 'dep_9:refund:0',
      intentId: null,
      depositId: 'dep_9',
    });
    expect(planRefundRetry({ subjectId: 'dep_9', flagId: 3, attempts: [deposit] })).toMatchObject({
      kind: 'retry',
      commandId: 'dep_9:refund:1',
      intentId: null,
      depositId: 'dep_9',
    });
  });

  it('is refused without an open flag, and points a liquidity subject to its flag', () => {
    expect(planRefundRetry(parked({ flagId: null }))).toEqual({
      kind: 'refused',
      code: 'not_found',
      reason: 'no open refund_failed flag for swp_1',
    });
    const liquidity = planRefundRetry({ subjectId: 'wdr_4', flagId: null, attempts: [] });
    expect(liquidity).toMatchObject({ code: 'not_found' });
    expect(liquidity.kind === 'refused' && liquidity.reason).toContain('admin flags retry');
  });

  it('is refused while the latest attempt is in flight, and when no refund was recorded', () => {
    for (const status of ['recorded', 'submitted'] as const) {
      expect(
        planRefundRetry(parked({ attempts: [attemptOf(0), attemptOf(1, { status })] })),
      ).toEqual({
        kind: 'refused',
        code: 'precondition_failed',
        reason: `refund attempt swp_1:refund:1 of swp_1 is still ${status}; wait for its outcome`,
      });
    }
    expect(planRefundRetry(parked({ attempts: [] }))).toEqual({
      kind: 'refused',
      code: 'precondition_failed',
      reason: 'swp_1 has no refund to retry (its trade could not be reversed); resolve it by hand',
    });
  });
});

describe('an operator resolution of a parked refund', () => {
  it('closes the flag with the note and leaves the amount parked', () => {
    expect(planRefundResolution(parked(), { note: 'paid by bank', release: false })).toEqual({
      kind: 'resolve',
      flagId: 7,
      resolution: 'paid by bank',
      release: null,
    });
  });

  it('with release, takes the amount out of the side’s outgoing books', () => {
    expect(planRefundResolution(parked(), { note: 'sent by hand', release: true })).toEqual({
      kind: 'resolve',
      flagId: 7,
      resolution: 'sent by hand (released 998.5 from the books of amulet-usdcx)',
      release: {
        poolId: 'amulet-usdcx',
        movements: [{ side: 'a', bucket: 'outgoing', units: -Amount.parse('998.5').units }],
      },
    });
  });

  it('requires a note first of all', () => {
    for (const note of ['', '  ']) {
      expect(planRefundResolution(parked({ flagId: null }), { note, release: true })).toEqual({
        kind: 'refused',
        code: 'validation_error',
        reason: 'a note saying what was done is required',
      });
    }
  });

  it('refuses to release what is in no pool’s books', () => {
    const outside = attemptOf(0, { payload: { ...refund, poolId: null, side: null } });
    for (const attempts of [[], [outside]]) {
      expect(planRefundResolution(parked({ attempts }), { note: 'n', release: true })).toEqual({
        kind: 'refused',
        code: 'precondition_failed',
        reason: "swp_1 has no parked amount in a pool's books to release",
      });
    }
    expect(
      planRefundResolution(parked({ attempts: [] }), { note: 'n', release: false }),
    ).toMatchObject({ kind: 'resolve', release: null });
  });

  it('is refused while an attempt is in flight, as a retry is', () => {
    const inFlight = parked({ attempts: [attemptOf(0), attemptOf(1, { status: 'submitted' })] });
    expect(planRefundResolution(inFlight, { note: 'n', release: false })).toMatchObject({
      kind: 'refused',
      code: 'precondition_failed',
    });
  });
});

const MAX_UNITS = 10n ** 24n;
const units = fc.bigInt({ min: 1n, max: MAX_UNITS });
const status = fc.constantFrom<RefundAttempt['status']>(
  'recorded',
  'submitted',
  'committed',
  'failed',
);
const attempts = fc.uniqueArray(fc.nat({ max: 50 }), { maxLength: 6 }).chain((numbers) =>
  fc.tuple(
    ...numbers.map((n) =>
      fc
        .record({ status, units, side: fc.constantFrom<Side>('a', 'b') })
        .map(({ status: s, units: u, side }) =>
          attemptOf(n, {
            status: s,
            payload: { ...refund, side, amount: Amount.fromUnits(u).toString() },
          }),
        ),
    ),
  ),
);
const parkedCase = fc.record({
  subjectId: fc.constantFrom('swp_1', 'dep_2'),
  flagId: fc.option(fc.nat({ max: 1000 }), { nil: null }),
  attempts,
});
const inFlight = (a: RefundAttempt | undefined) =>
  a !== undefined && (a.status === 'recorded' || a.status === 'submitted');

describe('operator refund plans, for any parked case', () => {
  it('retry only with an open flag and a latest attempt settled, as a new attempt id', () => {
    fc.assert(
      fc.property(parkedCase, (input) => {
        const plan = planRefundRetry(input);
        const latest = latestRefundAttempt(input.attempts);
        const allowed = input.flagId !== null && latest !== undefined && !inFlight(latest);
        expect(plan.kind === 'retry').toBe(allowed);
        if (plan.kind !== 'retry' || latest === undefined) return;
        expect(input.attempts.map((a) => a.commandId)).not.toContain(plan.commandId);
        expect(plan.attempt).toBe(Math.max(...input.attempts.map((a) => a.attempt)) + 1);
        expect(plan.payload).toEqual({
          ...latest.payload,
          operatorRetry: { flagId: input.flagId },
        });
      }),
    );
  });

  it('a release takes exactly the parked amount out of outgoing and changes no other bucket', () => {
    fc.assert(
      fc.property(parkedCase, books, units, (input, others, extra) => {
        const plan = planRefundResolution(input, { note: 'handled', release: true });
        const latest = latestRefundAttempt(input.attempts);
        if (plan.kind !== 'resolve' || plan.release === null || latest === undefined) return;
        expect(plan.release.poolId).toBe(refundPoolOf(input));
        // The books hold the parked amount in outgoing, and maybe other refunds beside it.
        const outgoing = latest.payload.side === 'a' ? 'outgoingA' : 'outgoingB';
        const parked = Amount.parse(latest.payload.amount).units;
        const before = { ...others, [outgoing]: Amount.fromUnits(parked + extra) };
        const after = applyMovements(before, plan.release.movements);
        expect(after).toEqual({ ...before, [outgoing]: Amount.fromUnits(extra) });
      }),
    );
  });
});
