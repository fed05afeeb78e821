/**
 * The store's connection lost under the service (a failover, a restarted pooler, an idle-session
 * timeout): the process stays up, a transaction caught in it fails as `StoreUnavailable` and the
 * next one works, reads are tried once more on a fresh connection, and the HTTP API answers 503
 * `store_unavailable` with `Retry-After` — never a 500 — until the store is back.
 *
 * The connections are cut by a TCP proxy in front of PostgreSQL (support/tcp-proxy.ts), so the
 * test decides exactly when, and can refuse new connections for as long as an outage lasts.
 */

import {
  causedByConnectionLoss,
  type Database,
  isConnectionLoss,
  isReadOnlyStatement,
  openPostgres,
  StoreUnavailable,
} from '@poolparty/store';
import { createSchema, dropSchema, postgresSkipReason } from '@poolparty/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectProblem,
  request,
  STARTUP_TIMEOUT_MS,
  startTestService,
  type TestService,
  walletTokenFor,
} from './support/service.js';
import { type StoreProxy, startStoreProxy, withSchema } from './support/tcp-proxy.js';

const skipReason = await postgresSkipReason('store connection loss suite');

/** Long enough for the test to cut the connection while the statement runs. */
const SLOW_STATEMENT_S = 0.4;
const CUT_AFTER_MS = 100;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('what counts as a lost connection', () => {
  it.each([
    [
      Object.assign(new Error('terminating connection due to administrator command'), {
        code: '57P01',
      }),
    ],
    [Object.assign(new Error('the database system is starting up'), { code: '57P03' })],
    [Object.assign(new Error('server closed the connection'), { code: '08006' })],
    [Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    [new Error('Connection terminated unexpectedly')],
    [new Error('Client has encountered a connection error and is not queryable')],
    [new StoreUnavailable(new Error('gone'))],
  ])('%s is a lost connection', (error) => {
    expect(isConnectionLoss(error)).toBe(true);
  });

  it.each([
    [Object.assign(new Error('duplicate key value'), { code: '23505' })],
    [Object.assign(new Error('could not serialize access'), { code: '40001' })],
    [Object.assign(new Error('syntax error'), { code: '42601' })],
    [new Error('transaction already ended')],
    ['57P01'],
  ])('%s is not', (error) => {
    expect(isConnectionLoss(error)).toBe(false);
  });

  it('counts, outside the store, only what the store raised as lost: not a bare socket error', () => {
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    expect(causedByConnectionLoss(new StoreUnavailable(reset))).toBe(true);
    expect(
      causedByConnectionLoss(new Error('the swap failed', { cause: new StoreUnavailable(reset) })),
    ).toBe(true);
    // An HTTP client hanging up fails the request stream with the same code.
    const aborted = Object.assign(new Error('aborted'), { code: 'ECONNRESET', statusCode: 400 });
    expect(causedByConnectionLoss(aborted)).toBe(false);
    expect(causedByConnectionLoss(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))).toBe(
      false,
    );
  });

  it('retries statements that change nothing, and only those', () => {
    expect(isReadOnlyStatement('SELECT * FROM intents WHERE intent_id = $1')).toBe(true);
    expect(isReadOnlyStatement('  with recent AS (SELECT 1) SELECT * FROM recent')).toBe(true);
    expect(isReadOnlyStatement('SELECT updated_at, last_update FROM pools')).toBe(true);
    for (const write of [
      'INSERT INTO nonces VALUES ($1)',
      'UPDATE intents SET status = $2',
      'DELETE FROM sessions',
      'WITH moved AS (UPDATE pools SET x = 1 RETURNING *) SELECT * FROM moved',
      'SELECT * FROM intents FOR UPDATE',
      'SELECT * FROM intents FOR NO KEY UPDATE SKIP LOCKED',
      "SELECT nextval('ids')",
      "SELECT pg_notify('intent_events', $1)",
      'SELECT pg_try_advisory_lock(1, 2)',
    ]) {
      expect(isReadOnlyStatement(write), write).toBe(false);
    }
  });
});

describe.skipIf(skipReason !== null)('a PostgreSQL store whose connections are cut', () => {
  let proxy: StoreProxy;
  let schema: string;
  let db: Database;

  beforeAll(async () => {
    proxy = await startStoreProxy();
    schema = await createSchema('pp_cut');
    db = openPostgres(proxy.url, { schema });
    await db.exec('CREATE TABLE marks (n INTEGER NOT NULL)');
  });

  afterAll(async () => {
    await db?.close();
    await proxy?.close();
    if (schema) await dropSchema(schema);
  });

  it('fails a transaction cut between two statements, and the next one commits', async () => {
    const cut = db.transaction(async (tx) => {
      await tx.query('INSERT INTO marks VALUES (1)');
      proxy.dropAll();
      await pause(CUT_AFTER_MS);
      await tx.query('INSERT INTO marks VALUES (2)');
    });
    await expect(cut).rejects.toBeInstanceOf(StoreUnavailable);
    await db.transaction((tx) => tx.query('INSERT INTO marks VALUES (3)'));
    const rows = await db.query<{ n: number }>('SELECT n FROM marks ORDER BY n');
    expect(rows.map((row) => row.n)).toEqual([3]);
  });

  it('answers a read cut while it runs from a fresh connection', async () => {
    const read = db.query<{ answer: number }>(
      `SELECT 42 AS answer FROM pg_sleep(${SLOW_STATEMENT_S})`,
    );
    await pause(CUT_AFTER_MS);
    expect(proxy.dropAll()).toBeGreaterThan(0);
    expect(await read).toEqual([{ answer: 42 }]);
  });

  it('does not send a cut write again: it fails as StoreUnavailable, applied at most once', async () => {
    await db.exec('DELETE FROM marks');
    const write = db.query(`INSERT INTO marks SELECT 7 FROM pg_sleep(${SLOW_STATEMENT_S})`);
    await pause(CUT_AFTER_MS);
    proxy.dropAll();
    await expect(write).rejects.toBeInstanceOf(StoreUnavailable);
    // The server may have finished the insert before it noticed the client had gone.
    await pause(SLOW_STATEMENT_S * 1000);
    const rows = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM marks');
    expect(rows[0]?.count).toBeLessThanOrEqual(1);
  });

  it('fails fast as StoreUnavailable while no connection can be made, then recovers', async () => {
    proxy.refuse(true);
    proxy.dropAll();
    try {
      await expect(db.query('SELECT 1')).rejects.toBeInstanceOf(StoreUnavailable);
      await expect(db.transaction((tx) => tx.query('SELECT 1'))).rejects.toBeInstanceOf(
        StoreUnavailable,
      );
    } finally {
      proxy.refuse(false);
    }
    expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});

describe.skipIf(skipReason !== null)('the HTTP API while its store is out of reach', () => {
  let proxy: StoreProxy;
  let schema: string;
  let server: TestService;
  let walletToken: string;

  beforeAll(async () => {
    proxy = await startStoreProxy();
    schema = await createSchema('pp_outage');
    server = await startTestService({ DATABASE_URL: withSchema(proxy.url, schema) });
    const user = server.users[0];
    if (!user) throw new Error('no seeded user');
    walletToken = await walletTokenFor(server, user);
  }, STARTUP_TIMEOUT_MS);

  afterAll(async () => {
    proxy?.refuse(false);
    await server?.close();
    await proxy?.close();
    if (schema) await dropSchema(schema);
  });

  const track = () =>
    request(server.url, 'GET', `/v1/track/${server.users[0]?.partyId}`, {
      apiKey: server.apiKey,
      walletToken,
    });
  const stats = () =>
    request(server.url, 'GET', '/v1/pools/amulet-usdcx/stats?days=7', { apiKey: server.apiKey });

  it('answers reads on a dropped connection as if nothing happened', async () => {
    expect((await track()).status).toBe(200);
    proxy.dropAll();
    expect((await track()).status).toBe(200);
    expect((await stats()).status).toBe(200);
  });

  it('answers 503 store_unavailable with Retry-After during an outage, never 500', async () => {
    proxy.refuse(true);
    proxy.dropAll();
    try {
      const answer = await track();
      expectProblem(answer, 503, 'store_unavailable');
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
      const figures = await stats();
      // Figures may come from what the process already holds; never from a 500.
      if (figures.status !== 200) expectProblem(figures, 503, 'store_unavailable');
      // The process is alive and says it cannot serve.
      expect((await request(server.url, 'GET', '/healthz')).status).toBe(200);
      expect((await request(server.url, 'GET', '/readyz')).status).toBe(503);
    } finally {
      proxy.refuse(false);
    }
    expect((await track()).status).toBe(200);
    expect((await stats()).status).toBe(200);
  });
});
