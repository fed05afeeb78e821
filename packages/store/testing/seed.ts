/**
 * What an intent's rows point at, as the store's tests and the settlement suites seed it: a
 * developer with one API key (`key_1`), and the Amulet/USDCx pool `pool-1` at the canonical
 * devnet reserves (1 000 000 Amulet against 145 000 USDCx).
 */
import { Amount } from '@poolparty/core';
import {
  insertApiKey,
  insertPool,
  type NewPool,
  type Queryable,
  upsertDeveloper,
} from '../src/index.js';
import { TEST_AMULET, TEST_USDCX } from './intents.js';

export const TEST_DEVELOPER = 'dev::1220';
export const TEST_API_KEY_ID = 'key_1';

/** The developer and its API key, made at `at`. */
export async function seedTestDeveloper(q: Queryable, at: Date): Promise<void> {
  await upsertDeveloper(q, TEST_DEVELOPER, at);
  await insertApiKey(q, {
    keyId: TEST_API_KEY_ID,
    developerParty: TEST_DEVELOPER,
    name: 'main',
    keyHash: 'a'.repeat(64),
    prefix: 'pp_test_abcd',
    environment: 'devnet',
    createdAt: at,
  });
}

/** The intents' pool `pool-1`, opened at `createdAt`. */
export function testIntentPool(createdAt: Date): NewPool {
  return {
    poolId: 'pool-1',
    tokenA: TEST_AMULET,
    tokenB: TEST_USDCX,
    swapParty: 'swap::1220cc',
    lpParty: 'lp::1220dd',
    lpSupply: Amount.parse('1000'),
    reserveA: Amount.parse('1000000'),
    reserveB: Amount.parse('145000'),
    createdAt,
  };
}

/** The developer, its key and `pool-1`: all an intent's foreign keys need. */
export async function seedIntentWorld(q: Queryable, at: Date): Promise<void> {
  await seedTestDeveloper(q, at);
  await insertPool(q, testIntentPool(at));
}
