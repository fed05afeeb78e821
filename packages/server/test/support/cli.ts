/**
 * `poolparty` run as an operator runs it: a separate process, its output and exit code.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export const CLI = join(import.meta.dirname, '../../src/cli.ts');

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `poolparty <args>` to its end. The environment is the test's, minus the settings a
 * developer's shell may carry, plus `env`.
 */
export function runCli(args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
  const base = { ...process.env };
  for (const name of ['DATABASE_URL', 'POOLPARTY_DATA_DIR', 'PORT', 'HOST', 'LOG_FORMAT']) {
    delete base[name];
  }
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    env: { ...base, ...env },
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
