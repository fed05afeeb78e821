/**
 * The project runs on the Node it pins as a dev dependency (the `node` package), not on whatever
 * Node the machine has: npm puts `node_modules/.bin` first on the PATH of every script, so the
 * test runner, the tools and `npm start` all get the pinned binary while npm itself may run on an
 * older system Node.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { request } from './support/service.js';

const ROOT = join(import.meta.dirname, '../../..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};
const PINNED = manifest.devDependencies.node ?? '';
const PROJECT_NODE = join(ROOT, 'node_modules/.bin/node');
const STARTUP_WAIT_MS = 45_000;

describe('the runtime', () => {
  it('pins an exact Node 24 release that satisfies the engines range', () => {
    expect(PINNED).toMatch(/^24\.\d+\.\d+$/);
    expect(manifest.engines.node).toBe('>=24');
  });

  it('runs the test suite on the pinned Node, from node_modules', () => {
    expect(process.versions.node).toBe(PINNED);
    expect(realpathSync(process.execPath)).toBe(realpathSync(PROJECT_NODE));
  });

  it('gives child processes started as plain `node` the same Node', () => {
    const version = execFileSync('node', ['-p', 'process.versions.node'], { encoding: 'utf8' });
    expect(version.trim()).toBe(PINNED);
  });
});

describe('npm start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'poolparty-runtime-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('serves on the pinned Node and says so in its banner', {
    timeout: 2 * STARTUP_WAIT_MS,
  }, async () => {
    // Its own process group, so that npm, the script's shell and the service stop together.
    const child = spawn('npm', ['start', '--', '--port', '0'], {
      cwd: ROOT,
      env: { ...process.env, POOLPARTY_DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    // 'close' comes once every process holding the pipes — the service included — has exited.
    const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
    const stopAll = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
      } catch {
        // the group has already gone
      }
    };
    try {
      const banner = await new Promise<{ url: string; runtime: string }>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no banner:\n${output}`)), STARTUP_WAIT_MS);
        child.on('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${output}`)));
        // The banner goes to stderr when logs are JSON (stdout is not a terminal here).
        const check = () => {
          const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
          const runtime = /runtime: +Node\.js (\S+)/.exec(output)?.[1];
          if (url && runtime) {
            clearTimeout(timer);
            resolve({ url, runtime });
          }
        };
        child.stdout.on('data', check);
        child.stderr.on('data', check);
      });
      expect(banner.runtime).toBe(`v${PINNED}`);
      expect((await request(banner.url, 'GET', '/healthz')).body).toEqual({ status: 'ok' });
    } finally {
      stopAll();
      await closed;
    }
  });
});
