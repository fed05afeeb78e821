/**
 * Migration 0014: a store migrated with swaps already completed notes, for each, whether its fee
 * event was there, so the count of completed swaps with incomplete accounting is the same before
 * and after it.
 */
import { describe, expect, it } from 'vitest';
import {
  countIncompleteCompletedSwaps,
  type Database,
  insertApiKey,
  insertFeeEvent,
  insertIntent,
  migrate,
  upsertDeveloper,
} from '../src/index.js';
import {
  TEST_AMULET,
  TEST_USDCX,
  testFeeEvent,
  testIntent,
  usePgliteStores,
} from '../testing/index.js';

const T0 = new Date('2026-03-01T12:00:00.000Z');
const AMULET = TEST_AMULET;
const USDCX = TEST_USDCX;
const POOL_ID = 'amulet-usdcx';
const SWAP_PARTY = 'swap::1220cc';
const openStore = usePgliteStores();

/** A store at the schema before 0014 with a pool and a developer key. */
async function storeBefore0014() {
  const db = await openStore({ before: '0014' });
  await upsertDeveloper(db, 'dev::1220dd', T0);
  const key = await insertApiKey(db, {
    keyId: 'key_1',
    developerParty: 'dev::1220dd',
    name: 'main',
    keyHash: 'ab'.repeat(32),
    prefix: 'pp_test_abcd',
    environment: 'devnet',
    createdAt: T0,
  });
  await db.query(
    `INSERT INTO pools (pool_id, token_a_id, token_a_admin, token_b_id, token_b_admin, swap_party,
       lp_party, lp_supply, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'lp::1220cc', 1000, $7, $7)`,
    [POOL_ID, AMULET.id, AMULET.admin, USDCX.id, USDCX.admin, SWAP_PARTY, T0],
  );
  return { db, apiKeyId: key.keyId };
}

/** A swap completed as that schema completes one: payout and output noted, with or without its fee event. */
async function completedBefore0014(db: Database, apiKeyId: string, n: number, feeEvent: boolean) {
  const intentId = `int_${n}`;
  await insertIntent(
    db,
    testIntent({
      intentId,
      poolId: POOL_ID,
      apiKeyId,
      developerParty: 'dev::1220dd',
      walletParty: 'carol::1220ee',
      depositAddress: SWAP_PARTY,
      depositReference: `pp-${n}`,
      createdAt: T0,
    }),
  );
  if (feeEvent) {
    await insertFeeEvent(db, testFeeEvent({ intentId, poolId: POOL_ID, apiKeyId }, T0));
  }
  await db.query(
    `UPDATE intents SET status = 'completed', actual_output = 14.3, payout_update_id = $2,
       completed_at = $3, updated_at = $3 WHERE intent_id = $1`,
    [intentId, `upd-${n}`, T0],
  );
}

describe('migration 0014', () => {
  it('notes the fee events of swaps completed before it; the count is unchanged', async () => {
    const { db, apiKeyId } = await storeBefore0014();
    await completedBefore0014(db, apiKeyId, 1, true);
    await completedBefore0014(db, apiKeyId, 2, false);
    await completedBefore0014(db, apiKeyId, 3, true);
    // 0014 applies first; the migrations after it follow in the same run.
    expect((await migrate(db))[0]).toBe('0014_incomplete_completed_swaps.sql');
    const rows = await db.query(
      'SELECT intent_id, fee_event_at_completion FROM intents ORDER BY intent_id',
    );
    expect(rows).toEqual([
      { intent_id: 'int_1', fee_event_at_completion: true },
      { intent_id: 'int_2', fee_event_at_completion: false },
      { intent_id: 'int_3', fee_event_at_completion: true },
    ]);
    expect(await countIncompleteCompletedSwaps(db, POOL_ID)).toBe(1);
  });
});
