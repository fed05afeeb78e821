/**
 * Prints the size of the browser bundle as shipped: minified, and minified + gzipped.
 * Run after the build (`npm run size` at the repository root does both).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

/** The size the bundle should stay under, minified and gzipped. */
export const BROWSER_BUNDLE_GZIP_BYTES_MAX = 10 * 1024;

const file = join(dirname(fileURLToPath(import.meta.url)), '../dist/poolparty.browser.js');
const bundle = readFileSync(file);
const gzipped = gzipSync(bundle, { level: 9 }).length;
const kb = (bytes) => `${(bytes / 1024).toFixed(2)} kB`;
console.log(`dist/poolparty.browser.js: ${kb(bundle.length)} minified, ${kb(gzipped)} gzipped`);
if (gzipped > BROWSER_BUNDLE_GZIP_BYTES_MAX) {
  console.error(`above the ${kb(BROWSER_BUNDLE_GZIP_BYTES_MAX)} budget`);
  process.exitCode = 1;
}
