/**
 * `poolparty` run as an operator runs it: a separate process, its output and exit code.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { runPoolparty } from '../../chaos/cluster.js';

export const CLI = join(import.meta.dirname, '../../src/cli.ts');
/** The CLI from its sources, as the tests run it. */
export const SOURCE_CLI: readonly string[] = ['--import', 'tsx', CLI];
/** The CLI as `npm start` runs it: the bundle, built first when stale (`scripts/bundle.mjs`). */
export const BUNDLED_CLI: readonly string[] = [
  join(import.meta.dirname, '../../bin/poolparty.mjs'),
];

/** How long `poolparty serve` may take to print its banner (a first start seeds the devnet). */
const STARTUP_WAIT_MS = 30_000;

export type { CliRun } from '../../chaos/cluster.js';

/**
 * Runs `poolparty <args>` to its end. The environment is the test's, minus the settings a
 * developer's shell may carry, plus `env`.
 */
export const runCli = (args: readonly string[], env: Record<string, string> = {}) =>
  runPoolparty(args, env);

export interface Served {
  readonly child: ChildProcess;
  readonly url: string;
  readonly apiKey: string;
  /** Everything printed, both streams. */
  readonly output: () => string;
  readonly stdout: () => string;
}

/** `poolparty serve --port 0` on `dataDir`, resolved once its banner is out. */
export function serveCli(
  dataDir: string,
  env: Record<string, string> = {},
  cli: readonly string[] = SOURCE_CLI,
): Promise<Served> {
  const child = spawn(process.execPath, [...cli, 'serve', '--port', '0'], {
    env: { ...process.env, POOLPARTY_DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let stdout = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner:\n${output}`)), STARTUP_WAIT_MS);
    child.on('exit', (code) => reject(new Error(`exited with ${code}:\n${output}`)));
    const check = () => {
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      const apiKey = /Developer API key \(devnet\): (\S+)/.exec(output)?.[1];
      if (url && apiKey) {
        clearTimeout(timer);
        resolve({ child, url, apiKey, output: () => output, stdout: () => stdout });
      }
    };
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
  });
}

/** SIGTERM, resolved with the exit code (0 for a graceful stop). */
export function stopServed(served: Served): Promise<number | null> {
  return new Promise((resolve) => {
    served.child.removeAllListeners('exit');
    served.child.on('exit', (code) => resolve(code));
    served.child.kill('SIGTERM');
  });
}
