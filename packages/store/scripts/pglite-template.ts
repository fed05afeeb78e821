/**
 * Writes the templates for the installed PGlite (store/pglite-template.ts): the empty cluster,
 * kept when there is one already, and the migrated one with the migrations it holds. Run after
 * upgrading PGlite or adding a migration: `node --import tsx packages/store/scripts/pglite-template.ts`.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { pgliteStore } from '../src/database.js';
import { loadMigrations, type Migration, migrate } from '../src/migrate.js';
import {
  installedPgliteVersion,
  TEMPLATE_DIR,
  templateFile,
  templateMigrationsFile,
} from '../src/pglite-template.js';

/** A cluster as the template file holds it. */
async function compressedCluster(pg: PGlite): Promise<Buffer> {
  const tar = Buffer.from(await (await pg.dumpDataDir('none')).arrayBuffer());
  return brotliCompressSync(tar, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 9,
      // Wide enough to see one database's pages while writing the next (each about 7.5 MB).
      [constants.BROTLI_PARAM_LGWIN]: 24,
      [constants.BROTLI_PARAM_SIZE_HINT]: tar.length,
    },
  });
}

/** Runs `initdb` in memory and returns the cluster, compressed as the template file holds it. */
async function buildPgliteTemplate(): Promise<Buffer> {
  const pg = await PGlite.create();
  try {
    return await compressedCluster(pg);
  } finally {
    await pg.close();
  }
}

/**
 * The migrated template: the empty cluster (`empty`, compressed) with `migrations` applied,
 * checkpointed so the pages hold the schema and the log has little left to replay.
 */
async function buildMigratedTemplate(
  empty: Buffer,
  migrations: readonly Migration[],
): Promise<Buffer> {
  const pg = await PGlite.create({
    loadDataDir: new Blob([new Uint8Array(brotliDecompressSync(empty))]),
  });
  try {
    await migrate(pgliteStore(pg), migrations);
    await pg.exec('CHECKPOINT');
    return await compressedCluster(pg);
  } finally {
    await pg.close();
  }
}

const version = installedPgliteVersion();
const migrations = loadMigrations();
const files = [
  templateFile(version),
  templateFile(version, TEMPLATE_DIR, 'migrated'),
  templateMigrationsFile(version),
];
const [emptyFile, migratedFile, migrationsFile] = files as [string, string, string];
mkdirSync(TEMPLATE_DIR, { recursive: true });
// initdb never writes the same bytes twice: the empty cluster is kept while it serves this PGlite,
// so adding a migration changes only the migrated template.
let empty: Buffer;
if (existsSync(emptyFile)) {
  empty = readFileSync(emptyFile);
  console.log(`kept ${emptyFile}`);
} else {
  empty = await buildPgliteTemplate();
  writeFileSync(emptyFile, empty);
  console.log(`wrote ${emptyFile}`);
}
writeFileSync(migratedFile, await buildMigratedTemplate(empty, migrations));
const held = migrations.map(({ name, checksum }) => ({ name, checksum }));
writeFileSync(migrationsFile, `${JSON.stringify(held, null, 2)}\n`);
// Only the installed version's templates are of use; older ones would only weigh on the checkout.
for (const name of readdirSync(TEMPLATE_DIR)) {
  if (!files.includes(join(TEMPLATE_DIR, name))) rmSync(join(TEMPLATE_DIR, name));
}
for (const file of [migratedFile, migrationsFile]) console.log(`wrote ${file}`);
