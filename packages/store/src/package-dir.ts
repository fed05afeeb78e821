/**
 * The store package's folder, where the files it reads at run time live beside its code:
 * `migrations/` and `pglite-template/`. Found through the package's own name rather than from
 * this module's place, so it is the same whether the module runs from its source or bundled
 * into another package's `dist/` (where every module shares the bundle's `import.meta.url`).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const STORE_PACKAGE_DIR = dirname(
  fileURLToPath(import.meta.resolve('@poolparty/store/package.json')),
);

/** A path inside the store package. */
export function storePackagePath(...segments: string[]): string {
  return join(STORE_PACKAGE_DIR, ...segments);
}
