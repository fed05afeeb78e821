/**
 * Migration 0022, the fees a position earned: pools and positions that existed before it start
 * counting from it (growth 0, nothing accrued), and a pool's growth of 38 decimals is kept exactly.
 */
import { Amount, FEE_GROWTH_SCALE, feesEarned, NO_FEE_GROWTH } from '@poolparty/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type Database,
  getPool,
  getPosition,
  IN_MEMORY,
  loadMigrations,
  migrate,
  openPglite,
  setLpFeeGrowth,
} from '../src/index.js';
import { insertEarlyPool } from '../testing/index.js';

const T0 = new Date('2026-03-01T12:00:00.000Z');
const open: Database[] = [];

afterEach(async () => {
  for (const db of open.splice(0)) await db.close();
});

/** A pool and a position as a store before 0022 holds them, written as its statements did. */
async function storeBefore0022(): Promise<Database> {
  const db = await openPglite(IN_MEMORY);
  open.push(db);
  await migrate(
    db,
    loadMigrations().filter((m) => m.name < '0022'),
  );
  await insertEarlyPool(db, T0);
  await db.query(
    `INSERT INTO liquidity_positions (pool_id, provider_party, units, basis_a, basis_b,
       created_at, updated_at)
     VALUES ('amulet-usdcx', 'alice::1', 99, 990, 143.55, $1, $1)`,
    [T0],
  );
  return db;
}

describe('migration 0022', () => {
  it('starts the pools and positions that existed before it at growth 0 with nothing accrued', async () => {
    const db = await storeBefore0022();
    await migrate(db, loadMigrations());
    const pool = await getPool(db, 'amulet-usdcx');
    const position = await getPosition(db, 'amulet-usdcx', 'alice::1');
    expect(pool?.lpFeeGrowth).toEqual(NO_FEE_GROWTH);
    expect(position?.fees).toEqual({
      growthLast: NO_FEE_GROWTH,
      accruedA: Amount.ZERO,
      accruedB: Amount.ZERO,
    });
    if (pool === null || position === null) throw new Error('missing');
    expect(feesEarned(position.fees, position.units, pool.lpFeeGrowth)).toEqual({
      a: Amount.ZERO,
      b: Amount.ZERO,
    });
  });

  it('keeps a growth of 38 decimals exactly, whatever its size', async () => {
    const db = await storeBefore0022();
    await migrate(db, loadMigrations());
    const growth = { a: 1n, b: 12_345n * FEE_GROWTH_SCALE * 10n ** 30n + 7n };
    await setLpFeeGrowth(db, 'amulet-usdcx', growth, T0);
    expect((await getPool(db, 'amulet-usdcx'))?.lpFeeGrowth).toEqual(growth);
  });
});
