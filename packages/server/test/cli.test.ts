/**
 * `poolparty serve` as an operator runs it: a separate process on the embedded defaults, stopped
 * with SIGTERM and started again on the same data folder.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DevnetWelcome } from '../src/devnet-bootstrap.js';
import { request, walletTokenFor } from './support/service.js';

const CLI = join(import.meta.dirname, '../src/cli.ts');
const STARTUP_WAIT_MS = 30_000;

interface Served {
  readonly child: ChildProcess;
  readonly url: string;
  readonly apiKey: string;
  readonly output: () => string;
}

function serve(dataDir: string, env: Record<string, string> = {}): Promise<Served> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve', '--port', '0'], {
    env: { ...process.env, POOLPARTY_DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner:\n${output}`)), STARTUP_WAIT_MS);
    child.on('exit', (code) => reject(new Error(`exited with ${code}:\n${output}`)));
    child.stdout?.on('data', () => {
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      const apiKey = /Developer API key \(devnet\): (\S+)/.exec(output)?.[1];
      if (url && apiKey) {
        clearTimeout(timer);
        resolve({ child, url, apiKey, output: () => output });
      }
    });
  });
}

function stop(served: Served): Promise<number | null> {
  return new Promise((resolve) => {
    served.child.removeAllListeners('exit');
    served.child.on('exit', (code) => resolve(code));
    served.child.kill('SIGTERM');
  });
}

describe('poolparty serve', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'poolparty-cli-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('serves the seeded devnet, stops on SIGTERM and keeps its state across a restart', async () => {
    const first = await serve(dataDir);
    expect((await request(first.url, 'GET', '/healthz')).body).toEqual({ status: 'ok' });
    expect(first.output()).toContain("import { PoolParty } from '@poolparty/sdk'");
    const parties = await request<{ holdings: unknown[] }>(
      first.url,
      'GET',
      `/devnet/parties/${encodeURIComponent(/\n {2}(alice::\S+)/.exec(first.output())?.[1] ?? '')}/holdings`,
    );
    expect(parties.status).toBe(200);
    expect(parties.body.holdings.length).toBeGreaterThan(0);
    const welcome = JSON.parse(readFileSync(join(dataDir, 'devnet.json'), 'utf8')) as DevnetWelcome;
    const alice = welcome.users[0];
    if (!alice) throw new Error('no seeded user');
    const token = await walletTokenFor(first, alice);
    const created = await request<{ intentId: string }>(first.url, 'POST', '/v1/swaps', {
      apiKey: first.apiKey,
      walletToken: token,
      body: { fromToken: 'Amulet', toToken: 'USDCx', amount: '100', poolId: 'amulet-usdcx' },
    });
    expect(created.status).toBe(201);
    expect(await stop(first)).toBe(0);

    const second = await serve(dataDir);
    expect(second.apiKey).toBe(first.apiKey);
    const pools = await request<{ count: number }>(second.url, 'GET', '/v1/pools', {
      apiKey: second.apiKey,
    });
    expect(pools.status).toBe(200);
    expect(pools.body.count).toBe(3);
    const status = await request<{ status: string }>(
      second.url,
      'GET',
      `/v1/swaps/${created.body.intentId}`,
      { apiKey: second.apiKey, walletToken: await walletTokenFor(second, alice) },
    );
    expect(status.status).toBe(200);
    expect(status.body.status).toBe('pending');
    expect(await stop(second)).toBe(0);
  });

  it('refuses invalid settings with one line per mistake', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve'], {
      env: { ...process.env, PORT: 'x', POOLPARTY_ROLE: 'boss' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toEqual([
      'poolparty: PORT must be a whole number from 0 to 65535 (got "x")',
      'poolparty: POOLPARTY_ROLE must be one of all, api, worker (got "boss")',
    ]);
  });
});
