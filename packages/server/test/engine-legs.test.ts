/**
 * Pending legs (docs/spec/lifecycle.md#payout-and-refund-legs) through the engine on the local
 * ledger: a payout or refund to a party without a transfer pre-approval is an offer the party must
 * accept. While it waits the status shows the leg `offered` with its offer id and expiry; once the
 * party answers, the leg shows the outcome and the swap moves on. Each leg event is in the outbox
 * once, between the state that sent the leg and the state its outcome leads to.
 */
import { Amount } from '@poolparty/core';
import type { TransferOffer as PendingOffer } from '@poolparty/ledger';
import {
  type EngineHarness,
  type Party,
  useEngineWorld,
  waitFor,
} from '@poolparty/settlement/testing';
import { listCommandsOfIntent, listIntentEvents, listOpenOperatorFlags } from '@poolparty/store';
import { COMPLETED_SWAP_HISTORY, SETTLING_STATES } from '@poolparty/store/testing';
import { describe, expect, it } from 'vitest';
import { swapStatusView } from '../src/views/swap-status.js';

const world = useEngineWorld();

/** The wire status of the intent, as `GET /v1/swaps/{id}` shows it. */
async function statusOf(h: EngineHarness, intentId: string) {
  return swapStatusView(await h.intent(intentId), await listIntentEvents(h.db, intentId));
}

/** The intent's events as the stream names them: leg events by their name, else the state. */
async function eventNames(h: EngineHarness, intentId: string): Promise<string[]> {
  const events = await listIntentEvents(h.db, intentId);
  return events.map((event) => event.legEvent ?? event.status);
}

/** Waits until the intent's payout or refund is an offer waiting for `party`, and returns it. */
async function offerTo(h: EngineHarness, party: Party, leg: 'payout' | 'refund') {
  const intent = await waitFor(async () => {
    const found = await h.db.query<{ intent_id: string }>(
      `SELECT intent_id FROM intents WHERE wallet_party = $1 AND ${leg}_offer_state = 'offered'`,
      [party.partyId],
    );
    return found[0]?.intent_id ?? null;
  }, `a ${leg} offer to ${party.partyId}`);
  const offers = await h.ledger.getPendingOffers(party.partyId);
  const offer = offers.find((o) => o.receiver === party.partyId);
  if (offer === undefined) throw new Error(`the ledger has no offer to ${party.partyId}`);
  return { intentId: intent, offer };
}

/** A party that pre-approves nothing, holding Amulet to swap (its deposit is still one-step). */
function withoutPreapproval(h: EngineHarness, hint: string): Promise<Party> {
  return h.newParty(hint, [], [[h.amulet, '1000']]);
}

/**
 * The engine started and carol, who pre-approves nothing, asking to swap her 1000 Amulet: the
 * start every scenario here shares before it sets the pool up for the outcome it is about.
 */
async function carolAsksToSwap(h: EngineHarness, options?: { slippageTolerance: number }) {
  await h.startEngine();
  const carol = await withoutPreapproval(h, 'carol');
  const intent = await h.createIntent(carol, h.amulet, '1000', options);
  return { carol, intent };
}

/** The swap's refund as an offer waiting for the party: her deposit less the network fee. */
function offeredRefund(intent: { networkFeeAmount: Amount }, offer: PendingOffer) {
  return {
    amount: Amount.parse('1000').sub(intent.networkFeeAmount).toString(),
    networkFeeAmount: intent.networkFeeAmount.toString(),
    state: 'offered',
    updateId: expect.stringMatching(/^update-/),
    offerId: offer.offerId,
    expiresAt: offer.executeBefore.toISOString(),
  };
}

/** The party's answer to an offer, sent as its wallet sends it, under the command id given. */
function answerOffer(
  h: EngineHarness,
  party: Party,
  offer: PendingOffer,
  answer: 'accept' | 'reject',
  commandId: string,
): Promise<unknown> {
  const command = { commandId, offerId: offer.offerId, actor: party.partyId };
  return answer === 'accept' ? h.ledger.acceptOffer(command) : h.ledger.rejectOffer(command);
}

/** Moves the ledger's clock just past the offer's deadline, so the party can no longer take it. */
function letExpire(h: EngineHarness, offer: PendingOffer): Promise<void> {
  return h.advanceClock(offer.executeBefore.getTime() - h.clock.now().getTime() + 1);
}

describe('a payout to a party without a transfer pre-approval', () => {
  it('waits as an offer in sending_output, then completes once the party accepts', async () => {
    const h = await world.harness();
    const { carol, intent } = await carolAsksToSwap(h);
    await h.deposit(carol, h.amulet, '1000');
    const { offer } = await offerTo(h, carol, 'payout');

    const waiting = await statusOf(h, intent.intentId);
    expect(waiting.status).toBe('sending_output');
    expect(waiting.payout).toEqual({
      amount: intent.expectedOutput.toString(),
      state: 'offered',
      updateId: expect.stringMatching(/^update-/),
      offerId: offer.offerId,
      expiresAt: offer.executeBefore.toISOString(),
    });
    expect(offer.amount).toEqual(intent.expectedOutput);

    await answerOffer(h, carol, offer, 'accept', 'carol-accepts');
    await h.waitForStatus(intent.intentId, 'completed');
    const done = await statusOf(h, intent.intentId);
    expect(done.payout).toEqual({
      amount: intent.expectedOutput.toString(),
      state: 'committed',
      updateId: done.payout?.updateId,
      offerId: offer.offerId,
      expiresAt: offer.executeBefore.toISOString(),
    });
    expect(done.payout?.updateId).not.toBe(waiting.payout?.updateId);
    expect(done.actualOutput).toBe(intent.expectedOutput.toString());
    expect(await h.balance(carol, h.usdcx)).toEqual(intent.expectedOutput);
    expect(await eventNames(h, intent.intentId)).toEqual([
      'pending',
      ...SETTLING_STATES,
      'payout_offered',
      'payout_accepted',
      'completed',
    ]);
    // Leg events are not state changes.
    expect(done.history.map((entry) => entry.status)).toEqual(COMPLETED_SWAP_HISTORY);
    await h.booksMatchLedger();
  });

  it('ends output_failed when the party rejects it; the refund is itself an offer to accept', async () => {
    const h = await world.harness();
    const { carol, intent } = await carolAsksToSwap(h);
    await h.deposit(carol, h.amulet, '1000');
    const payout = await offerTo(h, carol, 'payout');
    await answerOffer(h, carol, payout.offer, 'reject', 'carol-rejects');

    const refund = await offerTo(h, carol, 'refund');
    const waiting = await statusOf(h, intent.intentId);
    expect(waiting.status).toBe('sending_output');
    expect(waiting.payout).toMatchObject({ state: 'rejected', offerId: payout.offer.offerId });
    const owed = Amount.parse('1000').sub(intent.networkFeeAmount).toString();
    expect(waiting.refund).toEqual(offeredRefund(intent, refund.offer));

    await answerOffer(h, carol, refund.offer, 'accept', 'carol-takes-refund');
    await h.waitForStatus(intent.intentId, 'output_failed');
    const ended = await statusOf(h, intent.intentId);
    expect(ended.failureReason?.code).toBe('output_failed');
    expect(ended.payout).toMatchObject({ state: 'rejected', offerId: payout.offer.offerId });
    expect(ended.refund).toMatchObject({ amount: owed, state: 'committed' });
    expect(await h.balance(carol, h.amulet)).toEqual(Amount.parse(owed));
    expect(await h.balance(carol, h.usdcx)).toEqual(Amount.ZERO);
    expect((await eventNames(h, intent.intentId)).slice(5)).toEqual([
      'sending_output',
      'payout_offered',
      'payout_rejected',
      'refund_offered',
      'refund_accepted',
      'output_failed',
    ]);
    await h.booksMatchLedger();
  });

  it('ends output_failed when the offer expires unanswered, with the leg expired', async () => {
    const h = await world.harness();
    await h.startEngine();
    // Dave pre-approves Amulet, so only the payout waits.
    const dave = await h.newParty('dave', [h.amulet], [[h.amulet, '1000']]);
    const intent = await h.createIntent(dave, h.amulet, '1000');
    await h.deposit(dave, h.amulet, '1000');
    const { offer } = await offerTo(h, dave, 'payout');
    await letExpire(h, offer);
    // The ledger leaves an expired offer pending: the receiver can no longer accept it...
    await expect(answerOffer(h, dave, offer, 'accept', 'dave-too-late')).rejects.toMatchObject({
      code: 'offer_expired',
    });
    // ...and the service withdraws it, which ends the leg expired.
    await h.waitForStatus(intent.intentId, 'output_failed');
    const ended = await statusOf(h, intent.intentId);
    expect(ended.payout).toMatchObject({ state: 'expired', offerId: offer.offerId });
    expect(ended.refund).toMatchObject({ state: 'committed', offerId: null, expiresAt: null });
    expect((await eventNames(h, intent.intentId)).slice(5)).toEqual([
      'sending_output',
      'payout_offered',
      'payout_expired',
      'output_failed',
    ]);
    expect(await h.ledger.getPendingOffers(dave.partyId)).toEqual([]);
    const withdrawal = (await listCommandsOfIntent(h.db, intent.intentId)).find(
      (command) => command.leg === 'withdraw',
    );
    expect(withdrawal).toMatchObject({
      commandId: `${offer.offerId}:withdraw:0`,
      status: 'committed',
      payload: { kind: 'withdraw', offerId: offer.offerId, actor: h.pool().swapParty },
    });
    expect(await h.ledger.lookupCommand(withdrawal?.commandId ?? '')).toMatchObject({
      updateId: withdrawal?.updateId,
    });
    expect(ended.payout?.updateId).toBe(withdrawal?.updateId);
    await h.booksMatchLedger();
  });
});

describe('a refund to a party without a transfer pre-approval', () => {
  it('waits as an offer in processing, then ends slippage_failed once the party accepts', async () => {
    const h = await world.harness();
    const { carol, intent } = await carolAsksToSwap(h, { slippageTolerance: 0.001 });
    // Another swap moves the price past carol's tolerance first.
    const bob = await h.createIntent(h.bob, h.amulet, '5000');
    await h.deposit(h.bob, h.amulet, '5000');
    await h.waitForStatus(bob.intentId, 'completed');
    await h.deposit(carol, h.amulet, '1000');

    const { offer } = await offerTo(h, carol, 'refund');
    const waiting = await statusOf(h, intent.intentId);
    expect(waiting.status).toBe('processing');
    expect(waiting.terminal).toBe(false);
    expect(waiting.payout).toBeNull();
    const owed = Amount.parse('1000').sub(intent.networkFeeAmount).toString();
    expect(waiting.refund).toEqual(offeredRefund(intent, offer));

    await answerOffer(h, carol, offer, 'accept', 'carol-accepts-refund');
    await h.waitForStatus(intent.intentId, 'slippage_failed');
    const ended = await statusOf(h, intent.intentId);
    expect(ended.refund).toMatchObject({
      amount: owed,
      state: 'committed',
      offerId: offer.offerId,
      updateId: (await h.intent(intent.intentId)).refund?.updateId,
    });
    expect((await eventNames(h, intent.intentId)).slice(4)).toEqual([
      'processing',
      'refund_offered',
      'refund_accepted',
      'slippage_failed',
    ]);
    await h.booksMatchLedger();
  });

  it.each([
    {
      answer: 'rejects the refund offer',
      state: 'rejected',
      event: 'refund_rejected',
      act: (h: EngineHarness, carol: Party, offer: PendingOffer) =>
        answerOffer(h, carol, offer, 'reject', 'carol-rejects-refund'),
    },
    {
      answer: 'lets the refund offer expire unanswered',
      state: 'expired',
      event: 'refund_expired',
      act: (h: EngineHarness, _carol: Party, offer: PendingOffer) => letExpire(h, offer),
    },
  ])(
    'ends refund_failed, flagged for an operator, when the party $answer',
    async ({ state, event, act }) => {
      const h = await world.harness();
      const { carol, intent } = await carolAsksToSwap(h);
      await world.db.query(
        `UPDATE pools SET price_impact_cap = 0.00001 WHERE pool_id = 'amulet-usdcx'`,
      );
      await h.deposit(carol, h.amulet, '1000');
      const { offer } = await offerTo(h, carol, 'refund');
      await act(h, carol, offer);
      await h.waitForStatus(intent.intentId, 'refund_failed');
      const ended = await statusOf(h, intent.intentId);
      expect(ended.refund).toMatchObject({ state, offerId: offer.offerId });
      expect((await eventNames(h, intent.intentId)).slice(4)).toEqual([
        'processing',
        'refund_offered',
        event,
        'refund_failed',
      ]);
      const flags = await listOpenOperatorFlags(h.db, 10);
      expect(flags).toMatchObject([{ intentId: intent.intentId, kind: 'refund_failed' }]);
      // The amount is back with the swap party, unlocked and parked for the operator.
      expect(await h.ledger.getPendingOffers(carol.partyId)).toEqual([]);
      await h.booksMatchLedger();
    },
  );
});
