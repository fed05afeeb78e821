/**
 * The canton adapter asks the participant for its ledger end once for all the callers of one
 * turn of the event loop (a transfer's time and holdings, a round's pools), and never answers a
 * caller from a read sent before it asked: a commit it knew of is always in its answer.
 */
import diagnostics from 'node:diagnostics_channel';
import { Amount } from '@poolparty/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdapterWorld, startAdapterWorld } from './adapter-world.js';

let w: AdapterWorld;
let ledgerEndReads = 0;
const countLedgerEnd = (message: unknown) => {
  const { request } = message as { request: { path: string } };
  if (request.path.startsWith('/v2/state/ledger-end')) ledgerEndReads += 1;
};

beforeAll(async () => {
  w = await startAdapterWorld();
  diagnostics.subscribe('undici:request:create', countLedgerEnd);
});
afterAll(async () => {
  diagnostics.unsubscribe('undici:request:create', countLedgerEnd);
  await w.close();
});

describe('the ledger end', () => {
  it('is read once for the callers of one turn: the time, holdings and the end itself', async () => {
    await w.canton.getHoldings(w.alice);
    ledgerEndReads = 0;
    const [end, again, holdings, time] = await Promise.all([
      w.canton.ledgerEnd(),
      w.canton.ledgerEnd(),
      w.canton.getHoldings(w.alice),
      w.canton.now(),
    ]);
    expect(ledgerEndReads).toBe(1);
    expect(again).toBe(end);
    expect(holdings.length).toBeGreaterThan(0);
    expect(time).toBeInstanceOf(Date);
  });

  it('is read anew for a caller after a commit, and shows that commit', async () => {
    const before = await w.canton.ledgerEnd();
    const pending = w.canton.ledgerEnd();
    await w.local.mint({ owner: w.alice, instrument: w.usd, amount: Amount.of(1) });
    ledgerEndReads = 0;
    const after = await w.canton.ledgerEnd();
    expect(ledgerEndReads).toBe(1);
    expect(after).toBeGreaterThan(before);
    expect(await pending).toBeGreaterThanOrEqual(before);
    const holdings = await w.canton.getHoldings(w.alice);
    expect(holdings.some((h) => h.amount.eq(Amount.of(1)) && h.instrument.id === 'USD')).toBe(true);
  });
});
