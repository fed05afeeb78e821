/**
 * A new embedded store starts from the empty-cluster template instead of initdb: the template
 * exists for the installed PGlite, a store made from it is a working PostgreSQL that keeps its
 * data across a reopen, and unpacking never writes outside the data folder.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPglite } from '../src/store/database.js';
import { migrate } from '../src/store/migrate.js';
import {
  holdsCluster,
  installedPgliteVersion,
  readTar,
  templateFile,
} from '../src/store/pglite-template.js';

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
    // Opening it again applies nothing: the migrations were recorded in the unpacked cluster.
    expect(await migrate(again)).toEqual([]);
    await again.close();
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
