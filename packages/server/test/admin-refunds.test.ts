/**
 * `poolparty admin refunds` (`refund_failed`): an operator lists the refunds the engine
 * gave up on, retries one (a new attempt id, submitted and confirmed by the engine) or resolves
 * it with a note. The intent keeps its terminal state; the refund's facts and the flag say what
 * happened, and the books follow the funds.
 */
import { Amount } from '@poolparty/core';
import {
  type EngineHarness,
  parkedRefund,
  refusingRefunds,
  useEngineWorld,
  waitFor,
} from '@poolparty/settlement/testing';
import {
  getPool,
  type IntentRecord,
  listCommandsOfIntent,
  listOpenOperatorFlags,
} from '@poolparty/store';
import { describe, expect, it } from 'vitest';
import { AdminError } from '../src/admin/admin-error.js';
import { resolveRefund } from '../src/admin/refunds.js';
import { runAdmin } from './support/admin.js';

const world = useEngineWorld();
let h: EngineHarness;

/** Runs `poolparty admin …` against the harness's store; returns what it printed. */
function admin(...args: string[]) {
  return runAdmin(h.db, { now: () => h.clock.now() }, args);
}

/** A swap refused at execution whose refund the ledger refuses while `refusing.refunds` is set. */
function parkedRefundWhile(refusing: { refunds: boolean }): Promise<IntentRecord> {
  return parkedRefund(
    h,
    refusingRefunds(h.ledger, () => refusing.refunds),
  );
}

const refundOf = (intent: IntentRecord) => Amount.parse('1000').sub(intent.networkFeeAmount);

async function outgoingA(): Promise<Amount | undefined> {
  return (await getPool(h.db, 'amulet-usdcx'))?.accounting.outgoingA;
}

describe('admin refunds list', () => {
  it('shows each parked refund with its amount, pool, state and last attempt', async () => {
    h = await world.harness();
    const intent = await parkedRefundWhile({ refunds: true });

    const { out } = await admin('refunds', 'list');

    expect(out).toHaveLength(1);
    const columns = out[0]?.split('\t') ?? [];
    expect(columns.slice(1, 6)).toEqual([
      intent.intentId,
      'refund_failed',
      'amulet-usdcx',
      `${refundOf(intent)} ${h.amulet.id} (${h.amulet.admin}) to ${h.alice.partyId}`,
      `${intent.intentId}:refund:0 failed`,
    ]);
  });
});

describe('admin refunds retry', () => {
  it('sends the refund under the next attempt id; the intent stays refund_failed with its facts', async () => {
    h = await world.harness();
    const refusing = { refunds: true };
    const intent = await parkedRefundWhile(refusing);
    const aliceBefore = await h.balance(h.alice, h.amulet);
    expect(await outgoingA()).toEqual(refundOf(intent));
    refusing.refunds = false;

    const { out, errors } = await admin('refunds', 'retry', intent.intentId);

    expect(errors).toEqual([]);
    expect(out).toEqual([
      `recorded ${intent.intentId}:refund:1: ${refundOf(intent)} to ${h.alice.partyId}`,
    ]);
    const done = await waitFor(async () => {
      const current = await h.intent(intent.intentId);
      return current.refund?.updateId ? current : null;
    }, 'the retried refund to commit');
    expect(done.status).toBe('refund_failed');
    expect(done.refund).toMatchObject({
      amount: refundOf(intent),
      networkFeeAmount: intent.networkFeeAmount,
    });
    expect(await h.balance(h.alice, h.amulet)).toEqual(aliceBefore.add(refundOf(intent)));
    expect(await h.transfersWithReason(`refund:${intent.intentId}`)).toBe(1);
    const commands = await listCommandsOfIntent(h.db, intent.intentId);
    expect(commands.map((c) => [c.commandId, c.status])).toEqual([
      [`${intent.intentId}:refund:0`, 'failed'],
      [`${intent.intentId}:refund:1`, 'committed'],
    ]);
    expect(await listOpenOperatorFlags(h.db, 10)).toEqual([]);
    expect(await outgoingA()).toEqual(Amount.ZERO);
    await h.booksMatchLedger();
    expect((await admin('refunds', 'list')).out).toEqual(['no open refund cases']);
  });

  it('keeps the funds parked and the case open when the new attempt fails too', async () => {
    h = await world.harness();
    const refusing = { refunds: true };
    const intent = await parkedRefundWhile(refusing);

    await admin('refunds', 'retry', intent.intentId);
    await waitFor(async () => {
      const commands = await listCommandsOfIntent(h.db, intent.intentId);
      return commands.find((c) => c.attempt === 1)?.status === 'failed';
    }, 'the retried refund to be given up');

    expect(await outgoingA()).toEqual(refundOf(intent));
    expect(await listOpenOperatorFlags(h.db, 10)).toMatchObject([
      { intentId: intent.intentId, kind: 'refund_failed' },
    ]);
    refusing.refunds = false;
    await admin('refunds', 'retry', intent.intentId);
    await waitFor(
      async () => (await h.intent(intent.intentId)).refund?.updateId ?? null,
      'the second retry to commit',
    );
    expect(await h.transfersWithReason(`refund:${intent.intentId}`)).toBe(1);
    await h.booksMatchLedger();
  });

  it('refuses while an attempt is in flight, and for an intent with no open case', async () => {
    h = await world.harness();
    const intent = await parkedRefundWhile({ refunds: true });
    await h.stopEngine();
    await admin('refunds', 'retry', intent.intentId);

    const again = await admin('refunds', 'retry', intent.intentId);
    const unknown = await admin('refunds', 'retry', 'swp_unknown');

    expect(again.errors).toEqual([
      `refund attempt ${intent.intentId}:refund:1 of ${intent.intentId} is still recorded; wait for its outcome`,
    ]);
    expect(unknown.errors).toEqual(['no open refund_failed flag for swp_unknown']);
    const commands = await listCommandsOfIntent(h.db, intent.intentId);
    expect(commands).toHaveLength(2);
  });
});

describe('admin refunds resolve', () => {
  it('closes the case with the note and leaves the amount parked in the books', async () => {
    h = await world.harness();
    const intent = await parkedRefundWhile({ refunds: true });

    const { out } = await admin('refunds', 'resolve', intent.intentId, '--note', 'paid by bank');

    expect(out).toEqual([expect.stringMatching(/^resolved flag \d+: paid by bank$/)]);
    expect(await listOpenOperatorFlags(h.db, 10)).toEqual([]);
    expect((await h.intent(intent.intentId)).status).toBe('refund_failed');
    expect(await outgoingA()).toEqual(refundOf(intent));
    await h.booksMatchLedger();
  });

  it('with --release, takes off the books an amount the operator moved out of the swap party', async () => {
    h = await world.harness();
    const intent = await parkedRefundWhile({ refunds: true });
    await h.ledger.submitTransfer({
      commandId: 'operator-refund',
      sender: h.pool().swapParty,
      receiver: h.alice.partyId,
      instrument: h.amulet,
      amount: refundOf(intent),
    });

    const { out } = await admin(
      'refunds',
      'resolve',
      intent.intentId,
      '--note',
      'sent by hand',
      '--release',
    );

    expect(out[0]).toContain(`released ${refundOf(intent)} from the books of amulet-usdcx`);
    expect(await outgoingA()).toEqual(Amount.ZERO);
    await h.booksMatchLedger();
  });

  it('requires a note', async () => {
    h = await world.harness();
    const intent = await parkedRefundWhile({ refunds: true });
    await expect(
      resolveRefund(h.db, intent.intentId, { note: ' ', release: false, now: h.clock.now() }),
    ).rejects.toThrow(AdminError);
    expect(await listOpenOperatorFlags(h.db, 10)).toHaveLength(1);
  });
});
