/**
 * Applies `migrations/*.sql` in file-name order, each in its own transaction together with its
 * row in `schema_migrations`. Every transaction first takes a transaction-scoped advisory lock,
 * so processes that start at once on one PostgreSQL database apply each migration exactly once
 * (the others wait, then find it recorded). The lock is keyed by the current schema, so stores in
 * different schemas of one server do not wait for each other.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BaseError } from '@poolparty/core';
import { storePackagePath } from './package-dir.js';
import type { Database, Queryable } from './sql.js';

export const MIGRATIONS_DIR = storePackagePath('migrations');

/** First key of the two-part advisory lock: "PPMG" in ASCII, unlikely to collide with others. */
const MIGRATION_LOCK_NAMESPACE = 0x50504d47;
const MIGRATION_FILE = /^\d{4}_[a-z0-9_]+\.sql$/;

export interface Migration {
  readonly name: string;
  readonly sql: string;
  readonly checksum: string;
}

/**
 * Checksums of earlier versions of migration files whose comments were reworded after stores
 * applied them, the statements unchanged (a test holds each against the file's history). A store
 * that recorded one of these is up to date; its record takes the current checksum.
 */
export const REWORDED_MIGRATIONS: Readonly<Record<string, readonly string[]>> = {
  '0001_initial.sql': ['aad5403867ba9a8bfde03399dedb00e1ffcde10d377bf86e9383fb03d30f129d'],
  '0004_pending_legs.sql': ['3a228967659c9ad087f151f70113821803d7abff41c10347c90a6a91813e369c'],
  '0006_store_environment.sql': [
    'a217a46f225c43f27525c2281676fd210800819efd221a37d77605b65ed79ade',
  ],
};

/** An applied migration's file changed afterwards: the schema no longer matches the files. */
export class MigrationChecksumError extends BaseError<'migration_changed'> {
  override readonly name = 'MigrationChecksumError';
  constructor(readonly migration: string) {
    super('migration_changed', `migration ${migration} was changed after it was applied`);
  }
}

export function loadMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((file) => MIGRATION_FILE.test(file))
    .sort()
    .map((file) => {
      const sql = readFileSync(join(dir, file), 'utf8');
      return { name: file, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/** Applies what is missing; returns the names it applied (empty when up to date). */
export async function migrate(
  db: Database,
  migrations: readonly Migration[] = loadMigrations(),
): Promise<string[]> {
  const applied: string[] = [];
  for (const migration of migrations) {
    const didApply = await db.transaction(async (tx) => {
      await lockMigrations(tx);
      const recorded = await recordedChecksum(tx, migration.name);
      if (recorded !== null) {
        await acceptRecorded(tx, migration, recorded);
        return false;
      }
      await tx.exec(migration.sql);
      await tx.query(
        'INSERT INTO schema_migrations (name, checksum, applied_at) VALUES ($1, $2, $3)',
        [migration.name, migration.checksum, new Date()],
      );
      return true;
    });
    if (didApply) applied.push(migration.name);
  }
  return applied;
}

async function lockMigrations(tx: Queryable): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))', [
    MIGRATION_LOCK_NAMESPACE,
  ]);
  // Created under the lock: two concurrent CREATE TABLE IF NOT EXISTS can both fail otherwise.
  await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    name        TEXT PRIMARY KEY,
    checksum    TEXT NOT NULL,
    applied_at  TIMESTAMPTZ NOT NULL
  )`);
}

/** Accepts an applied migration's record, brought up to a reworded file's checksum; or throws. */
async function acceptRecorded(tx: Queryable, migration: Migration, recorded: string) {
  if (recorded === migration.checksum) return;
  if (!REWORDED_MIGRATIONS[migration.name]?.includes(recorded)) {
    throw new MigrationChecksumError(migration.name);
  }
  await tx.query('UPDATE schema_migrations SET checksum = $2 WHERE name = $1', [
    migration.name,
    migration.checksum,
  ]);
}

async function recordedChecksum(tx: Queryable, name: string): Promise<string | null> {
  const rows = await tx.query<{ checksum: string }>(
    'SELECT checksum FROM schema_migrations WHERE name = $1',
    [name],
  );
  return rows[0]?.checksum ?? null;
}
