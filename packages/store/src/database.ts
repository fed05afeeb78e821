/**
 * The store's one seam to a database: PostgreSQL through a `pg` pool, or PGlite (PostgreSQL in
 * WASM) in a data folder. The migrations and every query module run unchanged on both, so the
 * two implementations must agree on what comes back:
 * - BIGINT and NUMERIC arrive as strings (exact; the caller parses amounts with `Amount.parse`);
 * - TIMESTAMPTZ arrives as a `Date`; JSONB as parsed JSON; INTEGER and BOOLEAN as JS values.
 * Queries never use BYTEA or TIMESTAMP WITHOUT TIME ZONE, whose JS forms differ between drivers.
 */
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { loadMigrations } from './migrate.js';
import {
  holdsCluster,
  newStoreTemplate,
  pgliteTemplate,
  unpackTemplate,
} from './pglite-template.js';
import type { Database, Queryable, Row, SqlParam } from './sql.js';
import { isStalePreparedStatement, StatementNames } from './statement-names.js';
import { isConnectionLoss, isReadOnlyStatement, StoreUnavailable } from './unavailable.js';

export type { Database, Queryable, Row, SqlParam } from './sql.js';

const PG_INT8_OID = 20;
const PG_NUMERIC_OID = 1700;
const keepText = (value: string): string => value;

export interface PostgresSettings {
  /** Schema to work in (sets `search_path` on every connection); the server's default if absent. */
  readonly schema?: string;
  readonly connectionsMax?: number;
  /** Errors of idle pooled connections; the next query on a broken connection fails anyway. */
  readonly onIdleError?: (error: Error) => void;
}

const POSTGRES_CONNECTIONS_MAX = 10;
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
/** Channel names are SQL identifiers spliced into `LISTEN`; the same rule as schema names. */
const CHANNEL_NAME = SCHEMA_NAME;

function assertChannelName(channel: string): void {
  if (!CHANNEL_NAME.test(channel)) {
    throw new RangeError(`invalid notification channel ${JSON.stringify(channel)}`);
  }
}

/**
 * Pinned per pool rather than through `pg.types.setTypeParser`, which is process-global: other
 * code in the process (or a test) may change the global parsers without changing this store.
 */
const postgresTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === PG_INT8_OID || oid === PG_NUMERIC_OID) return keepText;
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

export function openPostgres(url: string, settings: PostgresSettings = {}): Database {
  if (settings.schema !== undefined && !SCHEMA_NAME.test(settings.schema)) {
    throw new RangeError(`invalid schema name ${JSON.stringify(settings.schema)}`);
  }
  const connection: pg.ClientConfig = {
    connectionString: url,
    types: postgresTypes,
    // A link dropped without a reset (a failover, a NAT timeout) is noticed rather than waited on.
    keepAlive: true,
    ...(settings.schema === undefined ? {} : { options: `-c search_path=${settings.schema}` }),
  };
  const pool = new pg.Pool({
    ...connection,
    application_name: applicationName('poolparty', settings.schema),
    max: settings.connectionsMax ?? POSTGRES_CONNECTIONS_MAX,
  });
  pool.on('error', settings.onIdleError ?? (() => {}));
  // A connection can still report what ended it (the server's `terminating connection` after the
  // socket failed) once its client has left every listener's hands: pg-pool releases a failed
  // client, and stops listening to it, before the connection has closed. A listener on every
  // client keeps such a late `error` event from ending the process; a loss is still seen where it
  // matters, as the statement's rejection, the transaction's own listener or the pool's idle one.
  pool.on('connect', (client) => client.on('error', () => {}));
  return new PostgresDatabase(pool, {
    ...connection,
    application_name: applicationName('poolparty-listen', settings.schema),
  });
}

/**
 * How the service's sessions show in `pg_stat_activity`: which part of PoolParty, and for which
 * schema when several deployments share one database, so an operator can tell them apart.
 */
export function applicationName(part: string, schema: string | undefined): string {
  return schema === undefined ? part : `${part}:${schema}`;
}

class PostgresDatabase implements Database {
  readonly kind = 'postgres';

  constructor(
    private readonly pool: pg.Pool,
    private readonly listenerConnection: pg.ClientConfig,
  ) {}

  private readonly statementNames = new StatementNames();

  async query<T = Row>(sql: string, params: readonly SqlParam[] = []): Promise<T[]> {
    try {
      return (await this.send(this.pool, sql, params)) as T[];
    } catch (error) {
      if (!isConnectionLoss(error) && !isStalePreparedStatement(error)) throw error;
      // A read met a lost connection: the pool has dropped it, so once more on a fresh one. A
      // stale prepared statement was refused before it ran, so it is sent again, unnamed.
      if (isConnectionLoss(error) && !isReadOnlyStatement(sql)) throw new StoreUnavailable(error);
    }
    try {
      return (await this.send(this.pool, sql, params)) as T[];
    } catch (error) {
      throw isConnectionLoss(error) ? new StoreUnavailable(error) : error;
    }
  }

  /**
   * One statement on the pool or a held client, named when it has parameters (statement-names.ts;
   * a parameterless text goes by the simple protocol, which also takes several statements).
   */
  private async send(
    target: pg.Pool | pg.PoolClient,
    sql: string,
    params: readonly SqlParam[],
  ): Promise<unknown[]> {
    const values = params as unknown[];
    const name = params.length === 0 ? undefined : this.statementNames.nameOf(sql);
    if (name === undefined) return (await target.query(sql, values)).rows;
    try {
      return (await target.query({ name, text: sql, values })).rows;
    } catch (error) {
      if (isStalePreparedStatement(error)) this.statementNames.retire(sql);
      throw error;
    }
  }

  async exec(script: string): Promise<void> {
    try {
      await this.pool.query(script);
    } catch (error) {
      throw isConnectionLoss(error) ? new StoreUnavailable(error) : error;
    }
  }

  /**
   * The client is held outside the pool for the whole transaction, where the pool no longer
   * listens for its errors: a connection lost between two statements would otherwise be an
   * unhandled `error` event, which ends the process. It is caught here, and the transaction
   * fails as `StoreUnavailable`.
   */
  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const { client, lost } = await this.begin();
    const tx = new ScopedQueryable({
      query: (sql, params) => this.send(client, sql, params),
      exec: async (script) => {
        await client.query(script);
      },
    });
    try {
      const result = await fn(tx);
      await client.query('COMMIT');
      client.release();
      return result;
    } catch (error) {
      const lostWith = lost.error ?? (isConnectionLoss(error) ? error : null);
      await rollbackAndRelease(client, lostWith);
      throw lostWith === null ? error : new StoreUnavailable(lostWith);
    } finally {
      tx.end();
      // Released clients are listened to by the pool again; ours would pile up on reused ones.
      client.removeListener('error', lost.listener);
    }
  }

  /**
   * A client with a transaction begun and an error listener on it. A connection that is lost
   * before `BEGIN` was answered ran nothing, so that is tried again on another connection.
   */
  private async begin(): Promise<{ client: pg.PoolClient; lost: LostConnection }> {
    for (let attempt = 1; ; attempt += 1) {
      const client = await this.pool.connect().catch((error: unknown) => {
        throw isConnectionLoss(error) ? new StoreUnavailable(error) : error;
      });
      const lost = new LostConnection();
      client.on('error', lost.listener);
      try {
        await client.query('BEGIN');
        return { client, lost };
      } catch (error) {
        client.release(error instanceof Error ? error : true);
        client.removeListener('error', lost.listener);
        if (!isConnectionLoss(error)) throw error;
        if (attempt >= BEGIN_ATTEMPTS) throw new StoreUnavailable(error);
      }
    }
  }

  async listen(
    channel: string,
    onPayload: (payload: string) => void,
    onLost: (error: Error) => void = () => {},
  ): Promise<() => Promise<void>> {
    assertChannelName(channel);
    const client = new pg.Client(this.listenerConnection);
    let stopped = false;
    let listening = false;
    const stop = async () => {
      if (stopped) return;
      stopped = true;
      await client.end().catch(() => {});
    };
    // Before `LISTEN` succeeded, a failure rejects the call instead.
    const lose = (error: Error) => {
      if (stopped) return;
      void stop();
      if (listening) onLost(error);
    };
    client.on('error', lose);
    client.on('end', () => lose(new Error(`listening connection on ${channel} ended`)));
    client.on('notification', (message) => {
      if (message.channel === channel && message.payload !== undefined) onPayload(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN "${channel}"`);
      listening = true;
    } catch (error) {
      await stop();
      throw isConnectionLoss(error) ? new StoreUnavailable(error) : error;
    }
    return stop;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** Connections tried for one transaction whose `BEGIN` met a lost connection. */
const BEGIN_ATTEMPTS = 2;

/** The first error a held client reported, kept until the transaction looks at it. */
class LostConnection {
  error: unknown = null;
  readonly listener = (error: Error) => {
    this.error ??= error;
  };
}

async function rollbackAndRelease(client: pg.PoolClient, lost: unknown): Promise<void> {
  // A lost connection has nothing to roll back: the server ended the transaction with it.
  if (lost !== null) {
    client.release(lost instanceof Error ? lost : true);
    return;
  }
  try {
    await client.query('ROLLBACK');
    client.release();
  } catch (rollbackError) {
    // A connection that cannot roll back is in an unknown state: destroy it, never reuse it.
    client.release(rollbackError instanceof Error ? rollbackError : true);
  }
}

/** Refuses use after its transaction ended, so a leaked `tx` cannot write outside it. */
class ScopedQueryable implements Queryable {
  private ended = false;

  constructor(
    private readonly target: {
      query(sql: string, params: readonly SqlParam[]): Promise<unknown[]>;
      exec(script: string): Promise<void>;
    },
  ) {}

  async query<T = Row>(sql: string, params: readonly SqlParam[] = []): Promise<T[]> {
    this.assertOpen();
    return (await this.target.query(sql, params)) as T[];
  }

  async exec(script: string): Promise<void> {
    this.assertOpen();
    await this.target.exec(script);
  }

  end(): void {
    this.ended = true;
  }

  private assertOpen(): void {
    if (this.ended) throw new Error('transaction already ended');
  }
}

/** The PGlite data directory that keeps everything in memory. */
export const IN_MEMORY = 'memory://';

/**
 * PostgreSQL's buffer cache inside the embedded store. PGlite allocates and clears all of it in
 * WebAssembly memory at every open, which at PostgreSQL's default of 128 MB is most of opening
 * a store (0.65–0.85 s of a start on a 2-core machine, against 0.3–0.4 s at 32 MB). One
 * connection's working set (pools, open intents, recent events) fits easily; pages beyond it
 * are read from the operating system's file cache (a data folder) or from memory (an in-memory
 * store, where a large cache would only hold a second copy).
 */
export const PGLITE_SHARED_BUFFERS = '32MB';

/**
 * PostgreSQL's settings of the embedded store beside its buffer cache. `wal_init_zero=off`: a new
 * 16 MB WAL segment is made by writing its last byte rather than zeros throughout, which in
 * PGlite's file system is a 10–35 ms stall of whatever statement crosses into it (about every
 * thousand atomic swaps prepared, which each write a prepared transaction of some 16 kB). What a
 * commit writes to the WAL, and when, is unchanged: only the zeros of a segment before its use.
 */
export const PGLITE_SETTINGS: readonly string[] = [
  `shared_buffers=${PGLITE_SHARED_BUFFERS}`,
  'wal_init_zero=off',
];

/**
 * PGlite has a single connection. It already queues every query and transaction behind the one
 * running, which is the serialization a single connection needs; transactions here therefore
 * never interleave, and plain queries wait for the running transaction to finish.
 */
export async function openPglite(dataDir: string): Promise<Database> {
  // A new store starts from a template rather than from initdb, which is most of a first start
  // (pglite-template.ts): a new data folder from the migrated cluster while its migrations fit
  // the current ones, memory from the empty one; without a template for this PGlite, initdb.
  const inMemory = dataDir === IN_MEMORY;
  const template = inMemory
    ? pgliteTemplate()
    : holdsCluster(dataDir)
      ? null
      : await newStoreTemplate(loadMigrations());
  if (!inMemory) mkdirSync(dataDir, { recursive: true });
  if (!inMemory && template !== null) unpackTemplate(template, dataDir);
  const db = await PGlite.create(dataDir, {
    parsers: { [PG_INT8_OID]: keepText, [PG_NUMERIC_OID]: keepText },
    startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS.flatMap((s) => ['-c', s])],
    ...(inMemory && template !== null && { loadDataDir: new Blob([new Uint8Array(template)]) }),
  });
  return new PgliteDatabase(db);
}

/**
 * A PGlite instance opened elsewhere, as a store (the template script migrates one). Its
 * results are parsed as that instance was told, not as `openPglite` tells its own.
 */
export function pgliteStore(db: PGlite): Database {
  return new PgliteDatabase(db);
}

class PgliteDatabase implements Database {
  readonly kind = 'pglite';

  constructor(private readonly db: PGlite) {}

  async query<T = Row>(sql: string, params: readonly SqlParam[] = []): Promise<T[]> {
    return (await this.db.query<T>(sql, params as unknown[])).rows;
  }

  async exec(script: string): Promise<void> {
    await this.db.exec(script);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.db.transaction(async (pgliteTx) => {
      const tx = new ScopedQueryable({
        query: async (sql, params) => (await pgliteTx.query(sql, params as unknown[])).rows,
        exec: async (script) => {
          await pgliteTx.exec(script);
        },
      });
      try {
        return await fn(tx);
      } finally {
        tx.end();
      }
    });
  }

  async listen(
    channel: string,
    onPayload: (payload: string) => void,
  ): Promise<() => Promise<void>> {
    assertChannelName(channel);
    const unlisten = await this.db.listen(channel, onPayload);
    let stopped = false;
    return async () => {
      if (stopped || this.db.closed) return;
      stopped = true;
      await unlisten();
    };
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}

/** SQLSTATE 23505. Both drivers surface the server's error fields, including `constraint`. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, constraint: violated } = error as { code?: unknown; constraint?: unknown };
  return code === '23505' && (constraint === undefined || violated === constraint);
}

/** Resolves once the store answered a statement; rejects with why it could not. */
export async function pingStore(q: Queryable): Promise<void> {
  await q.query('SELECT 1');
}
