/**
 * The two stores a suite runs on, migrated: PGlite in memory and a fresh PostgreSQL schema. Each
 * suite that runs on both opens them the same way, so it is written once here.
 */
import { type Database, IN_MEMORY, migrate, openPglite } from '../src/index.js';
import { type FreshSchema, openFreshSchema, postgresSkipReason } from './postgres.js';

export interface StoreBackend {
  readonly name: 'PGlite' | 'PostgreSQL';
  /** Why the suite cannot run on this store here, or null. */
  readonly skipReason: string | null;
  /**
   * Two handles on one migrated store: with `processes: 2`, two processes' pools on PostgreSQL;
   * otherwise, and always on PGlite (one connection per data folder), the same handle twice.
   */
  open(): Promise<readonly [Database, Database]>;
  close(): Promise<void>;
}

function pgliteBackend(): StoreBackend {
  let db: Database | null = null;
  return {
    name: 'PGlite',
    skipReason: null,
    open: async () => {
      db = await openPglite(IN_MEMORY);
      await migrate(db);
      return [db, db];
    },
    close: async () => db?.close(),
  };
}

function postgresBackend(
  skipReason: string | null,
  schemaPrefix: string,
  processes: 1 | 2,
): StoreBackend {
  let store: FreshSchema | null = null;
  return {
    name: 'PostgreSQL',
    skipReason,
    open: async () => {
      store = await openFreshSchema(schemaPrefix, { processes });
      const [first, second = first] = store.databases;
      if (first === undefined || second === undefined) throw new Error('no database opened');
      return [first, second];
    },
    close: async () => store?.close(),
  };
}

/** PGlite and PostgreSQL for `describe.each`; PostgreSQL skipped, with its reason, if missing. */
export async function storeBackends(
  suite: string,
  options: { readonly schemaPrefix: string; readonly processes?: 1 | 2 },
): Promise<readonly StoreBackend[]> {
  const skipReason = await postgresSkipReason(`${suite} on PostgreSQL`);
  return [
    pgliteBackend(),
    postgresBackend(skipReason, options.schemaPrefix, options.processes ?? 1),
  ];
}
