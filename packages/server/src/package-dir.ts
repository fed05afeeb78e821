/**
 * The server package's folder, where the files the service reads at run time live beside its
 * code: `migrations/`, `pglite-template/`, `package.json`, and `../app/dist/` for the web app.
 *
 * This module sits directly in `src/`, one level below the package, and the bundle that
 * `npm start` runs is written to `dist/`, also one level below it. So the same relative step
 * finds the package from the sources and from the bundle, where every module shares the
 * bundle's `import.meta.url` and a step from a module's own folder would be wrong.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SERVER_PACKAGE_DIR = fileURLToPath(new URL('../', import.meta.url));

/** A path inside the server package. */
export function serverPackagePath(...segments: string[]): string {
  return join(SERVER_PACKAGE_DIR, ...segments);
}
