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

/** What a query parameter may be; JSON goes in as text with an explicit `::jsonb` cast. */
export type SqlParam = string | number | boolean | Date | null | readonly string[];

export type Row = Record<string, unknown>;

/** Something to run statements on: the database itself or an open transaction. */
export interface Queryable {
  query<T = Row>(sql: string, params?: readonly SqlParam[]): Promise<T[]>;
  /** Runs a parameterless script of several statements (migrations). */
  exec(script: string): Promise<void>;
}

export interface Database extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /**
   * Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. Use
   * only `tx` inside `fn`: on PGlite the database has one connection, so a statement sent on the
   * database itself would wait for the transaction to end.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

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
  const pool = new pg.Pool({
    connectionString: url,
    max: settings.connectionsMax ?? POSTGRES_CONNECTIONS_MAX,
    types: postgresTypes,
    ...(settings.schema === undefined ? {} : { options: `-c search_path=${settings.schema}` }),
  });
  pool.on('error', settings.onIdleError ?? (() => {}));
  return new PostgresDatabase(pool);
}

class PostgresDatabase implements Database {
  readonly kind = 'postgres';

  constructor(private readonly pool: pg.Pool) {}

  async query<T = Row>(sql: string, params: readonly SqlParam[] = []): Promise<T[]> {
    const result = await this.pool.query(sql, params as unknown[]);
    return result.rows as T[];
  }

  async exec(script: string): Promise<void> {
    await this.pool.query(script);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    const tx = new ScopedQueryable({
      query: async (sql, params) => (await client.query(sql, params as unknown[])).rows,
      exec: async (script) => {
        await client.query(script);
      },
    });
    try {
      await client.query('BEGIN');
      const result = await fn(tx);
      await client.query('COMMIT');
      client.release();
      return result;
    } catch (error) {
      await rollbackAndRelease(client);
      throw error;
    } finally {
      tx.end();
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

async function rollbackAndRelease(client: pg.PoolClient): Promise<void> {
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
 * PGlite has a single connection. It already queues every query and transaction behind the one
 * running, which is the serialization a single connection needs; transactions here therefore
 * never interleave, and plain queries wait for the running transaction to finish.
 */
export async function openPglite(dataDir: string): Promise<Database> {
  if (dataDir !== IN_MEMORY) mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create(dataDir, {
    parsers: { [PG_INT8_OID]: keepText, [PG_NUMERIC_OID]: keepText },
  });
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
