/**
 * Allocations through the Canton wire codec: each allocation update of the local ledger, encoded
 * as the devnet ledger serves it and decoded as the canton adapter reads it, is the same update;
 * a reader that cannot look an allocation up reads its execution as the annotated transfer.
 */
import { Amount, type Instrument } from '@poolparty/core';
import { describe, expect, it } from 'vitest';
import {
  decodeTransaction,
  encodeTransaction,
  type JsTransaction,
} from '../src/canton/wire/index.js';
import { type Allocation, type LedgerUpdate, openLocalLedger } from '../src/index.js';
import { settleWithdrawAndCancel } from './support/allocation-updates.js';

/** Each allocation update of a small settlement, with its transaction as the devnet serves it. */
async function allocationUpdates(): Promise<{ update: LedgerUpdate; tx: JsTransaction }[]> {
  const ledger = await openLocalLedger({});
  const party = async (hint: string) => (await ledger.createParty({ hint })).partyId;
  const admin = await party('registry');
  const instrument: Instrument = { admin, id: 'USD' };
  await ledger.createInstrument(instrument);
  const [alice, bob, venue] = [await party('alice'), await party('bob'), await party('venue')];
  await ledger.mint({ owner: alice, instrument, amount: Amount.of(10) });
  await ledger.mint({ owner: bob, instrument, amount: Amount.of(10) });
  await settleWithdrawAndCancel(ledger, { alice, bob, venue }, instrument, { note: 'dvp' });
  const rendered: { update: LedgerUpdate; tx: JsTransaction }[] = [];
  // The two mints first: from offset 3 on, every update is an allocation's.
  for (let offset = 3; offset <= (await ledger.ledgerEnd()); offset++) {
    const update = ledger.updateAt(offset);
    const changes = ledger.holdingChangesAt(offset);
    if (update === undefined || changes === undefined) throw new Error(`no update at ${offset}`);
    const tx = encodeTransaction({ update, ...changes, offers: new Map(), synchronizerId: 's' });
    rendered.push({ update, tx });
  }
  await ledger.close();
  return rendered;
}

describe('allocations through the wire codec', () => {
  it('decodes every allocation update as the local ledger made it', async () => {
    const updates = await allocationUpdates();
    const known = new Map<string, Allocation>();
    for (const { update, tx } of updates) {
      const decoded = decodeTransaction(tx, { allocationOf: (id) => known.get(id) });
      for (const event of decoded.events) {
        if (event.kind === 'allocation_created')
          known.set(event.allocation.allocationId, event.allocation);
      }
      expect(decoded.events).toEqual(update.events);
    }
    expect(updates.flatMap(({ update }) => update.events.map((e) => e.kind))).toEqual([
      'allocation_created',
      'allocation_created',
      'allocation_executed',
      'allocation_executed',
      'allocation_created',
      'allocation_withdrawn',
      'allocation_created',
      'allocation_cancelled',
    ]);
  });

  it('reads an execution it cannot look up as the transfers, and a release as no event', async () => {
    const updates = await allocationUpdates();
    const kinds = updates.map(({ tx }) => decodeTransaction(tx).events.map((e) => e.kind));
    expect(kinds).toEqual([
      ['allocation_created'],
      ['allocation_created'],
      ['transfer', 'transfer'],
      ['allocation_created'],
      [],
      ['allocation_created'],
      [],
    ]);
  });
});
