/**
 * Deposits no intent takes (docs/spec/lifecycle.md#unmatched-deposits): each is recorded and goes
 * back — a transfer minus the network fee, an offer rejected at no cost — or, when it does not
 * exceed the fee, is kept with an operator flag. None is lost: every deposit ends returned,
 * attributed or flagged.
 */
import { Amount } from '@poolparty/core';
import { listDepositsInStatus, listOpenOperatorFlags } from '@poolparty/store';
import { describe, expect, it } from 'vitest';
import { type EngineHarness, type Party, useEngineWorld, waitFor } from '../testing/engine.js';

const world = useEngineWorld();
let h: EngineHarness;

const amount = (text: string) => Amount.parse(text);
/**
 * 1.2 USD of traffic at 0.145 USD per Amulet, rounded up
 * (docs/spec/amounts-and-fees.md#network-fee).
 */
const ESTIMATED_AMULET_FEE = amount('8.275862069');

async function started(): Promise<EngineHarness> {
  h = await world.harness();
  await h.startEngine();
  return h;
}

/** Waits until no deposit is left unmatched (each was returned or flagged). */
async function allSettled(harness: EngineHarness): Promise<void> {
  await harness.caughtUp();
  await waitFor(async () => {
    const open = await listDepositsInStatus(harness.db, 'unmatched', 10);
    return open.length === 0;
  }, 'every unmatched deposit to be returned');
}

async function deposits(status: 'attributed' | 'returned' | 'flagged') {
  return listDepositsInStatus(world.db, status, 100);
}

async function expectAmuletRefund(party: Party, before: Amount, sent: string, fee: Amount) {
  expect(await h.balance(party, h.amulet)).toEqual(
    before.sub(amount(sent)).add(amount(sent).sub(fee)),
  );
}

describe('an unmatched one-step deposit is refunded minus the network fee', () => {
  it('when no intent exists', async () => {
    await started();
    const before = await h.balance(h.bob, h.amulet);
    const poolBefore = await h.balance(h.pool().swapParty, h.amulet);
    await h.deposit(h.bob, h.amulet, '300');
    await allSettled(h);
    await expectAmuletRefund(h.bob, before, '300', ESTIMATED_AMULET_FEE);
    expect(await h.balance(h.pool().swapParty, h.amulet)).toEqual(
      poolBefore.add(ESTIMATED_AMULET_FEE),
    );
    expect(await deposits('returned')).toMatchObject([
      { unmatchedReason: 'no_intent', amount: Amount.parse('300') },
    ]);
    await h.booksMatchLedger();
  });

  it('when the amount differs from expectedAmount; the intent stays open for the right one', async () => {
    await started();
    const intent = await h.createIntent(h.alice, h.amulet, '1000');
    const before = await h.balance(h.alice, h.amulet);
    await h.deposit(h.alice, h.amulet, '999', { reference: intent.depositReference });
    await allSettled(h);
    await expectAmuletRefund(h.alice, before, '999', intent.networkFeeAmount);
    expect((await h.intent(intent.intentId)).status).toBe('pending');
    expect(await deposits('returned')).toMatchObject([{ unmatchedReason: 'wrong_amount' }]);

    await h.deposit(h.alice, h.amulet, '1000');
    await h.waitForStatus(intent.intentId, 'completed');
    await h.booksMatchLedger();
  });

  it("when another party sends with the intent's reference", async () => {
    await started();
    const intent = await h.createIntent(h.alice, h.amulet, '1000');
    const bobBefore = await h.balance(h.bob, h.amulet);
    await h.deposit(h.bob, h.amulet, '1000', { reference: intent.depositReference });
    await allSettled(h);
    await expectAmuletRefund(h.bob, bobBefore, '1000', intent.networkFeeAmount);
    expect((await h.intent(intent.intentId)).status).toBe('pending');
    expect(await deposits('returned')).toMatchObject([{ unmatchedReason: 'wrong_party' }]);
    await h.booksMatchLedger();
  });

  it('when it is a second deposit for an intent already funded', async () => {
    await started();
    const intent = await h.createIntent(h.alice, h.amulet, '1000');
    await h.deposit(h.alice, h.amulet, '1000', { reference: intent.depositReference });
    const done = await h.waitForStatus(intent.intentId, 'completed');
    const before = await h.balance(h.alice, h.amulet);
    await h.deposit(h.alice, h.amulet, '1000', { reference: intent.depositReference });
    await allSettled(h);
    await expectAmuletRefund(h.alice, before, '1000', intent.networkFeeAmount);
    expect((await h.intent(intent.intentId)).actualOutput).toEqual(done.actualOutput);
    expect(await deposits('returned')).toMatchObject([
      { unmatchedReason: 'intent_already_funded' },
    ]);
    expect(await deposits('attributed')).toMatchObject([{ intentId: intent.intentId }]);
    await h.booksMatchLedger();
  });
});

describe('an unmatched deposit that is not refunded as a transfer', () => {
  it('is rejected when it is an offer, returning whole at no cost', async () => {
    await started();
    const before = await h.balance(h.bob, h.usdcx);
    const sent = await h.deposit(h.bob, h.usdcx, '50');
    expect(sent.kind).toBe('offer');
    await allSettled(h);
    await waitFor(
      async () => (await h.ledger.getPendingOffers(h.bob.partyId)).length === 0,
      'the reject',
    );
    expect(await h.balance(h.bob, h.usdcx)).toEqual(before);
    expect(await deposits('returned')).toMatchObject([
      { unmatchedReason: 'no_intent', amount: Amount.parse('50') },
    ]);
    await h.booksMatchLedger();
  });

  it('is rejected when its instrument is not one of the pool', async () => {
    await started();
    const cbtc = h.seed.instruments.cbtc;
    const before = await h.balance(h.bob, cbtc);
    await h.deposit(h.bob, cbtc, '0.01');
    await allSettled(h);
    await waitFor(
      async () => (await h.ledger.getPendingOffers(h.bob.partyId)).length === 0,
      'the reject',
    );
    expect(await h.balance(h.bob, cbtc)).toEqual(before);
    expect(await deposits('returned')).toMatchObject([{ unmatchedReason: 'wrong_instrument' }]);
  });

  it('is kept as the fee, with an operator flag, when it does not exceed the fee', async () => {
    await started();
    const before = await h.balance(h.bob, h.amulet);
    await h.deposit(h.bob, h.amulet, '5');
    await allSettled(h);
    expect(await h.balance(h.bob, h.amulet)).toEqual(before.sub(amount('5')));
    expect(await deposits('flagged')).toMatchObject([
      { amount: Amount.parse('5'), unmatchedReason: 'no_intent' },
    ]);
    expect(await listOpenOperatorFlags(world.db, 10)).toMatchObject([
      { kind: 'deposit_kept_as_fee', details: { amount: '5' } },
    ]);
    await h.booksMatchLedger();
  });
});
