/**
 * A run of deposits taken together (intake.ts `takeDeposits`) ends each deposit as taking them
 * one by one would, including when a cancel takes an intent between the read of the candidates
 * and the claim: that deposit alone goes back, the others are kept, and the books hold each
 * amount once.
 */
import { Amount } from '@poolparty/core';
import { REASON_META_KEY } from '@poolparty/ledger';
import { describe, expect, it } from 'vitest';
import { type IncomingDeposit, takeDeposits } from '../src/engine/intake.js';
import { readPriceBook } from '../src/engine/prices.js';
import type { Queryable } from '../src/store/database.js';
import { cancelIntent, getPool, type IntentRecord, listPools } from '../src/store/index.js';
import { type EngineHarness, type Party, useEngineWorld } from './support/engine.js';

const world = useEngineWorld();

async function incomingOf(
  h: EngineHarness,
  party: Party,
  intent: IntentRecord,
  n: number,
): Promise<IncomingDeposit> {
  const pool = await getPool(h.db, 'amulet-usdcx');
  if (pool === null) throw new Error('no pool');
  return {
    updateId: `update-${n}`,
    eventIndex: 0,
    offset: 1_000_000 + n,
    recordTime: h.clock.now(),
    pool,
    sender: party.partyId,
    instrument: h.amulet,
    amount: Amount.parse(intent.expectedAmount),
    meta: { [REASON_META_KEY]: intent.depositReference },
    offerId: null,
  };
}

describe('a run of deposits taken together', () => {
  it('keeps each deposit once and returns the one whose intent a cancel took mid-run', async () => {
    const h = await world.harness();
    const parties: Party[] = [];
    const intents: IntentRecord[] = [];
    for (let i = 0; i < 3; i++) {
      const party = await h.newParty(`run-${i}`, [h.amulet, h.usdcx], [[h.amulet, '100']]);
      parties.push(party);
      intents.push(await h.createIntent(party, h.amulet, '100'));
    }
    const incomings = await Promise.all(
      intents.map((intent, i) => incomingOf(h, parties[i] as Party, intent, i)),
    );
    const prices = await readPriceBook(h.ledger, await listPools(h.db));
    const [, taken] = intents;
    if (taken === undefined) throw new Error('no intent');
    const before = (await getPool(h.db, 'amulet-usdcx'))?.accounting;

    await h.db.transaction(async (tx) => {
      // The cancel lands after the candidates were read, just before the claim.
      const racing: Queryable = {
        query: async (sql, params) => {
          if (sql.trimStart().startsWith('WITH claims AS')) {
            const now = h.clock.now();
            await cancelIntent(tx, {
              intentId: taken.intentId,
              walletParty: taken.walletParty,
              now,
            });
          }
          return tx.query(sql, params);
        },
        exec: (script) => tx.exec(script),
      };
      await takeDeposits(racing, incomings, prices, h.clock.now());
      // Delivered again: every deposit is recorded already, nothing changes.
      await takeDeposits(tx, incomings, prices, h.clock.now());
    });

    for (const intent of intents) {
      const now = await h.intent(intent.intentId);
      expect(now.status).toBe(intent === taken ? 'cancelled' : 'deposit_received');
    }
    const deposits = await h.db.query<{ intent_id: string | null; status: string }>(
      'SELECT intent_id, status FROM deposits ORDER BY update_id',
    );
    expect(deposits.map((d) => d.status)).toEqual(['attributed', 'unmatched', 'attributed']);
    expect(deposits[1]?.intent_id).toBeNull();
    const refunds = await h.db.query(`SELECT 1 FROM ledger_commands WHERE leg = 'refund'`);
    expect(refunds).toHaveLength(1);
    // Two deposits in flight, the third on its way back (refund and fee): 300 in all, once each.
    const after = (await getPool(h.db, 'amulet-usdcx'))?.accounting;
    if (before === undefined || after === undefined) throw new Error('no books');
    const grew = (field: 'inflightA' | 'outgoingA' | 'feesA') =>
      Amount.parse(after[field]).sub(Amount.parse(before[field]));
    expect(grew('inflightA').toString()).toBe('200');
    expect(grew('outgoingA').add(grew('feesA')).toString()).toBe('100');
  });
});
