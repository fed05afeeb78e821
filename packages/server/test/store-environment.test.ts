/**
 * A store's environment (migration 0006, store/store-environment.ts): the first claim wins and
 * later ones read it; the other environment is refused with one line; a store made before the
 * record existed gets it from its API keys when they agree.
 */

import {
  claimStoreEnvironment,
  type Database,
  environmentMismatch,
  IN_MEMORY,
  insertApiKey,
  loadMigrations,
  migrate,
  openPglite,
  recordedEnvironment,
  requireStoreEnvironment,
  upsertDeveloper,
  WrongEnvironmentProblem,
} from '@poolparty/store';
import { afterEach, describe, expect, it } from 'vitest';
import { displayPrefix, generateApiKey, hashApiKey } from '../src/auth/api-keys.js';

const NOW = new Date('2026-11-23T08:00:00.000Z');
const DEVELOPER = `dev::1220${'e'.repeat(64)}`;
const open: Database[] = [];
/** Four embedded stores, each migrated from scratch. */
const STORES_TIMEOUT_MS = 120_000;

afterEach(async () => {
  for (const db of open.splice(0)) await db.close();
});

async function emptyStore(): Promise<Database> {
  const db = await openPglite(IN_MEMORY);
  open.push(db);
  return db;
}

/** A store at the schema before stores recorded their environment, holding `keys`. */
async function storeBeforeRecord(environments: readonly ('devnet' | 'mainnet')[]) {
  const db = await emptyStore();
  const all = loadMigrations();
  const before = all.filter((m) => m.name < '0006');
  await migrate(db, before);
  await upsertDeveloper(db, DEVELOPER, NOW);
  for (const [index, environment] of environments.entries()) {
    const key = generateApiKey(environment);
    await insertApiKey(db, {
      keyId: `key_${index}`,
      developerParty: DEVELOPER,
      name: '',
      keyHash: hashApiKey(key),
      prefix: displayPrefix(key),
      environment,
      createdAt: NOW,
    });
  }
  await migrate(db, all);
  return db;
}

describe('the environment of a store', () => {
  it('is recorded by the first claim; later claims of the other one read it', async () => {
    const db = await emptyStore();
    await migrate(db);
    expect(await recordedEnvironment(db)).toBeNull();
    expect(await claimStoreEnvironment(db, 'devnet', NOW)).toBe('devnet');
    expect(await claimStoreEnvironment(db, 'mainnet', NOW)).toBe('devnet');
    expect(await recordedEnvironment(db)).toBe('devnet');
  });

  it('refuses a process of the other environment with one line, claiming or not', async () => {
    const db = await emptyStore();
    await migrate(db);
    // Unrecorded, a check alone passes and records nothing.
    await requireStoreEnvironment(db, 'the data folder /srv/pp', 'mainnet', {
      claim: false,
      now: NOW,
    });
    expect(await recordedEnvironment(db)).toBeNull();
    await requireStoreEnvironment(db, 'the data folder /srv/pp', 'devnet', {
      claim: true,
      now: NOW,
    });
    for (const claim of [true, false]) {
      const refused = requireStoreEnvironment(db, 'the data folder /srv/pp', 'mainnet', {
        claim,
        now: NOW,
      });
      await expect(refused).rejects.toThrow(WrongEnvironmentProblem);
      await expect(refused).rejects.toThrow(
        'the data folder /srv/pp belongs to devnet, not mainnet (POOLPARTY_ENV=mainnet): a store serves one environment; point this process at a mainnet store',
      );
    }
  });

  it('says nothing when the environments agree or none is recorded', () => {
    expect(environmentMismatch('x', 'devnet', 'devnet')).toBeNull();
    expect(environmentMismatch('x', null, 'mainnet')).toBeNull();
    expect(environmentMismatch('x', 'mainnet', 'devnet')).toMatch(
      /^x belongs to mainnet, not devnet/,
    );
  });

  it(
    'is taken from the API keys of a store made before it was recorded, when they agree',
    async () => {
      expect(await recordedEnvironment(await storeBeforeRecord(['devnet', 'devnet']))).toBe(
        'devnet',
      );
      expect(await recordedEnvironment(await storeBeforeRecord(['mainnet']))).toBe('mainnet');
      expect(await recordedEnvironment(await storeBeforeRecord(['devnet', 'mainnet']))).toBeNull();
      expect(await recordedEnvironment(await storeBeforeRecord([]))).toBeNull();
    },
    STORES_TIMEOUT_MS,
  );
});
