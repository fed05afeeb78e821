/**
 * In-memory PGlite stores for the store's own tests: one fresh store a test, at the current
 * schema or at the one before a migration under test, closed after its test.
 */
import { Amount } from '@poolparty/core';
import { afterEach } from 'vitest';
import {
  type Database,
  IN_MEMORY,
  loadMigrations,
  migrate,
  type NewPool,
  openPglite,
  type Queryable,
} from '../src/index.js';

/**
 * A function that opens a store for the calling test, migrated through every migration, or only
 * through those named before `before` (e.g. `'0018'`) to test that migration on what it finds.
 * Each store it opened is closed after the test.
 */
export function usePgliteStores(): (options?: { readonly before?: string }) => Promise<Database> {
  const opened: Database[] = [];
  afterEach(async () => {
    for (const db of opened.splice(0)) await db.close();
  });
  return async (options = {}) => {
    const db = await openPglite(IN_MEMORY);
    opened.push(db);
    const { before } = options;
    await migrate(
      db,
      before === undefined ? undefined : loadMigrations().filter((m) => m.name < before),
    );
    return db;
  };
}

/** The Amulet/USDCx pool of the migration tests: 1000 Amulet against 145 USDCx, 100 units. */
export function testPool(createdAt: Date): NewPool {
  return {
    poolId: 'amulet-usdcx',
    tokenA: { id: 'Amulet', admin: 'dso::1' },
    tokenB: { id: 'USDCx', admin: 'circle::1' },
    swapParty: 'swap::1',
    lpParty: 'lp::1',
    lpSupply: Amount.parse('100'),
    reserveA: Amount.parse('1000'),
    reserveB: Amount.parse('145'),
    createdAt,
  };
}

/**
 * `testPool`'s pool and its books written as the statements of the first migrations did, for a
 * store migrated only part way: today's `insertPool` writes columns of later migrations.
 */
export async function insertEarlyPool(db: Queryable, createdAt: Date): Promise<void> {
  await db.query(
    `INSERT INTO pools (pool_id, token_a_id, token_a_admin, token_b_id, token_b_admin, swap_party,
       lp_party, fee_bps, lp_supply, guard, created_at, updated_at)
     VALUES ('amulet-usdcx', 'Amulet', 'dso::1', 'USDCx', 'circle::1', 'swap::1', 'lp::1', 30,
       100, '{}'::jsonb, $1, $1)`,
    [createdAt],
  );
  await db.query(
    `INSERT INTO pool_accounting (pool_id, reserve_a, reserve_b, updated_at)
     VALUES ('amulet-usdcx', 1000, 145, $1)`,
    [createdAt],
  );
}
