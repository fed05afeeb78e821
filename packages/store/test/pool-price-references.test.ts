/**
 * A pool's reference price as its executions keep it (migration 0019): none before the first,
 * then exactly what was written — fractions of any size, to the last digit — and the latest write
 * replaces the one before.
 */
import { describe, expect, it } from 'vitest';
import {
  type Database,
  getPoolPriceReference,
  insertPool,
  putPoolPriceReference,
} from '../src/index.js';
import { testPool, usePgliteStores } from '../testing/index.js';

const T0 = new Date('2026-03-01T12:00:00.000Z');
const openStore = usePgliteStores();

async function storeWithPool(): Promise<Database> {
  const db = await openStore();
  await insertPool(db, testPool(T0));
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
