/**
 * Who ingests a ledger stream: one ingester per ledger stream at a time
 * (docs/spec/running.md#roles-and-scale-out).
 *
 * On PostgreSQL the leader is the worker holding a session-level advisory lock, taken on a
 * connection of its own (outside the store's pool, which would hand the session to others). The
 * lock lives exactly as long as that session: a worker that dies, or whose connection breaks,
 * loses it at once, and the next worker blocked in `pg_advisory_lock` takes over from the stored
 * checkpoint. A worker whose lock connection breaks stops ingesting and queues for the lock again.
 *
 * Leadership saves work; it is not what makes ingestion exactly-once. Every ingested update is
 * applied under the checkpoint row's lock and only above the checkpoint (ingest.ts), so even an
 * old leader that has not noticed its loss yet, racing the new one, can only skip updates.
 *
 * The lock is per database while schemas are per deployment (tests run many in one database):
 * its key is the stream name qualified by the connection's schema.
 *
 * PGlite is one process by construction, so that process always leads (`soleLeadership`).
 */

import pg from 'pg';
import { applicationName } from './database.js';

export interface LeaderTerm {
  /** Aborted once leadership is lost; ingestion under this term must stop. */
  readonly lost: AbortSignal;
  release(): Promise<void>;
}

export interface StreamLeadership {
  /** Waits until this process leads `stream`; null when `signal` aborted first. */
  acquire(stream: string, signal: AbortSignal): Promise<LeaderTerm | null>;
}

/** One process owns the store: it leads every stream, and never loses it. */
export const soleLeadership: StreamLeadership = {
  acquire: async (_stream, signal) =>
    signal.aborted ? null : { lost: new AbortController().signal, release: async () => {} },
};

/** The first half of the advisory lock key: PoolParty's ingest locks, apart from anyone else's. */
const INGEST_LOCK_SPACE = 0x50504c31;
/** Wait before connecting again after the lock connection could not be made or broke early. */
export const LEADER_RECONNECT_DELAY_MS = 1_000;
/** TCP keepalive on the lock connection: a silently dropped link ends leadership. */
const LOCK_KEEPALIVE_DELAY_MS = 10_000;

export interface AdvisoryLockSettings {
  readonly url: string;
  /** PostgreSQL schema of the deployment; the server's default search path when absent. */
  readonly schema?: string;
  readonly reconnectDelayMs?: number;
  /** Told when the lock connection could not be made or was lost. */
  readonly onProblem?: (error: Error) => void;
}

export function advisoryLockLeadership(settings: AdvisoryLockSettings): StreamLeadership {
  const connection: pg.ClientConfig = {
    connectionString: settings.url,
    keepAlive: true,
    keepAliveInitialDelayMillis: LOCK_KEEPALIVE_DELAY_MS,
    application_name: applicationName('poolparty-ingest-leader', settings.schema),
    ...(settings.schema === undefined ? {} : { options: `-c search_path=${settings.schema}` }),
  };
  const reconnectDelayMs = settings.reconnectDelayMs ?? LEADER_RECONNECT_DELAY_MS;
  const onProblem = settings.onProblem ?? (() => {});
  return {
    async acquire(stream, signal) {
      while (!signal.aborted) {
        const term = await lockOnce(connection, stream, signal).catch((error: unknown) => {
          if (!signal.aborted) onProblem(asError(error));
          return null;
        });
        if (term !== null) {
          term.lost.addEventListener('abort', () => onProblem(asError(term.lost.reason)), {
            once: true,
          });
          return term;
        }
        await pause(reconnectDelayMs, signal);
      }
      return null;
    },
  };
}

/** Connects and blocks until the lock is granted; the term lasts as long as the session. */
async function lockOnce(
  connection: pg.ClientConfig,
  stream: string,
  signal: AbortSignal,
): Promise<LeaderTerm | null> {
  const client = new pg.Client(connection);
  const lost = new AbortController();
  let released = false;
  const end = () => client.end().catch(() => {});
  client.on('error', (error) => lost.abort(error));
  client.on('end', () => {
    if (!released) lost.abort(new Error(`the ingest lock connection of ${stream} ended`));
  });
  // Stopping while queued for the lock ends the session, which cancels the wait.
  const stop = () => void end();
  signal.addEventListener('abort', stop, { once: true });
  try {
    await client.connect();
    await client.query(
      `SELECT pg_advisory_lock($1, hashtext(current_schema() || ':' || $2::text))`,
      [INGEST_LOCK_SPACE, stream],
    );
  } catch (error) {
    signal.removeEventListener('abort', stop);
    released = true;
    await end();
    if (signal.aborted) return null;
    throw error;
  }
  signal.removeEventListener('abort', stop);
  if (lost.signal.aborted) return null;
  return {
    lost: lost.signal,
    release: async () => {
      if (released) return;
      released = true;
      // Ending the session releases the lock with it.
      await end();
    },
  };
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
