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
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { basename, join, resolve } from 'node:path';
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

/**
 * How long a file of an earlier bundle stays after a build no longer needs it: a process
 * started from that bundle may still import its lazily loaded chunks for a moment.
 */
const EARLIER_BUNDLE_GRACE_MS = 10 * 60_000;

/**
 * Writes a file whole or not at all: a reader sees the old content or the new, never a part.
 *
 * @param {string} path
 * @param {string | Uint8Array} contents
 */
function replaceFile(path, contents) {
  const partial = `${path}.${process.pid}.tmp`;
  writeFileSync(partial, contents);
  renameSync(partial, path);
}

/**
 * Builds the bundle into `dist/` without ever taking away a file a starting process may load:
 * - chunks are named by their content, so a chunk already there is the one being built, and a
 *   new one is written beside the old ones;
 * - the entry, which names the chunks, is replaced after them, and the record of inputs last;
 * - every file is written to a temporary name and renamed into place.
 * Processes started together on changed sources (workers restarted after an update) each
 * build, from the same files, into the same names. Files only earlier bundles used are removed
 * once they are ten minutes old.
 */
export async function buildBundle() {
  const { build } = await import('esbuild');
  // Taken before reading the sources: a file saved during the build counts as changed after it.
  const builtAtMs = Date.now();
  const result = await build({
    absWorkingDir: PACKAGE_DIR,
    entryPoints: { poolparty: 'src/cli.ts' },
    outdir: DIST_DIR,
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
    write: false,
    logLevel: 'warning',
    plugins: [installedPackagesStayExternal],
  });
  mkdirSync(DIST_DIR, { recursive: true });
  const isEntry = (/** @type {string} */ path) => basename(path).startsWith('poolparty.');
  const chunks = result.outputFiles.filter((file) => !isEntry(file.path));
  for (const file of chunks) {
    // One already there is kept, its time renewed so that no build prunes it as an earlier one's.
    if (existsSync(file.path)) utimesSync(file.path, new Date(), new Date());
    else replaceFile(file.path, file.contents);
  }
  for (const file of result.outputFiles.filter((output) => isEntry(output.path))) {
    replaceFile(file.path, file.contents);
  }
  const inputs = Object.keys(result.metafile.inputs);
  replaceFile(BUILD_RECORD, `${JSON.stringify({ builtAtMs, inputs })}\n`);
  const current = new Set([
    ...result.outputFiles.map((file) => basename(file.path)),
    basename(BUILD_RECORD),
  ]);
  for (const name of readdirSync(DIST_DIR)) {
    const path = join(DIST_DIR, name);
    // Gone already when another build renamed its temporary file meanwhile.
    const file = statSync(path, { throwIfNoEntry: false });
    if (file === undefined || current.has(name)) continue;
    if (Date.now() - file.mtimeMs >= EARLIER_BUNDLE_GRACE_MS) rmSync(path, { force: true });
  }
  return { inputs: inputs.length };
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === THIS_SCRIPT) {
  const started = performance.now();
  const { inputs } = await buildBundle();
  console.log(
    `bundled ${inputs} modules into ${DIST_DIR} in ${Math.round(performance.now() - started)} ms`,
  );
}
