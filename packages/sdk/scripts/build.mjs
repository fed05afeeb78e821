/**
 * Builds the published files of @poolparty/sdk into dist/:
 * - index.js (ESM) and index.cjs (CommonJS) for Node and bundlers;
 * - devnet.js and devnet.cjs: the optional `@poolparty/sdk/devnet` entry (devnet wallet helpers and
 *   the Ed25519 signer), kept out of the main bundles so apps that do not use it do not carry it;
 * - atomic.js and atomic.cjs: the optional `@poolparty/sdk/atomic` entry (`withAtomicSwaps`, which
 *   gives a client `pp.atomicSwaps`), and poolparty-atomic.browser.js, kept out of the main bundles;
 * - liquidity.js and liquidity.cjs: the optional `@poolparty/sdk/liquidity` entry (`withLiquidity`,
 *   which gives a client `pp.liquidity`), kept out of the main bundles for the same reason;
 * - webhooks.js and webhooks.cjs: the optional `@poolparty/sdk/webhooks` entry (verifying and
 *   signing webhook requests), for receivers, which need none of the client;
 * - poolparty.browser.js: one minified ES module for a <script type="module"> or an import map,
 *   poolparty-liquidity.browser.js, the liquidity entry's, and poolparty-webhooks.browser.js, the
 *   webhooks entry's (for edge runtimes that load one ES module);
 * - declarations: index.d.ts and one per module from `tsc -p tsconfig.build.json`, and a copy
 *   under cjs/ marked CommonJS, so TypeScript reads the right module kind for `require`.
 *
 * `node scripts/build.mjs` builds everything, as `npm run build -w @poolparty/sdk` does.
 */
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'src/index.ts');
const devnetEntry = join(root, 'src/devnet/index.ts');
const liquidityEntry = join(root, 'src/liquidity/index.ts');
const webhooksEntry = join(root, 'src/webhooks/index.ts');
const atomicEntry = join(root, 'src/atomic/index.ts');

/** Browsers with fetch streams, private class fields and WebCrypto; Node ≥ 20. */
const TARGET = ['es2022', 'chrome105', 'firefox110', 'safari16', 'node20'];

const common = {
  bundle: true,
  target: TARGET,
  legalComments: 'none',
  logLevel: 'warning',
};

/** The JavaScript bundles, written to `outdir`. */
export async function buildBundles(outdir = join(root, 'dist')) {
  mkdirSync(outdir, { recursive: true });
  const moduleBuilds = (entryPoint, name) => [
    build({
      ...common,
      entryPoints: [entryPoint],
      platform: 'neutral',
      format: 'esm',
      outfile: join(outdir, `${name}.js`),
    }),
    build({
      ...common,
      entryPoints: [entryPoint],
      platform: 'node',
      format: 'cjs',
      outfile: join(outdir, `${name}.cjs`),
    }),
  ];
  const browserBuild = (entryPoint, name) =>
    build({
      ...common,
      entryPoints: [entryPoint],
      platform: 'browser',
      format: 'esm',
      minify: true,
      outfile: join(outdir, `${name}.browser.js`),
    });
  await Promise.all([
    ...moduleBuilds(entry, 'index'),
    ...moduleBuilds(devnetEntry, 'devnet'),
    ...moduleBuilds(liquidityEntry, 'liquidity'),
    ...moduleBuilds(webhooksEntry, 'webhooks'),
    ...moduleBuilds(atomicEntry, 'atomic'),
    browserBuild(entry, 'poolparty'),
    browserBuild(liquidityEntry, 'poolparty-liquidity'),
    browserBuild(webhooksEntry, 'poolparty-webhooks'),
    browserBuild(atomicEntry, 'poolparty-atomic'),
  ]);
}

/** Declarations via tsc, plus their CommonJS twin under dist/cjs. */
export function buildDeclarations(outdir = join(root, 'dist')) {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const project = join(root, 'tsconfig.build.json');
  const result = spawnSync(process.execPath, [tsc, '-p', project, '--outDir', outdir], {
    stdio: 'inherit',
  });
  if (result.status !== 0) throw new Error('tsc failed to emit declarations');
  const cjs = join(outdir, 'cjs');
  mkdirSync(cjs, { recursive: true });
  for (const name of readdirSync(outdir)) {
    if (name === 'cjs' || !/\.d\.ts$|^[a-z-]+$/.test(name)) continue;
    cpSync(join(outdir, name), join(cjs, name), { recursive: true });
  }
  writeFileSync(join(cjs, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
}

/** Where a build is staged inside dist/, so moving its files into place is a rename. */
const STAGING_PREFIX = '.staging-';

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .filter((file) => !file.startsWith(STAGING_PREFIX));
}

/**
 * Moves each staged file over its old copy in dist/ (a rename: atomic), then drops the files this
 * build no longer makes. The build runs on install (`prepare`), on `npm pack`, and in tests,
 * sometimes at once: a reader of dist/ sees the old file or the new one, never a missing or
 * half-written one.
 */
function publish(staging, dist) {
  const built = new Set(filesUnder(staging));
  for (const file of built) {
    mkdirSync(dirname(join(dist, file)), { recursive: true });
    renameSync(join(staging, file), join(dist, file));
  }
  for (const file of filesUnder(dist)) if (!built.has(file)) rmSync(join(dist, file));
}

async function main() {
  const dist = join(root, 'dist');
  mkdirSync(dist, { recursive: true });
  const staging = mkdtempSync(join(dist, STAGING_PREFIX));
  try {
    await buildBundles(staging);
    buildDeclarations(staging);
    publish(staging, dist);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  console.log(`built ${dist}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
