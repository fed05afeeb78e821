/**
 * `poolparty` as an operator runs it: a separate process on the embedded defaults, stopped with
 * SIGTERM and started again on the same data folder; and what it says when a setting is wrong.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DevnetWelcome } from '../src/devnet-bootstrap.js';
import { CLI, runCli, serveCli as serve, stopServed as stop } from './support/cli.js';
import { request, walletTokenFor } from './support/service.js';

/** Tests that start the service or run the CLI several times; each run loads a whole process. */
const PROCESSES_TIMEOUT_MS = 120_000;
/** A terminal's height, and the requests the web app makes in about eight minutes (one per 10 s). */
const SCREEN_LINES = 40;
const REQUESTS_ON_SCREEN = 50;
/** Time for the child's last log lines to arrive through its stdout pipe. */
const LOG_SETTLE_MS = 500;
const SERVER_VERSION = (
  JSON.parse(readFileSync(join(import.meta.dirname, '../package.json'), 'utf8')) as {
    version: string;
  }
).version;

/** A port some other process holds, as an operator's busy port would be. */
async function occupiedPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return { port: address.port, server };
}

describe('poolparty serve', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'poolparty-cli-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it(
    'serves the seeded devnet, stops on SIGTERM and keeps its state across a restart',
    async () => {
      const first = await serve(dataDir);
      expect((await request(first.url, 'GET', '/healthz')).body).toEqual({ status: 'ok' });
      expect(first.output()).toContain("import { PoolParty } from '@poolparty/sdk'");
      // First start seeds the devnet, and says so as it goes.
      expect(first.output()).toMatch(/^first start: creating the store in .*$/m);
      expect(first.output()).toMatch(/^seeding devnet: pools 3\/3$/m);
      // Not a terminal: stdout carries JSON log lines only; the banner went to stderr.
      const logLines = first.stdout().trim().split('\n');
      expect(logLines.length).toBeGreaterThan(0);
      for (const line of logLines) expect(() => JSON.parse(line)).not.toThrow();
      expect(first.stdout()).not.toContain('Developer API key');
      // The embedded store is this process's alone while it runs: an admin command is refused.
      const meanwhile = await runCli(['admin', 'flags', 'list', '--data-dir', dataDir]);
      expect(meanwhile.code).toBe(1);
      expect(meanwhile.stderr.trim()).toMatch(
        new RegExp(
          `^poolparty: the embedded store in .* is in use by \`poolparty serve\` \\(pid ${first.child.pid}\\)`,
        ),
      );
      const parties = await request<{ holdings: unknown[] }>(
        first.url,
        'GET',
        `/devnet/parties/${encodeURIComponent(/\n {2}user +(alice::\S+)/.exec(first.output())?.[1] ?? '')}/holdings`,
      );
      expect(parties.status).toBe(200);
      expect(parties.body.holdings.length).toBeGreaterThan(0);
      const welcome = JSON.parse(
        readFileSync(join(dataDir, 'devnet.json'), 'utf8'),
      ) as DevnetWelcome;
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
      // JSON logs keep Fastify's two request lines at info, for collectors.
      expect(first.stdout()).toContain('"msg":"incoming request"');
      expect(first.stdout()).toContain('"msg":"request completed"');

      const second = await serve(dataDir);
      expect(second.apiKey).toBe(first.apiKey);
      // The same devnet, not a second one: no store to create, nothing seeded again.
      expect(second.output()).not.toContain('first start');
      expect(second.output()).not.toContain('seeding devnet');
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

      // Stopped, the folder is free again for an operator.
      const after = await runCli(['admin', 'flags', 'list', '--data-dir', dataDir]);
      expect(after).toMatchObject({ code: 0, stdout: 'no open flags\n' });
    },
    PROCESSES_TIMEOUT_MS,
  );

  it(
    'stops gracefully on a SIGTERM that arrives while it is still starting',
    async () => {
      const fresh = mkdtempSync(join(tmpdir(), 'poolparty-cli-early-'));
      try {
        const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve', '--port', '0'], {
          env: { ...process.env, POOLPARTY_DATA_DIR: fresh },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        let signalled = false;
        const onData = (chunk: Buffer) => {
          output += chunk;
          // Mid-seed: the process is up, the service is not.
          if (!signalled && output.includes('seeding devnet')) {
            signalled = true;
            child.kill('SIGTERM');
          }
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
        const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>(
          (resolve) => child.on('exit', (exitCode, exitSignal) => resolve([exitCode, exitSignal])),
        );
        expect({ code, signal }).toEqual({ code: 0, signal: null });
        expect(output).toContain('SIGTERM: stopping once the start completes');
        expect(output).not.toContain('Developer API key');
      } finally {
        rmSync(fresh, { recursive: true, force: true });
      }
    },
    PROCESSES_TIMEOUT_MS,
  );

  it(
    'writes human-readable log lines with LOG_FORMAT=pretty',
    async () => {
      const served = await serve(dataDir, { LOG_FORMAT: 'pretty' });
      try {
        expect(served.stdout()).toMatch(/INFO: Server listening at http:\/\//);
        expect(served.stdout()).toContain('Developer API key (devnet)');
        expect(served.stdout()).not.toMatch(/^\{"level"/m);
      } finally {
        expect(await stop(served)).toBe(0);
      }
    },
    PROCESSES_TIMEOUT_MS,
  );

  it(
    'keeps the banner’s key on a terminal’s screen through 50 requests (LOG_FORMAT=pretty)',
    async () => {
      const served = await serve(dataDir, { LOG_FORMAT: 'pretty' });
      try {
        const quote = '/v1/quotes?from=Amulet&to=USDCx&amount=100&poolId=amulet-usdcx';
        for (let sent = 0; sent < REQUESTS_ON_SCREEN; sent += 1) {
          expect((await request(served.url, 'GET', quote, { apiKey: served.apiKey })).status).toBe(
            200,
          );
        }
        // Logged before each answer is sent; a moment for the pipe to carry the last lines.
        await new Promise((resolve) => setTimeout(resolve, LOG_SETTLE_MS));
        const screen = served.output().trimEnd().split('\n').slice(-SCREEN_LINES);
        expect(screen.join('\n')).toContain(served.apiKey);
      } finally {
        expect(await stop(served)).toBe(0);
      }
    },
    PROCESSES_TIMEOUT_MS,
  );

  it(
    'refuses invalid settings with one line per mistake',
    async () => {
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
    },
    PROCESSES_TIMEOUT_MS,
  );

  it(
    'fails at once on a port in use, naming PORT and HOST, and leaves no data folder',
    async () => {
      const { port, server } = await occupiedPort();
      const fresh = join(dataDir, 'never-created');
      try {
        const run = await runCli(['serve', '--port', String(port)], { POOLPARTY_DATA_DIR: fresh });
        expect(run.code).toBe(1);
        expect(run.stderr).toBe(
          `poolparty: PORT ${port} on HOST 127.0.0.1 is already in use by another process; stop it or choose another PORT (--port)\n`,
        );
        expect(run.stdout).toBe('');
        expect(existsSync(fresh)).toBe(false);
      } finally {
        server.close();
      }
    },
    PROCESSES_TIMEOUT_MS,
  );

  it(
    'names DATABASE_URL, password masked, when PostgreSQL cannot be reached',
    async () => {
      const { port, server } = await occupiedPort();
      await new Promise((resolve) => server.close(resolve));
      const url = `postgres://operator:s3cret@127.0.0.1:${port}/poolparty`;
      const fresh = join(dataDir, 'no-database');
      for (const args of [['serve', '--port', '0'], ['admin', 'flags', 'list'], ['migrate']]) {
        const run = await runCli(args, { DATABASE_URL: url, POOLPARTY_DATA_DIR: fresh });
        expect(run.code).toBe(1);
        expect(run.stderr).toBe(
          `poolparty: cannot use DATABASE_URL postgres://operator:****@127.0.0.1:${port}/poolparty: connection refused: is PostgreSQL running there? (ECONNREFUSED)\n`,
        );
        expect(existsSync(fresh)).toBe(false);
      }
    },
    PROCESSES_TIMEOUT_MS,
  );
});

describe('poolparty, its version, help and flags', () => {
  it('prints the version', async () => {
    expect(await runCli(['--version'])).toMatchObject({ code: 0, stdout: `${SERVER_VERSION}\n` });
  });

  it(
    "lists only a command's own flags in its help",
    async () => {
      const serveHelp = (await runCli(['serve', '--help'])).stdout;
      const migrateHelp = (await runCli(['migrate', '--help'])).stdout;
      const adminHelp = (await runCli(['admin', 'discounts', 'add', '--help'])).stdout;
      for (const flag of [
        '--port',
        '--host',
        '--ledger',
        '--role',
        '--log-format',
        '--cors-origins',
      ]) {
        expect(serveHelp).toContain(flag);
        expect(migrateHelp).not.toContain(flag);
        expect(adminHelp).not.toContain(flag);
      }
      for (const help of [serveHelp, migrateHelp, adminHelp]) {
        expect(help).toContain('--data-dir');
        expect(help).toContain('--database-url');
      }
      expect(migrateHelp).toContain('--create');
      expect(adminHelp).toContain('--network-charge-bps');
      expect(adminHelp).toContain('--actor');
    },
    PROCESSES_TIMEOUT_MS,
  );

  it('refuses an unknown flag by name', async () => {
    const run = await runCli(['migrate', '--port', '1']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error: unknown option '--port'/);
  });

  it('refuses an invalid LOG_FORMAT like any other setting', async () => {
    const run = await runCli(['serve'], { LOG_FORMAT: 'xml' });
    expect(run).toMatchObject({
      code: 2,
      stderr: 'poolparty: LOG_FORMAT must be one of auto, pretty, json (got "xml")\n',
    });
  });
});

describe('admin and migrate on a folder without a store', () => {
  const root = mkdtempSync(join(tmpdir(), 'poolparty-nostore-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('admin refuses a folder that does not exist, and creates nothing', async () => {
    const missing = join(root, 'nonexistent');
    const run = await runCli(['admin', 'flags', 'list', '--data-dir', missing]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `poolparty: the data folder ${missing} does not exist; check --data-dir / POOLPARTY_DATA_DIR and --database-url / DATABASE_URL (\`poolparty serve\` creates a store on first start)\n`,
    );
    expect(existsSync(missing)).toBe(false);
  });

  it('admin refuses an empty folder and leaves it empty', async () => {
    const empty = mkdtempSync(join(root, 'empty-'));
    const run = await runCli(['admin', 'discounts', 'list'], { POOLPARTY_DATA_DIR: empty });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^poolparty: the data folder .* holds no PoolParty store \(no db\/ in it\)/,
    );
    expect(readdirSync(empty)).toEqual([]);
  });

  it(
    'migrate creates a store only with --create, then finds it up to date',
    async () => {
      const target = join(root, 'new-store');
      const refused = await runCli(['migrate', '--data-dir', target]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('pass --create to create one there');
      expect(existsSync(target)).toBe(false);

      const created = await runCli(['migrate', '--create', '--data-dir', target]);
      expect(created.code).toBe(0);
      // A new data folder starts from the migrated template: nothing is left to apply.
      expect(created.stdout).toBe('created a new store\nthe store is up to date\n');
      expect(await runCli(['migrate', '--data-dir', target])).toMatchObject({
        code: 0,
        stdout: 'the store is up to date\n',
      });
      expect(await runCli(['admin', 'audit', 'list', '--data-dir', target])).toMatchObject({
        code: 0,
        stdout: 'no recorded changes\n',
      });
    },
    PROCESSES_TIMEOUT_MS,
  );
});
