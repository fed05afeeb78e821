/**
 * Operator refunds (`refund_failed`): settlement lists the refunds the engine gave up on, records
 * an operator's retry as the next attempt, and resolves a case, taking a released amount off the
 * pool's books, each in one transaction and refused with nothing written when the case does not
 * allow it.
 */
import { Amount } from '@poolparty/core';
import {
  getOperatorFlag,
  getPool,
  type IntentRecord,
  listCommandsOfIntent,
  listOpenOperatorFlags,
} from '@poolparty/store';
import { describe, expect, it } from 'vitest';
import { listRefundCases, RefundRefused, resolveRefund, retryRefund } from '../src/index.js';
import { type EngineHarness, useEngineWorld } from '../testing/engine.js';
import { parkedRefund, refusingRefunds } from '../testing/faults.js';

const world = useEngineWorld();
let h: EngineHarness;

/** A swap refused at execution (price impact) whose refund was given up on; the engine stopped. */
async function parkedAndStopped(): Promise<IntentRecord> {
  h = await world.harness();
  const parked = await parkedRefund(h, refusingRefunds(h.ledger));
  await h.stopEngine();
  return parked;
}

const refundOf = (intent: IntentRecord) => Amount.parse('1000').sub(intent.networkFeeAmount);

async function outgoingA(): Promise<Amount | undefined> {
  return (await getPool(h.db, 'amulet-usdcx'))?.accounting.outgoingA;
}

async function refusal(attempt: Promise<unknown>): Promise<RefundRefused> {
  const error = await attempt.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RefundRefused);
  return error as RefundRefused;
}

describe('listRefundCases', () => {
  it('lists each open case with what its latest attempt parked', async () => {
    const intent = await parkedAndStopped();

    const cases = await listRefundCases(h.db);

    expect(cases).toMatchObject([
      {
        intentId: intent.intentId,
        depositId: null,
        status: 'refund_failed',
        poolId: 'amulet-usdcx',
        amount: refundOf(intent).toString(),
        instrument: h.amulet,
        receiver: h.alice.partyId,
        lastAttempt: { commandId: `${intent.intentId}:refund:0`, status: 'failed' },
      },
    ]);
  });
});

describe('retryRefund', () => {
  it('records the next attempt of the same transfer, marked as the operator’s', async () => {
    const intent = await parkedAndStopped();
    const [flag] = await listOpenOperatorFlags(h.db, 10);

    const retried = await retryRefund(h.db, intent.intentId, h.clock.now());

    expect(retried).toEqual({
      commandId: `${intent.intentId}:refund:1`,
      amount: refundOf(intent).toString(),
      receiver: h.alice.partyId,
    });
    const [first, second] = await listCommandsOfIntent(h.db, intent.intentId);
    expect(second).toMatchObject({ status: 'recorded', leg: 'refund', attempt: 1 });
    expect(second?.payload).toEqual({
      ...(first?.payload as object),
      operatorRetry: { flagId: flag?.id },
    });
    // The flag stays open until the attempt commits; the amount stays parked meanwhile.
    expect(await listOpenOperatorFlags(h.db, 10)).toHaveLength(1);
    expect(await outgoingA()).toEqual(refundOf(intent));
  });

  it('records one attempt when two operators retry at once; the other is told to wait', async () => {
    const intent = await parkedAndStopped();
    const now = h.clock.now();

    const outcomes = await Promise.allSettled([
      retryRefund(h.db, intent.intentId, now),
      retryRefund(h.db, intent.intentId, now),
    ]);

    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []));
    expect(refused).toEqual([expect.any(RefundRefused)]);
    expect(refused[0]).toMatchObject({ code: 'precondition_failed' });
    expect(await listCommandsOfIntent(h.db, intent.intentId)).toHaveLength(2);
  });

  it('refuses a subject with no open case, writing nothing', async () => {
    await parkedAndStopped();

    const error = await refusal(retryRefund(h.db, 'swp_unknown', h.clock.now()));

    expect(error.code).toBe('not_found');
    expect(error.message).toBe('no open refund_failed flag for swp_unknown');
  });
});

describe('resolveRefund', () => {
  it('with release, takes the parked amount off the books and closes the flag', async () => {
    const intent = await parkedAndStopped();
    const [flag] = await listOpenOperatorFlags(h.db, 10);

    const resolved = await resolveRefund(h.db, intent.intentId, {
      note: 'sent by hand',
      release: true,
      now: h.clock.now(),
    });

    expect(resolved).toMatchObject({
      id: flag?.id,
      resolution: `sent by hand (released ${refundOf(intent)} from the books of amulet-usdcx)`,
    });
    expect(await outgoingA()).toEqual(Amount.ZERO);
    const again = await refusal(
      resolveRefund(h.db, intent.intentId, { note: 'twice', release: true, now: h.clock.now() }),
    );
    expect(again.code).toBe('not_found');
    expect(await outgoingA()).toEqual(Amount.ZERO);
  });

  it('refuses a blank note and an attempt in flight, leaving the flag open', async () => {
    const intent = await parkedAndStopped();
    const [flag] = await listOpenOperatorFlags(h.db, 10);
    const now = h.clock.now();

    const blank = await refusal(
      resolveRefund(h.db, intent.intentId, { note: ' ', release: false, now }),
    );
    await retryRefund(h.db, intent.intentId, now);
    const inFlight = await refusal(
      resolveRefund(h.db, intent.intentId, { note: 'paid', release: false, now }),
    );

    expect(blank.code).toBe('validation_error');
    expect(inFlight.code).toBe('precondition_failed');
    expect(inFlight.message).toContain('is still recorded; wait for its outcome');
    expect((await getOperatorFlag(h.db, flag?.id ?? 0))?.resolvedAt).toBeNull();
    expect(await outgoingA()).toEqual(refundOf(intent));
  });
});
