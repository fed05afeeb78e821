/**
 * One `Idempotency-Key` sent to two service processes at once (docs/spec/protocol.md#idempotency):
 * two HTTP apps, each with its own store connection, on one PostgreSQL schema (and, in-process,
 * on one PGlite store), serving a route whose effect is counted. The effect happens once; the
 * duplicate is refused 409 while the first runs and replays the first response after; a claim
 * left by a process that died, or by a request that failed on the store, keeps its key (its
 * effect may have happened), unless the route stores its answer with its effect: then the key is
 * given back and the retry runs.
 */
import { tmpdir } from 'node:os';
import { DomainError } from '@poolparty/core';
import { waitFor } from '@poolparty/settlement/testing';
import {
  claimIdempotencyKey,
  type Database,
  IDEMPOTENCY_CLAIM_RUNNING_MS,
  IN_MEMORY,
  migrate,
  openPglite,
  openPostgres,
  openStore,
  StoreUnavailable,
} from '@poolparty/store';
import {
  createSchema,
  dropSchema,
  POSTGRES_URL,
  postgresSkipReason,
} from '@poolparty/store/testing';
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, createFastify } from '../src/http/fastify.js';
import { apiKeyScope, requestHash, routeRequestOf } from '../src/http/idempotency.js';
import { type Idempotency, useIdempotencyKeys } from '../src/http/idempotent-routes.js';
import { registerRoutes, routeOf } from '../src/http/route-table.js';

const T0 = new Date('2026-11-22T13:40:00.000Z');
const KEY = { 'idempotency-key': 'withdraw-7' };
/** Units asked for that the route refuses, as a withdrawal beyond the position is refused. */
const TOO_MANY = '1000000';

interface World {
  readonly name: string;
  readonly skipReason: string | null;
  /** Two store handles on one store: two processes' connections, or PGlite's one. */
  open(): Promise<readonly [Database, Database]>;
  dispose(): Promise<void>;
}

function postgresWorld(skipReason: string | null): World {
  let schema: string | null = null;
  return {
    name: 'PostgreSQL, two processes',
    skipReason,
    open: async () => {
      schema = await createSchema('pp_idempotency');
      const first = await openStore({ databaseUrl: POSTGRES_URL, dataDir: tmpdir(), schema });
      return [first, openPostgres(POSTGRES_URL, { schema })];
    },
    dispose: async () => {
      if (schema !== null) await dropSchema(schema);
    },
  };
}

function pgliteWorld(): World {
  return {
    name: 'PGlite, one process',
    skipReason: null,
    open: async () => {
      const db = await openPglite(IN_MEMORY);
      await migrate(db);
      return [db, db];
    },
    dispose: async () => {},
  };
}

/** What the processes share besides the store: the effects, and a gate holding the handler. */
class Effects {
  readonly done: string[] = [];
  #open: Promise<void> = Promise.resolve();
  #release: () => void = () => {};

  hold(): void {
    this.#open = new Promise((resolve) => {
      this.#release = resolve;
    });
  }

  /** Holds the next creation alone, once it has written its row; the ones after it pass. */
  #holdNextCreation = false;
  creationHeld = false;

  holdNextCreation(): void {
    this.hold();
    this.#holdNextCreation = true;
  }

  passCreationGate(): Promise<void> {
    if (!this.#holdNextCreation) return Promise.resolve();
    this.#holdNextCreation = false;
    this.creationHeld = true;
    return this.passGate();
  }

  release(): void {
    this.#release();
  }

  passGate(): Promise<void> {
    return this.#open;
  }

  /** Failures on the store still to come: of the creation's handler, of giving a key back. */
  storeDrops = 0;
  releaseDrops = 0;
  /** Each app's store, for a handler to write its effect in. */
  readonly stores = new Map<unknown, Database>();

  store(request: { readonly server: unknown }): Database {
    const db = this.stores.get(request.server);
    if (db === undefined) throw new Error('no store for this app');
    return db;
  }
}

/** `db`, whose statements giving a key back fail on the store while `effects.releaseDrops` lasts. */
function releasingWhen(db: Database, effects: Effects): Database {
  return new Proxy(db, {
    get(target, property, receiver) {
      if (property !== 'query') return Reflect.get(target, property, receiver);
      return (sql: string, params?: Parameters<Database['query']>[1]) => {
        if (
          sql.trimStart().startsWith('DELETE FROM idempotency_records') &&
          effects.releaseDrops > 0
        ) {
          effects.releaseDrops -= 1;
          return Promise.reject(new StoreUnavailable(new Error('terminated')));
        }
        return target.query(sql, params);
      };
    },
  });
}

const route = routeOf<Effects>();
/** Every request is the same API key's, as the `/v1` routes scope theirs. */
const ONE_API_KEY: Idempotency<Effects> = { principal: () => ({ scope: apiKeyScope('key_1') }) };

const withdraw = route({
  method: 'POST',
  url: '/withdrawals',
  idempotency: ONE_API_KEY,
  schema: {
    body: Type.Object({ units: Type.String() }, { additionalProperties: false }),
    response: { 201: Type.Object({ withdrawalId: Type.String(), units: Type.String() }) },
  },
  handler: async (effects, request, reply) => {
    if (request.body.units === TOO_MANY) {
      throw new DomainError('insufficient_units', 'The position holds fewer units.');
    }
    effects.done.push(request.body.units);
    const withdrawalId = `wd_${effects.done.length}`;
    await effects.passGate();
    return reply.code(201).send({ withdrawalId, units: request.body.units });
  },
});

/** Units that make a handler fail on the store, as a dropped connection mid-request does. */
const STORE_DROP = '-1';

/** A withdrawal whose effect fails on the store once `units` says so (its outcome unknown). */
const failingWithdraw = route({
  method: 'POST',
  url: '/withdrawals-failing',
  idempotency: ONE_API_KEY,
  schema: withdraw.schema,
  handler: async (effects, request, reply) => {
    if (request.body.units === STORE_DROP) throw new StoreUnavailable(new Error('terminated'));
    effects.done.push(request.body.units);
    return reply.code(201).send({ withdrawalId: 'wd_failing', units: request.body.units });
  },
});

/**
 * A creation that stores its answer in its effect's transaction, as swap creation does: the
 * effect is a row of `creations`, written with the answer in one transaction, and it fails on
 * the store while `effects.storeDrops` lasts.
 */
const create = route({
  method: 'POST',
  url: '/creations',
  idempotency: { ...ONE_API_KEY, completesInEffect: true },
  schema: withdraw.schema,
  handler: async (effects, request, reply) => {
    if (effects.storeDrops > 0) {
      effects.storeDrops -= 1;
      throw new StoreUnavailable(new Error('terminated'));
    }
    const answer = request.server.idempotencyKeys?.completionOf(request) ?? null;
    const body = { withdrawalId: `cr_${request.id}`, units: request.body.units };
    await effects.store(request).transaction(async (tx) => {
      await tx.query('INSERT INTO creations (id, units) VALUES ($1, $2)', [
        body.withdrawalId,
        body.units,
      ]);
      await effects.passCreationGate();
      await answer?.(tx, { status: 201, body });
    });
    return reply.code(201).send(body);
  },
});

async function creationsOf(db: Database, units: string): Promise<number> {
  const rows = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM creations WHERE units = $1',
    [units],
  );
  return rows[0]?.n ?? 0;
}

async function processOn(db: Database, effects: Effects, clock: { now(): Date }): Promise<App> {
  const app = createFastify({ logLevel: 'silent' });
  useIdempotencyKeys(app, { db: releasingWhen(db, effects), clock });
  effects.stores.set(app, db);
  registerRoutes(app, effects, [withdraw, failingWithdraw, create]);
  await app.ready();
  return app;
}

function send(app: App, units: string, headers: Record<string, string> = KEY) {
  return app.inject({ method: 'POST', url: '/withdrawals', headers, payload: { units } });
}

const skipReason = await postgresSkipReason('idempotency across processes');

describe.each([postgresWorld(skipReason), pgliteWorld()])('one key on $name', (world) => {
  if (world.skipReason !== null) {
    it.skip(`skipped: ${world.skipReason}`, () => {});
    return;
  }
  let dbs: readonly [Database, Database];
  let effects: Effects;
  let now = T0;
  const clock = { now: () => now };
  let first: App;
  let second: App;

  beforeAll(async () => {
    dbs = await world.open();
    await dbs[0].exec('CREATE TABLE creations (id TEXT PRIMARY KEY, units TEXT NOT NULL)');
    effects = new Effects();
    first = await processOn(dbs[0], effects, clock);
    second = await processOn(dbs[1], effects, clock);
  });

  afterAll(async () => {
    await first?.close();
    await second?.close();
    for (const db of new Set(dbs)) await db.close();
    await world.dispose();
  });

  it('runs the effect once: the duplicate meets the running first, then its response', async () => {
    effects.hold();
    const running = send(first, '100');
    let finished = false;
    void running.finally(() => {
      finished = true;
    });
    // Until the first request is inside its handler (or, failing, has answered).
    while (effects.done.length === 0 && !finished) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(effects.done).toEqual(['100']);

    const duplicate = await send(second, '100');
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json()).toMatchObject({ code: 'idempotency_key_in_use' });
    const otherBody = await send(second, '200');
    expect(otherBody.json()).toMatchObject({ status: 422, code: 'idempotency_key_reused' });

    effects.release();
    const answered = await running;
    expect(answered.statusCode).toBe(201);
    expect(answered.headers['idempotent-replayed']).toBeUndefined();
    const replayed = await send(second, '100');
    expect({ status: replayed.statusCode, body: replayed.body }).toEqual({
      status: 201,
      body: answered.body,
    });
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(effects.done).toEqual(['100']);
  });

  it('runs the effect once for many duplicates sent to both processes at once', async () => {
    const headers = { 'idempotency-key': 'withdraw-8' };
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, n) => send(n % 2 === 0 ? first : second, '50', headers)),
    );
    expect(effects.done.filter((units) => units === '50')).toHaveLength(1);
    const created = answers.filter((answer) => answer.statusCode === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const answer of created) expect(answer.body).toBe(created[0]?.body);
    for (const answer of answers.filter((a) => a.statusCode !== 201)) {
      expect(answer.json()).toMatchObject({ status: 409, code: 'idempotency_key_in_use' });
    }
  });

  it('judges a refused request afresh when it is sent again', async () => {
    const headers = { 'idempotency-key': 'withdraw-9' };
    expect((await send(first, TOO_MANY, headers)).statusCode).toBe(409);
    expect((await send(second, TOO_MANY, headers)).json()).toMatchObject({
      status: 409,
      code: 'insufficient_units',
    });
    expect(effects.done).not.toContain(TOO_MANY);
  });

  it('never runs again a request whose claim a dead process left, and says it was interrupted', async () => {
    const key = 'withdraw-10';
    const [db] = dbs;
    // The claim of a process that died while running this very request.
    const request = { method: 'POST', routeUrl: '/withdrawals', params: {}, body: { units: '25' } };
    await claimIdempotencyKey(db, {
      scope: apiKeyScope('key_1'),
      key,
      requestHash: requestHash(routeRequestOf(request), undefined),
      claimToken: 'dead',
      at: now,
    });
    const retry = () => send(second, '25', { 'idempotency-key': key });
    expect((await retry()).json()).toMatchObject({
      code: 'idempotency_key_in_use',
      detail: expect.stringMatching(/still running/),
    });
    // The dead request may have burned the units: a retry must never burn them a second time.
    now = new Date(now.getTime() + IDEMPOTENCY_CLAIM_RUNNING_MS + 1);
    const after = await retry();
    expect(after.statusCode).toBe(409);
    expect(after.json()).toMatchObject({
      code: 'idempotency_key_in_use',
      detail: expect.stringMatching(/interrupted/),
    });
    expect(effects.done.filter((units) => units === '25')).toHaveLength(0);
  });

  it('keeps the key of a request that failed on the store: it may have taken effect', async () => {
    const headers = { 'idempotency-key': 'withdraw-11' };
    const send = (units: string) =>
      first.inject({ method: 'POST', url: '/withdrawals-failing', headers, payload: { units } });
    expect((await send(STORE_DROP)).json()).toMatchObject({
      status: 503,
      code: 'store_unavailable',
    });
    expect((await send(STORE_DROP)).json()).toMatchObject({ code: 'idempotency_key_in_use' });
    expect(effects.done).not.toContain(STORE_DROP);
  });

  it('runs the retry of a creation that failed on the store, its answer kept with its effect', async () => {
    const headers = { 'idempotency-key': 'create-1' };
    const send = (app: App) =>
      app.inject({ method: 'POST', url: '/creations', headers, payload: { units: '3' } });
    effects.storeDrops = 1;
    expect((await send(first)).json()).toMatchObject({ status: 503, code: 'store_unavailable' });
    const created = await send(second);
    expect(created.statusCode).toBe(201);
    const replayed = await send(first);
    expect({ status: replayed.statusCode, body: replayed.body }).toEqual({
      status: 201,
      body: created.body,
    });
    expect(await creationsOf(dbs[0], '3')).toBe(1);
  });

  it('takes over the claim a failed creation left behind, once it is no longer young', async () => {
    const headers = { 'idempotency-key': 'create-2' };
    const send = () =>
      first.inject({ method: 'POST', url: '/creations', headers, payload: { units: '4' } });
    effects.storeDrops = 1;
    // More failures than the store's own sends of the statement again: the claim stays behind.
    effects.releaseDrops = 3;
    expect((await send()).json()).toMatchObject({ status: 503, code: 'store_unavailable' });
    expect((await send()).json()).toMatchObject({ code: 'idempotency_key_in_use' });
    now = new Date(now.getTime() + 1_000);
    const created = await send();
    expect(created.statusCode).toBe(201);
    expect(await creationsOf(dbs[0], '4')).toBe(1);
  });

  it.skipIf(world.name.startsWith('PGlite'))(
    'lets a creation whose claim was taken over never commit: one effect, one answer',
    async () => {
      const headers = { 'idempotency-key': 'create-3' };
      const send = (app: App) =>
        app.inject({ method: 'POST', url: '/creations', headers, payload: { units: '5' } });
      effects.holdNextCreation();
      const slow = send(first);
      await waitFor(async () => effects.creationHeld || null, 'the first to write its row');
      // The first still runs, its row written but not committed, when its claim is taken over.
      now = new Date(now.getTime() + 1_000);
      const retried = await send(second);
      expect(retried.statusCode).toBe(201);
      effects.release();
      const firstAnswer = await slow;
      expect(firstAnswer.json()).toMatchObject({ status: 409, code: 'idempotency_key_in_use' });
      expect(await creationsOf(dbs[0], '5')).toBe(1);
      expect((await send(first)).body).toBe(retried.body);
    },
  );

  it('refuses a malformed key with 400 validation_error before anything runs', async () => {
    const before = effects.done.length;
    for (const key of ['has space', 'x'.repeat(256), 'é']) {
      const answer = await send(first, '1', { 'idempotency-key': key });
      expect(answer.json()).toMatchObject({ status: 400, code: 'validation_error' });
    }
    expect(effects.done).toHaveLength(before);
  });
});
