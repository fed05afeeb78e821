/**
 * The store, with every statement and transaction sent through it counted: what a benchmark or a
 * test reads to say how many round trips a piece of work cost. The BEGIN and COMMIT of a
 * transaction are not in the statement count.
 */
import type { Database, Queryable, Row, SqlParam } from '@poolparty/store';

/** What the engine asked of the store. */
export interface StoreCounts {
  statements: number;
  transactions: number;
}

/** The store, with every statement and transaction sent through it counted. */
export class CountingDatabase implements Database {
  readonly counts: StoreCounts = { statements: 0, transactions: 0 };

  constructor(private readonly inner: Database) {}

  get kind() {
    return this.inner.kind;
  }

  query<T = Row>(sql: string, params?: readonly SqlParam[]): Promise<T[]> {
    this.counts.statements += 1;
    return this.inner.query<T>(sql, params);
  }

  exec(script: string): Promise<void> {
    this.counts.statements += 1;
    return this.inner.exec(script);
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    this.counts.transactions += 1;
    return this.inner.transaction((tx) =>
      fn({
        query: <R = Row>(sql: string, params?: readonly SqlParam[]) => {
          this.counts.statements += 1;
          return tx.query<R>(sql, params);
        },
        exec: (script: string) => {
          this.counts.statements += 1;
          return tx.exec(script);
        },
      }),
    );
  }

  listen(
    channel: string,
    onPayload: (payload: string) => void,
    onLost?: (error: Error) => void,
  ): Promise<() => Promise<void>> {
    return this.inner.listen(channel, onPayload, onLost);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
