/**
 * Migrations whose comments were reworded after stores applied them: each earlier checksum the
 * store accepts is one of the file's own earlier versions in the repository's history, with the
 * same statements; and a store that recorded it migrates as up to date, its record brought to the
 * current checksum. Any other change to an applied migration is still refused.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  IN_MEMORY,
  loadMigrations,
  MigrationChecksumError,
  migrate,
  openPglite,
  REWORDED_MIGRATIONS,
} from '../src/index.js';

const REPOSITORY = join(import.meta.dirname, '../../..');
/** Where migration files have lived. */
const MIGRATION_FOLDERS = ['packages/store/migrations', 'packages/server/migrations'];

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The statements of a migration: its text without `--` comments, white space folded. */
function statementsOf(sql: string): string {
  return sql
    .split('\n')
    .map((line) => line.replace(/--.*$/, ''))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: REPOSITORY, encoding: 'utf8', maxBuffer: 1 << 26 });
}

/** Every version of the migration file the history holds, by checksum. */
function historyOf(name: string): Map<string, string> {
  const versions = new Map<string, string>();
  for (const folder of MIGRATION_FOLDERS) {
    const path = `${folder}/${name}`;
    for (const commit of git('log', '--format=%H', '--diff-filter=AMR', '--', path)
      .split('\n')
      .filter(Boolean)) {
      const text = git('show', `${commit}:${path}`);
      versions.set(sha256(text), text);
    }
  }
  return versions;
}

describe('reworded migrations', () => {
  const current = new Map(loadMigrations().map((migration) => [migration.name, migration]));

  it.each(Object.entries(REWORDED_MIGRATIONS))(
    '%s: each earlier checksum is an earlier version with the same statements',
    (name, checksums) => {
      const migration = current.get(name);
      if (!migration) throw new Error(`no migration ${name}`);
      const history = historyOf(name);
      for (const checksum of checksums) {
        const earlier = history.get(checksum);
        expect(earlier, `${name} ${checksum} in the history`).toBeDefined();
        expect(statementsOf(earlier ?? '')).toBe(statementsOf(migration.sql));
      }
    },
  );

  it('migrates a store that recorded an earlier wording, and records the current one', async () => {
    const db = await openPglite(IN_MEMORY);
    try {
      await migrate(db);
      const [name, [earlier]] = Object.entries(REWORDED_MIGRATIONS)[0] as [string, string[]];
      await db.query('UPDATE schema_migrations SET checksum = $2 WHERE name = $1', [
        name,
        earlier ?? '',
      ]);
      expect(await migrate(db)).toEqual([]);
      const [row] = await db.query<{ checksum: string }>(
        'SELECT checksum FROM schema_migrations WHERE name = $1',
        [name],
      );
      expect(row?.checksum).toBe(current.get(name)?.checksum);
      await db.query('UPDATE schema_migrations SET checksum = $2 WHERE name = $1', [
        name,
        'another',
      ]);
      await expect(migrate(db)).rejects.toBeInstanceOf(MigrationChecksumError);
    } finally {
      await db.close();
    }
  });
});
