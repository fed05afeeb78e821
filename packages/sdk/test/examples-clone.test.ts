/**
 * The path of a new integrator, from a fresh clone: the README's two commands (`npm install`,
 * then `npm start` on a free port and an empty data folder), then every example with the one
 * command the README names for it, each exiting 0 with its expected last line; and the start
 * banner's SDK snippet, pasted into a file and run as printed.
 *
 * Slow (a real `npm install` in the clone), so it runs once for all examples, on the committed
 * HEAD of this repository. The same install shows that `npm install` leaves a fresh clone as it
 * was checked out: the lock already lists whatever npm would add to it.
 */
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPOSITORY = join(import.meta.dirname, '../../..');
const INSTALL_TIMEOUT_MS = 600_000;
const START_TIMEOUT_MS = 120_000;
const EXAMPLE_TIMEOUT_MS = 120_000;

let workDir: string;
let clone: string;
let service: ChildProcess | undefined;
let banner = '';
/** `git status --porcelain` of the clone right after `npm install`, before anything ran in it. */
let statusAfterInstall = '';
/** What both README commands and the examples see: the port and the data folder. */
let env: NodeJS.ProcessEnv;

/**
 * A command at low CPU priority where `nice` exists: the clone's install, build and service
 * should not starve the test files running beside this one on a small machine.
 */
function niced(command: string, args: string[]): [string, string[]] {
  return process.platform === 'win32' ? [command, args] : ['nice', ['-n', '10', command, ...args]];
}

/** This process's environment without npm's own variables, which would steer the clone's npm. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

/** `npm start`, resolved once it printed the whole banner (the snippet is its last part). */
function start(): Promise<ChildProcess> {
  const child = spawn(...niced('npm', ['start']), { cwd: clone, env, detached: true });
  child.stdout.on('data', (chunk) => {
    banner += chunk;
  });
  child.stderr.on('data', (chunk) => {
    banner += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner:\n${banner}`)), START_TIMEOUT_MS);
    child.on('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${banner}`)));
    // The banner goes to stderr when logs are JSON (stdout is not a terminal here).
    const check = () => {
      if (/^ {2}console\.log\(/m.test(banner)) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
  });
}

/** Stops `npm start` and the service under it (one process group). */
function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.pid === undefined) return resolve();
    child.removeAllListeners('exit');
    child.on('exit', () => resolve());
    process.kill(-child.pid, 'SIGTERM');
  });
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'poolparty-clone-'));
  clone = join(workDir, 'poolparty');
  const head = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: REPOSITORY, encoding: 'utf8' });
  const git = (args: string[], cwd: string) => {
    const result = spawnSync('git', args, { cwd, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  };
  git(['clone', '--quiet', REPOSITORY, clone], workDir);
  git(['checkout', '--quiet', '--detach', head.stdout.trim()], clone);

  env = {
    ...cleanEnv(),
    PORT: String(await freePort()),
    POOLPARTY_DATA_DIR: join(workDir, 'data'),
  };
  const install = await promisify(execFile)(
    ...niced('npm', ['install', '--no-audit', '--no-fund']),
    {
      cwd: clone,
      env,
      timeout: INSTALL_TIMEOUT_MS,
    },
  ).catch((error: { stdout?: string; stderr?: string }) => {
    throw new Error(`npm install failed:\n${error.stdout}\n${error.stderr}`);
  });
  expect(install.stdout).toMatch(/added \d+ packages/);
  statusAfterInstall = spawnSync('git', ['status', '--porcelain'], {
    cwd: clone,
    encoding: 'utf8',
  }).stdout;
  service = await start();
}, INSTALL_TIMEOUT_MS + START_TIMEOUT_MS);

/**
 * Stopping the service and deleting a clone with its installed packages (hundreds of megabytes):
 * seconds alone, much longer on a machine busy with other suites.
 */
const CLEAN_UP_TIMEOUT_MS = 120_000;

afterAll(async () => {
  if (service) await stop(service);
  if (workDir) rmSync(workDir, { recursive: true, force: true });
}, CLEAN_UP_TIMEOUT_MS);

interface Run {
  readonly code: number;
  readonly lastLine: string;
  readonly output: string;
}

async function run(command: string, args: string[], runEnv = env): Promise<Run> {
  const result = await promisify(execFile)(...niced(command, args), {
    cwd: clone,
    env: runEnv,
    timeout: EXAMPLE_TIMEOUT_MS,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: typeof error.code === 'number' ? error.code : -1,
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? '',
    }),
  );
  const lines = result.stdout.trim().split('\n');
  return {
    code: result.code,
    lastLine: lines.at(-1) ?? '',
    output: `${result.stdout}\n${result.stderr}`,
  };
}

const PARTY = '[A-Za-z0-9_-]+::1220[0-9a-f]{64}';
const DECIMAL = String.raw`\d+(?:\.\d+)?`;

describe('a fresh clone', () => {
  it('is unchanged by `npm install`: no tracked file rewritten, nothing untracked left', () => {
    expect(statusAfterInstall).toBe('');
  });

  it('starts with `npm install && npm start`, printing the URL on the chosen port', () => {
    expect(banner).toContain(`listening on http://127.0.0.1:${env.PORT}`);
  });

  async function example(name: string, lastLine: RegExp): Promise<void> {
    const result = await run('npm', ['run', '--silent', `example:${name}`]);
    expect(result.code, result.output).toBe(0);
    expect(result.lastLine, result.output).toMatch(lastLine);
  }

  it(
    'runs the banner’s first swap as printed (`npm run example:quickstart`): the seeded user’s swap completes',
    async () => {
      const command = /^First swap \(in another terminal, in (.+)\):\n {2}(.+)$/m.exec(banner);
      expect(command?.[1], banner).toBe(clone);
      expect(command?.[2]).toMatch(/npm run example:quickstart$/);
      // Another terminal: none of the settings the service was started with.
      const result = await run('sh', ['-c', `${command?.[2]} --silent`], cleanEnv());
      expect(result.code, result.output).toBe(0);
      expect(result.lastLine, result.output).toMatch(
        new RegExp(`^quickstart: completed — 100 Amulet → ${DECIMAL} USDCx \\(intent swp_\\w+\\)$`),
      );
    },
    EXAMPLE_TIMEOUT_MS,
  );

  it(
    'runs `npm run example:track`: it lists that one swap',
    async () => {
      await example('track', /^track: 1 swap of alice::1220[0-9a-f]{64} \(1 completed\)$/);
    },
    EXAMPLE_TIMEOUT_MS,
  );

  it(
    'runs `npm run example:portal-keys`',
    async () => {
      await example(
        'portal-keys',
        /^portal-keys: created, listed, rotated and revoked key_\S+ → key_\S+$/,
      );
    },
    EXAMPLE_TIMEOUT_MS,
  );

  it(
    'runs the banner’s SDK snippet as printed',
    async () => {
      const snippet = banner
        .slice(banner.indexOf('With the SDK'))
        .split('\n')
        .slice(1)
        .filter((line) => line.startsWith('  '))
        .map((line) => line.slice(2))
        .join('\n');
      writeFileSync(join(clone, 'swap.mjs'), `${snippet}\n`);
      const result = await run(process.execPath, ['swap.mjs']);
      expect(result.code, result.output).toBe(0);
      expect(result.lastLine).toMatch(new RegExp(`^swapped 100 Amulet for ${DECIMAL} USDCx$`));
    },
    EXAMPLE_TIMEOUT_MS,
  );

  it(
    'runs `npm run example:two-step`: a party without pre-approval accepts its payout',
    async () => {
      await example(
        'two-step',
        new RegExp(
          `^two-step: completed — accepted the payout offer \\S+; ${PARTY} holds ${DECIMAL} USDCx$`,
        ),
      );
    },
    EXAMPLE_TIMEOUT_MS,
  );
});
