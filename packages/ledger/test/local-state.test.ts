import { ed25519 } from '@noble/curves/ed25519.js';
import { Amount, type Instrument } from '@poolparty/core';
import { afterEach, describe, expect, it } from 'vitest';
import { LedgerError, type LedgerUpdate, MINING_ROUND_MS, openLocalLedger } from '../src/index.js';
import type { LocalLedger } from '../src/local/control.js';

const RFC8032_TEST1_KEY = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';
const RFC8032_TEST1_FINGERPRINT =
  '1220035a791d845bbb8195615e7eccd7a57c2ec4075c2e88695f194bab4e0194a889';
const START = new Date('2030-01-01T00:00:00Z');

const ledgers: LocalLedger[] = [];
afterEach(async () => {
  await Promise.all(ledgers.splice(0).map((ledger) => ledger.close()));
});

async function open(): Promise<LocalLedger> {
  const ledger = await openLocalLedger({ startTime: START });
  ledgers.push(ledger);
  return ledger;
}

function keyFor(seed: number): Uint8Array {
  return ed25519.getPublicKey(new Uint8Array(32).fill(seed));
}

/** A ledger with an instrument and two internal parties; `sender` holds 10, 30 and 20. */
async function funded() {
  const ledger = await open();
  const admin = (await ledger.createParty({ hint: 'registry' })).partyId;
  const instrument: Instrument = { admin, id: 'USDCx' };
  await ledger.createInstrument(instrument);
  const sender = (await ledger.createParty({ hint: 'sender' })).partyId;
  const receiver = (await ledger.createParty({ hint: 'receiver' })).partyId;
  for (const amount of ['10', '30', '20']) {
    await ledger.mint({ owner: sender, instrument, amount: Amount.parse(amount) });
  }
  return { ledger, instrument, sender, receiver };
}

async function amountsOf(ledger: LocalLedger, party: string) {
  const holdings = await ledger.getHoldings(party);
  return holdings.map((h) => `${h.amount}${h.lock ? ' locked' : ''}`).sort();
}

async function updatesBetween(ledger: LocalLedger, from: number): Promise<LedgerUpdate[]> {
  const end = await ledger.ledgerEnd();
  const updates: LedgerUpdate[] = [];
  if (end <= from) return updates;
  for await (const update of ledger.updates(from)) {
    updates.push(update);
    if (update.offset >= end) break;
  }
  return updates;
}

describe('parties', () => {
  it('names an external party by the fingerprint of its key (RFC 8032 test key)', async () => {
    const ledger = await open();
    const publicKey = Buffer.from(RFC8032_TEST1_KEY, 'hex');
    const { partyId } = await ledger.createParty({ hint: 'alice', publicKey });
    expect(partyId).toBe(`alice::${RFC8032_TEST1_FINGERPRINT}`);
    expect(await ledger.getParty(partyId)).toEqual({ partyId, kind: 'external' });
  });

  it('knows the creation key and added keys as signing keys, and no others', async () => {
    const ledger = await open();
    const { partyId } = await ledger.createParty({ hint: 'alice', publicKey: keyFor(1) });
    expect(await ledger.isSigningKeyOf(partyId, keyFor(1))).toBe(true);
    expect(await ledger.isSigningKeyOf(partyId, keyFor(2))).toBe(false);
    await ledger.addSigningKey(partyId, keyFor(2));
    expect(await ledger.isSigningKeyOf(partyId, keyFor(2))).toBe(true);
    expect(await ledger.isSigningKeyOf('nobody::1220', keyFor(1))).toBe(false);
  });

  it('creating an existing party returns it and changes nothing', async () => {
    const ledger = await open();
    const first = await ledger.createParty({ hint: 'pool-swap' });
    const endBefore = await ledger.ledgerEnd();
    const second = await ledger.createParty({ hint: 'pool-swap', preapprovals: 'all' });
    expect(second.partyId).toBe(first.partyId);
    expect(await ledger.getParty(first.partyId)).toEqual({
      partyId: first.partyId,
      kind: 'internal',
    });
    expect(await ledger.ledgerEnd()).toBe(endBefore);
  });

  it('refuses hints outside [A-Za-z0-9_-]', async () => {
    const ledger = await open();
    for (const hint of ['', 'a::b', 'with space', 'é']) {
      await expect(ledger.createParty({ hint })).rejects.toBeInstanceOf(RangeError);
    }
  });

  it("a party pre-approving 'all' takes instruments created after it directly", async () => {
    const ledger = await open();
    const sender = (await ledger.createParty({ hint: 'sender' })).partyId;
    const wallet = (await ledger.createParty({ hint: 'wallet', preapprovals: 'all' })).partyId;
    const instrument = { admin: sender, id: 'LATER' };
    await ledger.createInstrument(instrument);
    await ledger.mint({ owner: sender, instrument, amount: Amount.of(1) });
    const outcome = await ledger.submitTransfer({
      commandId: 'c1',
      sender,
      receiver: wallet,
      instrument,
      amount: Amount.of(1),
    });
    expect(outcome.kind).toBe('direct');
  });
});

describe('transfers', () => {
  it('spends the largest holdings first and returns the excess as one change holding', async () => {
    const { ledger, instrument, sender, receiver } = await funded();
    await ledger.setPreapproval(receiver, instrument, true);
    await ledger.submitTransfer({
      commandId: 'c1',
      sender,
      receiver,
      instrument,
      amount: Amount.parse('35'),
    });
    // 30 and 20 are spent (largest first), 15 comes back; the 10 is untouched.
    expect(await amountsOf(ledger, sender)).toEqual(['10', '15']);
    expect(await amountsOf(ledger, receiver)).toEqual(['35']);
  });

  it('an offer locks exactly the amount; rejecting it gives the sender an unlocked holding', async () => {
    const { ledger, instrument, sender, receiver } = await funded();
    const outcome = await ledger.submitTransfer({
      commandId: 'c1',
      sender,
      receiver,
      instrument,
      amount: Amount.parse('25'),
    });
    if (outcome.kind !== 'offer') throw new Error('expected an offer');
    expect(await amountsOf(ledger, sender)).toEqual(['10', '20', '25 locked', '5']);
    await ledger.rejectOffer({ commandId: 'c2', offerId: outcome.offerId, actor: receiver });
    expect(await amountsOf(ledger, sender)).toEqual(['10', '20', '25', '5']);
    expect(await ledger.getPendingOffers(sender)).toEqual([]);
  });

  it('a command id already committed returns the first outcome, even with other content', async () => {
    const { ledger, instrument, sender, receiver } = await funded();
    const command = { commandId: 'same', sender, receiver, instrument, amount: Amount.of(5) };
    const first = await ledger.submitTransfer(command);
    const again = await ledger.submitTransfer({ ...command, amount: Amount.of(7) });
    expect(again).toEqual(first);
    expect(await ledger.getPendingOffers(receiver)).toHaveLength(1);
  });

  it('estimates about 20 000 bytes of traffic for a transfer with a reason', async () => {
    const { ledger, instrument, sender, receiver } = await funded();
    await ledger.setPreapproval(receiver, instrument, true);
    const { offset } = await ledger.submitTransfer({
      commandId: 'c1',
      sender,
      receiver,
      instrument,
      amount: Amount.parse('12.5'),
      meta: { 'splice.lfdecentralizedtrust.org/reason': 'swap payout 42' },
    });
    const [update] = await updatesBetween(ledger, offset - 1);
    expect(update?.trafficBytes).toBeGreaterThan(18_000);
    expect(update?.trafficBytes).toBeLessThan(22_000);
  });
});

describe('ledger time', () => {
  it('an offer at executeBefore can no longer be accepted, and stays pending until withdrawn', async () => {
    const { ledger, instrument, sender, receiver } = await funded();
    const now = await ledger.now();
    const executeBefore = new Date(now.getTime() + 60_000);
    const outcome = await ledger.submitTransfer({
      commandId: 'c1',
      sender,
      receiver,
      instrument,
      amount: Amount.of(5),
      executeBefore,
    });
    if (outcome.kind !== 'offer') throw new Error('expected an offer');
    await ledger.advanceClock(2 * 60_000);
    expect(await updatesBetween(ledger, outcome.offset)).toEqual([]);
    expect(await amountsOf(ledger, sender)).toEqual(['10', '20', '25', '5 locked']);
    const accepting = ledger.acceptOffer({
      commandId: 'c2',
      offerId: outcome.offerId,
      actor: receiver,
    });
    await expect(accepting).rejects.toMatchObject({ code: 'offer_expired' });
    await expect(accepting).rejects.toBeInstanceOf(LedgerError);
    expect((await ledger.getPendingOffers(receiver)).map((o) => o.offerId)).toEqual([
      outcome.offerId,
    ]);

    const withdrawn = await ledger.withdrawOffer({
      commandId: 'c3',
      offerId: outcome.offerId,
      actor: sender,
    });
    const [update] = await updatesBetween(ledger, withdrawn.offset - 1);
    expect(update?.events.map((e) => e.kind)).toEqual(['offer_withdrawn']);
    expect(await amountsOf(ledger, sender)).toEqual(['10', '20', '25', '5']);
    const changes = ledger.holdingChangesAt(withdrawn.offset);
    expect(changes?.archived.map((h) => h.lock?.expiresAt)).toEqual([executeBefore]);
    expect(changes?.created.map((h) => [h.amount.toString(), h.lock])).toEqual([['5', null]]);
  });

  it('a jump over several round boundaries opens only the newest round, with no update', async () => {
    const ledger = await open();
    const start = await ledger.ledgerEnd();
    const timeBefore = await ledger.now();
    await ledger.advanceClock(3 * MINING_ROUND_MS + 60_000);
    expect(await ledger.ledgerEnd()).toBe(start);
    expect(await updatesBetween(ledger, start)).toEqual([]);
    expect(await ledger.openMiningRound()).toEqual({
      round: 3,
      amuletPriceUsd: Amount.parse('0.145'),
      opensAt: new Date(START.getTime() + 3 * MINING_ROUND_MS),
    });
    expect((await ledger.now()).getTime()).toBeGreaterThan(timeBefore.getTime());
  });

  it('a new Amulet price is carried by the next round, not the open one', async () => {
    const ledger = await open();
    await ledger.setAmuletPrice(Amount.parse('0.2'));
    expect((await ledger.openMiningRound()).amuletPriceUsd.toString()).toBe('0.145');
    await ledger.advanceClock(MINING_ROUND_MS);
    const round = await ledger.openMiningRound();
    expect(round.amuletPriceUsd.toString()).toBe('0.2');
    expect(round.opensAt).toEqual(new Date(START.getTime() + MINING_ROUND_MS));
  });
});
