/**
 * Names for the statements the service sends to PostgreSQL again and again, so each connection
 * parses and analyses a statement once and keeps its plan, instead of doing all three for every
 * execution. At 50 swaps/s on the canton path, parsing, analysing and planning unnamed statements
 * were about 30 % of PostgreSQL's CPU.
 *
 * A statement text gets a name the first time it is sent, and keeps it for the pool's life; each
 * connection of the pool prepares the name on its first use (`pg` remembers which it has). The
 * service's statements are a fixed set of texts, so the bound is never reached in practice;
 * past it, new texts are sent unnamed, which is how every statement was sent before.
 *
 * A prepared statement whose tables changed shape under it (another process ran a migration
 * adding a column to a `SELECT *`) fails with "cached plan must not change result type". Such a
 * text is retired: from then on it is sent unnamed.
 */

/** Distinct statement texts named per pool; every connection may prepare each of them. */
export const NAMED_STATEMENTS_MAX = 512;

const NAME_PREFIX = 'pp_';

/** PostgreSQL's answer to a prepared statement whose result columns changed since it was prepared. */
const STALE_PLAN_SQLSTATE = '0A000';
const STALE_PLAN_MESSAGE = 'cached plan must not change result type';

export function isStalePreparedStatement(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code } = error as { code?: unknown };
  return code === STALE_PLAN_SQLSTATE && error.message.includes(STALE_PLAN_MESSAGE);
}

export class StatementNames {
  /** Text → its name; null once retired. */
  private readonly names = new Map<string, string | null>();

  constructor(private readonly max: number = NAMED_STATEMENTS_MAX) {}

  /** The name to send `sql` under, or undefined to send it unnamed. */
  nameOf(sql: string): string | undefined {
    const known = this.names.get(sql);
    if (known !== undefined) return known ?? undefined;
    if (this.names.size >= this.max) return undefined;
    const name = `${NAME_PREFIX}${this.names.size}`;
    this.names.set(sql, name);
    return name;
  }

  /** Sends `sql` unnamed from now on: a connection's prepared copy of it no longer fits. */
  retire(sql: string): void {
    if (this.names.has(sql)) this.names.set(sql, null);
  }
}
