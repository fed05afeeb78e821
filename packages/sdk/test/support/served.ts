/**
 * A running service for the SDK's own tests, reached as an integrator's app reaches one: a
 * process of its own, the service's command line as `npm start` runs it, in devnet mode on a
 * free port and a fresh data folder. Its banner says where it listens; the seed file it writes
 * there, `devnet.json`, holds the developer's key and the pools it seeded.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const REPOSITORY = join(import.meta.dirname, '../../../..');
/** `poolparty`, bundled and built first when stale, as `npm start` runs it. */
const COMMAND = join(REPOSITORY, 'packages/server/bin/poolparty.mjs');
/** A first start seeds the devnet, and may build the bundle: long on a busy machine. */
const START_TIMEOUT_MS = 90_000;
/** The environment a process needs to run; no setting of a developer's shell reaches it. */
const RUNTIME_ENV = ['PATH', 'HOME', 'TMPDIR', 'LANG'];

export interface ServedService {
  readonly url: string;
  /** The seeded developer's `pp_test_` key. */
  readonly apiKey: string;
  /** The seeded Amulet/USDCx pool. */
  readonly poolId: string;
  close(): Promise<void>;
}

interface SeedFile {
  readonly apiKey: string;
  readonly pools: readonly {
    readonly poolId: string;
    readonly tokenA: { readonly id: string };
    readonly tokenB: { readonly id: string };
  }[];
}

/** `poolparty serve --port 0` on a new data folder, resolved once its banner names its URL. */
export async function startServedService(): Promise<ServedService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'poolparty-served-'));
  const env = Object.fromEntries(RUNTIME_ENV.flatMap((name) => envEntry(name)));
  const child = spawn(process.execPath, [COMMAND, 'serve', '--port', '0'], {
    env: { ...env, POOLPARTY_DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = () => stopped(child).then(() => rmSync(dataDir, { recursive: true, force: true }));
  let url: string;
  try {
    url = await listeningUrl(child);
  } catch (error) {
    await stop();
    throw error;
  }
  const seed = JSON.parse(readFileSync(join(dataDir, 'devnet.json'), 'utf8')) as SeedFile;
  const pool = seed.pools.find((p) => p.tokenA.id === 'Amulet' && p.tokenB.id === 'USDCx');
  if (!pool) {
    await stop();
    throw new Error('the devnet seed has no Amulet/USDCx pool');
  }
  return { url, apiKey: seed.apiKey, poolId: pool.poolId, close: stop };
}

function envEntry(name: string): [string, string][] {
  const value = process.env[name];
  return value === undefined ? [] : [[name, value]];
}

/** The URL the banner names; the banner is on stderr when stdout carries JSON logs. */
function listeningUrl(child: ChildProcess): Promise<string> {
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no banner in time:\n${output}`)),
      START_TIMEOUT_MS,
    );
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`poolparty serve exited with ${code}:\n${output}`));
    });
    const read = (chunk: Buffer) => {
      // Only the start is kept: the banner is among the first lines.
      if (output.length < 100_000) output += chunk;
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve(url);
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
  });
}

/** SIGTERM, resolved once the process is gone (a graceful stop closes the store first). */
function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
