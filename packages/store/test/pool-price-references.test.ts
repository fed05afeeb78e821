/**
 * A pool's reference price as its executions keep it (migration 0019): none before the first,
 * then exactly what was written — fractions of any size, to the last digit — and the latest write
 * replaces the one before.
 */
import { Amount } from '@poolparty/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type Database,
  getPoolPriceReference,
  IN_MEMORY,
  insertPool,
  migrate,
  openPglite,
  putPoolPriceReference,
} from '../src/index.js';

const T0 = new Date('2026-03-01T12:00:00.000Z');
const open: Database[] = [];

afterEach(async () => {
  for (const db of open.splice(0)) await db.close();
});

async function storeWithPool(): Promise<Database> {
  const db = await openPglite(IN_MEMORY);
  open.push(db);
  await migrate(db);
  await insertPool(db, {
    poolId: 'amulet-usdcx',
    tokenA: { id: 'Amulet', admin: 'dso::1' },
    tokenB: { id: 'USDCx', admin: 'circle::1' },
    swapParty: 'swap::1',
    lpParty: 'lp::1',
    lpSupply: Amount.parse('100'),
    reserveA: Amount.parse('1000'),
    reserveB: Amount.parse('145'),
    createdAt: T0,
  });
  return db;
}

describe('pool price references', () => {
  it('keeps the fractions exactly, and the latest write', async () => {
    const db = await storeWithPool();
    expect(await getPoolPriceReference(db, 'amulet-usdcx')).toBeNull();
    const first = {
      price: { numerator: 144_999_999_999_999_999_999_999n, denominator: 10n ** 24n },
      spot: { numerator: 1_390_000_000_000_000_000_000_000n, denominator: 10_400_000_000_000_000n },
      atMs: T0.getTime(),
      limitedSinceMs: null,
    };
    await putPoolPriceReference(db, 'amulet-usdcx', first);
    expect(await getPoolPriceReference(db, 'amulet-usdcx')).toEqual(first);
    const second = { ...first, spot: { numerator: 3n, denominator: 7n }, atMs: T0.getTime() + 5 };
    await putPoolPriceReference(db, 'amulet-usdcx', { ...second, limitedSinceMs: second.atMs });
    expect(await getPoolPriceReference(db, 'amulet-usdcx')).toEqual({
      ...second,
      limitedSinceMs: second.atMs,
    });
  });
});
