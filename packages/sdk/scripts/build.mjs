/**
 * Builds the published files of @poolparty/sdk into dist/:
 * - index.js (ESM) and index.cjs (CommonJS) for Node and bundlers;
 * - devnet.js and devnet.cjs: the optional `@poolparty/sdk/devnet` entry (devnet wallet helpers and
 *   the Ed25519 signer), kept out of the main bundles so apps that do not use it do not carry it;
 * - poolparty.browser.js: one minified ES module for a <script type="module"> or an import map;
 * - declarations: index.d.ts and one per module from `tsc -p tsconfig.build.json`, and a copy
 *   under cjs/ marked CommonJS, so TypeScript reads the right module kind for `require`.
 *
 * `node scripts/build.mjs` builds everything; `buildBundles` is also used by the browser test.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'src/index.ts');
const devnetEntry = join(root, 'src/devnet/index.ts');

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
  await Promise.all([
    ...moduleBuilds(entry, 'index'),
    ...moduleBuilds(devnetEntry, 'devnet'),
    build({
      ...common,
      entryPoints: [entry],
      platform: 'browser',
      format: 'esm',
      minify: true,
      outfile: join(outdir, 'poolparty.browser.js'),
    }),
  ]);
}

/** Declarations via tsc, plus their CommonJS twin under dist/cjs. */
export function buildDeclarations(outdir = join(root, 'dist')) {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], {
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

async function main() {
  const outdir = join(root, 'dist');
  rmSync(outdir, { recursive: true, force: true });
  await buildBundles(outdir);
  buildDeclarations(outdir);
  console.log(`built ${outdir}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
