/**
 * When the store cannot be reached: a PostgreSQL connection terminated by an administrator, a
 * failover, a restarted connection pooler, an idle-session timeout, a network reset. None of
 * these says anything about the request that met it, and all of them pass: the caller retries
 * (the engine's next round, a client after `Retry-After`), and the process stays up.
 *
 * Whose connection failed is known only where the error was raised: the store's database module
 * judges the errors of its own connections (`isConnectionLoss`) and raises `StoreUnavailable` for
 * every lost one. Everywhere else only that counts (`causedByConnectionLoss`): a bare
 * `ECONNRESET` or `EPIPE` may as well be an HTTP client hanging up, or the ledger's socket.
 *
 * A statement that failed this way may or may not have been applied (a COMMIT whose answer was
 * lost was applied), so only statements that change nothing are retried here; a transaction is
 * failed as a whole and its work is redone from a fresh read by whoever ran it.
 */
import { BaseError, findCause } from '@poolparty/core';

/** The store could not be reached; nothing about the request itself is wrong. */
export class StoreUnavailable extends BaseError<'store_unavailable'> {
  override readonly name = 'StoreUnavailable';

  constructor(cause: unknown) {
    super('store_unavailable', `the store connection was lost: ${messageOf(cause)}`, { cause });
  }
}

/**
 * SQLSTATE classes and codes that mean the connection, not the statement, failed: class 08
 * (connection exception), 57P01–57P03 (administrator / crash shutdown, cannot connect now) and
 * 53300 (too many connections, which passes as other sessions end).
 */
const CONNECTION_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
const CONNECTION_SQLSTATE_CLASS = '08';

/** Socket errors of a link that broke or could not be made. */
const CONNECTION_ERRNOS = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** What node-postgres says, without a code, when a connection ended under a query or a client. */
const CONNECTION_MESSAGES = [
  'Connection terminated',
  'connection timeout',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'timeout exceeded when trying to connect',
];

/**
 * Whether `error`, met on one of the store's own connections (the pg driver, its pool), is that
 * connection failing rather than the statement. Socket errors carry no sign of whose socket it
 * was, so this is asked only of errors known to come from a store connection; of any other
 * error, ask `causedByConnectionLoss`.
 */
export function isConnectionLoss(error: unknown): boolean {
  if (error instanceof StoreUnavailable) return true;
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (CONNECTION_SQLSTATES.has(code) || CONNECTION_ERRNOS.has(code)) return true;
    if (code.length === 5 && code.startsWith(CONNECTION_SQLSTATE_CLASS)) return true;
  }
  return CONNECTION_MESSAGES.some((message) => error.message.includes(message));
}

/** Causes followed to find a lost connection under an error that wraps it. */
const CAUSE_DEPTH_MAX = 5;

/**
 * Whether the error, or one of the causes it wraps, is the store saying its connection failed:
 * a `StoreUnavailable`, as the database module raises for every lost connection of its own. An
 * error of unknown origin with a connection's errno is not: an HTTP client that hangs up
 * mid-request fails the service's own socket with the same `ECONNRESET`.
 */
export function causedByConnectionLoss(error: unknown): boolean {
  return findCause(error, (cause) => cause instanceof StoreUnavailable, CAUSE_DEPTH_MAX) !== null;
}

/**
 * SQLSTATE class 40 (a transaction rolled back to let another through: serialization failure,
 * deadlock) and 55P03 (a lock not available): nothing about the work itself, and it passes when
 * the work is done again.
 */
const ROLLED_BACK_SQLSTATE_CLASS = '40';
const LOCK_NOT_AVAILABLE = '55P03';

/** Whether the store refused `error`'s transaction in favour of another one. */
export function isRolledBackForAnother(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return (
    (code.length === 5 && code.startsWith(ROLLED_BACK_SQLSTATE_CLASS)) ||
    code === LOCK_NOT_AVAILABLE
  );
}

/**
 * A statement that reads and writes nothing, and so may be sent again after its connection was
 * lost. Judged from the text: a SELECT (or WITH … SELECT) that names no write, no row lock, no
 * sequence step, no notification and no advisory lock. A statement this misjudges as a write is
 * only not retried.
 */
const READ_STATEMENT = /^\s*(SELECT|WITH)\b/i;
const SIDE_EFFECT =
  /\b(INSERT|UPDATE|DELETE|MERGE|FOR\s+(UPDATE|SHARE|NO\s+KEY\s+UPDATE|KEY\s+SHARE)|nextval|setval|pg_notify|pg_(try_)?advisory\w*)\b/i;

export function isReadOnlyStatement(sql: string): boolean {
  return READ_STATEMENT.test(sql) && !SIDE_EFFECT.test(sql);
}

function messageOf(error: unknown): string {
  // The code of one of the project's own errors names its class, not the failure underneath.
  if (error instanceof BaseError) return error.message;
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? `${error.message} (${code})` : error.message;
  }
  return String(error);
}
