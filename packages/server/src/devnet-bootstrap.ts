/**
 * First start on devnet: seed the embedded ledger (the devnet ledger's seed file, shared with
 * `poolparty devnet-ledger`) and register what it created in the store — pools, the developer and
 * a `pp_test_` key — so `npm start` gives a working service. A store that is new (another
 * DATABASE_URL) is filled from `devnet.json` again.
 */
import { Amount, openingLiquidity } from '@poolparty/core';
import { type DevnetWelcome, loadOrSeed } from '@poolparty/devnet-ledger/devnet';
import type { LocalLedger } from '@poolparty/ledger';
import type { Database } from '@poolparty/store';
import {
  findApiKeyByHash,
  getPool,
  insertApiKey,
  insertPool,
  upsertDeveloper,
} from '@poolparty/store';
import { displayPrefix, generateApiKey, hashApiKey } from './auth/api-keys.js';

export {
  DEVNET_FILE,
  type DevnetParty,
  type DevnetPoolInfo,
  type DevnetWelcome,
} from '@poolparty/devnet-ledger/devnet';

export interface BootstrapOptions {
  readonly dataDir: string;
  readonly apiKey: string | null;
  readonly now: Date;
  /** One line per step of a first-start seed, e.g. "seeding devnet: pools 2/3". */
  readonly onProgress?: (line: string) => void;
}

export async function bootstrapDevnet(
  db: Database,
  ledger: LocalLedger,
  options: BootstrapOptions,
): Promise<DevnetWelcome> {
  const newApiKey = () => generateApiKey('devnet');
  const welcome = await loadOrSeed(ledger, { ...options, newApiKey });
  await registerInStore(db, welcome, options.now);
  return welcome;
}

/** Idempotent: what is already in the store stays as it is. */
async function registerInStore(db: Database, welcome: DevnetWelcome, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    for (const pool of welcome.pools) {
      if (await getPool(tx, pool.poolId)) continue;
      // The opening liquidity is the operator's: its units belong to the treasury (the developer
      // on a seed written before there was one), a position visible like any other.
      const reserveA = Amount.parse(pool.reserveA);
      const reserveB = Amount.parse(pool.reserveB);
      const opening = openingLiquidity(reserveA, reserveB);
      const owner = welcome.treasury?.partyId ?? welcome.developer.partyId;
      await insertPool(tx, {
        ...pool,
        reserveA,
        reserveB,
        lpSupply: opening.supply,
        createdAt: now,
        openingPosition: { providerParty: owner, units: opening.ownerUnits },
      });
    }
    await upsertDeveloper(tx, welcome.developer.partyId, now);
    const keyHash = hashApiKey(welcome.apiKey);
    if ((await findApiKeyByHash(tx, keyHash)) === null) {
      await insertApiKey(tx, {
        keyId: `key_devnet_${keyHash.slice(0, 16)}`,
        developerParty: welcome.developer.partyId,
        name: 'devnet',
        keyHash,
        prefix: displayPrefix(welcome.apiKey),
        environment: 'devnet',
        createdAt: now,
      });
    }
  });
}
