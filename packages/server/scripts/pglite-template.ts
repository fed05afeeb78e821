/**
 * Writes the empty-cluster template for the installed PGlite (store/pglite-template.ts). Run
 * after upgrading PGlite: `node --import tsx packages/server/scripts/pglite-template.ts`.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildPgliteTemplate,
  installedPgliteVersion,
  TEMPLATE_DIR,
  templateFile,
} from '../src/store/pglite-template.js';

const version = installedPgliteVersion();
const file = templateFile(version);
mkdirSync(TEMPLATE_DIR, { recursive: true });
writeFileSync(file, await buildPgliteTemplate());
// Only the installed version's template is of use; older ones would only weigh on the checkout.
for (const name of readdirSync(TEMPLATE_DIR)) {
  if (name.endsWith('.tar.br') && join(TEMPLATE_DIR, name) !== file) {
    rmSync(join(TEMPLATE_DIR, name));
  }
}
console.log(`wrote ${file}`);
