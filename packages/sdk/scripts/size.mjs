/**
 * Prints the size of each browser bundle as shipped (the main one, the liquidity entry's and the webhooks entry's):
 * minified, and minified + gzipped; fails when one is above its budget.
 * Run after the build (`npm run size` at the repository root does both).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

/**
 * The sizes the bundles should stay under, minified and gzipped. The main one's was 10 kB until
 * the deposit check (`swap.canDeposit()`) and the portal's hook for the webhooks entry.
 */
export const BROWSER_BUNDLE_GZIP_BYTES_MAX = 11 * 1024;
/** The liquidity entry's bundle, loaded beside the main one by apps that provide liquidity. */
export const LIQUIDITY_BROWSER_BUNDLE_GZIP_BYTES_MAX = 5 * 1024;
/** The webhooks entry's bundle: verifying and signing, what a receiver (often an edge function) loads. */
export const WEBHOOKS_BROWSER_BUNDLE_GZIP_BYTES_MAX = 4 * 1024;

/**
 * The atomic swaps entry's bundle: the prepared-transaction reader (about 2 kB of it) and the
 * atomic-swap object, which follows its swap by the event stream as the liquidity entry's objects
 * do (the stream watcher took it from 3.1 to 5.0 kB): the liquidity entry's budget and the reader.
 */
export const ATOMIC_BROWSER_BUNDLE_GZIP_BYTES_MAX = 5.5 * 1024;

const BUDGETS = {
  'poolparty.browser.js': BROWSER_BUNDLE_GZIP_BYTES_MAX,
  'poolparty-liquidity.browser.js': LIQUIDITY_BROWSER_BUNDLE_GZIP_BYTES_MAX,
  'poolparty-webhooks.browser.js': WEBHOOKS_BROWSER_BUNDLE_GZIP_BYTES_MAX,
  'poolparty-atomic.browser.js': ATOMIC_BROWSER_BUNDLE_GZIP_BYTES_MAX,
};

const dist = join(dirname(fileURLToPath(import.meta.url)), '../dist');
const kb = (bytes) => `${(bytes / 1024).toFixed(2)} kB`;
for (const [name, budget] of Object.entries(BUDGETS)) {
  const bundle = readFileSync(join(dist, name));
  const gzipped = gzipSync(bundle, { level: 9 }).length;
  console.log(`dist/${name}: ${kb(bundle.length)} minified, ${kb(gzipped)} gzipped`);
  if (gzipped > budget) {
    console.error(`dist/${name} is above its ${kb(budget)} budget`);
    process.exitCode = 1;
  }
}
