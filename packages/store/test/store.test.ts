/**
 * One suite, run on PGlite and on PostgreSQL: both must behave the same. Each run migrates once
 * and works in its own store (a temp data folder, or a fresh PostgreSQL schema), so parallel runs
 * never see each other's rows; tests use unique ids so they do not depend on their order.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Amount, IllegalPathError } from '@poolparty/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ActiveIntentExistsError,
  advanceCheckpoint,
  cancelIntent,
  claimIdempotencyKey,
  completeIdempotencyClaim,
  consumeNonce,
  countIncompleteCompletedSwaps,
  countIncompleteCompletedSwapsByPool,
  type Database,
  decodeIntentCursor,
  encodeIntentCursor,
  expireDueIntents,
  findApiKeyByHash,
  findValidSession,
  getCommand,
  getDeveloper,
  getIdempotencyRecord,
  getIntent,
  getIntentForParty,
  getIntentWithEventsForParty,
  getLedgerOffset,
  getPool,
  getPoolAccounting,
  IDEMPOTENCY_CLAIM_RUNNING_MS,
  IN_MEMORY,
  type IntentCursor,
  insertApiKey,
  insertDiscountPolicy,
  insertFeeEvent,
  insertIntent,
  insertNonce,
  insertPool,
  insertReconciliationRun,
  insertSession,
  isApiKeyUsable,
  isWalletTokenRevoked,
  latestReconciliationRunByPool,
  listApiKeys,
  listApplicableDiscounts,
  listIntentEvents,
  listSwapsForParty,
  listUnconfirmedCommands,
  loadMigrations,
  MigrationChecksumError,
  markAllSubmitted,
  markLedgerCommand,
  migrate,
  moveIntentsAlong,
  type NewIntent,
  openPglite,
  openPostgres,
  openStore,
  purgeIdempotencyRecords,
  type Queryable,
  ROTATION_GRACE_MS,
  type Row,
  recordDeposit,
  recordLedgerCommand,
  releaseIdempotencyClaim,
  revokeApiKey,
  revokeWalletToken,
  rotateApiKey,
  StoreUnavailable,
  setLedgerOffset,
  touchApiKey,
  transitionIntent,
  updatePoolAccounting,
  upsertDeveloper,
} from '../src/index.js';
import {
  COMPLETED_SWAP_HISTORY,
  createSchema,
  dropSchema,
  POSTGRES_URL,
  postgresSkipReason,
  SETTLING_STATES,
  testFeeEvent,
  testIntent,
} from '../testing/index.js';

const ALL_MIGRATIONS = loadMigrations().map((migration) => migration.name);
// With CI=true an unreachable PostgreSQL fails the PostgreSQL run only; PGlite still runs.
let postgresRequired: unknown = null;
const postgresSkip = await postgresSkipReason('store suite on PostgreSQL').catch((error) => {
  postgresRequired = error;
  return null;
});

interface Backend {
  readonly name: string;
  readonly skipReason: string | null;
  /** The store this run works on; a later call reopens the same one. */
  open(): Promise<Database>;
  /** Two handles on one new, empty store. */
  openEmptyPair(): Promise<readonly [Database, Database]>;
  dispose(): Promise<void>;
}

function pgliteBackend(): Backend {
  let dataDir: string | null = null;
  const extra: Database[] = [];
  return {
    name: 'PGlite',
    skipReason: null,
    open: () => {
      dataDir ??= mkdtempSync(join(tmpdir(), 'pp-store-'));
      return openStore({ dataDir, migrate: false });
    },
    // PGlite has one connection per data folder: the pair shares it, as processes cannot.
    openEmptyPair: async () => {
      const db = await openPglite(IN_MEMORY);
      extra.push(db);
      return [db, db];
    },
    dispose: async () => {
      for (const db of extra) await db.close();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function postgresBackend(): Backend {
  const schemas: string[] = [];
  const extra: Database[] = [];
  async function freshSchema(): Promise<string> {
    if (postgresRequired !== null) throw postgresRequired;
    const schema = await createSchema('pp_test');
    schemas.push(schema);
    return schema;
  }
  let mainSchema: string | null = null;
  return {
    name: 'PostgreSQL',
    skipReason: postgresSkip,
    open: async () => {
      mainSchema ??= await freshSchema();
      return openStore({
        databaseUrl: POSTGRES_URL,
        dataDir: tmpdir(),
        schema: mainSchema,
        migrate: false,
      });
    },
    openEmptyPair: async () => {
      const schema = await freshSchema();
      const pair = [
        openPostgres(POSTGRES_URL, { schema }),
        openPostgres(POSTGRES_URL, { schema }),
      ] as const;
      extra.push(...pair);
      return pair;
    },
    dispose: async () => {
      for (const db of extra) await db.close();
      for (const schema of schemas) await dropSchema(schema);
    },
  };
}

const T0 = new Date('2026-03-01T12:00:00.000Z');
const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
const at = (ms: number) => new Date(T0.getTime() + ms);
const uid = () => randomBytes(6).toString('hex');
const hashOf = () => randomBytes(32).toString('hex');
const AMULET = { id: 'Amulet', admin: 'DSO::1220aa' };
const USDCX = { id: 'USDCx', admin: 'circle::1220bb' };

describe.each([pgliteBackend(), postgresBackend()])('store on $name', (backend) => {
  if (backend.skipReason !== null) {
    it.skip(`skipped: ${backend.skipReason}`, () => {});
    return;
  }

  let db: Database;
  let firstMigration: string[];

  beforeAll(async () => {
    db = await backend.open();
    firstMigration = await migrate(db);
  });

  afterAll(async () => {
    await db?.close();
    await backend.dispose();
  });

  async function developerWithKey() {
    const party = `dev-${uid()}::1220${uid()}`;
    await upsertDeveloper(db, party, T0);
    const keyHash = hashOf();
    const key = await insertApiKey(db, {
      keyId: `key_${uid()}`,
      developerParty: party,
      name: 'main',
      keyHash,
      prefix: 'pp_test_abcd',
      environment: 'devnet',
      createdAt: T0,
    });
    return { party, key, keyHash };
  }

  async function pool(reserveA = '1000000', reserveB = '145000') {
    return insertPool(db, {
      poolId: `pool-${uid()}`,
      tokenA: AMULET,
      tokenB: USDCX,
      swapParty: `swap-${uid()}::1220cc`,
      lpParty: `lp-${uid()}::1220dd`,
      lpSupply: Amount.parse('1000'),
      reserveA: Amount.parse(reserveA),
      reserveB: Amount.parse(reserveB),
      createdAt: T0,
    });
  }

  async function fixture() {
    const { party: developerParty, key } = await developerWithKey();
    const { poolId, swapParty } = await pool();
    const walletParty = `alice-${uid()}::1220ee`;
    let serial = 0;
    const intent = (overrides: Partial<NewIntent> = {}): NewIntent => {
      serial += 1;
      return testIntent({
        intentId: `int_${uid()}`,
        poolId,
        apiKeyId: key.keyId,
        developerParty,
        walletParty,
        depositAddress: swapParty,
        depositReference: `pp-${uid()}`,
        createdAt: at(serial * MINUTE_MS),
        expiresAt: at(serial * MINUTE_MS + DAY_MS),
        ...overrides,
      });
    };
    return { walletParty, poolId, intent };
  }

  describe('migrations', () => {
    it('apply once, and a second run applies nothing', async () => {
      // A new PGlite data folder starts from the template with every migration applied
      // (pglite-template.ts); PostgreSQL applies them all here.
      expect(firstMigration).toEqual(backend.name === 'PGlite' ? [] : ALL_MIGRATIONS);
      expect(await migrate(db)).toEqual([]);
      const rows = await db.query('SELECT name FROM schema_migrations ORDER BY name');
      expect(rows.map((row) => row.name)).toEqual(ALL_MIGRATIONS);
    });

    it('refuse a migration that changed after it was applied', async () => {
      const changed = { name: '0001_initial.sql', sql: 'SELECT 1', checksum: 'changed' };
      await expect(migrate(db, [changed])).rejects.toBeInstanceOf(MigrationChecksumError);
    });

    it('run concurrently on one empty store, each migration is applied exactly once', async () => {
      const [first, second] = await backend.openEmptyPair();
      const applied = await Promise.all([migrate(first), migrate(second)]);
      expect(applied.flat().sort()).toEqual(ALL_MIGRATIONS);
      expect(await second.query('SELECT count(*) AS n FROM schema_migrations')).toEqual([
        { n: String(ALL_MIGRATIONS.length) },
      ]);
    });
  });

  describe('transactions', () => {
    it('commit what the function wrote, or nothing when it throws', async () => {
      const kept = `dev-${uid()}::1220aa`;
      const dropped = `dev-${uid()}::1220aa`;
      await db.transaction((tx) => upsertDeveloper(tx, kept, T0));
      const failing = db.transaction(async (tx) => {
        await upsertDeveloper(tx, dropped, T0);
        throw new Error('abandon');
      });
      await expect(failing).rejects.toThrow('abandon');
      expect(await getDeveloper(db, kept)).not.toBeNull();
      expect(await getDeveloper(db, dropped)).toBeNull();
    });

    it('refuse statements on a transaction that has ended', async () => {
      let leaked: Queryable | null = null;
      await db.transaction(async (tx) => {
        leaked = tx;
      });
      await expect((leaked as unknown as Queryable).query('SELECT 1')).rejects.toThrow(/ended/);
    });
  });

  describe('API keys', () => {
    it('are found by hash with their developer, and count their use', async () => {
      const { party, key, keyHash } = await developerWithKey();
      await touchApiKey(db, key.keyId, at(5_000));
      await touchApiKey(db, key.keyId, at(1_000));
      const found = await findApiKeyByHash(db, keyHash);
      expect(found?.keyId).toBe(key.keyId);
      expect(found?.developer.partyId).toBe(party);
      expect(found?.requestCount).toBe(2);
      expect(found?.lastUsedAt).toEqual(at(5_000));
      expect(await findApiKeyByHash(db, hashOf())).toBeNull();
    });

    it('stop working once revoked, and only their developer can revoke them', async () => {
      const { party, key, keyHash } = await developerWithKey();
      const other = await developerWithKey();
      const byOther = { keyId: key.keyId, developerParty: other.party, now: T0 };
      expect(await revokeApiKey(db, byOther)).toBeNull();
      const revoked = await revokeApiKey(db, { keyId: key.keyId, developerParty: party, now: T0 });
      expect(revoked?.revokedAt).toEqual(T0);
      const found = await findApiKeyByHash(db, keyHash);
      expect(found && isApiKeyUsable(found, T0)).toBe(false);
      expect(await revokeApiKey(db, { keyId: key.keyId, developerParty: party, now: T0 })).toBe(
        null,
      );
    });

    it('keep working for the grace period after a rotation, then stop', async () => {
      const { party, key, keyHash } = await developerWithKey();
      const newKey = {
        keyId: `key_${uid()}`,
        developerParty: party,
        name: 'rotated',
        keyHash: hashOf(),
        prefix: 'pp_test_wxyz',
        environment: 'devnet' as const,
        createdAt: at(MINUTE_MS),
      };
      const rotated = await rotateApiKey(db, { oldKeyId: key.keyId, newKey, now: at(MINUTE_MS) });
      expect(rotated?.keyId).toBe(newKey.keyId);
      const old = await findApiKeyByHash(db, keyHash);
      expect(old?.replacedBy).toBe(newKey.keyId);
      expect(old?.revokesAt).toEqual(at(MINUTE_MS + ROTATION_GRACE_MS));
      expect(old && isApiKeyUsable(old, at(MINUTE_MS + ROTATION_GRACE_MS - 1))).toBe(true);
      expect(old && isApiKeyUsable(old, at(MINUTE_MS + ROTATION_GRACE_MS))).toBe(false);
      const again = { ...newKey, keyId: `key_${uid()}`, keyHash: hashOf() };
      expect(await rotateApiKey(db, { oldKeyId: key.keyId, newKey: again, now: T0 })).toBeNull();
      expect((await listApiKeys(db, party)).map((k) => k.keyId)).toEqual([newKey.keyId, key.keyId]);
    });

    it('refuse anything but a SHA-256 hex hash', async () => {
      const { party } = await developerWithKey();
      const plain = {
        keyId: `key_${uid()}`,
        developerParty: party,
        name: '',
        keyHash: 'pp_test_the-key-itself',
        prefix: 'pp_test_the-',
        environment: 'devnet' as const,
        createdAt: T0,
      };
      await expect(insertApiKey(db, plain)).rejects.toThrow();
    });
  });

  describe('wallet authentication', () => {
    it('gives a nonce to exactly one of two concurrent consumers', async () => {
      const nonce = uid();
      await insertNonce(db, {
        nonce,
        partyId: 'alice::1220ee',
        purpose: 'swap wallet authentication',
        message: 'sign me',
        createdAt: T0,
        expiresAt: at(5 * MINUTE_MS),
      });
      const results = await Promise.all([consumeNonce(db, nonce, T0), consumeNonce(db, nonce, T0)]);
      expect(results.filter((r) => r !== null)).toHaveLength(1);
      expect(results.find((r) => r !== null)?.usedAt).toEqual(T0);
      expect(await consumeNonce(db, nonce, at(1))).toBeNull();
      expect(await consumeNonce(db, uid(), T0)).toBeNull();
    });

    it('remembers revoked wallet tokens', async () => {
      const jti = uid();
      expect(await isWalletTokenRevoked(db, jti)).toBe(false);
      await revokeWalletToken(db, { jti, revokedAt: T0, expiresAt: at(15 * MINUTE_MS) });
      await revokeWalletToken(db, { jti, revokedAt: T0, expiresAt: at(15 * MINUTE_MS) });
      expect(await isWalletTokenRevoked(db, jti)).toBe(true);
    });

    it('finds developer sessions only until they expire', async () => {
      const { party } = await developerWithKey();
      const tokenHash = hashOf();
      await insertSession(db, {
        tokenHash,
        developerParty: party,
        createdAt: T0,
        expiresAt: at(1),
      });
      expect((await findValidSession(db, tokenHash, T0))?.developerParty).toBe(party);
      expect(await findValidSession(db, tokenHash, at(1))).toBeNull();
    });
  });

  describe('intents', () => {
    it('allow one pending intent per party, pool and input, naming the existing one', async () => {
      const { intent } = await fixture();
      const first = await insertIntent(db, intent());
      const blocked = insertIntent(db, intent());
      await expect(blocked).rejects.toBeInstanceOf(ActiveIntentExistsError);
      await expect(blocked).rejects.toMatchObject({ intentId: first.intentId });
      const otherDirection = intent({
        inputToken: USDCX.id,
        inputTokenAdmin: USDCX.admin,
        outputToken: AMULET.id,
        outputTokenAdmin: AMULET.admin,
      });
      await expect(insertIntent(db, otherDirection)).resolves.toMatchObject({ status: 'pending' });
      await cancelIntent(db, { intentId: first.intentId, walletParty: first.walletParty, now: T0 });
      await expect(insertIntent(db, intent())).resolves.toMatchObject({ status: 'pending' });
    });

    it('let exactly one of two concurrent creates through the guard', async () => {
      const { intent } = await fixture();
      const results = await Promise.allSettled([
        insertIntent(db, intent()),
        insertIntent(db, intent()),
      ]);
      const created = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
      expect(created).toHaveLength(1);
      expect(refused).toEqual([new ActiveIntentExistsError(created[0]?.intentId ?? '')]);
    });

    it('cancel only from pending, only for their party, with one event', async () => {
      const { intent, walletParty } = await fixture();
      const created = await insertIntent(db, intent());
      const cancel = (party: string) =>
        cancelIntent(db, { intentId: created.intentId, walletParty: party, now: at(DAY_MS / 2) });
      expect(await cancel('mallory::1220ff')).toBeNull();
      expect((await getIntent(db, created.intentId))?.status).toBe('pending');
      const cancelled = await cancel(walletParty);
      expect(cancelled).toMatchObject({ status: 'cancelled', completedAt: at(DAY_MS / 2) });
      expect(await cancel(walletParty)).toBeNull();
      const events = await listIntentEvents(db, created.intentId);
      expect(events.map((e) => e.status)).toEqual(['pending', 'cancelled']);
      expect(events[1]?.at).toEqual(at(DAY_MS / 2));
    });

    it('hide other parties’ intents', async () => {
      const { intent, walletParty } = await fixture();
      const created = await insertIntent(db, intent());
      expect(await getIntentForParty(db, created.intentId, walletParty)).not.toBeNull();
      expect(await getIntentForParty(db, created.intentId, 'mallory::1220ff')).toBeNull();
    });

    it('record each stage’s facts as they move, and refuse moves from the wrong state', async () => {
      const { intent } = await fixture();
      const { intentId } = await insertIntent(db, intent());
      const deposit = {
        amount: Amount.parse('100'),
        updateId: 'upd-1',
        receivedAt: at(2 * MINUTE_MS),
      };
      const matched = await transitionIntent(db, {
        intentId,
        from: 'pending',
        to: 'matched',
        at: at(2 * MINUTE_MS),
        deposit,
      });
      expect(matched).toMatchObject({ status: 'matched', matchedAt: at(2 * MINUTE_MS), deposit });
      const stale = { intentId, from: 'pending' as const, to: 'cancelled' as const, at: T0 };
      expect(await transitionIntent(db, stale)).toBeNull();
      await expect(
        transitionIntent(db, { intentId, from: 'matched', to: 'completed', at: T0 }),
      ).rejects.toBeInstanceOf(IllegalPathError);
      await moveIntentsAlong(
        db,
        [
          {
            intentId,
            from: 'matched',
            through: ['deposit_received', 'forwarded', 'processing', 'sending_output'],
          },
        ],
        at(3 * MINUTE_MS),
      );
      const completed = await transitionIntent(db, {
        intentId,
        from: ['sending_output'],
        to: 'completed',
        at: at(3 * MINUTE_MS),
        actualOutput: Amount.parse('14.2999999999'),
        payoutUpdateId: 'upd-2',
      });
      expect(completed).toMatchObject({
        completedAt: at(3 * MINUTE_MS),
        payout: { amount: Amount.parse('14.2999999999'), updateId: 'upd-2' },
        deposit,
        failureReason: null,
        refund: null,
      });
      const history = await listIntentEvents(db, intentId);
      expect(history.map((e) => e.status)).toEqual(COMPLETED_SWAP_HISTORY);
      expect(await listIntentEvents(db, intentId, history[5]?.seq)).toHaveLength(1);
    });

    it('read an intent with its events in one go, as the two reads would, for its party only', async () => {
      const { intent, walletParty } = await fixture();
      const { intentId } = await insertIntent(db, intent());
      await transitionIntent(db, { intentId, from: 'pending', to: 'matched', at: at(MINUTE_MS) });
      await transitionIntent(db, {
        intentId,
        from: 'matched',
        to: 'failed',
        at: at(2 * MINUTE_MS),
      });
      const found = await getIntentWithEventsForParty(db, intentId, walletParty);
      expect(found).toEqual({
        intent: await getIntentForParty(db, intentId, walletParty),
        events: await listIntentEvents(db, intentId),
      });
      expect(found?.events.map((e) => e.status)).toEqual(['pending', 'matched', 'failed']);
      expect(await getIntentWithEventsForParty(db, intentId, 'mallory::1220ff')).toBeNull();
      expect(await getIntentWithEventsForParty(db, 'swp_missing', walletParty)).toBeNull();
      // An intent whose events are gone still reads, with none.
      await db.query('DELETE FROM intent_events WHERE intent_id = $1', [intentId]);
      expect(await getIntentWithEventsForParty(db, intentId, walletParty)).toMatchObject({
        intent: { intentId, status: 'failed' },
        events: [],
      });
    });

    it('expire pending intents that are due, and only those', async () => {
      const { intent } = await fixture();
      const due = await insertIntent(db, intent({ expiresAt: at(MINUTE_MS + 1) }));
      const notDue = await insertIntent(
        db,
        intent({ inputToken: USDCX.id, inputTokenAdmin: USDCX.admin, expiresAt: at(DAY_MS) }),
      );
      const expired = await expireDueIntents(db, at(2 * MINUTE_MS));
      const ids = expired.map((i) => i.intentId);
      expect(ids).toContain(due.intentId);
      expect(ids).not.toContain(notDue.intentId);
      expect((await listIntentEvents(db, due.intentId)).map((e) => e.status)).toEqual([
        'pending',
        'expired',
      ]);
    });

    it('page a party’s intents newest first, each exactly once', async () => {
      const { intent, walletParty } = await fixture();
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) {
        // Two pairs share a creation time, so the order must fall back on the id.
        const created = await insertIntent(db, intent({ createdAt: at(Math.floor(i / 2) * 1000) }));
        ids.push(created.intentId);
        if (i < 6) {
          await cancelIntent(db, { intentId: created.intentId, walletParty, now: at(DAY_MS) });
        }
      }
      const seen: string[] = [];
      let cursor: IntentCursor | null = null;
      let pages = 0;
      do {
        const page = await listSwapsForParty(db, { walletParty, limit: 3, cursor });
        seen.push(...page.swaps.map((s) => (s.kind === 'deposit' ? s.intent.intentId : '')));
        cursor = page.nextCursor && decodeIntentCursor(encodeIntentCursor(page.nextCursor));
        pages += 1;
      } while (cursor !== null && pages < 10);
      const records = await Promise.all(ids.map((id) => getIntent(db, id)));
      const expected = records
        .map((r) => ({ id: r?.intentId ?? '', t: r?.createdAt.getTime() ?? 0 }))
        .sort((a, b) => b.t - a.t || (a.id < b.id ? 1 : -1))
        .map((r) => r.id);
      expect(seen).toEqual(expected);
      expect(pages).toBe(3);
      const pending = await listSwapsForParty(db, {
        walletParty,
        statuses: ['pending'],
        limit: 10,
      });
      expect(pending.swaps.map((s) => s.kind === 'deposit' && s.intent.intentId)).toEqual([ids[6]]);
      await expect(listSwapsForParty(db, { walletParty, limit: 0 })).rejects.toThrow(RangeError);
      expect(decodeIntentCursor('not a cursor')).toBeNull();
    });
  });

  describe('amounts', () => {
    it('round-trip exactly at the extremes of Numeric 10, written back as the same text', async () => {
      const largest = '9999999999999999999999999999.9999999999';
      const created = await pool(largest, '0.0000000001');
      const read = await getPool(db, created.poolId);
      expect(read?.accounting.reserveA.toString()).toBe(largest);
      expect(read?.accounting.reserveB.toString()).toBe('0.0000000001');
      expect(read?.lpSupply.toString()).toBe('1000');
    });

    it('change pool accounting only from the version that was read', async () => {
      const { poolId } = await pool();
      const before = await getPoolAccounting(db, poolId);
      expect(before?.version).toBe(0);
      const next = {
        ...(before as NonNullable<typeof before>),
        reserveA: Amount.parse('1000098.92575'),
        reserveB: Amount.parse('144985.7'),
        outgoingB: Amount.parse('14.3'),
        feesA: Amount.parse('1.07425'),
      };
      const after = await updatePoolAccounting(db, poolId, 0, next, at(1));
      expect(after).toMatchObject({
        version: 1,
        reserveA: next.reserveA,
        outgoingB: next.outgoingB,
      });
      expect(await updatePoolAccounting(db, poolId, 0, next, at(2))).toBeNull();
    });
  });

  describe('idempotency records', () => {
    const claimOf = (scope: string, token: string, atMs = 0, requestHash = 'h1') => ({
      scope,
      key: 'retry-1',
      requestHash,
      claimToken: token,
      at: at(atMs),
    });

    it('hold a key for the first claim, then replay its response for 24 h, then lapse', async () => {
      const scope = `api_key:key_${uid()}`;
      const first = claimOf(scope, 'c1');
      expect(await claimIdempotencyKey(db, first)).toMatchObject({
        claimToken: 'c1',
        requestHash: 'h1',
        response: null,
      });
      // A second claim while the first runs finds the first's.
      expect(await claimIdempotencyKey(db, claimOf(scope, 'c2', 1, 'h2'))).toMatchObject({
        claimToken: 'c1',
        response: null,
      });
      const response = { status: 201, body: { intentId: 'int_1', expectedAmount: '100' } };
      expect(await completeIdempotencyClaim(db, first, response, at(2))).toBe(true);
      expect(await claimIdempotencyKey(db, claimOf(scope, 'c3', 3))).toMatchObject({
        claimToken: 'c1',
        response,
      });
      expect((await getIdempotencyRecord(db, scope, 'retry-1', at(DAY_MS + 1)))?.response).toEqual(
        response,
      );
      expect(await getIdempotencyRecord(db, scope, 'retry-1', at(DAY_MS + 2))).toBeNull();
      expect(await getIdempotencyRecord(db, `developer:${uid()}`, 'retry-1', at(3))).toBeNull();
      expect(await purgeIdempotencyRecords(db, at(DAY_MS + 2), 10)).toBeGreaterThanOrEqual(1);
      expect(await getIdempotencyRecord(db, scope, 'retry-1', at(3))).toBeNull();
    });

    it('free a key given back at once, and never one whose claim nobody settled', async () => {
      const scope = `developer:dev-${uid()}::1220aa`;
      await claimIdempotencyKey(db, claimOf(scope, 'c1'));
      await releaseIdempotencyClaim(db, claimOf(scope, 'c1'));
      expect((await claimIdempotencyKey(db, claimOf(scope, 'c2', 1))).claimToken).toBe('c2');
      // Whether c2's request took effect is not known: its key stays its own for the retention.
      const late = claimOf(scope, 'c3', IDEMPOTENCY_CLAIM_RUNNING_MS + 1);
      expect((await claimIdempotencyKey(db, late)).claimToken).toBe('c2');
      const nextDay = claimOf(scope, 'c4', DAY_MS + 2);
      expect((await claimIdempotencyKey(db, nextDay)).claimToken).toBe('c4');
      // c2's request finishing after its key was retired stores nothing over the new claim.
      const stale = { status: 201, body: {} };
      expect(await completeIdempotencyClaim(db, claimOf(scope, 'c2'), stale, at(2))).toBe(false);
      expect((await getIdempotencyRecord(db, scope, 'retry-1', nextDay.at))?.claimToken).toBe('c4');
    });

    it('find their own claim when the answer to it was lost with its connection', async () => {
      const scope = `api_key:key_${uid()}`;
      let answersLost = 1;
      // The claim commits, then its connection dies before the answer arrives.
      const losing: Queryable = {
        query: async <T = Row>(sql: string, params?: Parameters<Queryable['query']>[1]) => {
          const rows = await db.query<T>(sql, params);
          if (sql.includes('INSERT INTO idempotency_records') && answersLost > 0) {
            answersLost -= 1;
            throw new StoreUnavailable(new Error('Connection terminated unexpectedly'));
          }
          return rows;
        },
        exec: (sql) => db.exec(sql),
      };
      const record = await claimIdempotencyKey(losing, claimOf(scope, 'mine'));
      expect(record).toMatchObject({ claimToken: 'mine', response: null });
      expect(answersLost).toBe(0);
    });

    it('give a key claimed by many at once, through two connections, to exactly one', async () => {
      const [first, second] = await backend.openEmptyPair();
      await migrate(first);
      const scope = `api_key:key_${uid()}`;
      const claims = Array.from({ length: 8 }, (_, n) =>
        claimIdempotencyKey(n % 2 === 0 ? first : second, claimOf(scope, `c${n}`)),
      );
      const holders = new Set((await Promise.all(claims)).map((record) => record.claimToken));
      expect(holders.size).toBe(1);
    });
  });

  describe('discount policies', () => {
    it('list the policies of the request’s targets valid at that moment', async () => {
      const poolId = (await pool()).poolId;
      const { key } = await developerWithKey();
      const walletParty = `bob-${uid()}::1220ee`;
      const forPool = await insertDiscountPolicy(
        db,
        { targetType: 'pool', targetId: poolId, networkChargeBps: 5000 },
        T0,
      );
      const forKey = await insertDiscountPolicy(
        db,
        { targetType: 'api_key', targetId: key.keyId, platformChargeBps: 7000, validUntil: at(10) },
        T0,
      );
      const forWallet = await insertDiscountPolicy(
        db,
        {
          targetType: 'wallet_party',
          targetId: walletParty,
          platformChargeBps: 0,
          validFrom: at(5),
        },
        T0,
      );
      const ids = async (targets: Parameters<typeof listApplicableDiscounts>[1], now: Date) =>
        (await listApplicableDiscounts(db, targets, now)).map((p) => p.id);
      expect(await ids({ poolId, apiKeyId: key.keyId, walletParty }, at(5))).toEqual([
        forPool.id,
        forKey.id,
        forWallet.id,
      ]);
      expect(await ids({ poolId, apiKeyId: key.keyId }, at(10))).toEqual([forPool.id]);
      expect(await ids({ poolId, walletParty }, at(4))).toEqual([forPool.id]);
      await expect(
        insertDiscountPolicy(
          db,
          { targetType: 'pool', targetId: poolId, networkChargeBps: 10001 },
          T0,
        ),
      ).rejects.toThrow();
    });
  });

  describe('reconciliation runs', () => {
    it('answer the latest run of each pool asked for, the later id first at the same moment', async () => {
      const [one, two, none] = [await pool(), await pool(), await pool()];
      const run = (poolId: string, ok: boolean, ms: number) =>
        insertReconciliationRun(db, { poolId, ok, details: { ms }, at: at(ms) });
      await run(one.poolId, true, 1_000);
      await run(one.poolId, false, 3_000);
      await run(one.poolId, true, 2_000);
      await run(two.poolId, true, 5_000);
      const sameMoment = await run(two.poolId, false, 5_000);
      const latest = await latestReconciliationRunByPool(db, [one.poolId, two.poolId, none.poolId]);
      expect([...latest.keys()].sort()).toEqual([one.poolId, two.poolId].sort());
      expect(latest.get(one.poolId)).toMatchObject({ ok: false, details: { ms: 3_000 } });
      expect(latest.get(two.poolId)?.id).toBe(sameMoment.id);
    });
  });

  describe('completed swaps with incomplete accounting', () => {
    async function completedSwap(
      f: Awaited<ReturnType<typeof fixture>>,
      facts: { feeEvent: boolean; payoutUpdateId?: string; batch?: boolean },
    ) {
      const intent = await insertIntent(db, f.intent());
      if (facts.feeEvent) await feeEventOf(intent);
      const actualOutput = Amount.parse('14.3');
      if (facts.batch) {
        const path = { intentId: intent.intentId, from: 'pending' as const, actualOutput };
        const payout =
          facts.payoutUpdateId === undefined ? {} : { payoutUpdateId: facts.payoutUpdateId };
        await moveIntentsAlong(
          db,
          [{ ...path, ...payout, through: [...SETTLING_STATES, 'completed'] }],
          T0,
        );
      } else {
        await moveIntentsAlong(
          db,
          [{ intentId: intent.intentId, from: 'pending', through: SETTLING_STATES }],
          T0,
        );
        await transitionIntent(db, {
          intentId: intent.intentId,
          from: 'sending_output',
          to: 'completed',
          at: T0,
          actualOutput,
          ...(facts.payoutUpdateId !== undefined && { payoutUpdateId: facts.payoutUpdateId }),
        });
      }
      return intent;
    }

    function feeEventOf(intent: { intentId: string; poolId: string; apiKeyId: string }) {
      return insertFeeEvent(db, testFeeEvent(intent, T0));
    }

    it('count a swap completed without its fee event or payout, by either way of completing', async () => {
      const f = await fixture();
      await completedSwap(f, { feeEvent: true, payoutUpdateId: 'upd-1' });
      await completedSwap(f, { feeEvent: true, payoutUpdateId: 'upd-2', batch: true });
      expect(await countIncompleteCompletedSwaps(db, f.poolId)).toBe(0);
      await completedSwap(f, { feeEvent: false, payoutUpdateId: 'upd-3' });
      await completedSwap(f, { feeEvent: false, payoutUpdateId: 'upd-4', batch: true });
      await completedSwap(f, { feeEvent: true, batch: true });
      expect(await countIncompleteCompletedSwaps(db, f.poolId)).toBe(3);
      expect(await countIncompleteCompletedSwapsByPool(db, [f.poolId])).toEqual(
        new Map([[f.poolId, 3]]),
      );
    });

    it('stop counting a swap once the operator writes its missing fee event', async () => {
      const f = await fixture();
      const missing = await completedSwap(f, { feeEvent: false, payoutUpdateId: 'upd-5' });
      expect(await countIncompleteCompletedSwaps(db, f.poolId)).toBe(1);
      await feeEventOf(missing);
      expect(await countIncompleteCompletedSwaps(db, f.poolId)).toBe(0);
    });

    it('are counted from an index of their own, not from every completed swap', async () => {
      const f = await fixture();
      await completedSwap(f, { feeEvent: true, payoutUpdateId: 'upd-6' });
      // Whatever the planner would choose on a table this small: the index must be usable.
      const plan = await db.transaction(async (tx) => {
        await tx.query('SET LOCAL enable_seqscan = off');
        const rows = await tx.query(
          `EXPLAIN SELECT count(*) FROM intents i WHERE i.pool_id = 'p' AND i.status = 'completed'
             AND (i.payout_update_id IS NULL OR i.actual_output IS NULL
                  OR i.fee_event_at_completion IS NOT TRUE)`,
        );
        return rows.map((row) => String(row['QUERY PLAN'])).join('\n');
      });
      expect(plan).toContain('intents_incomplete_completed');
    });
  });

  describe('settlement records', () => {
    it('keep ledger offsets, never moving them backwards', async () => {
      const stream = `ingest-${uid()}`;
      expect(await getLedgerOffset(db, stream)).toBeNull();
      expect(await setLedgerOffset(db, stream, 5, T0)).toBe(true);
      expect(await setLedgerOffset(db, stream, 3, T0)).toBe(false);
      expect(await getLedgerOffset(db, stream)).toBe(5);
      expect(await setLedgerOffset(db, stream, 2 ** 40, T0)).toBe(true);
      expect(await getLedgerOffset(db, stream)).toBe(2 ** 40);
    });

    it('advance a checkpoint past a batch, answering where it stood, never moving it back', async () => {
      const stream = `ingest-${uid()}`;
      expect(await db.transaction((tx) => advanceCheckpoint(tx, stream, 7, T0))).toBeNull();
      expect(await getLedgerOffset(db, stream)).toBeNull();
      await setLedgerOffset(db, stream, 5, T0);
      expect(await db.transaction((tx) => advanceCheckpoint(tx, stream, 9, T0))).toBe(5);
      expect(await db.transaction((tx) => advanceCheckpoint(tx, stream, 7, T0))).toBe(9);
      expect(await getLedgerOffset(db, stream)).toBe(9);
      await expect(
        db.transaction(async (tx) => {
          await advanceCheckpoint(tx, stream, 12, T0);
          throw new Error('the batch failed');
        }),
      ).rejects.toThrow('the batch failed');
      expect(await getLedgerOffset(db, stream)).toBe(9);
    });

    it('record a deposit once however often the ledger delivers it', async () => {
      const { poolId, swapParty } = await pool();
      const deposit = {
        updateId: `upd-${uid()}`,
        eventIndex: 0,
        ledgerOffset: 42,
        poolId,
        sender: 'alice::1220ee',
        receiver: swapParty,
        instrument: AMULET,
        amount: Amount.parse('100.5'),
        reference: null,
        offerId: null,
        intentId: null,
        status: 'unmatched' as const,
        unmatchedReason: 'no_intent',
        receivedAt: T0,
      };
      const first = await recordDeposit(db, deposit);
      const again = await recordDeposit(db, { ...deposit, amount: Amount.parse('1') });
      expect(first.inserted).toBe(true);
      expect(again).toEqual({ inserted: false, deposit: first.deposit });
      expect(first.deposit.amount).toEqual(Amount.parse('100.5'));
    });

    it('record ledger commands before submission and settle each once', async () => {
      const { intent } = await fixture();
      const { intentId } = await insertIntent(db, intent());
      const command = {
        commandId: `${intentId}:payout:0`,
        intentId,
        depositId: null,
        leg: 'payout' as const,
        attempt: 0,
        payload: { amount: '14.3' },
        createdAt: T0,
      };
      const recorded = await recordLedgerCommand(db, command);
      expect(await recordLedgerCommand(db, { ...command, payload: {} })).toEqual(recorded);
      const unconfirmed = await listUnconfirmedCommands(db, 1000);
      expect(unconfirmed.map((c) => c.commandId)).toContain(command.commandId);
      const done = { commandId: command.commandId, status: 'committed' as const, now: at(1) };
      expect(await markLedgerCommand(db, { ...done, updateId: 'upd-9' })).toMatchObject({
        status: 'committed',
        updateId: 'upd-9',
      });
      expect(await markLedgerCommand(db, { ...done, status: 'failed' })).toBeNull();
    });

    it('marks a batch submitted without waiting for a command an ingest holds', async (context) => {
      // One connection: no other transaction can hold a row while this one marks.
      if (backend.name === 'PGlite') return context.skip();
      const { intent } = await fixture();
      const { intentId } = await insertIntent(db, intent());
      const command = (leg: 'payout' | 'refund') => ({
        commandId: `${intentId}:${leg}:0`,
        intentId,
        depositId: null,
        leg,
        attempt: 0,
        payload: {},
        createdAt: T0,
      });
      const [held, free] = [command('payout'), command('refund')];
      await recordLedgerCommand(db, held);
      await recordLedgerCommand(db, free);
      await db.transaction(async (tx) => {
        // As an ingest confirming `held` does; waiting for it here would never end.
        await tx.query('SELECT 1 FROM ledger_commands WHERE command_id = $1 FOR UPDATE', [
          held.commandId,
        ]);
        await markAllSubmitted(db, [held.commandId, free.commandId], at(1));
      });
      expect((await getCommand(db, free.commandId))?.status).toBe('submitted');
      expect((await getCommand(db, held.commandId))?.status).toBe('recorded');
    });
  });

  // Last: it closes the suite's store and continues on the reopened one.
  it('keeps everything across close and reopen', async () => {
    const party = `dev-${uid()}::1220aa`;
    await upsertDeveloper(db, party, T0);
    await db.close();
    db = await backend.open();
    expect(await migrate(db)).toEqual([]);
    expect(await getDeveloper(db, party)).toEqual({ partyId: party, createdAt: T0 });
  });
});
