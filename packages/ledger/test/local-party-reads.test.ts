/**
 * The local ledger's party reads for the devnet ledger server: every party in creation order,
 * and whether a receiver pre-approves an instrument (one by one, all, or all but some).
 */
import { generateKeyPair } from '@poolparty/core';
import { describe, expect, it } from 'vitest';
import { openLocalLedger } from '../src/index.js';

describe('local ledger party reads', () => {
  it('lists every party with its kind, in creation order', async () => {
    const ledger = await openLocalLedger();
    const internal = await ledger.createParty({ hint: 'pool' });
    const external = await ledger.createParty({
      hint: 'wallet',
      publicKey: generateKeyPair().publicKey,
    });
    expect(await ledger.listParties()).toEqual([
      { partyId: internal.partyId, kind: 'internal' },
      { partyId: external.partyId, kind: 'external' },
    ]);
    await ledger.close();
  });

  it('tells whether a receiver pre-approves an instrument', async () => {
    const ledger = await openLocalLedger();
    const admin = (await ledger.createParty({ hint: 'admin' })).partyId;
    const amulet = { admin, id: 'Amulet' };
    const usdcx = { admin, id: 'USDCx' };
    await ledger.createInstrument(amulet);
    await ledger.createInstrument(usdcx);
    const some = (await ledger.createParty({ hint: 'some', preapprovals: [amulet] })).partyId;
    const all = (await ledger.createParty({ hint: 'all', preapprovals: 'all' })).partyId;
    expect(await ledger.preapproves(some, amulet)).toBe(true);
    expect(await ledger.preapproves(some, usdcx)).toBe(false);
    expect(await ledger.preapproves(all, usdcx)).toBe(true);
    await ledger.setPreapproval(all, usdcx, false);
    expect(await ledger.preapproves(all, usdcx)).toBe(false);
    expect(await ledger.preapproves('nobody::1220ab', amulet)).toBe(false);
    await ledger.close();
  });
});
