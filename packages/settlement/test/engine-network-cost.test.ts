/**
 * Fees an instrument burns on a transfer (Amulet's transfer fees) leave the sender's holdings on
 * top of the amount. When the sender is a pool's swap party, the engine books them as a network
 * cost of the payout or refund, so the books keep equalling the swap party's holdings.
 *
 * The local ledger burns no fees, so the ledger here reports a fee on every Amulet transfer the
 * swap party sends, and the test burns that much of the swap party's Amulet, as the network
 * would have.
 */
import { Amount, sameInstrument } from '@poolparty/core';
import type { LedgerPort, LedgerUpdate, UpdateSubscription } from '@poolparty/ledger';
import { getPool } from '@poolparty/store';
import { recordedAmount } from '@poolparty/store/testing';
import { describe, expect, it } from 'vitest';
import { type EngineHarness, useEngineWorld } from '../testing/engine.js';

const world = useEngineWorld();
const FEE = Amount.parse('0.75');

/** The ledger, reporting `fee` burned on every Amulet transfer the swap party sends. */
function burningFees(h: EngineHarness, fee: Amount): LedgerPort {
  const swapParty = h.pool().swapParty;
  const withFees = (update: LedgerUpdate): LedgerUpdate => ({
    ...update,
    events: update.events.map((event) =>
      event.kind === 'transfer' &&
      event.sender === swapParty &&
      sameInstrument(event.instrument, h.amulet)
        ? { ...event, feesBurned: fee }
        : event,
    ),
  });
  async function* updates(from: number, subscription?: UpdateSubscription) {
    for await (const update of h.ledger.updates(from, subscription)) yield withFees(update);
  }
  return new Proxy(h.ledger, {
    get(target, property, receiver) {
      if (property === 'updates') return updates;
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

async function books(h: EngineHarness) {
  const pool = await getPool(h.db, 'amulet-usdcx');
  if (pool === null) throw new Error('no pool amulet-usdcx');
  return pool.accounting;
}

/** Alice swaps USDCx for Amulet: the payout is an Amulet transfer from the swap party. */
async function amuletPayout(h: EngineHarness) {
  const intent = await h.createIntent(h.alice, h.usdcx, '100');
  await h.deposit(h.alice, h.usdcx, '100');
  const done = await h.waitForStatus(intent.intentId, 'completed');
  // What the network burned from the swap party along with the payout.
  await h.ledger.burn({ owner: h.pool().swapParty, instrument: h.amulet, amount: FEE });
  return done;
}

describe('fees burned by a transfer the swap party sends', () => {
  it('are paid from the network fees the side collected', async () => {
    const h = await world.harness();
    await h.startEngine({ ledger: burningFees(h, FEE) });
    // Bob's Amulet swap leaves network and platform fees on the Amulet side.
    const bob = await h.createIntent(h.bob, h.amulet, '1000');
    await h.deposit(h.bob, h.amulet, '1000');
    await h.waitForStatus(bob.intentId, 'completed');
    const before = await books(h);
    expect(before.feesA.gt(FEE)).toBe(true);

    const alice = await amuletPayout(h);
    const after = await books(h);
    expect(after.feesA).toEqual(before.feesA.sub(FEE));
    expect(after.reserveA).toEqual(before.reserveA.sub(recordedAmount(alice.actualOutput)));
    await h.booksMatchLedger();
  });

  it('come from the reserve where the collected fees cannot cover them', async () => {
    const h = await world.harness();
    await h.startEngine({ ledger: burningFees(h, FEE) });
    const before = await books(h);
    expect(before.feesA).toEqual(Amount.ZERO);

    const alice = await amuletPayout(h);
    const after = await books(h);
    expect(after.feesA).toEqual(Amount.ZERO);
    const output = recordedAmount(alice.actualOutput);
    expect(after.reserveA).toEqual(before.reserveA.sub(output).sub(FEE));
    await h.booksMatchLedger();
  });
});
