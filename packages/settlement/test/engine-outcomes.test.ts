/**
 * Every terminal state of docs/spec/lifecycle.md#states reached for real through the engine on the
 * local ledger, each with its refund (or none) checked to the last unit on both sides of the
 * ledger.
 */
import { Amount } from '@poolparty/core';
import { LedgerError, type LedgerPort } from '@poolparty/ledger';
import {
  cancelIntent,
  getPool,
  listCommandsOfIntent,
  listOpenOperatorFlags,
} from '@poolparty/store';
import { describe, expect, it } from 'vitest';
import { type EngineHarness, useEngineWorld, waitFor } from '../testing/engine.js';
import { ledgerWith, refusingRefunds } from '../testing/faults.js';

const world = useEngineWorld();
let h: EngineHarness;

const amount = (text: string) => Amount.parse(text);

/** Alice deposits `deposit` Amulet for `intentId`'s pool; returns balances to compare against. */
async function snapshot(harness: EngineHarness) {
  const swapParty = harness.pool().swapParty;
  return {
    aliceAmulet: await harness.balance(harness.alice, harness.amulet),
    aliceUsdcx: await harness.balance(harness.alice, harness.usdcx),
    poolAmulet: await harness.balance(swapParty, harness.amulet),
    poolUsdcx: await harness.balance(swapParty, harness.usdcx),
  };
}

/** The deposit came back minus the network fee; no output left the pool. */
async function expectRefunded(
  harness: EngineHarness,
  before: Awaited<ReturnType<typeof snapshot>>,
  networkFee: Amount,
): Promise<void> {
  const after = await snapshot(harness);
  expect(after.aliceAmulet).toEqual(before.aliceAmulet.sub(networkFee));
  expect(after.poolAmulet).toEqual(before.poolAmulet.add(networkFee));
  expect(after.aliceUsdcx).toEqual(before.aliceUsdcx);
  expect(after.poolUsdcx).toEqual(before.poolUsdcx);
}

async function refundedOutcome(
  prepare: (harness: EngineHarness) => Promise<void>,
  state: Parameters<EngineHarness['waitForStatus']>[1],
  options: { slippageTolerance?: number; checkBooks?: boolean } = {},
) {
  h = await world.harness();
  await h.startEngine();
  const intent = await h.createIntent(h.alice, h.amulet, '1000', options);
  await prepare(h);
  const before = await snapshot(h);
  await h.deposit(h.alice, h.amulet, '1000', { reference: intent.depositReference });
  const ended = await h.waitForStatus(intent.intentId, state);
  await expectRefunded(h, before, intent.networkFeeAmount);
  expect(ended.refund).toEqual({
    amount: amount('1000').sub(intent.networkFeeAmount),
    networkFeeAmount: intent.networkFeeAmount,
    updateId: expect.stringMatching(/^update-/),
  });
  expect(ended.payout).toBeNull();
  expect(await h.transfersWithReason(`refund:${intent.intentId}`)).toBe(1);
  if (options.checkBooks ?? true) await h.booksMatchLedger();
  return ended;
}

describe('refunded before the payout', () => {
  it('slippage_failed: another swap moved the price past the tolerance', async () => {
    const ended = await refundedOutcome(
      async (harness) => {
        const bob = await harness.createIntent(harness.bob, harness.amulet, '5000');
        await harness.deposit(harness.bob, harness.amulet, '5000');
        await harness.waitForStatus(bob.intentId, 'completed');
      },
      'slippage_failed',
      { slippageTolerance: 0.001 },
    );
    expect(ended.failureReason?.code).toBe('slippage_failed');
    expect(ended.actualOutput).toBeNull();
  });

  it('price_impact_exceeded: the pool has a lower cap at execution', async () => {
    const ended = await refundedOutcome(async () => {
      await world.db.query(
        `UPDATE pools SET price_impact_cap = 0.00001 WHERE pool_id = 'amulet-usdcx'`,
      );
    }, 'price_impact_exceeded');
    expect(ended.failureReason?.code).toBe('price_impact_exceeded');
  });

  it('insufficient_liquidity: the output reserve cannot cover any output', async () => {
    await refundedOutcome(async () => {
      // The reserve moves to fees: the books still add up to the holdings.
      await world.db.query(
        `UPDATE pool_accounting SET fees_b = fees_b + reserve_b - 0.0000000001,
           reserve_b = 0.0000000001 WHERE pool_id = 'amulet-usdcx'`,
      );
    }, 'insufficient_liquidity');
  });

  it('no_output_holdings: the swap party holds no USDCx to pay with', async () => {
    await refundedOutcome(
      async (harness) => {
        await harness.ledger.burn({
          owner: harness.pool().swapParty,
          instrument: harness.usdcx,
          amount: amount('145000'),
        });
      },
      'no_output_holdings',
      { checkBooks: false },
    );
  });

  it('failed: the settlement-safety guard blocks the payout, and says which check', async () => {
    const ended = await refundedOutcome(async () => {
      await world.db.query(
        `UPDATE pools SET guard = '{"outputReserveShareMax": 0.000001}' WHERE pool_id = 'amulet-usdcx'`,
      );
    }, 'failed');
    expect(ended.failureReason?.code).toBe('output_reserve_share_exceeded');
  });

  it('insufficient_amount: the network fee at execution swallows the deposit; nothing is sent', async () => {
    h = await world.harness();
    await h.startEngine();
    const intent = await h.createIntent(h.alice, h.amulet, '100');
    // Amulet at 0.01 USD makes one transfer cost 120 Amulet, from the next mining round on.
    await h.ledger.setAmuletPrice(amount('0.01'));
    await h.advanceClock(10 * 60_000);
    const before = await snapshot(h);
    await h.deposit(h.alice, h.amulet, '100');
    const ended = await h.waitForStatus(intent.intentId, 'insufficient_amount');
    const after = await snapshot(h);
    expect(after.aliceAmulet).toEqual(before.aliceAmulet.sub(amount('100')));
    expect(after.poolAmulet).toEqual(before.poolAmulet.add(amount('100')));
    expect(ended.refund).toEqual({
      amount: Amount.ZERO,
      networkFeeAmount: amount('100'),
      updateId: null,
    });
    expect(await listCommandsOfIntent(world.db, intent.intentId)).toEqual([]);
    await h.booksMatchLedger();
  });
});

describe('refunded after the payout failed', () => {
  it('output_failed: the receiver rejects the payout offer; the trade is reversed', async () => {
    h = await world.harness();
    await h.startEngine();
    const { amulet, usdcx } = h;
    const carol = await h.newParty('carol', [amulet], [[amulet, '1000']]);
    const intent = await h.createIntent(carol, amulet, '1000');
    await h.deposit(carol, amulet, '1000');
    await h.waitForStatus(intent.intentId, 'sending_output');
    const offer = await waitFor(async () => {
      const offers = await h.ledger.getPendingOffers(carol.partyId);
      return offers.find((o) => o.receiver === carol.partyId) ?? null;
    }, 'the payout offer');
    await h.ledger.rejectOffer({
      commandId: 'carol-rejects',
      offerId: offer.offerId,
      actor: carol.partyId,
    });

    const ended = await h.waitForStatus(intent.intentId, 'output_failed');
    expect(ended.failureReason?.code).toBe('output_failed');
    expect(await h.balance(carol, amulet)).toEqual(amount('1000').sub(intent.networkFeeAmount));
    expect(await h.balance(carol, usdcx)).toEqual(Amount.ZERO);
    const pool = await getPool(world.db, 'amulet-usdcx');
    expect(pool?.accounting).toMatchObject({
      reserveA: amount('1000000'),
      reserveB: amount('145000'),
      feesA: intent.networkFeeAmount,
      outgoingA: Amount.ZERO,
      outgoingB: Amount.ZERO,
    });
    await h.booksMatchLedger();
    const rows = await world.db.query('SELECT 1 FROM fee_events WHERE intent_id = $1', [
      intent.intentId,
    ]);
    expect(rows).toEqual([]);
  });
});

/** A ledger that refuses to accept offers. */
function refusingAccepts(ledger: LedgerPort): LedgerPort {
  return ledgerWith(ledger, {
    acceptOffer: async () => {
      throw new LedgerError('rejected', 'accepts are refused');
    },
  });
}

describe('ending without a refund transfer', () => {
  it('refund_failed: every refund submission is refused; the funds are parked and flagged', async () => {
    h = await world.harness();
    await h.startEngine({ ledger: refusingRefunds(h.ledger) });
    const intent = await h.createIntent(h.alice, h.amulet, '1000');
    await world.db.query(
      `UPDATE pools SET price_impact_cap = 0.00001 WHERE pool_id = 'amulet-usdcx'`,
    );
    const before = await snapshot(h);
    await h.deposit(h.alice, h.amulet, '1000');
    const ended = await h.waitForStatus(intent.intentId, 'refund_failed');
    expect(ended.failureReason?.code).toBe('refund_failed');
    const after = await snapshot(h);
    expect(after.aliceAmulet).toEqual(before.aliceAmulet.sub(amount('1000')));
    expect(after.poolAmulet).toEqual(before.poolAmulet.add(amount('1000')));
    const [refund] = await listCommandsOfIntent(world.db, intent.intentId);
    expect(refund).toMatchObject({ leg: 'refund', status: 'failed' });
    const flags = await listOpenOperatorFlags(world.db, 10);
    expect(flags).toMatchObject([{ intentId: intent.intentId, kind: 'refund_failed' }]);
    const pool = await getPool(world.db, 'amulet-usdcx');
    expect(pool?.accounting.outgoingA).toEqual(amount('1000').sub(intent.networkFeeAmount));
    await h.booksMatchLedger();
  });

  it('failed from matched: the deposit offer cannot be accepted, so it is rejected back', async () => {
    h = await world.harness();
    await h.startEngine({ ledger: refusingAccepts(h.ledger) });
    const usdcxBefore = await h.balance(h.alice, h.usdcx);
    const intent = await h.createIntent(h.alice, h.usdcx, '100');
    await h.deposit(h.alice, h.usdcx, '100');
    const ended = await h.waitForStatus(intent.intentId, 'failed');
    expect(ended.failureReason?.code).toBe('deposit_not_accepted');
    await waitFor(async () => {
      const offers = await h.ledger.getPendingOffers(h.alice.partyId);
      return offers.length === 0;
    }, 'the deposit offer to be rejected');
    expect(await h.balance(h.alice, h.usdcx)).toEqual(usdcxBefore);
    await h.booksMatchLedger();
  });

  it('failed from matched: the sender withdraws the deposit offer before it was accepted', async () => {
    h = await world.harness();
    await h.startEngine({
      ledger: refusingAccepts(h.ledger),
      settings: { offerActionAttemptsMax: 1_000_000 },
    });
    const usdcxBefore = await h.balance(h.alice, h.usdcx);
    const intent = await h.createIntent(h.alice, h.usdcx, '100');
    const sent = await h.deposit(h.alice, h.usdcx, '100');
    if (sent.kind !== 'offer') throw new Error('expected an offer');
    await h.waitForStatus(intent.intentId, 'matched');
    await h.ledger.withdrawOffer({
      commandId: 'alice-withdraws',
      offerId: sent.offerId,
      actor: h.alice.partyId,
    });
    const ended = await h.waitForStatus(intent.intentId, 'failed');
    expect(ended.failureReason?.code).toBe('deposit_offer_withdrawn');
    expect(await h.balance(h.alice, h.usdcx)).toEqual(usdcxBefore);
    const [accept] = await listCommandsOfIntent(world.db, intent.intentId);
    expect(accept).toMatchObject({ leg: 'accept', status: 'failed' });
    await h.booksMatchLedger();
  });

  it('failed from matched: the deposit offer expired before the service accepted it, so it is rejected back', async () => {
    h = await world.harness();
    const usdcxBefore = await h.balance(h.alice, h.usdcx);
    const intent = await h.createIntent(h.alice, h.usdcx, '100', {
      validityMs: 3 * 24 * 60 * 60_000,
    });
    const sent = await h.deposit(h.alice, h.usdcx, '100');
    if (sent.kind !== 'offer') throw new Error('expected an offer');
    // The service is not running until the offer's deadline has passed.
    const [offer] = await h.ledger.getPendingOffers(h.alice.partyId);
    if (offer === undefined) throw new Error('the deposit offer is not pending');
    await h.advanceClock(offer.executeBefore.getTime() - h.clock.now().getTime() + 1);
    await h.startEngine();
    const ended = await h.waitForStatus(intent.intentId, 'failed');
    expect(ended.failureReason).toEqual({
      code: 'deposit_offer_expired',
      message:
        'The deposit offer was expired before the service accepted it; it returned to the sender.',
    });
    // The expired offer stays pending on the ledger until the service rejects it back.
    await waitFor(async () => {
      const offers = await h.ledger.getPendingOffers(h.alice.partyId);
      return offers.length === 0;
    }, 'the expired deposit offer to be rejected');
    expect(await h.balance(h.alice, h.usdcx)).toEqual(usdcxBefore);
    const commands = await listCommandsOfIntent(world.db, intent.intentId);
    expect(commands.map((c) => [c.leg, c.status])).toEqual([
      ['accept', 'failed'],
      ['reject', 'committed'],
    ]);
    await h.booksMatchLedger();
  });

  it('expired: no deposit before expiresAt; a later deposit is refunded minus the fee', async () => {
    h = await world.harness();
    await h.startEngine();
    const intent = await h.createIntent(h.alice, h.amulet, '1000');
    await h.advanceClock(24 * 60 * 60_000);
    h.engine?.poke();
    await h.waitForStatus(intent.intentId, 'expired');
    const before = await snapshot(h);
    await h.deposit(h.alice, h.amulet, '1000', { reference: intent.depositReference });
    await waitFor(async () => {
      const after = await h.balance(h.alice, h.amulet);
      return after.gt(before.aliceAmulet.sub(amount('1000'))) || null;
    }, 'the late deposit to be refunded');
    await expectRefunded(h, before, intent.networkFeeAmount);
    expect((await h.intent(intent.intentId)).status).toBe('expired');
    await h.booksMatchLedger();
  });

  it('cancelled: a deposit after the cancel is refunded minus the fee', async () => {
    h = await world.harness();
    await h.startEngine();
    const intent = await h.createIntent(h.alice, h.amulet, '1000');
    const cancelled = await cancelIntent(world.db, {
      intentId: intent.intentId,
      walletParty: h.alice.partyId,
      now: h.clock.now(),
    });
    expect(cancelled?.status).toBe('cancelled');
    const before = await snapshot(h);
    await h.deposit(h.alice, h.amulet, '1000');
    await waitFor(async () => {
      const after = await h.balance(h.alice, h.amulet);
      return after.gt(before.aliceAmulet.sub(amount('1000'))) || null;
    }, 'the deposit to be refunded');
    const fee = await unmatchedFee();
    await expectRefunded(h, before, fee);
    await h.booksMatchLedger();
  });
});

/** The network fee of an unmatched Amulet deposit with no intent to take it from: estimated. */
async function unmatchedFee(): Promise<Amount> {
  const rows = await world.db.query<{ amount: string }>(
    `SELECT c.payload->>'amount' AS amount FROM ledger_commands c WHERE c.leg = 'refund'`,
  );
  const refunded = amount(rows[0]?.amount ?? '0');
  const fee = amount('1000').sub(refunded);
  // 20 000 bytes at 60 USD/MB is 1.2 USD; at 0.145 USD per Amulet, rounded up.
  expect(fee.toString()).toBe('8.275862069');
  return fee;
}
