/**
 * Finding the store a command was pointed at, and saying plainly when it is not there.
 *
 * `serve` creates a store on first start; the operator commands (`migrate`, `admin …`) must not:
 * pointed at a mistyped folder or the wrong database they would otherwise create an empty store
 * and report "nothing to do" about it. So they open only what already holds a PoolParty store,
 * and otherwise stop with one line and leave nothing behind (no folder, no table).
 *
 * A PostgreSQL server that cannot be reached is reported naming `DATABASE_URL` (password
 * masked) instead of a bare `ECONNREFUSED`.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { lockDataFolder } from './data-folder-lock.js';
import { type Database, openPglite, openPostgres, type Queryable } from './database.js';
import { maskDatabaseUrl, type StoreLocation } from './location.js';
import { loadMigrations, migrate } from './migrate.js';
import { NoStoreProblem, StoreProblem } from './problems.js';
import { requireStoreEnvironment } from './store-environment.js';
import { isConnectionLoss } from './unavailable.js';

export { NoStoreProblem, StoreProblem } from './problems.js';

/** How long a first connection may take before the server counts as unreachable. */
export const CONNECT_TIMEOUT_MS = 10_000;

export interface Placement {
  /** PostgreSQL schema (tests isolate themselves this way); the server's search path if absent. */
  readonly schema?: string;
  /** Who opens the store, named in the data folder's lock (`serve`, `migrate`, `admin`). */
  readonly command?: string;
}

/**
 * The embedded store of `dataDir`, creating the folder, held by this process until closed
 * (data-folder-lock.ts): a second process would corrupt it.
 */
export async function openEmbeddedStore(dataDir: string, command: string): Promise<Database> {
  mkdirSync(dataDir, { recursive: true });
  const release = lockDataFolder(dataDir, command);
  try {
    const db = await openPglite(pgliteDirOf(dataDir));
    return releasingOnClose(db, release);
  } catch (error) {
    release();
    throw error;
  }
}

function releasingOnClose(db: Database, release: () => void): Database {
  return {
    kind: db.kind,
    query: (sql, params) => db.query(sql, params),
    exec: (script) => db.exec(script),
    transaction: (fn) => db.transaction(fn),
    listen: (channel, onPayload, onLost) => db.listen(channel, onPayload, onLost),
    close: async () => {
      try {
        await db.close();
      } finally {
        release();
      }
    },
  };
}

/** The PGlite folder of a data folder. */
export function pgliteDirOf(dataDir: string): string {
  return join(dataDir, 'db');
}

/** What the location names, for messages: the folder, or `DATABASE_URL` with the password masked. */
export function describeStore(location: StoreLocation): string {
  return location.databaseUrl === null
    ? `the data folder ${location.dataDir}`
    : `DATABASE_URL ${maskDatabaseUrl(location.databaseUrl)}`;
}

const CONNECTION_CAUSES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused: is PostgreSQL running there?',
  ENOTFOUND: 'unknown host',
  EAI_AGAIN: 'the host name could not be resolved',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ECONNRESET: 'the server closed the connection',
  '28P01': 'password authentication failed',
  '28000': 'the server refused the role',
  '3D000': 'the database does not exist',
};

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, errors } = error as { code?: unknown; errors?: unknown };
  if (typeof code === 'string') return code;
  // Node reports a host with several addresses (localhost: ::1 and 127.0.0.1) as an AggregateError.
  if (Array.isArray(errors)) return errorCode(errors[0]);
  return undefined;
}

/** One line naming `DATABASE_URL` (password masked) and why it could not be used. */
export function connectionProblem(url: string, error: unknown): StoreProblem {
  const code = errorCode(error);
  const message = error instanceof Error && error.message !== '' ? error.message : String(error);
  const cause =
    code !== undefined && CONNECTION_CAUSES[code] !== undefined
      ? `${CONNECTION_CAUSES[code]} (${code})`
      : message;
  return new StoreProblem(`cannot use DATABASE_URL ${maskDatabaseUrl(url)}: ${cause}`);
}

/**
 * Connects once, with a timeout, so an unreachable server fails fast and by name. A server that
 * answered and then dropped the connection (a failover under way) is reachable: that is tried
 * once more rather than reported as a wrong `DATABASE_URL`.
 */
export async function checkPostgresReachable(url: string): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    const client = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
    // Errors arrive through the rejected calls below; an event after them must not end the process.
    client.on('error', () => {});
    let connected = false;
    try {
      await client.connect();
      connected = true;
      await client.query('SELECT 1');
      return;
    } catch (error) {
      if (!connected || !isConnectionLoss(error) || attempt >= REACHABLE_CHECKS) {
        throw connectionProblem(url, error);
      }
    } finally {
      await client.end().catch(() => {});
    }
  }
}

/** Checks of a server that answered and then dropped the connection. */
const REACHABLE_CHECKS = 2;

/** Whether the database's search path (or PGlite) has the table. */
async function holdsTable(db: Database, table: string): Promise<boolean> {
  const rows = await db.query<{ present: boolean }>(
    'SELECT to_regclass($1) IS NOT NULL AS present',
    [table],
  );
  return rows[0]?.present === true;
}

/** Whether the database holds a PoolParty store: its migrations table. */
const holdsStore = (db: Database) => holdsTable(db, 'schema_migrations');

/** Whether the store has migration 0006's record of its environment. */
const holdsEnvironment = (db: Database) => holdsTable(db, 'store_environment');

/** Names of the migrations this version has that the store has not applied. */
export async function pendingMigrations(db: Database): Promise<string[]> {
  const applied = new Set(
    (await db.query<{ name: string }>('SELECT name FROM schema_migrations')).map((r) => r.name),
  );
  return loadMigrations()
    .map((migration) => migration.name)
    .filter((name) => !applied.has(name));
}

function noStore(location: StoreLocation, placement: Placement, hint: string): NoStoreProblem {
  const where =
    location.databaseUrl === null
      ? existsSync(location.dataDir)
        ? `the data folder ${location.dataDir} holds no PoolParty store (no db/ in it)`
        : `the data folder ${location.dataDir} does not exist`
      : `DATABASE_URL ${maskDatabaseUrl(location.databaseUrl)}${placement.schema === undefined ? '' : ` (schema ${placement.schema})`} holds no PoolParty store`;
  return new NoStoreProblem(`${where}; ${hint}`);
}

export interface OpenExistingOptions extends Placement {
  /** What to tell the operator to do when there is no store. */
  readonly missingHint: string;
}

/**
 * Opens the store at `location` only if one is there; otherwise throws `StoreProblem` having
 * created nothing. PGlite is opened only once its folder is known to hold a database, because
 * opening an absent folder would create one.
 */
export async function openExistingStore(
  location: StoreLocation,
  options: OpenExistingOptions,
): Promise<Database> {
  if (location.databaseUrl === null) {
    if (!existsSync(join(pgliteDirOf(location.dataDir), 'PG_VERSION'))) {
      throw noStore(location, options, options.missingHint);
    }
    const db = await openEmbeddedStore(location.dataDir, options.command ?? 'admin');
    return confirmStore(db, location, options);
  }
  await checkPostgresReachable(location.databaseUrl);
  const db = openPostgres(
    location.databaseUrl,
    options.schema === undefined ? {} : { schema: options.schema },
  );
  return confirmStore(db, location, options);
}

async function confirmStore(
  db: Database,
  location: StoreLocation,
  options: OpenExistingOptions,
): Promise<Database> {
  try {
    if (!(await holdsStore(db))) throw noStore(location, options, options.missingHint);
    return db;
  } catch (error) {
    await db.close().catch(() => {});
    if (error instanceof StoreProblem || location.databaseUrl === null) throw error;
    throw connectionProblem(location.databaseUrl, error);
  }
}

/**
 * The store for an operator command: it must exist and be at this version's schema, so a
 * command never writes to tables an older version laid out differently. Bringing it up to date
 * is `poolparty migrate`'s job, done on purpose rather than as a side effect of a query.
 */
export async function openStoreForAdmin(
  location: StoreLocation,
  placement: Placement = {},
): Promise<Database> {
  const db = await openExistingStore(location, {
    ...placement,
    missingHint:
      'check --data-dir / POOLPARTY_DATA_DIR and --database-url / DATABASE_URL (`poolparty serve` creates a store on first start)',
  });
  const pending = await pendingMigrations(db).catch(async (error: unknown) => {
    await db.close();
    throw error;
  });
  if (pending.length > 0) {
    await db.close();
    throw new StoreProblem(
      `${describeStore(location)} holds a store older than this version (missing ${pending.join(', ')}); run \`poolparty migrate\` first`,
    );
  }
  if (location.environment !== undefined) {
    try {
      await requireStoreEnvironment(db, describeStore(location), location.environment, {
        claim: false,
        now: new Date(),
      });
    } catch (error) {
      await db.close();
      throw error;
    }
  }
  return db;
}

export interface MigrateOptions extends Placement {
  /** Create a store where there is none (an empty database, schema or folder). */
  readonly create: boolean;
}

/**
 * `poolparty migrate`: applies pending migrations to an existing store; creates one only when
 * asked with `--create`, so a mistyped location is an error instead of a new empty store.
 */
export async function migrateStoreAt(
  location: StoreLocation,
  options: MigrateOptions,
): Promise<{ readonly created: boolean; readonly applied: readonly string[] }> {
  let db: Database;
  let created = false;
  try {
    db = await openExistingStore(location, {
      command: 'migrate',
      ...options,
      missingHint: 'pass --create to create one there, or check the location',
    });
  } catch (error) {
    if (!(error instanceof NoStoreProblem) || !options.create) throw error;
    db =
      location.databaseUrl === null
        ? await openEmbeddedStore(location.dataDir, options.command ?? 'migrate')
        : openPostgres(
            location.databaseUrl,
            options.schema === undefined ? {} : { schema: options.schema },
          );
    created = true;
  }
  try {
    // A store that already records another environment is refused before anything changes.
    if (location.environment !== undefined && !created && (await holdsEnvironment(db))) {
      await requireStoreEnvironment(db, describeStore(location), location.environment, {
        claim: false,
        now: new Date(),
      });
    }
    const applied = await migrate(db);
    // The operator named the environment: a store of the other one is refused, an unrecorded
    // one (new, or made before stores recorded it) now belongs to it.
    if (location.environment !== undefined) {
      await requireStoreEnvironment(db, describeStore(location), location.environment, {
        claim: true,
        now: new Date(),
      });
    }
    return { created, applied };
  } finally {
    await db.close();
  }
}

/** What the PostgreSQL server lets clients open in all: its `max_connections`, less reserved. */
export interface ServerConnectionLimits {
  readonly maxConnections: number;
  readonly superuserReserved: number;
}

export async function serverConnectionLimits(db: Queryable): Promise<ServerConnectionLimits> {
  const rows = await db.query<{ max: string; reserved: string }>(
    `SELECT current_setting('max_connections') AS max,
       current_setting('superuser_reserved_connections') AS reserved`,
  );
  const row = rows[0];
  return {
    maxConnections: Number(row?.max ?? Number.POSITIVE_INFINITY),
    superuserReserved: Number(row?.reserved ?? 0),
  };
}
