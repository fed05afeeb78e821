/**
 * The canton adapter keeps each party's holdings and offers between reads and catches them up
 * from the changes in between. Whatever happened in between — transfers in and out, offers made,
 * accepted, rejected and withdrawn, more changes than the participant lists over HTTP — its
 * answer is the one a whole list gives: an adapter that never read before.
 */
import { Amount } from '@poolparty/core';
import type { CantonLedger, Holding } from '@poolparty/ledger';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdapterWorld, startAdapterWorld } from './adapter-world.js';

let w: AdapterWorld;
let sequence = 0;
function cmd(what: string): string {
  sequence += 1;
  return `active-sets-${what}-${sequence}`;
}

beforeAll(async () => {
  w = await startAdapterWorld();
});
afterAll(() => w.close());

/** A party's holdings and offers, in a form two adapters' answers compare by. */
async function seen(ledger: CantonLedger, party: string) {
  const holdings = (await ledger.getHoldings(party)).map((holding: Holding) => ({
    id: holding.holdingId,
    amount: holding.amount.toString(),
    instrument: `${holding.instrument.admin}/${holding.instrument.id}`,
    locked: holding.lock !== null,
  }));
  const offers = (await ledger.getPendingOffers(party)).map((offer) => offer.offerId);
  return {
    holdings: holdings.sort((a, b) => a.id.localeCompare(b.id)),
    offers: offers.sort(),
  };
}

async function expectSameAsWholeList(parties: readonly string[]) {
  const fresh = await w.open();
  try {
    for (const party of parties) {
      expect(await seen(w.canton, party)).toEqual(await seen(fresh, party));
    }
  } finally {
    await fresh.close();
  }
}

type Step =
  | { readonly kind: 'mint'; readonly to: 'alice' | 'bob'; readonly amount: number }
  | { readonly kind: 'pay'; readonly from: 'alice' | 'bob'; readonly amount: number }
  | { readonly kind: 'offer'; readonly ending: 'accept' | 'reject' | 'withdraw' | 'open' };

const steps = fc.array(
  fc.oneof(
    fc.record({
      kind: fc.constant('mint' as const),
      to: fc.constantFrom('alice' as const, 'bob' as const),
      amount: fc.integer({ min: 1, max: 50 }),
    }),
    fc.record({
      kind: fc.constant('pay' as const),
      from: fc.constantFrom('alice' as const, 'bob' as const),
      amount: fc.integer({ min: 1, max: 5 }),
    }),
    fc.record({
      kind: fc.constant('offer' as const),
      ending: fc.constantFrom(
        'accept' as const,
        'reject' as const,
        'withdraw' as const,
        'open' as const,
      ),
    }),
  ),
  { minLength: 1, maxLength: 6 },
);

/** One step on the ledger, through the adapter (whose own reads are kept between steps). */
async function take(step: Step): Promise<void> {
  const usd = w.usd;
  if (step.kind === 'mint') {
    const owner = step.to === 'alice' ? w.alice : w.bob;
    await w.local.mint({ owner, instrument: usd, amount: Amount.of(step.amount) });
    return;
  }
  if (step.kind === 'pay') {
    // Bob pre-approves USD: a payment to him settles at once; one to alice is an offer she takes.
    const [sender, receiver] = step.from === 'alice' ? [w.alice, w.bob] : [w.bob, w.alice];
    const outcome = await w.canton
      .submitTransfer({
        commandId: cmd('pay'),
        sender,
        receiver,
        instrument: usd,
        amount: Amount.of(step.amount),
      })
      .catch(() => null); // Not enough to send: nothing changes.
    if (outcome?.kind === 'offer') {
      await w.canton.acceptOffer({
        commandId: cmd('take'),
        offerId: outcome.offerId,
        actor: w.alice,
      });
    }
    return;
  }
  const offered = await w.canton.submitTransfer({
    commandId: cmd('offer'),
    sender: w.alice,
    receiver: w.carol,
    instrument: w.eur,
    amount: Amount.parse('0.5'),
  });
  if (offered.kind !== 'offer' || step.ending === 'open') return;
  const actions = {
    accept: () =>
      w.canton.acceptOffer({ commandId: cmd('accept'), offerId: offered.offerId, actor: w.carol }),
    reject: () =>
      w.canton.rejectOffer({ commandId: cmd('reject'), offerId: offered.offerId, actor: w.carol }),
    withdraw: () =>
      w.canton.withdrawOffer({
        commandId: cmd('withdraw'),
        offerId: offered.offerId,
        actor: w.alice,
      }),
  };
  await actions[step.ending]();
}

describe('kept holdings and offers', () => {
  it('answer what a whole list answers, after any steps in between', async () => {
    await w.local.mint({ owner: w.alice, instrument: w.eur, amount: Amount.of(1_000) });
    await fc.assert(
      fc.asyncProperty(steps, async (taken) => {
        await expectSameAsWholeList([w.alice, w.bob, w.carol]);
        for (const step of taken) {
          await take(step);
          await expectSameAsWholeList([w.alice, w.bob, w.carol]);
        }
      }),
      { numRuns: 12 },
    );
  });

  it('answer what a whole list answers after more changes than the participant lists at once', async () => {
    await seen(w.canton, w.bob);
    // More than the participant's list limit (200) of changes to bob since the adapter's last read.
    for (let i = 0; i < 210; i += 1) {
      await w.local.mint({ owner: w.bob, instrument: w.usd, amount: Amount.parse('0.01') });
    }
    await expectSameAsWholeList([w.bob]);
    const total = (await w.canton.getHoldings(w.bob)).reduce(
      (sum, holding) => sum.add(holding.amount),
      Amount.ZERO,
    );
    expect(total.gte(Amount.parse('2.1'))).toBe(true);
  });
});
