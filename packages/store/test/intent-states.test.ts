/**
 * An intent's state is written only along its kind's lifecycle, whatever writes it: the store's
 * state writer refuses an unlisted path before any statement, and the database refuses, for every
 * pair of states, a change that no path of listed edges connects — also from a statement written
 * by hand, as an operator's or a future query's would be.
 */
import {
  Amount,
  IllegalPathError,
  INTENT_KINDS,
  INTENT_LIFECYCLES,
  type IntentKind,
  reachablePairs,
} from '@poolparty/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Database,
  IN_MEMORY,
  insertAtomicSwap,
  insertIntent,
  insertLiquidityIntent,
  migrate,
  openPglite,
  type Queryable,
  writeIntentStates,
} from '../src/index.js';
import { testAtomicSwap, testIntent } from '../testing/intents.js';
import { seedIntentWorld } from '../testing/seed.js';

const T0 = new Date('2026-03-01T10:00:00Z');
/** Each kind's table, its id and owner columns, and its model intent's id. */
const SOURCE: Readonly<
  Record<IntentKind, { table: string; id: string; owner: string; model: string }>
> = {
  swap: { table: 'intents', id: 'intent_id', owner: 'wallet_party', model: 'swp_model' },
  liquidity: {
    table: 'liquidity_intents',
    id: 'liquidity_intent_id',
    owner: 'provider_party',
    model: 'liq_model',
  },
  atomic_swap: {
    table: 'atomic_swaps',
    id: 'atomic_swap_id',
    owner: 'trader_party',
    model: 'atm_model',
  },
};

let db: Database;

beforeAll(async () => {
  db = await openPglite(IN_MEMORY);
  await migrate(db);
  await seedIntentWorld(db, T0);
  await insertIntent(
    db,
    testIntent({
      intentId: 'swp_model',
      poolId: 'pool-1',
      apiKeyId: 'key_1',
      developerParty: 'dev::1220',
      walletParty: 'alice::1220',
      depositAddress: 'swap::1220cc',
      depositReference: 'pp-model',
      createdAt: T0,
    }),
  );
  await insertLiquidityIntent(db, {
    liquidityIntentId: 'liq_model',
    poolId: 'pool-1',
    apiKeyId: 'key_1',
    developerParty: 'dev::1220',
    providerParty: 'lp-alice::1220',
    depositAddress: 'lp::1220dd',
    depositReference: 'pp-liq-model',
    expectedA: Amount.parse('100'),
    expectedB: Amount.parse('14.5'),
    expectedUnits: Amount.parse('1'),
    minimumUnits: Amount.parse('0.99'),
    slippageBps: 100,
    createdAt: T0,
    expiresAt: new Date(T0.getTime() + 86_400_000),
  });
  await insertAtomicSwap(db, testAtomicSwap({ atomicSwapId: 'atm_model', createdAt: T0 }));
  // The facts the states after signing require, so a copy may be put in any state.
  await db.query(
    `UPDATE atomic_swaps SET trader_signature = 'c2ln', update_id = 'upd-1', excess = 0
     WHERE atomic_swap_id = 'atm_model'`,
  );
});

afterAll(() => db?.close());

let copies = 0;

/** A copy of the kind's model intent, inserted straight in `status` (inserts are not moves). */
async function intentIn(kind: IntentKind, status: string): Promise<string> {
  copies += 1;
  const { table, id, owner, model } = SOURCE[kind];
  const copyId = `${kind}_copy_${copies}`;
  await db.query(
    `INSERT INTO ${table} SELECT copy.* FROM ${table} m,
       LATERAL jsonb_populate_record(NULL::${table}, to_jsonb(m) || jsonb_build_object(
         '${id}', $1::text, 'deposit_reference', $1::text, 'command_id', $1::text,
         'status', $2::text, '${owner}', $1::text, 'minted_units', 1)) copy
     WHERE m.${id} = $3`,
    [copyId, status, model],
  );
  return copyId;
}

/** The error a hand-written status change meets, or null when it was written. */
async function handWritten(kind: IntentKind, from: string, to: string): Promise<unknown> {
  const intentId = await intentIn(kind, from);
  const { table, id } = SOURCE[kind];
  try {
    await db.transaction((tx) =>
      tx.query(`UPDATE ${table} SET status = $2 WHERE ${id} = $1`, [intentId, to]),
    );
    return null;
  } catch (error) {
    return error;
  }
}

describe.each(INTENT_KINDS)('the %s lifecycle', (kind) => {
  const lifecycle = INTENT_LIFECYCLES[kind];
  const reachable = new Set(reachablePairs(lifecycle).map(([a, b]) => `${a}>${b}`));

  it("is the database's table of moves, pair for pair", async () => {
    const rows = await db.query<{ from_status: string; to_status: string }>(
      `SELECT from_status, to_status FROM intent_state_moves WHERE kind = $1
       ORDER BY from_status, to_status`,
      [kind],
    );
    const inDatabase = rows.map((row) => `${row.from_status}>${row.to_status}`).sort();
    expect(inDatabase).toEqual([...reachable].sort());
  });

  it('lets the database write a change of state only where a path of edges connects it', async () => {
    for (const from of lifecycle.states) {
      for (const to of lifecycle.states) {
        if (from === to) continue;
        const error = await handWritten(kind, from, to);
        if (reachable.has(`${from}>${to}`)) expect(error, `${from} → ${to}`).toBeNull();
        else expect(error, `${from} → ${to}`).toMatchObject({ code: '23514' });
      }
    }
  }, 60_000);

  it('refuses every path that is not a run of edges before sending any statement', async () => {
    const sent: string[] = [];
    const recording = {
      query: async (sql: string) => {
        sent.push(sql);
        return [];
      },
    } as unknown as Queryable;
    const write = (from: string, through: readonly string[]) =>
      writeIntentStates(recording, kind, [{ id: 'x', from: [from], through }], T0);
    // Every edge alone is written, in one statement.
    for (const [from, to] of lifecycle.edges) {
      const before = sent.length;
      await expect(write(from, [to])).resolves.toEqual([]);
      expect(sent.length - before, `${from} → ${to}`).toBe(1);
    }
    const state = fc.constantFrom(...lifecycle.states);
    await fc.assert(
      fc.asyncProperty(state, fc.array(state, { maxLength: 4 }), async (from, through) => {
        let at = from;
        const listed =
          through.length > 0 &&
          through.every((next) => {
            const ok = lifecycle.edges.some(([a, b]) => a === at && b === next);
            at = next;
            return ok;
          });
        const before = sent.length;
        if (listed) await expect(write(from, through)).resolves.toEqual([]);
        else await expect(write(from, through)).rejects.toBeInstanceOf(IllegalPathError);
        expect(sent.length - before).toBe(listed ? 1 : 0);
      }),
    );
  }, 60_000);
});
