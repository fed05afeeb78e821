/**
 * Whether one process's PostgreSQL sessions fit the server at all (docs/operations.md#how-many-postgresql-connections):
 * its pool at most (`POOLPARTY_DATABASE_CONNECTIONS`) and its own few (listening, the ingest
 * lock) within what the server lets ordinary roles open. Other processes share the same server,
 * which a process cannot see: this catches only a setting no deployment could honour.
 */
import type { ServerConnectionLimits } from '@poolparty/store';

/** Sessions a process opens beside its pool: listening, the ingest lock, a start's checks. */
export const OWN_SESSIONS = 3;

/** The line that stops the start, or null when the pool fits. */
export function connectionBudgetProblem(
  poolSize: number,
  server: ServerConnectionLimits,
): string | null {
  const open = server.maxConnections - server.superuserReserved;
  if (poolSize + OWN_SESSIONS <= open) return null;
  return (
    `POOLPARTY_DATABASE_CONNECTIONS is ${poolSize}, but PostgreSQL lets this service open ` +
    `${open} sessions in all (max_connections ${server.maxConnections}, ` +
    `${server.superuserReserved} reserved) and a process needs ${OWN_SESSIONS} of its own besides: ` +
    `lower it to ${Math.max(1, open - OWN_SESSIONS)} or less, or raise max_connections`
  );
}
