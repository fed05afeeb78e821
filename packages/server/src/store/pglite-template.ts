/**
 * A new embedded store starts from a copy of an empty PostgreSQL cluster instead of running
 * `initdb` (inside WASM that bootstraps the whole system catalog and costs 3–6 s, most of a first
 * start). The copy is the data directory PGlite itself produced on a fresh create, dumped as a tar
 * and brotli-compressed (`pglite-template/pglite-<version>.tar.br`, about 1.5 MB; the three near
 * identical databases of a cluster compress to one with a 16 MB window).
 *
 * It is tied to the exact PGlite version that wrote it: the catalog belongs to that build. When
 * the installed PGlite is another version there is no template for it, and a new store is made
 * by `initdb` as before — correct, only slower; the template test says to write a new one
 * (`node --import tsx packages/server/scripts/pglite-template.ts`).
 *
 * Every store made from it shares the cluster's system identifier, which only replication uses;
 * an embedded store is never replicated.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';

export const TEMPLATE_DIR = fileURLToPath(new URL('../../pglite-template/', import.meta.url));

/** The installed PGlite's version, from its package.json (the package does not export it). */
export function installedPgliteVersion(): string {
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

export function templateFile(version: string, dir: string = TEMPLATE_DIR): string {
  return join(dir, `pglite-${version}.tar.br`);
}

let cached: Buffer | null | undefined;

/**
 * The empty cluster for the installed PGlite as a tar; null when none was written for this
 * version. Decompressed once per process (tests open many stores).
 */
export function pgliteTemplate(): Buffer | null {
  if (cached !== undefined) return cached;
  const file = templateFile(installedPgliteVersion());
  cached = existsSync(file) ? brotliDecompressSync(readFileSync(file)) : null;
  return cached;
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

/**
 * Writes the template's cluster into `dataDir` (which holds none yet) with the file system's
 * own calls: several times faster than handing the archive to PGlite, which unpacks it inside
 * WASM. Modes are PostgreSQL's own: directories 0700, files 0600.
 */
export function unpackTemplate(tar: Buffer, dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  for (const entry of readTar(tar)) {
    const target = join(dataDir, entry.path);
    if (entry.kind === 'directory') mkdirSync(target, { recursive: true, mode: 0o700 });
    else {
      mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
      writeFileSync(target, entry.data, { mode: 0o600 });
    }
  }
}

/** Whether `dataDir` already holds a cluster (PostgreSQL writes `PG_VERSION` first). */
export function holdsCluster(dataDir: string): boolean {
  return existsSync(join(dataDir, 'PG_VERSION'));
}

/** Runs `initdb` in memory and returns the cluster, compressed as the template file holds it. */
export async function buildPgliteTemplate(): Promise<Buffer> {
  const pg = await PGlite.create();
  try {
    const tar = Buffer.from(await (await pg.dumpDataDir('none')).arrayBuffer());
    return brotliCompressSync(tar, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 9,
        // Wide enough to see one database's pages while writing the next (each about 7.5 MB).
        [constants.BROTLI_PARAM_LGWIN]: 24,
        [constants.BROTLI_PARAM_SIZE_HINT]: tar.length,
      },
    });
  } finally {
    await pg.close();
  }
}
