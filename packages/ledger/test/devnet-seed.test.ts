import { ed25519 } from '@noble/curves/ed25519.js';
import { Amount, fingerprint, type Instrument, sameInstrument } from '@poolparty/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DevnetSeedError,
  type LocalLedger,
  openLocalLedger,
  REASON_META_KEY,
  seedDevnet,
} from '../src/index.js';

const operatorNamespace = `1220${'0f'.repeat(32)}`;
const ledgers: LocalLedger[] = [];

afterEach(async () => {
  await Promise.all(ledgers.splice(0).map((ledger) => ledger.close()));
});

async function seeded() {
  const ledger = await openLocalLedger({ operatorNamespace });
  ledgers.push(ledger);
  return { ledger, seed: await seedDevnet(ledger) };
}

async function balance(ledger: LocalLedger, party: string, instrument: Instrument) {
  const holdings = await ledger.getHoldings(party);
  return Amount.sum(
    holdings.filter((h) => sameInstrument(h.instrument, instrument)).map((h) => h.amount),
  ).toString();
}

describe('devnet seed', () => {
  it('creates Amulet, CBTC and USDCx under two admins', async () => {
    const { ledger, seed } = await seeded();
    const { amulet, usdcx, usdcxBridged, cbtc } = seed.instruments;
    expect(amulet.admin).toBe(`DSO::${operatorNamespace}`);
    expect(usdcx.id).toBe(usdcxBridged.id);
    expect(usdcx.admin).not.toBe(usdcxBridged.admin);
    expect(await ledger.listInstruments()).toEqual([amulet, usdcx, usdcxBridged, cbtc]);
  });

  it('funds every pool swap party with its reserves, canonical pool at 0.145 USDCx', async () => {
    const { ledger, seed } = await seeded();
    expect(seed.pools.map((p) => p.poolId)).toHaveLength(3);
    for (const pool of seed.pools) {
      expect(await balance(ledger, pool.swapParty, pool.tokenA)).toBe(
        pool.reserves.tokenA.toString(),
      );
      expect(await balance(ledger, pool.swapParty, pool.tokenB)).toBe(
        pool.reserves.tokenB.toString(),
      );
      expect(await ledger.getParty(pool.lpParty)).toEqual({
        partyId: pool.lpParty,
        kind: 'internal',
      });
      expect(pool.swapParty.endsWith(`::${operatorNamespace}`)).toBe(true);
    }
    const canonical = seed.pools[0];
    expect(canonical?.reserves.tokenA.toString()).toBe('1000000');
    expect(canonical?.reserves.tokenB.toString()).toBe('145000');
    expect(canonical?.tokenB).toEqual(seed.instruments.usdcx);
  });

  it('swap parties pre-approve Amulet only: other deposits arrive as offers', async () => {
    const { ledger, seed } = await seeded();
    const [user] = seed.users;
    const [pool] = seed.pools;
    if (!user || !pool) throw new Error('seed without users or pools');
    const deposit = (commandId: string, instrument: Instrument) =>
      ledger.submitTransfer({
        commandId,
        sender: user.partyId,
        receiver: pool.swapParty,
        instrument,
        amount: Amount.of(10),
        meta: { [REASON_META_KEY]: 'deposit' },
      });
    expect((await deposit('d1', pool.tokenA)).kind).toBe('direct');
    expect((await deposit('d2', pool.tokenB)).kind).toBe('offer');
  });

  it('gives the developer and users key pairs that control their parties', async () => {
    const { ledger, seed } = await seeded();
    for (const party of [seed.developer, ...seed.users]) {
      const publicKey = ed25519.getPublicKey(Buffer.from(party.privateKey, 'hex'));
      expect(Buffer.from(publicKey).toString('hex')).toBe(party.publicKey);
      expect(party.partyId.endsWith(`::${fingerprint(publicKey)}`)).toBe(true);
      expect(await ledger.isSigningKeyOf(party.partyId, publicKey)).toBe(true);
    }
  });

  it('funds two users who take every instrument directly', async () => {
    const { ledger, seed } = await seeded();
    expect(seed.users).toHaveLength(2);
    const [alice, bob] = seed.users;
    if (!alice || !bob) throw new Error('seed without two users');
    expect(await balance(ledger, alice.partyId, seed.instruments.amulet)).toBe('10000');
    expect(await balance(ledger, bob.partyId, seed.instruments.usdcx)).toBe('5000');
    const payout = await ledger.submitTransfer({
      commandId: 'p1',
      sender: alice.partyId,
      receiver: bob.partyId,
      instrument: seed.instruments.cbtc,
      amount: Amount.parse('0.01'),
    });
    expect(payout.kind).toBe('direct');
  });

  it('refuses to seed a second time and changes nothing', async () => {
    const { ledger } = await seeded();
    const end = await ledger.ledgerEnd();
    await expect(seedDevnet(ledger)).rejects.toBeInstanceOf(DevnetSeedError);
    expect(await ledger.ledgerEnd()).toBe(end);
  });
});
