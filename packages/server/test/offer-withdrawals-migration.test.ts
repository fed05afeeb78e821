/**
 * Migration 0007: the engine withdraws its own payout and refund offers after their deadline, so
 * a store migrated while such offers are pending must know when to withdraw them, and must accept
 * `withdraw` commands.
 */

import {
  type Database,
  IN_MEMORY,
  insertApiKey,
  insertIntent,
  loadMigrations,
  migrate,
  openPglite,
  recordLedgerCommand,
  recordLegOffer,
  upsertDeveloper,
} from '@poolparty/store';
import { TEST_AMULET, TEST_USDCX, testIntent } from '@poolparty/store/testing';
import { afterEach, describe, expect, it } from 'vitest';

const T0 = new Date('2026-03-01T12:00:00.000Z');
const DAY_MS = 24 * 60 * 60_000;
const AMULET = TEST_AMULET;
const USDCX = TEST_USDCX;
const open: Database[] = [];

afterEach(async () => {
  for (const db of open.splice(0)) await db.close();
});

/** A store at the schema before 0007 with one intent whose payout is a pending offer. */
async function storeWithPendingPayoutOffer() {
  const db = await openPglite(IN_MEMORY);
  open.push(db);
  const all = loadMigrations();
  await migrate(
    db,
    all.filter((m) => m.name < '0007'),
  );
  const developerParty = 'dev::1220dd';
  await upsertDeveloper(db, developerParty, T0);
  const key = await insertApiKey(db, {
    keyId: 'key_1',
    developerParty,
    name: 'main',
    keyHash: 'ab'.repeat(32),
    prefix: 'pp_test_abcd',
    environment: 'devnet',
    createdAt: T0,
  });
  // Written as that schema has it: today's insertPool writes columns added after 0007.
  const poolId = 'amulet-usdcx';
  const swapParty = 'swap::1220cc';
  await db.query(
    `INSERT INTO pools (pool_id, token_a_id, token_a_admin, token_b_id, token_b_admin, swap_party,
       lp_party, lp_supply, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'lp::1220cc', 1000, $7, $7)`,
    [poolId, AMULET.id, AMULET.admin, USDCX.id, USDCX.admin, swapParty, T0],
  );
  await db.query(
    `INSERT INTO pool_accounting (pool_id, reserve_a, reserve_b, updated_at)
     VALUES ($1, 1000000, 145000, $2)`,
    [poolId, T0],
  );
  const intent = await insertIntent(
    db,
    testIntent({
      intentId: 'int_1',
      poolId,
      apiKeyId: key.keyId,
      developerParty,
      walletParty: 'carol::1220ee',
      depositAddress: swapParty,
      depositReference: 'pp-1',
      createdAt: T0,
    }),
  );
  const expiresAt = new Date(T0.getTime() + 2 * DAY_MS);
  for (const [leg, offerId] of [
    ['payout', 'offer-pending'],
    ['refund', 'offer-answered'],
  ] as const) {
    await recordLedgerCommand(db, {
      commandId: `int_1:${leg}:0`,
      intentId: intent.intentId,
      depositId: null,
      leg,
      attempt: 0,
      payload: {},
      createdAt: T0,
    });
    await db.query(
      `UPDATE ledger_commands SET status = 'committed', update_id = $2, offer_id = $3
       WHERE command_id = $1`,
      [`int_1:${leg}:0`, `update-${leg}`, offerId],
    );
    await recordLegOffer(db, {
      intentId: intent.intentId,
      leg,
      offerId,
      expiresAt,
      updateId: `update-${leg}`,
      at: T0,
    });
  }
  // The refund's offer was answered already: nothing to withdraw.
  await db.query(`UPDATE intents SET refund_offer_state = 'committed' WHERE intent_id = 'int_1'`);
  return { db, all, expiresAt };
}

describe('migration 0007 (offer withdrawals)', () => {
  it('schedules the withdrawal of offers pending at migration time, at their deadline', async () => {
    const { db, all, expiresAt } = await storeWithPendingPayoutOffer();
    await migrate(db, all);
    const rows = await db.query<{ leg: string; offer_withdraw_due_at: Date | null }>(
      'SELECT leg, offer_withdraw_due_at FROM ledger_commands ORDER BY leg',
    );
    expect(rows).toEqual([
      { leg: 'payout', offer_withdraw_due_at: expiresAt },
      { leg: 'refund', offer_withdraw_due_at: null },
    ]);
  });

  it('accepts withdraw commands, and still no other leg', async () => {
    const { db, all } = await storeWithPendingPayoutOffer();
    await migrate(db, all);
    const command = {
      intentId: 'int_1',
      depositId: null,
      attempt: 0,
      payload: {},
      createdAt: T0,
    };
    await expect(
      recordLedgerCommand(db, {
        ...command,
        commandId: 'offer-pending:withdraw:0',
        leg: 'withdraw',
      }),
    ).resolves.toMatchObject({ leg: 'withdraw', status: 'recorded' });
    await expect(
      db.query(
        `INSERT INTO ledger_commands (command_id, intent_id, leg, attempt, status, created_at,
           updated_at) VALUES ('x', 'int_1', 'expire', 0, 'recorded', $1, $1)`,
        [T0],
      ),
    ).rejects.toThrow(/ledger_commands_leg_check/);
  });
});
