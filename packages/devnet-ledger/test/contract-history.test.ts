/**
 * The devnet ledger server's contract store answers "what was active at offset N" for any N up to
 * the end. A stream resuming a little behind the end asks for an earlier offset than the last
 * answer; that set, taken back from the latest one, must be exactly what walking the ledger from
 * its start to N gives — for every offset of a ledger with direct transfers, offers accepted,
 * rejected and withdrawn, and holdings locked for offers.
 */
import { Amount } from '@poolparty/core';
import { type LocalLedger, openLocalLedger } from '@poolparty/ledger';
import { beforeAll, describe, expect, it } from 'vitest';
import { type ActiveSet, ContractHistory } from '../src/contract-history.js';

const ids = (set: ActiveSet) => ({
  holdings: set.holdings.map((h) => [h.contract.holdingId, h.createdAt]),
  instructions: set.instructions.map((i) => [i.contract.offerId, i.createdAt]),
});

describe('the contracts active at an offset', () => {
  let ledger: LocalLedger;
  let end = 0;
  const lockedOffers: string[] = [];

  beforeAll(async () => {
    ledger = await openLocalLedger();
    const amulet = { admin: (await ledger.createParty({ hint: 'DSO' })).partyId, id: 'Amulet' };
    await ledger.createInstrument(amulet);
    const pool = (await ledger.createParty({ hint: 'pool', preapprovals: [amulet] })).partyId;
    const alice = (await ledger.createParty({ hint: 'alice' })).partyId;
    const bob = (await ledger.createParty({ hint: 'bob' })).partyId;
    let n = 0;
    const command = () => `c-${++n}`;
    for (const owner of [alice, bob]) {
      await ledger.mint({ owner, instrument: amulet, amount: Amount.parse('1000') });
    }
    for (let round = 0; round < 6; round++) {
      // A direct transfer (pre-approved), and offers each ended another way.
      await ledger.submitTransfer({
        commandId: command(),
        sender: alice,
        receiver: pool,
        instrument: amulet,
        amount: Amount.parse('10'),
      });
      const offers = [];
      for (const sender of [alice, bob, alice]) {
        const outcome = await ledger.submitTransfer({
          commandId: command(),
          sender,
          receiver: sender === alice ? bob : alice,
          instrument: amulet,
          amount: Amount.parse(`${round + 1}`),
        });
        if (outcome.kind !== 'offer') throw new Error('expected an offer');
        offers.push({ offerId: outcome.offerId, sender, receiver: sender === alice ? bob : alice });
        lockedOffers.push(outcome.offerId);
      }
      const [accepted, rejected, withdrawn] = offers;
      if (!accepted || !rejected || !withdrawn) throw new Error('three offers');
      await ledger.acceptOffer({
        commandId: command(),
        offerId: accepted.offerId,
        actor: accepted.receiver,
      });
      await ledger.rejectOffer({
        commandId: command(),
        offerId: rejected.offerId,
        actor: rejected.receiver,
      });
      if (round % 2 === 0) {
        await ledger.withdrawOffer({
          commandId: command(),
          offerId: withdrawn.offerId,
          actor: withdrawn.sender,
        });
      }
    }
    end = await ledger.ledgerEnd();
  });

  it('taken back from the end, each offset is what a walk from the start to it gives', () => {
    const latest = new ContractHistory(ledger);
    latest.activeAt(end);
    for (let offset = 0; offset <= end; offset++) {
      const walked = new ContractHistory(ledger).activeAt(offset);
      expect(ids(latest.activeAt(offset)), `offset ${offset}`).toEqual(ids(walked));
    }
    // Going back does not move the store: the end is still answered as it was.
    expect(ids(latest.activeAt(end))).toEqual(ids(new ContractHistory(ledger).activeAt(end)));
  });

  it('names the holding each offer locked', () => {
    const history = new ContractHistory(ledger);
    history.activeAt(end);
    for (const offerId of lockedOffers) {
      const locked = history.lockedHoldingsOf(offerId);
      expect(locked, offerId).toHaveLength(1);
      expect(history.contractUpTo(locked[0] ?? '', end)?.record.kind).toBe('holding');
    }
    expect(history.lockedHoldingsOf('no-such-offer')).toEqual([]);
  });
});
