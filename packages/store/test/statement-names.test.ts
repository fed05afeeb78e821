/**
 * Statements sent again and again are prepared once per PostgreSQL connection, and a prepared
 * statement whose table changed shape under it does not break the store.
 */
import type { Database } from '@poolparty/store';
import { type FreshSchema, openFreshSchema, postgresSkipReason } from '@poolparty/store/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStalePreparedStatement, StatementNames } from '../src/statement-names.js';

describe('statement names', () => {
  it('names each text once, the same name every time, and none past the bound', () => {
    const names = new StatementNames(2);
    const first = names.nameOf('SELECT $1');
    expect(first).toBeDefined();
    expect(names.nameOf('SELECT $1')).toBe(first);
    const second = names.nameOf('SELECT $1, $2');
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    expect(names.nameOf('SELECT $1, $2, $3')).toBeUndefined();
    expect(names.nameOf('SELECT $1')).toBe(first);
  });

  it('sends a retired text unnamed, and keeps it retired', () => {
    const names = new StatementNames();
    names.nameOf('SELECT * FROM t WHERE id = $1');
    names.retire('SELECT * FROM t WHERE id = $1');
    expect(names.nameOf('SELECT * FROM t WHERE id = $1')).toBeUndefined();
    expect(names.nameOf('SELECT * FROM t WHERE id = $1')).toBeUndefined();
  });

  it('tells a stale prepared statement from other refusals', () => {
    const stale = Object.assign(new Error('cached plan must not change result type'), {
      code: '0A000',
    });
    expect(isStalePreparedStatement(stale)).toBe(true);
    const other = Object.assign(new Error('FOR UPDATE is not allowed with GROUP BY'), {
      code: '0A000',
    });
    expect(isStalePreparedStatement(other)).toBe(false);
    expect(isStalePreparedStatement('cached plan must not change result type')).toBe(false);
  });
});

const skipReason = await postgresSkipReason('prepared statements suite');

describe.skipIf(skipReason !== null)('prepared statements on PostgreSQL', () => {
  let store: FreshSchema;
  let db: Database;

  beforeEach(async () => {
    // One connection, so the statements below meet the connection that prepared them.
    store = await openFreshSchema('pp_prepared', { connectionsMax: 1, migrated: false });
    db = store.databases[0] as Database;
    await db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT NOT NULL)');
    await db.query('INSERT INTO t (id, a) VALUES ($1, $2)', [1, 'one']);
  });

  afterEach(() => store.close());

  const preparedCount = async (text: string) => {
    const rows = await db.query<{ n: string }>(
      'SELECT count(*) AS n FROM pg_prepared_statements WHERE statement = $1',
      [text],
    );
    return Number(rows[0]?.n);
  };

  it('prepares a statement with parameters once on a connection, in and out of transactions', async () => {
    const text = 'SELECT a FROM t WHERE id = $1';
    for (let i = 0; i < 3; i += 1) expect(await db.query(text, [1])).toEqual([{ a: 'one' }]);
    await db.transaction(async (tx) => {
      expect(await tx.query(text, [1])).toEqual([{ a: 'one' }]);
    });
    expect(await preparedCount(text)).toBe(1);
  });

  it('answers with the new shape after a column is added under a prepared statement', async () => {
    const text = 'SELECT * FROM t WHERE id = $1';
    expect(await db.query(text, [1])).toEqual([{ id: 1, a: 'one' }]);
    await db.exec("ALTER TABLE t ADD COLUMN b TEXT NOT NULL DEFAULT 'two'");
    expect(await db.query(text, [1])).toEqual([{ id: 1, a: 'one', b: 'two' }]);
    await db.transaction(async (tx) => {
      expect(await tx.query(text, [1])).toEqual([{ id: 1, a: 'one', b: 'two' }]);
    });
  });

  it('fails a transaction that meets a stale prepared statement once, and the next one works', async () => {
    const text = 'SELECT * FROM t WHERE id = $1';
    await db.transaction((tx) => tx.query(text, [1]));
    await db.exec("ALTER TABLE t ADD COLUMN b TEXT NOT NULL DEFAULT 'two'");
    await expect(db.transaction((tx) => tx.query(text, [1]))).rejects.toThrow(
      /cached plan must not change result type/,
    );
    await expect(db.transaction((tx) => tx.query(text, [1]))).resolves.toEqual([
      { id: 1, a: 'one', b: 'two' },
    ]);
  });
});
