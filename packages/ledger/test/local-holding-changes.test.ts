import { Amount, type Instrument } from '@poolparty/core';
import { describe, expect, it } from 'vitest';
import type { Holding, LocalLedger } from '../src/index.js';
import { localLedgers } from './support/local-ledgers.js';

const { open, dataFolder } = localLedgers('poolparty-holding-changes-');

/** A readable summary: `<owner>:<amount>[ locked]`. */
function summary(holdings: readonly Holding[], names: ReadonlyMap<string, string>): string[] {
  return holdings.map((h) => `${names.get(h.owner)}:${h.amount}${h.lock ? ' locked' : ''}`).sort();
}

async function scenario(ledger: LocalLedger) {
  const admin = (await ledger.createParty({ hint: 'registry' })).partyId;
  const instrument: Instrument = { admin, id: 'USDCx' };
  await ledger.createInstrument(instrument);
  const alice = (await ledger.createParty({ hint: 'alice' })).partyId;
  const bob = (await ledger.createParty({ hint: 'bob', preapprovals: 'all' })).partyId;
  const carol = (await ledger.createParty({ hint: 'carol' })).partyId;
  const names = new Map([
    [alice, 'alice'],
    [bob, 'bob'],
    [carol, 'carol'],
  ]);
  const minted = await ledger.mint({ owner: alice, instrument, amount: Amount.of(100) });
  const direct = await ledger.submitTransfer({
    commandId: 'direct',
    sender: alice,
    receiver: bob,
    instrument,
    amount: Amount.of(30),
  });
  const offered = await ledger.submitTransfer({
    commandId: 'offer',
    sender: alice,
    receiver: carol,
    instrument,
    amount: Amount.of(25),
  });
  if (offered.kind !== 'offer') throw new Error('carol does not pre-approve: expected an offer');
  const accepted = await ledger.acceptOffer({
    commandId: 'accept',
    offerId: offered.offerId,
    actor: carol,
  });
  return {
    names,
    offerId: offered.offerId,
    offsets: [minted.offset, direct.offset, offered.offset, accepted.offset],
  };
}

describe('holdingChangesAt', () => {
  it('names the holdings each update created and archived, with their ids', async () => {
    const ledger = await open();
    const { names, offerId, offsets } = await scenario(ledger);
    const [mint, direct, offer, accept] = offsets.map((offset) => {
      const changes = ledger.holdingChangesAt(offset);
      if (!changes) throw new Error(`no holding changes at ${offset}`);
      return changes;
    });
    if (!(mint && direct && offer && accept)) throw new Error('four updates expected');

    expect(summary(mint.created, names)).toEqual(['alice:100']);
    expect(mint.archived).toEqual([]);
    // The direct transfer spends the minted holding: 30 to bob, 70 back as change.
    expect(direct.archived).toEqual(mint.created);
    expect(summary(direct.created, names)).toEqual(['alice:70', 'bob:30']);
    // The offer spends the change and locks exactly the offered amount for the offer.
    const change = direct.created.filter((h) => names.get(h.owner) === 'alice');
    expect(offer.archived).toEqual(change);
    expect(summary(offer.created, names)).toEqual(['alice:25 locked', 'alice:45']);
    const locked = offer.created.find((h) => h.lock !== null);
    expect(locked?.lock?.offerId).toBe(offerId);
    // Accepting archives the locked holding and creates the receiver's.
    expect(accept.archived).toEqual([locked]);
    expect(summary(accept.created, names)).toEqual(['carol:25']);

    // Every created holding that is still live is what getHoldings shows, same id.
    const live = new Set(
      (await Promise.all([...names.keys()].map((p) => ledger.getHoldings(p))))
        .flat()
        .map((h) => h.holdingId),
    );
    const created = [mint, direct, offer, accept].flatMap((c) => c.created.map((h) => h.holdingId));
    const archived = [mint, direct, offer, accept].flatMap((c) =>
      c.archived.map((h) => h.holdingId),
    );
    expect(new Set(created.filter((id) => !archived.includes(id)))).toEqual(live);
  });

  it('is undefined where no update committed', async () => {
    const ledger = await open();
    await scenario(ledger);
    const end = await ledger.ledgerEnd();
    expect(ledger.holdingChangesAt(0)).toBeUndefined();
    expect(ledger.holdingChangesAt(end + 1)).toBeUndefined();
    expect(ledger.holdingChangesAt(end)).toBeDefined();
  });

  it('survives a reopen: the journal replay derives the same changes', async () => {
    const dir = await dataFolder();
    const first = await open(dir);
    await scenario(first);
    const end = await first.ledgerEnd();
    const offsets = Array.from({ length: end }, (_, i) => i + 1);
    const before = offsets.map((offset) => first.holdingChangesAt(offset));
    await first.close();

    const second = await open(dir);
    expect(offsets.map((offset) => second.holdingChangesAt(offset))).toEqual(before);
    expect(before.every((changes) => changes !== undefined)).toBe(true);
  });
});
