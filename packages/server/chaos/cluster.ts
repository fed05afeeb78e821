/**
 * A PoolParty deployment as separate processes on PostgreSQL, the way an operator runs one:
 * `poolparty devnet-ledger` (the seeded ledger at Canton's JSON API paths), one
 * `POOLPARTY_ROLE=api` and several `POOLPARTY_ROLE=worker` processes, all with `LEDGER=canton`
 * against it, in a fresh schema of their own; the seeded pools registered while they run with
 * `poolparty admin pools import-devnet`, and a developer key whose limits the operator raised.
 *
 * Workers can be SIGKILLed and started again on the same data folder, as a supervisor restarts a
 * crashed process.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ExternalSigner, type LedgerPort, openCantonLedger } from '@poolparty/ledger';
import {
  type Database,
  insertApiKey,
  openPostgres,
  setApiKeyRateLimits,
  upsertDeveloper,
} from '@poolparty/store';
import { terminateSessionsNamed } from '@poolparty/store/testing';
import pg from 'pg';
import { displayPrefix, generateApiKey, hashApiKey } from '../src/auth/api-keys.js';
import { cantonLedgerOptionsOf } from '../src/canton-options.js';
import { readLedgerLocation } from '../src/config.js';
import type { DevnetWelcome } from '../src/devnet-bootstrap.js';
import { type LedgerConnection, openLedgerConnection } from '../src/ledger-connection.js';

export const CLI = join(import.meta.dirname, '../src/cli.ts');
export const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';
const AUTH_SECRET = 'unsafe';
const STARTUP_WAIT_MS = 90_000;
const POOLS_WAIT_MS = 60_000;

export interface ClusterProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly url: string;
  /** Everything printed so far, both streams. */
  readonly output: () => string;
  readonly exited: Promise<number | null>;
}

/** Environment a developer's shell may carry that must not leak into the processes. */
const SHELL_SETTINGS = ['DATABASE_URL', 'POOLPARTY_DATA_DIR', 'PORT', 'HOST', 'LOG_FORMAT'];

function baseEnv(): Record<string, string | undefined> {
  const env = { ...process.env };
  for (const name of SHELL_SETTINGS) delete env[name];
  return env;
}

/** `poolparty <args>` running until stopped; resolved once its banner names its URL. */
export function startPoolparty(
  name: string,
  args: readonly string[],
  env: Record<string, string>,
  banner: RegExp,
): Promise<ClusterProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    env: { ...baseEnv(), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return new Promise<ClusterProcess>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} printed no banner in time:\n${output}`));
    }, STARTUP_WAIT_MS);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}:\n${output}`));
    });
    // The banner is on stderr when stdout carries JSON logs, else on stdout: read both.
    const read = (chunk: Buffer) => {
      output += chunk;
      // A long run must not keep every log line of every process in memory.
      if (output.length > 1_000_000) output = output.slice(-500_000);
      const url = banner.exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ name, child, url, exited, output: () => output });
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
  });
}

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `poolparty <args>` to its end. */
export function runPoolparty(
  args: readonly string[],
  env: Record<string, string>,
): Promise<CliRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    env: { ...baseEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function onPostgres<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The server's URL with the schema as the session's search path, as a process is given it. */
export function schemaUrl(postgresUrl: string, schema: string): string {
  const url = new URL(postgresUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

/**
 * The application name every session of the deployment's processes carries (through their
 * `DATABASE_URL`), so that its sessions, and no one else's on the same server, can be ended.
 */
export function clusterApplicationName(schema: string): string {
  return `${schema}_service`;
}

/** Ends every store session of the deployment's processes; answers how many were ended. */
async function terminateSessions(postgresUrl: string, schema: string): Promise<number> {
  return onPostgres(postgresUrl, (client) =>
    terminateSessionsNamed(client, clusterApplicationName(schema)),
  );
}

async function waitFor<T>(
  check: () => Promise<T | null>,
  what: string,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (true) {
    const found = await check().catch(() => null);
    if (found !== null) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export interface ClusterOptions {
  /** Worker processes; at least 1. */
  readonly workers: number;
  /** PostgreSQL server; the default is the local one. */
  readonly postgresUrl?: string;
  /** Prefix of the schema's name (a random suffix makes it unique). */
  readonly schemaPrefix?: string;
  /** Keep the schema when the cluster is disposed of (for a look afterwards). */
  readonly keepSchema?: boolean;
  /** `LOG_LEVEL` of the api and workers; default warn. */
  readonly logLevel?: string;
}

export interface Cluster {
  readonly root: string;
  readonly schema: string;
  readonly postgresUrl: string;
  readonly welcome: DevnetWelcome;
  readonly devnetLedger: ClusterProcess;
  readonly api: ClusterProcess;
  /** The worker processes now running (a restarted worker replaces its predecessor). */
  readonly workers: readonly ClusterProcess[];
  /** A developer API key with limits raised for heavy traffic. */
  readonly apiKey: string;
  /** A store connection of the test or run itself. */
  readonly db: Database;
  /** What `LEDGER=canton` processes are given to reach the devnet ledger server. */
  readonly ledgerEnv: Readonly<Record<string, string>>;
  readonly storeEnv: Readonly<Record<string, string>>;
  /** SIGKILLs worker `index` and waits until it is gone; answers its exit code (null). */
  killWorker(index: number): Promise<number | null>;
  /**
   * Ends every PostgreSQL session of the api and the workers at once, as a failover or a
   * restarted connection pooler would; answers how many were ended.
   */
  dropStoreSessions(): Promise<number>;
  /** Processes that exited without being killed or stopped, with their exit codes. */
  unexpectedExits(): readonly string[];
  /** Starts worker `index` again on its data folder. */
  restartWorker(index: number): Promise<ClusterProcess>;
  /** A ledger connection as the service opens one (through the Canton JSON API). */
  openLedger(): Promise<LedgerConnection>;
  /**
   * A ledger connection as wallets of external parties use one: commands of a party `signers`
   * knows are prepared, signed with its key and executed (interactive submission).
   */
  openWalletLedger(signers: (partyId: string) => ExternalSigner | undefined): Promise<LedgerPort>;
  /** SIGTERMs the api, the workers and the ledger server; answers their exit codes. */
  stop(): Promise<Record<string, number | null>>;
  /** Kills whatever still runs, closes connections, drops the schema unless kept, removes files. */
  dispose(): Promise<void>;
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  if (!(Number.isSafeInteger(options.workers) && options.workers >= 1)) {
    throw new RangeError(`a cluster needs at least one worker, not ${options.workers}`);
  }
  const postgresUrl = options.postgresUrl ?? process.env.DATABASE_URL ?? DEFAULT_POSTGRES_URL;
  const root = mkdtempSync(join(tmpdir(), 'pp-cluster-'));
  const schema = `${options.schemaPrefix ?? 'pp_cluster'}_${randomBytes(6).toString('hex')}`;
  const running = new Set<ClusterProcess>();
  // Processes this code kills or stops; any other exit is the deployment failing.
  const expectedExits = new Set<ClusterProcess>();
  const unexpected: string[] = [];
  const connections: LedgerConnection[] = [];
  let db: Database | null = null;
  let schemaCreated = false;

  // Whatever way this process ends, the cluster's processes end with it.
  const killOnExit = () => {
    for (const proc of running) proc.child.kill('SIGKILL');
  };
  process.on('exit', killOnExit);
  const dispose = async () => {
    process.off('exit', killOnExit);
    for (const proc of running) expectedExits.add(proc);
    for (const proc of running) proc.child.kill('SIGKILL');
    await Promise.all([...running].map((proc) => proc.exited));
    running.clear();
    for (const connection of connections.splice(0)) await connection.close().catch(() => {});
    await db?.close().catch(() => {});
    db = null;
    if (schemaCreated && !options.keepSchema) {
      await onPostgres(postgresUrl, (client) =>
        client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`),
      );
      schemaCreated = false;
    }
    rmSync(root, { recursive: true, force: true });
  };

  try {
    const ledgerDir = join(root, 'devnet-ledger');
    const devnetLedger = await startPoolparty(
      'devnet-ledger',
      ['devnet-ledger', '--port', '0', '--data-dir', ledgerDir, '--auth-secret', AUTH_SECRET],
      {},
      /devnet ledger listening on (http:\/\/\S+)/,
    );
    running.add(devnetLedger);
    const welcome = JSON.parse(
      readFileSync(join(ledgerDir, 'devnet.json'), 'utf8'),
    ) as DevnetWelcome;
    const amuletAdmin = welcome.pools[0]?.tokenA.admin;
    // The registries the banner names, one per admin besides Canton Coin's (the scan proxy's).
    const registries = [...devnetLedger.output().matchAll(/^ {4}of (\S+): (\S+)$/gm)]
      .filter(([, admin]) => admin !== amuletAdmin)
      .map(([, admin, url]) => `${admin}=${url}`);
    const ledgerEnv = {
      LEDGER: 'canton',
      CANTON_LEDGER_API_URL: devnetLedger.url,
      CANTON_SCAN_PROXY_URL: `${devnetLedger.url}/api/validator`,
      CANTON_REGISTRY_URL: `${devnetLedger.url}/api/validator/v0/scan-proxy`,
      CANTON_REGISTRY_URLS: registries.join(','),
      CANTON_USER_ID: 'poolparty',
      CANTON_AUTH_SECRET: AUTH_SECRET,
      CANTON_AUTH_AUDIENCE: 'https://canton.network.global',
    };

    // The store: a schema of its own, migrated, with a developer key.
    await onPostgres(postgresUrl, (client) => client.query(`CREATE SCHEMA ${schema}`));
    schemaCreated = true;
    const storeUrl = new URL(schemaUrl(postgresUrl, schema));
    storeUrl.searchParams.set('application_name', clusterApplicationName(schema));
    const storeEnv = { DATABASE_URL: storeUrl.toString() };
    const migrated = await runPoolparty(['migrate', '--create'], storeEnv);
    if (migrated.code !== 0) throw new Error(`migrate failed:\n${migrated.stderr}`);
    db = openPostgres(postgresUrl, { schema });
    const apiKey = await issueRaisedApiKey(db, welcome.developer.partyId);

    const serve = async (role: 'api' | 'worker', dataDir: string) => {
      const proc = await startPoolparty(
        role,
        ['serve', '--port', '0'],
        {
          ...ledgerEnv,
          ...storeEnv,
          POOLPARTY_ROLE: role,
          POOLPARTY_DATA_DIR: join(root, dataDir),
          LOG_LEVEL: options.logLevel ?? 'warn',
        },
        /listening on (http:\/\/\S+)/,
      );
      void proc.exited.then((code) => {
        if (!expectedExits.has(proc)) unexpected.push(`${role} ${dataDir} exited with ${code}`);
      });
      return proc;
    };
    const workerDir = (index: number) => `worker-${index}`;
    const [api, ...workers] = await Promise.all([
      serve('api', 'api'),
      ...Array.from({ length: options.workers }, (_, index) => serve('worker', workerDir(index))),
    ]);
    if (!api) throw new Error('no api process');
    running.add(api);
    for (const worker of workers) running.add(worker);

    // The seeded pools, added while the deployment runs: the workers follow their swap parties
    // and the API quotes them as soon as the audit rows announce them.
    const imported = await runPoolparty(['admin', 'pools', 'import-devnet'], {
      ...storeEnv,
      ...ledgerEnv,
    });
    const added = imported.stdout.split('\n').filter((line) => line.startsWith('added '));
    if (imported.code !== 0 || added.length !== welcome.pools.length) {
      throw new Error(`import-devnet failed:\n${imported.stdout}\n${imported.stderr}`);
    }
    await waitFor(
      async () => {
        const answer = await fetch(`${api.url}/v1/pools`, { headers: { 'X-API-Key': apiKey } });
        const body = (await answer.json()) as { pools?: unknown[] };
        return body.pools?.length === welcome.pools.length || null;
      },
      'the API to list the pools added',
      POOLS_WAIT_MS,
    );

    const storeDb = db;
    return {
      root,
      schema,
      postgresUrl,
      welcome,
      devnetLedger,
      api,
      workers,
      apiKey,
      db: storeDb,
      ledgerEnv,
      storeEnv,
      async killWorker(index) {
        const victim = workers[index];
        if (!victim) throw new RangeError(`no worker ${index}`);
        expectedExits.add(victim);
        victim.child.kill('SIGKILL');
        const code = await victim.exited;
        running.delete(victim);
        return code;
      },
      dropStoreSessions: () => terminateSessions(postgresUrl, schema),
      unexpectedExits: () => [...unexpected],
      async restartWorker(index) {
        const worker = await serve('worker', workerDir(index));
        workers[index] = worker;
        running.add(worker);
        return worker;
      },
      async openLedger() {
        const location = readLedgerLocation(ledgerEnv);
        if (!location.ok) throw new Error(location.errors.join('\n'));
        const connection = await openLedgerConnection({ ...location.settings, dataDir: root });
        connections.push(connection);
        return connection;
      },
      async openWalletLedger(signers) {
        const location = readLedgerLocation(ledgerEnv);
        if (!location.ok || location.settings.ledger !== 'canton') {
          throw new Error(
            location.ok ? 'the cluster ledger is not canton' : location.errors.join('\n'),
          );
        }
        const options = cantonLedgerOptionsOf(location.settings);
        const ledger = await openCantonLedger({ ...options, externalSigners: signers });
        connections.push({ ledger, local: null, close: () => ledger.close() });
        return ledger;
      },
      async stop() {
        const codes: Record<string, number | null> = {};
        const stopping = [api, ...workers, devnetLedger];
        for (const proc of stopping) expectedExits.add(proc);
        for (const proc of [api, ...workers]) proc.child.kill('SIGTERM');
        await Promise.all([api, ...workers].map((proc) => proc.exited));
        devnetLedger.child.kill('SIGTERM');
        for (const [index, proc] of stopping.entries()) {
          const code = await proc.exited;
          codes[proc.name === 'worker' ? `worker-${index - 1}` : proc.name] = code;
          running.delete(proc);
        }
        return codes;
      },
      dispose,
    };
  } catch (error) {
    await dispose();
    throw error;
  }
}

/** A developer key, its limits raised as an operator does for an integrator with this traffic. */
async function issueRaisedApiKey(db: Database, developerParty: string): Promise<string> {
  const now = new Date();
  const apiKey = generateApiKey('devnet');
  const keyHash = hashApiKey(apiKey);
  const keyId = `key_${keyHash.slice(0, 16)}`;
  await upsertDeveloper(db, developerParty, now);
  await insertApiKey(db, {
    keyId,
    developerParty,
    name: 'cluster traffic',
    keyHash,
    prefix: displayPrefix(apiKey),
    environment: 'devnet',
    createdAt: now,
  });
  const raised = await setApiKeyRateLimits(db, keyId, {
    readsPerMin: 1_000_000,
    swapsPerMin: 100_000,
  });
  if (raised === null) throw new Error('the key to raise is gone');
  return apiKey;
}
