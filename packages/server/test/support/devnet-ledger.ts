/**
 * The seeded devnet ledger served at Canton's paths, in the test's own process: the ledger that
 * service processes with `LEDGER=canton` share, as they would share a participant. The test
 * keeps the `LocalLedger` to set up parties and deposits and to read the final holdings.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Amount, type Instrument, instrumentKey } from '@poolparty/core';
import { type DevnetLedgerServer, startDevnetLedgerServer } from '@poolparty/devnet-ledger';
import {
  type DevnetSeed,
  type LocalLedger,
  type LocalLedgerOptions,
  openLocalLedger,
  seedDevnet,
} from '@poolparty/ledger';
import { insertApiKey, type Queryable, upsertDeveloper } from '@poolparty/store';
import { adminCommand } from '../../src/admin/commands.js';
import { displayPrefix, generateApiKey, hashApiKey } from '../../src/auth/api-keys.js';
import { readSettings, type Settings } from '../../src/config.js';
import { type RunningService, startService } from '../../src/service.js';
import { unclosable } from './admin.js';

/** LocalNet's HS256 secret and audience: the services sign their tokens as on LocalNet. */
export const DEVNET_AUTH_SECRET = 'unsafe';
export const DEVNET_AUDIENCE = 'https://canton.network.global';

export interface ServedDevnet {
  readonly ledger: LocalLedger;
  readonly seed: DevnetSeed;
  readonly server: DevnetLedgerServer;
  /** The settings of a service process on this ledger (`LEDGER=canton` and `CANTON_*`). */
  readonly env: Readonly<Record<string, string>>;
  close(): Promise<void>;
}

export async function serveSeededDevnet(options: LocalLedgerOptions = {}): Promise<ServedDevnet> {
  const ledger = await openLocalLedger(options);
  const seed = await seedDevnet(ledger);
  const server = await startDevnetLedgerServer({
    ledger,
    port: 0,
    authSecret: DEVNET_AUTH_SECRET,
    audience: DEVNET_AUDIENCE,
    pools: seed.pools,
  });
  return {
    ledger,
    seed,
    server,
    env: {
      LEDGER: 'canton',
      CANTON_LEDGER_API_URL: server.ledgerApiUrl,
      // The default registry is Canton Coin's (the scan proxy); every other admin runs its own.
      CANTON_REGISTRY_URL: server.registryUrl,
      CANTON_REGISTRY_URLS: registriesByAdmin(seed, server),
      CANTON_SCAN_PROXY_URL: server.scanProxyUrl,
      CANTON_USER_ID: 'poolparty',
      CANTON_AUTH_SECRET: DEVNET_AUTH_SECRET,
      CANTON_AUTH_AUDIENCE: DEVNET_AUDIENCE,
    },
    close: async () => {
      await server.close();
      await ledger.close();
    },
  };
}

function registriesByAdmin(seed: DevnetSeed, server: DevnetLedgerServer): string {
  const amulet = seed.instruments.amulet.admin;
  const admins = new Set(
    Object.values(seed.instruments)
      .map((instrument) => instrument.admin)
      .filter((admin) => admin !== amulet),
  );
  return [...admins].map((admin) => `${admin}=${server.registryUrlOf(admin)}`).join(',');
}

/** A developer and a live `pp_test_` key of theirs; returns the key as a client sends it. */
export async function issueApiKey(
  q: Queryable,
  developerParty: string,
  now: Date,
): Promise<string> {
  const apiKey = generateApiKey('devnet');
  const keyHash = hashApiKey(apiKey);
  await upsertDeveloper(q, developerParty, now);
  await insertApiKey(q, {
    keyId: `key_${keyHash.slice(0, 16)}`,
    developerParty,
    name: 'tests',
    keyHash,
    prefix: displayPrefix(apiKey),
    environment: 'devnet',
    createdAt: now,
  });
  return apiKey;
}

/**
 * Registers the devnet ledger's seeded pools with a running service on it, as the operator does
 * (`poolparty admin pools import-devnet`), through the service's own store and ledger.
 */
export async function importDevnetPools(service: RunningService, devnet: ServedDevnet) {
  const { db, ledger } = service.ctx;
  const errors: string[] = [];
  await adminCommand({
    // The service owns the store; the command must not close it.
    open: async () => unclosable(db),
    openLedger: async () => ({ ledger, close: async () => {} }),
    ledgerApiUrl: () => devnet.server.ledgerApiUrl,
    print: () => {},
    fail: (message) => errors.push(message),
    now: () => new Date(),
    actor: () => 'ops',
  }).parseAsync(['pools', 'import-devnet'], { from: 'user' });
  if (errors.length > 0) throw new Error(`import-devnet failed: ${errors.join('; ')}`);
}

/**
 * A quiet service's settings with its data under `dataDir`, the devnet ledger's (or any other)
 * `env` added; a setting the service would refuse fails the test with the service's own words.
 */
export function serviceSettingsIn(
  dataDir: string,
  env: Readonly<Record<string, string>>,
): Settings {
  const result = readSettings({
    PORT: '0',
    LOG_LEVEL: 'silent',
    POOLPARTY_DATA_DIR: join(dataDir, 'service'),
    ...env,
  });
  if (!result.ok) throw new Error(result.errors.join('\n'));
  return result.settings;
}

export interface ServiceOnDevnet {
  readonly service: RunningService;
  /** Stops the service and removes its data folder; the devnet ledger is the caller's. */
  close(): Promise<void>;
}

/** A service on a devnet ledger served for it alone, as `startCantonService` answers it. */
export interface CantonService {
  readonly devnet: ServedDevnet;
  readonly service: RunningService;
  readonly url: string;
  /** Ends the service and the ledger, and removes the service's data folder. */
  close(): Promise<void>;
}

/**
 * A quiet service with `LEDGER=canton` on the served devnet ledger, its data in a fresh
 * temporary folder (named from `prefix`), the devnet's pools imported as the operator does;
 * `env` is added to its settings.
 */
export async function startServiceOn(
  devnet: ServedDevnet,
  prefix: string,
  env: Readonly<Record<string, string>> = {},
): Promise<ServiceOnDevnet> {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const removeData = () => rmSync(dataDir, { recursive: true, force: true });
  let service: RunningService | undefined;
  try {
    service = await startService(serviceSettingsIn(dataDir, { ...devnet.env, ...env }));
    await importDevnetPools(service, devnet);
  } catch (error) {
    await service?.close();
    removeData();
    throw error;
  }
  const started = service;
  return {
    service: started,
    close: async () => {
      await started.close();
      removeData();
    },
  };
}

/** `startServiceOn` a seeded devnet ledger served for it alone, which it closes with itself. */
export async function startCantonService(
  env: Readonly<Record<string, string>> = {},
): Promise<CantonService> {
  const devnet = await serveSeededDevnet();
  const running = await startServiceOn(devnet, 'pp-canton-service-', env).catch(
    async (error: unknown) => {
      await devnet.close();
      throw error;
    },
  );
  return {
    devnet,
    service: running.service,
    url: running.service.url ?? '',
    close: async () => {
      await running.close();
      await devnet.close();
    },
  };
}

/** Merges so far in this process: each gets a command id of its own. */
let merges = 0;

/**
 * The party's unlocked holdings of `instrument`, but those in `except`, merged into one by its
 * own self-transfer: a reserve as one provider's deposit would have made it.
 */
export async function mergeHoldings(
  ledger: LocalLedger,
  party: string,
  instrument: Instrument,
  except: ReadonlySet<string> = new Set(),
): Promise<void> {
  const holdings = (await ledger.getHoldings(party)).filter(
    (h) =>
      instrumentKey(h.instrument) === instrumentKey(instrument) &&
      h.lock === null &&
      !except.has(h.holdingId),
  );
  merges += 1;
  await ledger.submitTransfer({
    commandId: `merge-${instrument.id}-${party}-${merges}`,
    sender: party,
    receiver: party,
    instrument,
    amount: Amount.sum(holdings.map((h) => h.amount)),
    inputHoldingIds: holdings.map((h) => h.holdingId),
  });
}
