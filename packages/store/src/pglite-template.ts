/**
 * A new embedded store starts from a copy of an empty PostgreSQL cluster instead of running
 * `initdb` (inside WASM that bootstraps the whole system catalog and costs 3–6 s, most of a first
 * start). The copy is the data directory PGlite itself produced on a fresh create, dumped as a tar
 * and brotli-compressed (`pglite-template/pglite-<version>.tar.br`, about 1.5 MB; the three near
 * identical databases of a cluster compress to one with a 16 MB window).
 *
 * A new data folder starts one step further, from the same cluster with the migrations already
 * applied (`pglite-<version>-migrated.tar.br`, and beside it the migrations it holds, by name and
 * checksum): applying them inside WASM was most of a second of a first start. It is used only
 * while the migrations it holds are the first of the current ones, unchanged, and `migrate` then
 * applies those added since. In-memory stores (tests) start from the empty cluster, since some
 * apply only part of the migrations.
 *
 * It is tied to the exact PGlite version that wrote it: the catalog belongs to that build. When
 * the installed PGlite is another version there is no template for it, and a new store is made
 * by `initdb` as before — correct, only slower; the template test says to write a new one
 * (`node --import tsx packages/store/scripts/pglite-template.ts`).
 *
 * Every store made from it shares the cluster's system identifier, which only replication uses;
 * an embedded store is never replicated.
 */
import { existsSync, mkdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliDecompress, brotliDecompressSync } from 'node:zlib';
import type { Migration } from './migrate.js';
import { storePackagePath } from './package-dir.js';

export const TEMPLATE_DIR = storePackagePath('pglite-template');

let pgliteVersion: string | undefined;

/**
 * The installed PGlite's version, from its package.json (the package does not export it). Read
 * once per process: it cannot change while the process runs.
 */
export function installedPgliteVersion(): string {
  pgliteVersion ??= readPgliteVersion();
  return pgliteVersion;
}

function readPgliteVersion(): string {
  const entry = fileURLToPath(import.meta.resolve('@electric-sql/pglite'));
  let dir = dirname(entry);
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the PGlite package.json');
    dir = parent;
  }
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string })
    .version;
}

export type TemplateKind = 'empty' | 'migrated';

export function templateFile(
  version: string,
  dir: string = TEMPLATE_DIR,
  kind: TemplateKind = 'empty',
): string {
  return join(dir, `pglite-${version}${kind === 'migrated' ? '-migrated' : ''}.tar.br`);
}

/** Where the migrated template lists the migrations it holds. */
export function templateMigrationsFile(version: string, dir: string = TEMPLATE_DIR): string {
  return join(dir, `pglite-${version}-migrated.json`);
}

/** A migration as a template records it. */
export type TemplateMigration = Pick<Migration, 'name' | 'checksum'>;

/**
 * Whether a cluster holding `held` can be brought to `current` by applying what is missing:
 * every migration it holds is, in order, the same (name and checksum) as the first current ones.
 */
export function heldMigrationsFit(
  held: readonly TemplateMigration[],
  current: readonly TemplateMigration[],
): boolean {
  return (
    held.length <= current.length &&
    held.every(
      (migration, i) =>
        migration.name === current[i]?.name && migration.checksum === current[i]?.checksum,
    )
  );
}

const decompressed = new Map<string, Buffer | null>();

/** A template file as a tar, decompressed once per process (tests open many stores). */
function readTemplate(file: string): Buffer | null {
  let tar = decompressed.get(file);
  if (tar === undefined) {
    tar = existsSync(file) ? brotliDecompressSync(readFileSync(file)) : null;
    decompressed.set(file, tar);
  }
  return tar;
}

const decompressAsync = promisify(brotliDecompress);

/**
 * A template file as a tar, read and decompressed on Node's thread pool. Not kept: a data
 * folder's store unpacks it once, and the service has no use for the 40 MB afterwards.
 */
async function takeTemplate(file: string): Promise<Buffer | null> {
  return existsSync(file) ? await decompressAsync(await readFile(file)) : null;
}

/** The empty cluster for the installed PGlite as a tar; null when none was written for it. */
export function pgliteTemplate(): Buffer | null {
  return readTemplate(templateFile(installedPgliteVersion()));
}

/** The migrations the installed PGlite's migrated template holds; null when there is none. */
export function migratedTemplateMigrations(dir: string = TEMPLATE_DIR): TemplateMigration[] | null {
  const file = templateMigrationsFile(installedPgliteVersion(), dir);
  if (!existsSync(file)) return null;
  return JSON.parse(readFileSync(file, 'utf8')) as TemplateMigration[];
}

/**
 * The template file a new data folder starts from: the migrated cluster while its migrations fit
 * `current`, else the empty one.
 */
function newStoreTemplateFile(current: readonly TemplateMigration[]): string {
  const version = installedPgliteVersion();
  const held = migratedTemplateMigrations();
  const migrated = templateFile(version, TEMPLATE_DIR, 'migrated');
  return held !== null && heldMigrationsFit(held, current) && existsSync(migrated)
    ? migrated
    : templateFile(version);
}

/**
 * The cluster a new data folder starts from, as a tar (`newStoreTemplateFile`); null when there
 * is no template for the installed PGlite.
 */
export function newStoreTemplate(current: readonly TemplateMigration[]): Promise<Buffer | null> {
  return takeTemplate(newStoreTemplateFile(current));
}

export interface TarEntry {
  /** Relative to the archive's root, without a leading slash. */
  readonly path: string;
  readonly kind: 'file' | 'directory';
  /** The file's bytes (a view into the archive); empty for a directory. */
  readonly data: Buffer;
}

const BLOCK = 512;

function field(header: Buffer, start: number, length: number): string {
  const raw = header.subarray(start, start + length).toString('utf8');
  const end = raw.indexOf('\0');
  return end === -1 ? raw : raw.slice(0, end);
}

/**
 * The entries of a ustar archive as PGlite's `dumpDataDir` writes it: regular files and
 * directories. Anything else (links, extended headers) or a path leaving the root is refused:
 * the template is our own file, and unpacking must never write outside the data folder.
 */
export function readTar(tar: Buffer): TarEntry[] {
  const entries: TarEntry[] = [];
  let offset = 0;
  while (offset + BLOCK <= tar.length) {
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) break;
    const prefix = field(header, 345, 155);
    const name = field(header, 0, 100);
    const path = (prefix === '' ? name : `${prefix}/${name}`)
      .replace(/^\/+/, '')
      .replace(/\/+$/, '');
    const size = Number.parseInt(field(header, 124, 12).trim() || '0', 8);
    const type = String.fromCharCode(header[156] ?? 0);
    if (path.split('/').some((part) => part === '..' || part === '')) {
      throw new Error(`template entry ${JSON.stringify(path)} leaves the data folder`);
    }
    const start = offset + BLOCK;
    if (type === '0' || type === '\0') {
      entries.push({ path, kind: 'file', data: tar.subarray(start, start + size) });
    } else if (type === '5') {
      entries.push({ path, kind: 'directory', data: Buffer.alloc(0) });
    } else {
      throw new Error(`template entry ${path} has tar type ${JSON.stringify(type)}`);
    }
    offset = start + Math.ceil(size / BLOCK) * BLOCK;
  }
  return entries;
}

/** The length of `data` without its trailing zero bytes. */
export function lengthBeforeZeros(data: Uint8Array): number {
  let end = data.length;
  while (end > 0 && data[end - 1] === 0) end--;
  return end;
}

/**
 * Writes the template's cluster into `dataDir` (which holds none yet) with the file system's
 * own calls: several times faster than handing the archive to PGlite, which unpacks it inside
 * WASM. Modes are PostgreSQL's own: directories 0700, files 0600. A file's trailing zeros are
 * not written but left to the file's length (they read back as zeros): the write-ahead log's
 * 16 MB segment is mostly zeros, and so are the free ends of many catalog pages.
 */
export function unpackTemplate(tar: Buffer, dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  for (const entry of readTar(tar)) {
    const target = join(dataDir, entry.path);
    if (entry.kind === 'directory') mkdirSync(target, { recursive: true, mode: 0o700 });
    else {
      mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
      const written = lengthBeforeZeros(entry.data);
      writeFileSync(target, entry.data.subarray(0, written), { mode: 0o600 });
      if (written < entry.data.length) truncateSync(target, entry.data.length);
    }
  }
}

/** Whether `dataDir` already holds a cluster (PostgreSQL writes `PG_VERSION` first). */
export function holdsCluster(dataDir: string): boolean {
  return existsSync(join(dataDir, 'PG_VERSION'));
}
