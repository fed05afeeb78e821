/**
 * `npm pack` and `npm publish` of @poolparty/sdk write the package.json an app gets, not the
 * workspace's: npm puts the package.json on disk into the tarball, and the workspace's carries
 * what only this repository uses — the `prepare` build (npm warns an app about install scripts,
 * and the scripts it runs are not in the tarball), the build's devDependencies, and the `source`
 * export condition (the web app's build reads the SDK's TypeScript through it; `src/` is not
 * published).
 *
 * - `node scripts/pack.mjs prepack` (npm's `prepack`): builds dist/, keeps the workspace's
 *   package.json aside, and writes the published one in its place. The published one resolves
 *   every entry exactly as the workspace's does, so anything resolving the SDK meanwhile (a test,
 *   a type check) sees the same files.
 * - `node scripts/pack.mjs postpack` (npm's `postpack`): puts the workspace's back.
 *
 * A pack stopped between the two leaves the copy aside; the next prepack or postpack restores it
 * first. `npm pack --ignore-scripts` runs neither, and packs the workspace's package.json.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const MANIFEST = join(root, 'package.json');
/** The workspace's package.json while a pack is under way; never packed (`files` lists dist). */
const ASIDE = join(root, '.workspace-package.json');

/** Fields for this repository only: scripts that need its sources, and its build tools. */
const WORKSPACE_FIELDS = ['scripts', 'devDependencies'];
/** Export conditions that point into `src/`, which is not published. */
const WORKSPACE_CONDITIONS = ['source'];

/** The package.json an app gets: the workspace's without what only the workspace uses. */
export function publishedManifest(manifest) {
  const published = { ...manifest };
  for (const field of WORKSPACE_FIELDS) delete published[field];
  if (manifest.exports) published.exports = withoutConditions(manifest.exports);
  return published;
}

function withoutConditions(exports) {
  if (typeof exports !== 'object' || exports === null) return exports;
  return Object.fromEntries(
    Object.entries(exports)
      .filter(([key]) => !WORKSPACE_CONDITIONS.includes(key))
      .map(([key, value]) => [key, withoutConditions(value)]),
  );
}

/** Replaces `file` in one rename, so a reader sees the old text or the new, never half of one. */
function writeAtomically(file, text) {
  const staged = `${file}.${process.pid}.tmp`;
  writeFileSync(staged, text);
  renameSync(staged, file);
}

function restore() {
  if (existsSync(ASIDE)) renameSync(ASIDE, MANIFEST);
}

function prepack() {
  restore();
  const build = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], {
    stdio: 'inherit',
  });
  if (build.status !== 0) throw new Error('the SDK build failed; nothing was packed');
  const text = readFileSync(MANIFEST, 'utf8');
  writeFileSync(ASIDE, text);
  writeAtomically(MANIFEST, `${JSON.stringify(publishedManifest(JSON.parse(text)), null, 2)}\n`);
}

const STEPS = { prepack, postpack: restore };

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const step = STEPS[process.argv[2]];
  if (!step) throw new Error(`usage: node scripts/pack.mjs ${Object.keys(STEPS).join('|')}`);
  step();
}
