/**
 * The size budget of the app's build (`npm run size:app`): the real build is within it, and a
 * build above it makes the script fail.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'vite';
import { afterAll, describe, expect, it } from 'vitest';
import { APP_DIR } from './support/browser.js';

const SCRIPT = join(APP_DIR, 'scripts/size.mjs');

function runSize(dist: string): { code: number; output: string } {
  try {
    const output = execFileSync(process.execPath, [SCRIPT, dist], {
      encoding: 'utf8',
      stdio: 'pipe',
    });
    return { code: 0, output };
  } catch (error) {
    const failed = error as { status: number; stdout: string; stderr: string };
    return { code: failed.status, output: failed.stdout + failed.stderr };
  }
}

describe('npm run size:app', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'poolparty-app-size-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('passes for the app as built', async () => {
    const dist = join(scratch, 'real');
    // As `npm run size:app` builds it: vitest's NODE_ENV=test would keep development code in.
    const nodeEnv = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    await build({
      mode: 'production',
      root: APP_DIR,
      configFile: join(APP_DIR, 'vite.config.ts'),
      logLevel: 'error',
      build: { outDir: dist, emptyOutDir: true },
    }).finally(() => {
      process.env.NODE_ENV = nodeEnv;
    });
    const { code, output } = runSize(dist);
    expect(output).toMatch(/first load: [\d.]+ kB gzipped/);
    expect(output).toMatch(/on demand canton-wallet-[\w-]+\.js/);
    // The SDK guide ships as HTML rendered at build time: no Markdown, no Markdown library.
    const assets = join(dist, 'assets');
    const guide = readdirSync(assets).find((name) => /^sdk-guide-[\w-]+\.js$/.test(name));
    const chunk = readFileSync(join(assets, guide ?? 'missing'), 'utf8');
    expect(chunk).toMatch(/<h2 id=\\?"a-complete-swap\\?">A complete swap<\/h2>/);
    expect(chunk).not.toContain('## A complete swap');
    expect(code, output).toBe(0);
  });

  it('fails when the first load is above its budget', () => {
    const dist = join(scratch, 'heavy');
    mkdirSync(join(dist, 'assets'), { recursive: true });
    // Random bytes as base64 hardly compress: about 107 kB stays about 80 kB gzipped.
    writeFileSync(
      join(dist, 'assets/index-heavy.js'),
      `export const noise = '${randomBytes(80_000).toString('base64')}';`,
    );
    writeFileSync(
      join(dist, 'index.html'),
      '<!doctype html><script type="module" src="/assets/index-heavy.js"></script>',
    );
    const { code, output } = runSize(dist);
    expect(output).toContain('first load');
    expect(output).toMatch(/above its 42\.00 kB budget/);
    expect(code).toBe(1);
  });
});
