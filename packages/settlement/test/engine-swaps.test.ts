/**
 * The settlement engine end to end on the local devnet ledger: a deposit in, the output (or a
 * refund) out, with every unit on the ledger accounted for — the user's balances, the swap
 * party's, and the store's books of the pool.
 */
import { Amount } from '@poolparty/core';
import { listCommandsOfIntent, listIntentEvents } from '@poolparty/store';
import { COMPLETED_SWAP_HISTORY, recordedAmount } from '@poolparty/store/testing';
import { describe, expect, it } from 'vitest';
import { type EngineHarness, useEngineWorld } from '../testing/engine.js';

const world = useEngineWorld();
let h: EngineHarness;

const amount = (text: string) => Amount.parse(text);

describe('a swap that completes', () => {
  it('takes a one-step Amulet deposit and pays USDCx directly to a pre-approving user', async () => {
    h = await world.harness();
    await h.startEngine();
    const { alice, amulet, usdcx } = h;
    const swapParty = h.pool().swapParty;
    const before = {
      aliceAmulet: await h.balance(alice, amulet),
      aliceUsdcx: await h.balance(alice, usdcx),
      poolAmulet: await h.balance(swapParty, amulet),
      poolUsdcx: await h.balance(swapParty, usdcx),
    };
    const intent = await h.createIntent(alice, amulet, '1000', { slippageTolerance: 0.01 });
    await h.deposit(alice, amulet, '1000', { reference: intent.depositReference });

    const done = await h.waitForStatus(intent.intentId, 'completed');
    const output = recordedAmount(done.actualOutput);
    expect(output).toEqual(intent.expectedOutput);
    expect(done.payout?.updateId).toMatch(/^update-/);
    expect(await h.balance(alice, amulet)).toEqual(before.aliceAmulet.sub(amount('1000')));
    expect(await h.balance(alice, usdcx)).toEqual(before.aliceUsdcx.add(output));
    expect(await h.balance(swapParty, amulet)).toEqual(before.poolAmulet.add(amount('1000')));
    expect(await h.balance(swapParty, usdcx)).toEqual(before.poolUsdcx.sub(output));
    await h.booksMatchLedger();

    const history = (await listIntentEvents(world.db, intent.intentId)).map((e) => e.status);
    expect(history).toEqual(COMPLETED_SWAP_HISTORY);
    expect(h.invalidated).toContain('amulet-usdcx');
    expect(await h.transfersWithReason(`payout:${intent.intentId}`)).toBe(1);
  });

  it('accepts a two-step USDCx deposit offer, then pays Amulet', async () => {
    h = await world.harness();
    await h.startEngine();
    const { alice, amulet, usdcx } = h;
    const swapParty = h.pool().swapParty;
    const aliceAmulet = await h.balance(alice, amulet);
    const aliceUsdcx = await h.balance(alice, usdcx);
    const intent = await h.createIntent(alice, usdcx, '250');
    // No reference: attributed by sender, pool and instrument.
    const sent = await h.deposit(alice, usdcx, '250');
    expect(sent.kind).toBe('offer');

    const done = await h.waitForStatus(intent.intentId, 'completed');
    const output = recordedAmount(done.actualOutput);
    expect(output).toEqual(intent.expectedOutput);
    expect(await h.balance(alice, usdcx)).toEqual(aliceUsdcx.sub(amount('250')));
    expect(await h.balance(alice, amulet)).toEqual(aliceAmulet.add(output));
    expect(await h.balance(swapParty, usdcx)).toEqual(amount('145250'));
    expect(await h.balance(swapParty, amulet)).toEqual(amount('1000000').sub(output));
    await h.booksMatchLedger();
    const legs = (await listCommandsOfIntent(world.db, intent.intentId)).map((c) => [
      c.leg,
      c.status,
    ]);
    expect(legs).toEqual([
      ['accept', 'committed'],
      ['payout', 'committed'],
    ]);
  });

  it('completes when a receiver without pre-approval accepts the payout offer', async () => {
    h = await world.harness();
    await h.startEngine();
    const { amulet, usdcx } = h;
    const carol = await h.newParty('carol', [amulet], [[amulet, '500']]);
    const intent = await h.createIntent(carol, amulet, '500');
    await h.deposit(carol, amulet, '500');
    await h.waitForStatus(intent.intentId, 'sending_output');
    const offer = await waitForOffer(h, carol.partyId);
    expect(offer.amount).toEqual(intent.expectedOutput);
    await h.ledger.acceptOffer({
      commandId: 'carol-accepts',
      offerId: offer.offerId,
      actor: carol.partyId,
    });

    const done = await h.waitForStatus(intent.intentId, 'completed');
    expect(await h.balance(carol, usdcx)).toEqual(recordedAmount(done.actualOutput));
    expect(await h.balance(carol, amulet)).toEqual(Amount.ZERO);
    await h.booksMatchLedger();
  });
});

async function waitForOffer(harness: EngineHarness, partyId: string) {
  for (let i = 0; i < 1000; i++) {
    const offers = await harness.ledger.getPendingOffers(partyId);
    const incoming = offers.find((o) => o.receiver === partyId);
    if (incoming) return incoming;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no offer arrived');
}
