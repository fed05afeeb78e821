/**
 * First start on devnet: seed the embedded ledger (docs/spec/ledger.md#devnet-seed) and register
 * what it created in the store — pools, the developer and a `pp_test_` key — so `npm start` gives a
 * working service.
 *
 * The seed's result (the key and the parties' key pairs, which only exist on devnet) is kept in
 * `<dataDir>/devnet.json`, readable by the operator only, so every later start can print the same
 * key and example, and a store that is new (another DATABASE_URL) is filled from it again.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Amount, type Instrument, initialLpSupply } from '@poolparty/core';
import {
  type DevnetSeedStep,
  isDevnetSeeded,
  type LocalLedger,
  seedDevnet,
} from '@poolparty/ledger';
import type { Database } from '@poolparty/store';
import {
  findApiKeyByHash,
  getPool,
  insertApiKey,
  insertPool,
  upsertDeveloper,
} from '@poolparty/store';
import { displayPrefix, generateApiKey, hashApiKey } from './auth/api-keys.js';

export const DEVNET_FILE = 'devnet.json';

export interface DevnetParty {
  readonly partyId: string;
  /** Hex of the raw Ed25519 keys. */
  readonly publicKey: string;
  readonly privateKey: string;
}

export interface DevnetPoolInfo {
  readonly poolId: string;
  readonly tokenA: Instrument;
  readonly tokenB: Instrument;
  readonly swapParty: string;
  readonly lpParty: string;
  readonly reserveA: string;
  readonly reserveB: string;
  readonly feeBps: number;
}

export interface DevnetWelcome {
  readonly apiKey: string;
  readonly developer: DevnetParty;
  readonly users: readonly DevnetParty[];
  readonly pools: readonly DevnetPoolInfo[];
}

export interface BootstrapOptions {
  readonly dataDir: string;
  readonly apiKey: string | null;
  readonly now: Date;
  /** One line per step of a first-start seed, e.g. "seeding devnet: pools 2/3". */
  readonly onProgress?: (line: string) => void;
}

/** The progress line of a seed step, as `serve` prints it. */
export function seedProgressLine(step: DevnetSeedStep, done: number, total: number): string {
  return `seeding devnet: ${step} ${done}/${total}`;
}

export async function bootstrapDevnet(
  db: Database,
  ledger: LocalLedger,
  options: BootstrapOptions,
): Promise<DevnetWelcome> {
  const welcome = await loadOrSeed(ledger, options);
  await registerInStore(db, welcome, options.now);
  return welcome;
}

/**
 * The devnet seed of `dataDir`: what `devnet.json` holds, or a fresh seed of the ledger (stored
 * there). Shared by `serve` and `devnet-ledger`, so both see the same parties and keys.
 */
export async function loadOrSeed(
  ledger: LocalLedger,
  options: Omit<BootstrapOptions, 'now'>,
): Promise<DevnetWelcome> {
  const file = join(options.dataDir, DEVNET_FILE);
  if (existsSync(file)) {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as DevnetWelcome;
    return options.apiKey === null ? stored : { ...stored, apiKey: options.apiKey };
  }
  if (await isDevnetSeeded(ledger)) {
    throw new Error(
      `the devnet ledger in ${options.dataDir} is seeded but ${DEVNET_FILE} is missing; remove the data folder to start afresh`,
    );
  }
  const report = options.onProgress;
  const seed = await seedDevnet(ledger, {
    ...(report && {
      onProgress: (step, done, total) => report(seedProgressLine(step, done, total)),
    }),
  });
  const welcome: DevnetWelcome = {
    apiKey: options.apiKey ?? generateApiKey('devnet'),
    developer: keyParty(seed.developer),
    users: seed.users.map(keyParty),
    pools: seed.pools.map((pool) => ({
      poolId: pool.poolId,
      tokenA: pool.tokenA,
      tokenB: pool.tokenB,
      swapParty: pool.swapParty,
      lpParty: pool.lpParty,
      reserveA: pool.reserves.tokenA.toString(),
      reserveB: pool.reserves.tokenB.toString(),
      feeBps: pool.feeBps,
    })),
  };
  mkdirSync(options.dataDir, { recursive: true });
  writeFileSync(file, `${JSON.stringify(welcome, null, 2)}\n`, { mode: 0o600 });
  return welcome;
}

function keyParty(party: DevnetParty): DevnetParty {
  return { partyId: party.partyId, publicKey: party.publicKey, privateKey: party.privateKey };
}

/** Idempotent: what is already in the store stays as it is. */
async function registerInStore(db: Database, welcome: DevnetWelcome, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    for (const pool of welcome.pools) {
      if (await getPool(tx, pool.poolId)) continue;
      const lpSupply = initialLpSupply(Amount.parse(pool.reserveA), Amount.parse(pool.reserveB));
      await insertPool(tx, { ...pool, lpSupply: lpSupply.toString(), createdAt: now });
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
