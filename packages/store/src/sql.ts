/**
 * What the store's modules run statements on, and what comes back: the database itself or an
 * open transaction. The two implementations (PostgreSQL, PGlite) are in database.ts; the types
 * stand apart so that the migrations and the PGlite template, which database.ts opens stores
 * with, can name them without importing database.ts back.
 */

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
  /**
   * Calls `onPayload` with each notification on `channel` (`LISTEN`), until the returned stop
   * function runs. On PostgreSQL this holds a connection of its own, outside the pool; if that
   * connection breaks, `onLost` is called once and nothing more arrives through this listen (the
   * caller listens again). PGlite delivers in-process and never loses its listener.
   */
  listen(
    channel: string,
    onPayload: (payload: string) => void,
    onLost?: (error: Error) => void,
  ): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** The first row `sql` answers, mapped; null when it answers none. */
export async function firstRowOf<T>(
  q: Queryable,
  sql: string,
  params: readonly SqlParam[],
  map: (row: Row) => T,
): Promise<T | null> {
  const [row] = await q.query(sql, params);
  return row === undefined ? null : map(row);
}
