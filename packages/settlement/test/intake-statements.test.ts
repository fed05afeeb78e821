/**
 * What intake costs the store: a one-step deposit that finds its intent is taken in three
 * statements (the pool locked with the deposits seen already, the candidate intents read, and
 * one write that claims the intent, records the deposit and moves the books), whatever the number
 * of deposits in the run; and each deposit ends as it would taken alone.
 */
import { Amount } from '@poolparty/core';
import type { IntentRecord, Queryable } from '@poolparty/store';
import { getPool, listPools } from '@poolparty/store';
import { recordedAmount } from '@poolparty/store/testing';
import { describe, expect, it } from 'vitest';
import { type IncomingDeposit, takeDeposits } from '../src/intake.js';
import { readPriceBook } from '../src/prices.js';
import { type EngineHarness, useEngineWorld } from '../testing/engine.js';

/** Statements a matched one-step deposit may cost, alone or in a run of any size. */
const MATCHED_RUN_STATEMENTS_MAX = 3;
const RUN_SIZES = [1, 5];

const world = useEngineWorld();

/** `count` wallets, each with a pending intent for 100 and its deposit, not yet taken in. */
async function pendingDeposits(h: EngineHarness, count: number) {
  const intents: IntentRecord[] = [];
  const incomings: IncomingDeposit[] = [];
  for (let i = 0; i < count; i += 1) {
    const party = await h.newParty(`count-${count}-${i}`, [h.amulet, h.usdcx], [[h.amulet, '100']]);
    const intent = await h.createIntent(party, h.amulet, '100');
    intents.push(intent);
    incomings.push(await h.incomingDepositOf(party, intent, count * 1_000 + i));
  }
  return {
    intents,
    incomings,
    prices: await readPriceBook(h.ledger, await listPools(h.db), h.clock.now()),
  };
}

/** The transaction, with every statement sent through it counted. */
function counting(tx: Queryable): { readonly tx: Queryable; readonly count: () => number } {
  let statements = 0;
  return {
    tx: {
      query: (sql, params) => {
        statements += 1;
        return tx.query(sql, params);
      },
      exec: (script) => {
        statements += 1;
        return tx.exec(script);
      },
    },
    count: () => statements,
  };
}

describe('intake of matched one-step deposits', () => {
  it.each(RUN_SIZES)('takes a run of %i in at most three statements', async (size) => {
    const h = await world.harness();
    const { intents, incomings, prices } = await pendingDeposits(h, size);
    const inflightBefore = recordedAmount(
      (await getPool(h.db, 'amulet-usdcx'))?.accounting.inflightA,
    );
    let statements = 0;
    await h.db.transaction(async (tx) => {
      const counted = counting(tx);
      await takeDeposits(counted.tx, incomings, prices, h.clock.now());
      statements = counted.count();
    });
    expect(statements).toBeLessThanOrEqual(MATCHED_RUN_STATEMENTS_MAX);
    for (const intent of intents) {
      const taken = await h.intent(intent.intentId);
      expect(taken.status).toBe('deposit_received');
      expect(taken.deposit?.amount).toEqual(intent.expectedAmount);
    }
    const inflightAfter = recordedAmount(
      (await getPool(h.db, 'amulet-usdcx'))?.accounting.inflightA,
    );
    const deposited = Amount.sum(incomings.map((incoming) => incoming.amount));
    expect(inflightAfter.sub(inflightBefore).toString()).toBe(deposited.toString());
  });
});
