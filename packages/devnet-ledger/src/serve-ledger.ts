/**
 * `poolparty devnet-ledger`: opens the local ledger in its data folder, seeds it on first start
 * exactly as `serve` seeds the devnet (the same `devnet.json`), serves it as a participant and
 * validator would, and prints where. SIGINT and SIGTERM close the server and then the ledger.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type InjectedFaults, openLocalLedger } from '@poolparty/ledger';
import { lockDataFolder, StoreProblem } from '@poolparty/store';
import { type DevnetWelcome, loadOrSeed } from './devnet/seed-file.js';
import { type DevnetLedgerServer, startDevnetLedgerServer } from './server.js';
import type { DevnetLedgerSettings } from './settings.js';
import { DEFAULT_USER } from './users.js';

/** What the command prints once it serves. */
export function devnetLedgerBanner(
  server: DevnetLedgerServer,
  welcome: DevnetWelcome,
  settings: DevnetLedgerSettings,
): string {
  const admins = [
    ...new Set(welcome.pools.flatMap((pool) => [pool.tokenA.admin, pool.tokenB.admin])),
  ];
  return [
    `PoolParty devnet ledger listening on ${server.url}`,
    `  ledger API:  ${server.ledgerApiUrl}  (JSON Ledger API /v2)`,
    `  scan proxy:  ${server.scanProxyUrl}`,
    `  registry:    ${server.registryUrl}`,
    ...admins.map((admin) => `    of ${admin}: ${server.registryUrlOf(admin)}`),
    `  user:        ${DEFAULT_USER}${settings.authSecret === null ? ' (no auth)' : ' (HS256 bearer tokens, audience https://canton.network.global)'}`,
    `  data:        ${settings.dataDir} (keys in devnet.json)`,
    '',
    'Seeded parties:',
    `  developer:  ${welcome.developer.partyId}`,
    ...welcome.users.map((user) => `  user:       ${user.partyId}`),
    ...welcome.pools.flatMap((pool) => [
      `  ${pool.poolId} swap: ${pool.swapParty}`,
      `  ${pool.poolId} lp:   ${pool.lpParty}`,
    ]),
  ].join('\n');
}

/** How long closing may take before the process gives up waiting. */
const SHUTDOWN_GRACE_MS = 10_000;

/**
 * Takes the data folder, as `serve` takes its own: two processes appending to one journal would
 * corrupt it, and `serve` on the same folder would seed a second ledger beside this one.
 */
function lockOrExit(dataDir: string): () => void {
  try {
    mkdirSync(dataDir, { recursive: true });
    return lockDataFolder(dataDir, 'devnet-ledger');
  } catch (error) {
    if (!(error instanceof StoreProblem)) throw error;
    console.error(`poolparty devnet-ledger: ${error.message}`);
    process.exit(1);
  }
}

/** The line a stopping devnet ledger prints when faults fired, so a test run can count them. */
export function faultsInjectedLine(fired: InjectedFaults): string {
  return (
    `poolparty devnet-ledger: faults injected: ${fired.rejections} rejections, ` +
    `${fired.timeoutsAfterCommit} timeouts after commit, ${fired.droppedStreams} dropped streams, ` +
    `${fired.duplicateDeliveries} duplicate deliveries`
  );
}

/** What the command needs of the service: the format of the developer key a first seed makes. */
export interface DevnetLedgerSeeding {
  readonly newApiKey: () => string;
}

export async function runDevnetLedger(
  settings: DevnetLedgerSettings,
  seeding: DevnetLedgerSeeding,
): Promise<void> {
  const release = lockOrExit(settings.dataDir);
  process.on('exit', release);
  const ledger = await openLocalLedger({ dataDir: join(settings.dataDir, 'ledger') });
  let server: DevnetLedgerServer | null = null;
  let starting = true;
  let stopRequested: string | null = null;
  const shutDown = (signal: string) => {
    console.error(`poolparty devnet-ledger: ${signal}: closing`);
    const fired = ledger.faultsInjected();
    if (Object.values(fired).some((n) => n > 0)) console.error(faultsInjectedLine(fired));
    setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref();
    (async () => {
      await server?.close();
      await ledger.close();
    })().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  // Handled from the start, so a signal during the seed still closes the ledger cleanly.
  const onSignal = (signal: string) => {
    if (stopRequested !== null) return;
    stopRequested = signal;
    if (!starting) shutDown(signal);
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  try {
    const welcome = await loadOrSeed(ledger, {
      dataDir: settings.dataDir,
      apiKey: null,
      newApiKey: seeding.newApiKey,
      onProgress: (line) => console.error(line),
    });
    server = await startDevnetLedgerServer({
      ledger,
      host: settings.host,
      port: settings.port,
      authSecret: settings.authSecret,
      pools: welcome.pools,
    });
    console.log(devnetLedgerBanner(server, welcome, settings));
  } catch (error) {
    await ledger.close();
    console.error(
      `poolparty devnet-ledger: ${error instanceof Error ? error.message : String(error)}`,
    );
    process.exit(1);
  }
  starting = false;
  if (stopRequested !== null) shutDown(stopRequested);
}
