/**
 * The app's download size as shipped (gzip), against its budget: what the first page load
 * fetches (index.html, the entry script and stylesheet), and the largest chunk loaded on demand
 * (the Canton dApp SDK, loaded when a user connects a Canton wallet). Exits 1 above a budget.
 *
 * `npm run size:app` at the repository root builds the app and runs this; pass another build
 * folder as the first argument to measure that instead.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

/** The first page load, gzipped: the shell, the SDK client, the devnet wallet and every page. */
export const INITIAL_GZIP_BYTES_MAX = 42 * 1024;
/** Any chunk loaded later, gzipped. */
export const LAZY_CHUNK_GZIP_BYTES_MAX = 160 * 1024;

const gzipSize = (path) => gzipSync(readFileSync(path), { level: 9 }).length;

/** The sizes of a build folder: the initial load and each lazily loaded chunk. */
export function measure(dist) {
  const indexPath = join(dist, 'index.html');
  const html = readFileSync(indexPath, 'utf8');
  // What index.html itself references is the first load; every other asset is fetched later.
  const referenced = new Set(
    [...html.matchAll(/(?:src|href)="\/assets\/([^"]+)"/g)].map((match) => match[1]),
  );
  let initial = gzipSize(indexPath);
  const lazy = [];
  for (const name of readdirSync(join(dist, 'assets'))) {
    const size = gzipSize(join(dist, 'assets', name));
    if (referenced.has(name)) initial += size;
    else lazy.push({ name, size });
  }
  return { initial, lazy };
}

/** The budget lines exceeded, empty when within budget. */
export function overBudget({ initial, lazy }) {
  const problems = [];
  if (initial > INITIAL_GZIP_BYTES_MAX) {
    problems.push(`first load ${kb(initial)} is above its ${kb(INITIAL_GZIP_BYTES_MAX)} budget`);
  }
  for (const chunk of lazy) {
    if (chunk.size > LAZY_CHUNK_GZIP_BYTES_MAX) {
      problems.push(
        `${chunk.name} ${kb(chunk.size)} is above the ${kb(LAZY_CHUNK_GZIP_BYTES_MAX)} chunk budget`,
      );
    }
  }
  return problems;
}

function kb(bytes) {
  return `${(bytes / 1024).toFixed(2)} kB`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dist = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '../dist');
  const sizes = measure(dist);
  console.log(`first load: ${kb(sizes.initial)} gzipped (budget ${kb(INITIAL_GZIP_BYTES_MAX)})`);
  for (const chunk of sizes.lazy)
    console.log(`  on demand ${chunk.name}: ${kb(chunk.size)} gzipped`);
  const problems = overBudget(sizes);
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) process.exitCode = 1;
}
