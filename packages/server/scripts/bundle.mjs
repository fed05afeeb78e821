/**
 * Bundles the service's own code (the server, core, ledger and the other workspace packages)
 * into `dist/`, the form `npm start` and `npm run poolparty` run: one file per entry and per
 * lazily imported command, instead of some two hundred TypeScript modules each resolved and
 * transformed at every start. Installed packages stay outside the bundle and load from
 * node_modules as usual.
 *
 * `bin/poolparty.mjs` rebuilds the bundle when a file it was built from has changed since, so
 * an edited source is never run stale. Plain JavaScript, so it runs without a TypeScript loader.
 *
 *   node packages/server/scripts/bundle.mjs
 */
import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_DIR = fileURLToPath(new URL('../', import.meta.url));
export const DIST_DIR = join(PACKAGE_DIR, 'dist');
export const BUNDLE_ENTRY = join(DIST_DIR, 'poolparty.mjs');
/** What the bundle was built from: every input file, relative to the package, and when. */
const BUILD_RECORD = join(DIST_DIR, 'inputs.json');
const THIS_SCRIPT = fileURLToPath(import.meta.url);

/**
 * The inputs changed since the bundle was built: modified after it, or gone. A file added since
 * matters only once an input imports it, and that input has then changed.
 *
 * @param {number} builtAtMs
 * @param {readonly { path: string, mtimeMs: number | null }[]} inputs  null: the file is gone
 * @returns {string[]}
 */
export function changedInputs(builtAtMs, inputs) {
  return inputs
    .filter((input) => input.mtimeMs === null || input.mtimeMs > builtAtMs)
    .map((input) => input.path);
}

/**
 * @typedef {{ builtAtMs: number, inputs: string[] }} BuildRecord
 */

/**
 * The inputs the current bundle was built from, with their modification times now.
 *
 * @param {BuildRecord} record
 */
function recordedInputs(record) {
  return record.inputs.map((path) => {
    const file = resolve(PACKAGE_DIR, path);
    return { path, mtimeMs: existsSync(file) ? statSync(file).mtimeMs : null };
  });
}

/**
 * Why the bundle must be built before it runs, or null when it is current: it is missing, or
 * one of its inputs (or this script) changed after it was built.
 *
 * @returns {string | null}
 */
export function bundleNeedsBuilding() {
  if (!existsSync(BUNDLE_ENTRY) || !existsSync(BUILD_RECORD)) return 'no bundle yet';
  const record = /** @type {BuildRecord} */ (JSON.parse(readFileSync(BUILD_RECORD, 'utf8')));
  const changed = changedInputs(record.builtAtMs, [
    ...recordedInputs(record),
    { path: 'scripts/bundle.mjs', mtimeMs: statSync(THIS_SCRIPT).mtimeMs },
  ]);
  return changed.length === 0 ? null : `changed since the last build: ${changed[0]}`;
}

/**
 * Installed packages are imported from node_modules; workspace packages are TypeScript sources.
 *
 * @type {import('esbuild').Plugin}
 */
const installedPackagesStayExternal = {
  name: 'installed-packages-stay-external',
  setup(bundle) {
    bundle.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@poolparty/') ? undefined : { external: true },
    );
  },
};

/** @param {unknown} error */
const errorCode = (error) => /** @type {{ code?: string }} */ (error).code;

/**
 * Builds the bundle into a folder of its own, then puts it in place of the old one: a process
 * starting meanwhile finds either the old bundle or the new one, never half of one.
 */
export async function buildBundle() {
  const { build } = await import('esbuild');
  // Taken before reading the sources: a file saved during the build counts as changed after it.
  const builtAtMs = Date.now();
  const staging = `${DIST_DIR}.${process.pid}.new`;
  rmSync(staging, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: PACKAGE_DIR,
    entryPoints: { poolparty: 'src/cli.ts' },
    outdir: staging,
    // Flat: `src/package-dir.ts` finds the package one step above whichever file it lands in.
    chunkNames: 'chunk-[hash]',
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
    plugins: [installedPackagesStayExternal],
  });
  const inputs = Object.keys(result.metafile.inputs);
  writeFileSync(join(staging, 'inputs.json'), `${JSON.stringify({ builtAtMs, inputs })}\n`);
  const previous = `${DIST_DIR}.${process.pid}.old`;
  // Processes started together on changed sources (workers restarted after an update) each
  // build: whichever puts its bundle in place last wins, and all are built from the same files.
  try {
    renameSync(DIST_DIR, previous);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
  }
  try {
    renameSync(staging, DIST_DIR);
  } catch (error) {
    // Another start's bundle took the place between the two renames: it is as current as ours.
    if (errorCode(error) !== 'ENOTEMPTY' && errorCode(error) !== 'EEXIST') throw error;
    rmSync(staging, { recursive: true, force: true });
  }
  rmSync(previous, { recursive: true, force: true });
  return { inputs: inputs.length };
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === THIS_SCRIPT) {
  const started = performance.now();
  const { inputs } = await buildBundle();
  console.log(
    `bundled ${inputs} modules into ${DIST_DIR} in ${Math.round(performance.now() - started)} ms`,
  );
}
