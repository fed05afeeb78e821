/**
 * The bundled CLI that `npm start` and `npm run poolparty` run (`scripts/bundle.mjs`,
 * `bin/poolparty.mjs`): rebuilt when a source changed, and a whole service when run, finding
 * its migrations, store template, version and web app from `dist/` as from `src/`.
 */
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildBundle,
  bundleNeedsBuilding,
  changedInputs,
  DIST_DIR,
  PACKAGE_DIR,
} from '../scripts/bundle.mjs';
import { BUNDLED_CLI, serveCli, stopServed } from './support/cli.js';

const run = promisify(execFile);
const version = () =>
  (JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as { version: string })
    .version;
const QUOTE_PATH = '/v1/quotes?from=Amulet&to=USDCx&amount=100&poolId=amulet-usdcx';

describe('which inputs changed since a build', () => {
  it('names the files modified after the build and the files gone, nothing else', () => {
    const builtAtMs = 1_000;
    expect(
      changedInputs(builtAtMs, [
        { path: 'src/a.ts', mtimeMs: 999 },
        { path: 'src/b.ts', mtimeMs: 1_000 },
        { path: 'src/c.ts', mtimeMs: 1_001 },
        { path: 'src/d.ts', mtimeMs: null },
      ]),
    ).toEqual(['src/c.ts', 'src/d.ts']);
    expect(changedInputs(builtAtMs, [])).toEqual([]);
  });
});

/**
 * Runs `work` with a source the bundle is built from marked as saved at `when`, then gives the
 * file its own times back: no content changes, only what the staleness check reads.
 */
async function asIfSourceSavedAt(when: Date, work: () => Promise<void>): Promise<void> {
  const source = join(PACKAGE_DIR, 'src', 'package-dir.ts');
  const { atime, mtime } = statSync(source);
  utimesSync(source, when, when);
  try {
    await work();
  } finally {
    utimesSync(source, atime, mtime);
  }
}

describe('the bundled CLI', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'poolparty-bundle-'));
  beforeAll(async () => {
    await buildBundle();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is current after a build, and stale once a file it was built from is saved again', async () => {
    expect(bundleNeedsBuilding()).toBeNull();
    await asIfSourceSavedAt(new Date(Date.now() + 60_000), async () => {
      expect(bundleNeedsBuilding()).toBe('changed since the last build: src/package-dir.ts');
    });
    expect(bundleNeedsBuilding()).toBeNull();
  });

  it('runs every one of several starts that find it stale at once, each rebuilding it', async () => {
    await asIfSourceSavedAt(new Date(Date.now() + 1_000), async () => {
      // Built after that moment, so the rebuilt bundle is current again.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect(bundleNeedsBuilding()).not.toBeNull();
      const starts = [1, 2, 3, 4].map(() => run(process.execPath, [...BUNDLED_CLI, '--version']));
      const pids = starts.map((start) => start.child.pid);
      const runs = await Promise.all(starts);
      expect(runs.map(({ stdout }) => stdout.trim())).toEqual(Array(4).fill(version()));
      expect(bundleNeedsBuilding()).toBeNull();
      // None of them left a file half written (`<name>.<pid>.tmp`); other test files may be
      // starting the CLI meanwhile, so only these four are looked at.
      const leftBehind = readdirSync(DIST_DIR).filter((name) =>
        pids.some((pid) => name.endsWith(`.${pid}.tmp`)),
      );
      expect(leftBehind).toEqual([]);
    });
  });

  it('keeps a file of an earlier bundle ten minutes after a rebuild no longer needs it', async () => {
    const recent = join(DIST_DIR, 'chunk-EARLIER1.mjs');
    const old = join(DIST_DIR, 'chunk-EARLIER2.mjs');
    writeFileSync(recent, '');
    writeFileSync(old, '');
    const elevenMinutesAgo = new Date(Date.now() - 11 * 60_000);
    utimesSync(old, elevenMinutesAgo, elevenMinutesAgo);
    await buildBundle();
    // A process started from the earlier bundle may still be importing its chunks.
    expect(existsSync(recent)).toBe(true);
    expect(existsSync(old)).toBe(false);
    rmSync(recent);
  });

  it('prints the server package version', async () => {
    const { stdout } = await run(process.execPath, [...BUNDLED_CLI, '--version']);
    expect(stdout.trim()).toBe(version());
  });

  it('serves a first start: store from the template, devnet seeded, quotes, web app and docs', async () => {
    const served = await serveCli(join(dir, 'data'), {}, BUNDLED_CLI);
    try {
      expect(served.output()).toContain('first start: creating the store in');
      expect((await fetch(`${served.url}/healthz`)).status).toBe(200);
      const quote = await fetch(`${served.url}${QUOTE_PATH}`, {
        headers: { 'x-api-key': served.apiKey },
      });
      expect(quote.status).toBe(200);
      expect(await quote.json()).toMatchObject({ poolId: 'amulet-usdcx', inputToken: 'Amulet' });
      const page = await fetch(`${served.url}/swap`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      expect((await fetch(`${served.url}/docs/json`)).status).toBe(200);
    } finally {
      expect(await stopServed(served)).toBe(0);
    }
    // The store it made is up to date by the migrations the sources hold.
    const migrate = await run(process.execPath, [
      ...BUNDLED_CLI,
      'migrate',
      '--data-dir',
      join(dir, 'data'),
    ]);
    expect(migrate.stdout).toContain('the store is up to date');
  });
});
