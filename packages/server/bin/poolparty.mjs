#!/usr/bin/env node
/**
 * The `poolparty` command as `npm start` and `npm run poolparty` run it: the bundled CLI, built
 * first when it is missing or older than a file it is built from (`scripts/bundle.mjs`). A
 * current bundle costs a look at each input's modification time, a few milliseconds.
 */
import { pathToFileURL } from 'node:url';
import { BUNDLE_ENTRY, buildBundle, bundleNeedsBuilding } from '../scripts/bundle.mjs';

if (bundleNeedsBuilding() !== null) await buildBundle();
// Stack traces in logs name the source files and lines, not the bundle's (about 50 ms a start).
process.setSourceMapsEnabled(true);
await import(pathToFileURL(BUNDLE_ENTRY).href);
