/**
 * A new embedded store starts from the empty-cluster template instead of initdb: the template
 * exists for the installed PGlite, a store made from it is a working PostgreSQL that keeps its
 * data across a reopen, and unpacking never writes outside the data folder.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { IN_MEMORY, openPglite, PGLITE_SHARED_BUFFERS } from '../src/database.js';
import { loadMigrations, migrate } from '../src/migrate.js';
import {
  heldMigrationsFit,
  holdsCluster,
  installedPgliteVersion,
  lengthBeforeZeros,
  migratedTemplateMigrations,
  newStoreTemplate,
  pgliteTemplate,
  readTar,
  TEMPLATE_DIR,
  templateFile,
  unpackTemplate,
} from '../src/pglite-template.js';

function ustarHeader(name: string, size: number, type: string): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0, 'utf8');
  header.write(`${size.toString(8).padStart(11, '0')}\0`, 124, 'utf8');
  header.write(type, 156, 'utf8');
  header.write('ustar\0', 257, 'utf8');
  return header;
}

describe('the empty-cluster template', () => {
  const dir = mkdtempSync(join(tmpdir(), 'poolparty-template-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is there for the installed PGlite (write it with scripts/pglite-template.ts after an upgrade)', () => {
    expect(existsSync(templateFile(installedPgliteVersion()))).toBe(true);
  });

  it('gives a fresh data folder a working store that keeps its rows across a reopen', async () => {
    const dataDir = join(dir, 'db');
    expect(holdsCluster(dataDir)).toBe(false);
    const db = await openPglite(dataDir);
    expect(holdsCluster(dataDir)).toBe(true);
    await migrate(db);
    await db.query('CREATE TABLE kept (n INTEGER)');
    await db.query('INSERT INTO kept VALUES (42)');
    await db.close();
    const again = await openPglite(dataDir);
    expect(await again.query('SELECT n FROM kept')).toEqual([{ n: 42 }]);
    // PostgreSQL's default buffer cache (128 MB) would be cleared at every open.
    expect(await again.query('SHOW shared_buffers')).toEqual([
      { shared_buffers: PGLITE_SHARED_BUFFERS },
    ]);
    // Opening it again applies nothing: the migrations were recorded in the unpacked cluster.
    expect(await migrate(again)).toEqual([]);
    await again.close();
  });

  it('starts a new data folder with every current migration applied (after adding one, run scripts/pglite-template.ts)', async () => {
    const current = loadMigrations();
    expect(migratedTemplateMigrations()).toEqual(
      current.map(({ name, checksum }) => ({ name, checksum })),
    );
    const db = await openPglite(join(dir, 'migrated'));
    const recorded = await db.query<{ name: string; checksum: string }>(
      'SELECT name, checksum FROM schema_migrations ORDER BY name',
    );
    expect(recorded).toEqual(current.map(({ name, checksum }) => ({ name, checksum })));
    expect(await migrate(db)).toEqual([]);
    await db.close();
  });

  it('starts memory stores from the empty cluster, so a test can apply part of the migrations', async () => {
    const db = await openPglite(IN_MEMORY);
    expect(await migrate(db)).toEqual(loadMigrations().map((migration) => migration.name));
    expect(await db.query('SHOW shared_buffers')).toEqual([
      { shared_buffers: PGLITE_SHARED_BUFFERS },
    ]);
    // New WAL segments are not zero-filled: no stall of the statement that crosses into one.
    expect(await db.query('SHOW wal_init_zero')).toEqual([{ wal_init_zero: 'off' }]);
    await db.close();
  });

  it('uses the migrated cluster only while the migrations it holds are the first current ones, unchanged', async () => {
    const a = { name: '0001_a.sql', checksum: 'aa' };
    const b = { name: '0002_b.sql', checksum: 'bb' };
    expect(heldMigrationsFit([a, b], [a, b])).toBe(true);
    expect(heldMigrationsFit([a], [a, b])).toBe(true);
    expect(heldMigrationsFit([], [a])).toBe(true);
    expect(heldMigrationsFit([a, b], [a])).toBe(false);
    expect(heldMigrationsFit([b], [a, b])).toBe(false);
    expect(heldMigrationsFit([{ ...a, checksum: 'changed' }], [a, b])).toBe(false);
    // A store whose template no longer fits starts from the empty cluster and migrates in full.
    const edited = loadMigrations().map((migration, i) =>
      i === 0 ? { ...migration, checksum: 'edited' } : migration,
    );
    const empty = pgliteTemplate();
    if (empty === null) throw new Error('no template');
    expect((await newStoreTemplate(edited))?.equals(empty)).toBe(true);
    expect((await newStoreTemplate(loadMigrations()))?.equals(empty)).toBe(false);
  });

  it('unpacks every file byte for byte, its trailing zeros left to the file length', async () => {
    const tar = await newStoreTemplate(loadMigrations());
    if (tar === null) throw new Error('no template');
    const target = join(dir, 'unpacked');
    unpackTemplate(tar, target);
    let trimmed = 0;
    for (const entry of readTar(tar)) {
      const path = join(target, entry.path);
      if (entry.kind === 'directory') {
        expect(statSync(path).isDirectory()).toBe(true);
        continue;
      }
      if (lengthBeforeZeros(entry.data) < entry.data.length) trimmed++;
      expect(readFileSync(path).equals(entry.data), entry.path).toBe(true);
    }
    expect(trimmed).toBeGreaterThan(0);
    expect(lengthBeforeZeros(Uint8Array.of(1, 0, 2, 0, 0))).toBe(3);
    expect(lengthBeforeZeros(new Uint8Array(4))).toBe(0);
    expect(existsSync(TEMPLATE_DIR)).toBe(true);
  });

  it('reads files and folders, and refuses an entry that would leave the data folder', () => {
    const data = Buffer.from('hello');
    const tar = Buffer.concat([
      ustarHeader('/base', 0, '5'),
      ustarHeader('/base/1', data.length, '0'),
      data,
      Buffer.alloc(512 - data.length),
      Buffer.alloc(1024),
    ]);
    expect(readTar(tar).map((e) => [e.path, e.kind, e.data.toString()])).toEqual([
      ['base', 'directory', ''],
      ['base/1', 'file', 'hello'],
    ]);
    const escaping = Buffer.concat([ustarHeader('../etc/x', 0, '0'), Buffer.alloc(1024)]);
    expect(() => readTar(escaping)).toThrow(/leaves the data folder/);
    const link = Buffer.concat([ustarHeader('base/l', 0, '2'), Buffer.alloc(1024)]);
    expect(() => readTar(link)).toThrow(/tar type/);
  });
});
