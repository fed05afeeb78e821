/**
 * PostgreSQL for the scale-out suites: the server of `DATABASE_URL` (or the local default), one
 * fresh schema per suite. Outside CI an unreachable server skips the suite with a printed reason;
 * with `CI=true` the suite fails instead.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type Database, migrate, openPostgres } from '../src/index.js';

export const POSTGRES_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const IN_CI = process.env.CI === 'true';
const PROBE_TIMEOUT_MS = 3_000;

async function postgresProblem(url: string): Promise<string | null> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: PROBE_TIMEOUT_MS,
  });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (error) {
    return error instanceof Error ? error.message || error.name : String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Why the suite cannot run here, or null; throws with `CI=true` when PostgreSQL is missing. */
export async function postgresSkipReason(suite: string): Promise<string | null> {
  const problem = await postgresProblem(POSTGRES_URL);
  if (problem === null) return null;
  if (IN_CI) throw new Error(`PostgreSQL is required with CI=true: ${POSTGRES_URL} (${problem})`);
  const reason = `no PostgreSQL at ${POSTGRES_URL} (${problem})`;
  console.warn(`${suite} skipped: ${reason}`);
  return reason;
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function createSchema(prefix: string): Promise<string> {
  const schema = `${prefix}_${randomBytes(6).toString('hex')}`;
  await admin((client) => client.query(`CREATE SCHEMA ${schema}`));
  return schema;
}

export async function dropSchema(schema: string): Promise<void> {
  await admin((client) => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
}

/**
 * Writes out every dirty page now and waits for it (`CHECKPOINT`), so the writing a big fill or
 * drop left behind is not done later, in the background, while something else is measured.
 */
export async function checkpoint(): Promise<void> {
  await admin((client) => client.query('CHECKPOINT'));
}

/** The server's URL with the schema as the session's search path, as a process would be given. */
export function schemaUrl(schema: string): string {
  const url = new URL(POSTGRES_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

/** Ends the session holding the schema's ingest lock (as a dropped connection would). */
export async function terminateIngestLockHolder(
  schema: string,
  stream = 'ledger',
): Promise<number> {
  return admin(async (client) => {
    // The lock's second key is hashtext('<schema>:<stream>'); pg_locks shows it unsigned.
    const result = await client.query(
      `SELECT pg_terminate_backend(pid) FROM pg_locks
       WHERE locktype = 'advisory' AND granted AND objsubid = 2
         AND objid::bigint = (hashtext($1)::bigint + 4294967296) % 4294967296`,
      [`${schema}:${stream}`],
    );
    return result.rowCount ?? 0;
  });
}

/**
 * Ends, on `client`'s server, every session whose `application_name` is `applicationName` (as a
 * failover or a restarted pooler would end them); answers how many were ended. The client's own
 * session is spared.
 */
export async function terminateSessionsNamed(
  client: Pick<pg.Client, 'query'>,
  applicationName: string,
): Promise<number> {
  const ended = await client.query<{ ended: boolean }>(
    `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
     WHERE application_name = $1 AND pid <> pg_backend_pid()`,
    [applicationName],
  );
  return ended.rows.filter((row) => row.ended).length;
}

/** A fresh schema on the test server, opened as separate processes would each open it. */
export interface FreshSchema {
  readonly schema: string;
  /** One pool per process, in the order asked for. */
  readonly databases: readonly Database[];
  /** Closes every pool and drops the schema. */
  close(): Promise<void>;
}

/**
 * A fresh schema named after `prefix`, opened `processes` times (each its own pool of at most
 * `connectionsMax` connections) and migrated unless `migrated` is false.
 */
export async function openFreshSchema(
  prefix: string,
  options: { processes?: number; connectionsMax?: number; migrated?: boolean } = {},
): Promise<FreshSchema> {
  const schema = await createSchema(prefix);
  const databases = Array.from({ length: options.processes ?? 1 }, () =>
    openPostgres(POSTGRES_URL, {
      schema,
      ...(options.connectionsMax !== undefined && { connectionsMax: options.connectionsMax }),
    }),
  );
  if (options.migrated !== false && databases[0] !== undefined) await migrate(databases[0]);
  return {
    schema,
    databases,
    close: async () => {
      for (const db of databases) await db.close();
      await dropSchema(schema);
    },
  };
}

/** Runs `work` on a fresh schema (as `openFreshSchema` opens it), closed and dropped after it. */
export async function inFreshSchema<T>(
  prefix: string,
  options: Parameters<typeof openFreshSchema>[1],
  work: (fresh: FreshSchema) => Promise<T>,
): Promise<T> {
  const fresh = await openFreshSchema(prefix, options);
  try {
    return await work(fresh);
  } finally {
    await fresh.close();
  }
}
