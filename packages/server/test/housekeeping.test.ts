/**
 * Housekeeping: expired nonces, sessions, wallet-token revocations, idempotency records past
 * retention and webhook deliveries ended longer than their retention ago are removed in bounded batches; what is still live stays; a run stops at its batch
 * budget and the next run goes on from there; a failing run is reported and the job goes on.
 */
import { createHash } from 'node:crypto';
import { openTestDatabase, waitFor } from '@poolparty/settlement/testing';
import {
  claimIdempotencyKey,
  claimWebhookDeliveries,
  completeIdempotencyClaim,
  type Database,
  findNonce,
  findValidSession,
  getIdempotencyRecord,
  getWebhookDelivery,
  insertNonce,
  insertSession,
  insertWebhookDeliveries,
  insertWebhookEndpointWithinCap,
  isWalletTokenRevoked,
  migrate,
  recordWebhookAttempt,
  revokeWalletToken,
  upsertDeveloper,
  WEBHOOK_DELIVERY_RETENTION_MS,
} from '@poolparty/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Housekeeping, PURGES, purgeExpired } from '../src/housekeeping.js';
import { endpointFor } from './support/webhook-receiver.js';

const T0 = new Date('2026-11-01T00:00:00Z');
const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
const at = (ms: number) => new Date(T0.getTime() + ms);
const DEVELOPER = 'developer::1220aa';
const IDEMPOTENCY_SCOPE = 'api_key:key_housekeeping';
const ENDPOINT = 'we_housekeeping_0001';
/** Rows of each kind made expired, and made live, per test. */
const EXPIRED = 7;
const LIVE = 3;

/** A session's token hash: 64 hex digits, as the table requires. */
const sessionHash = (id: string) => createHash('sha256').update(id).digest('hex');

let made = 0;
const next = () => {
  made += 1;
  return made;
};

/** `count` rows of every purged kind, each expiring (or leaving retention) at `expiry`. */
async function rows(db: Database, count: number, expiry: Date): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const id = `row-${next()}`;
    const created = new Date(expiry.getTime() - DAY_MS);
    await insertNonce(db, {
      nonce: id,
      partyId: 'alice::1220bb',
      purpose: 'wallet_auth',
      message: 'sign me',
      createdAt: created,
      expiresAt: expiry,
    });
    await insertSession(db, {
      tokenHash: sessionHash(id),
      developerParty: DEVELOPER,
      createdAt: created,
      expiresAt: expiry,
    });
    await revokeWalletToken(db, { jti: id, revokedAt: created, expiresAt: expiry });
    const claim = {
      scope: IDEMPOTENCY_SCOPE,
      key: id,
      requestHash: 'h',
      claimToken: id,
      at: created,
    };
    await claimIdempotencyKey(db, claim);
    // Retention is a day from when the response was stored.
    await completeIdempotencyClaim(db, claim, { status: 201, body: { id } }, created);
    await endedDelivery(db, id, new Date(expiry.getTime() - WEBHOOK_DELIVERY_RETENTION_MS));
    ids.push(id);
  }
  return ids;
}

/** A webhook delivery of `id` that ended (was delivered) at `ended`. */
async function endedDelivery(db: Database, id: string, ended: Date): Promise<void> {
  const [delivery] = await insertWebhookDeliveries(db, [
    {
      deliveryId: `wd_${id}`,
      endpointId: ENDPOINT,
      eventId: `evt_${id}`,
      eventType: 'webhook.test',
      subjectId: id,
      body: '{}',
      createdAt: ended,
    },
  ]);
  const lease = { owner: 'housekeeping', now: ended, leaseUntil: ended, limit: 1 };
  await claimWebhookDeliveries(db, { ...lease, perEndpoint: 1, busy: {}, scanMax: 10 });
  const attempt = {
    at: ended.toISOString(),
    statusCode: 200,
    latencyMs: 1,
    error: null,
    responseExcerpt: null,
  };
  await recordWebhookAttempt(db, {
    deliveryId: delivery?.deliveryId ?? '',
    owner: 'housekeeping',
    attempt,
    state: 'delivered',
    nextAttemptAt: null,
    now: ended,
  });
}

/** Whether each kind of row made for `id` is still stored. */
async function present(db: Database, id: string): Promise<Record<string, boolean>> {
  return {
    nonces: (await findNonce(db, id)) !== null,
    sessions: (await findValidSession(db, sessionHash(id), at(-DAY_MS))) !== null,
    wallet_token_revocations: await isWalletTokenRevoked(db, id),
    idempotency_records:
      (await getIdempotencyRecord(db, IDEMPOTENCY_SCOPE, id, at(-DAY_MS))) !== null,
    webhook_deliveries: (await getWebhookDelivery(db, ENDPOINT, `wd_${id}`)) !== null,
  };
}

describe('housekeeping', () => {
  let db: Database;

  beforeAll(async () => {
    db = await openTestDatabase();
    await migrate(db);
    await upsertDeveloper(db, DEVELOPER, T0);
    const endpoint = endpointFor({
      endpointId: ENDPOINT,
      developerParty: DEVELOPER,
      url: 'http://127.0.0.1:9/hook',
      secret: 'whsec_housekeeping',
      createdAt: T0,
    });
    await insertWebhookEndpointWithinCap(db, endpoint, 1);
  });

  afterAll(async () => {
    await db.close();
  });

  it('removes every expired row and keeps every live one', async () => {
    const expired = await rows(db, EXPIRED, at(MINUTE_MS));
    const live = await rows(db, LIVE, at(10 * MINUTE_MS));
    const removed = await purgeExpired(db, at(5 * MINUTE_MS), { batchRows: 2, batchesPerRun: 10 });
    expect(removed).toEqual(
      Object.fromEntries(Object.keys(PURGES).map((table) => [table, EXPIRED])),
    );
    for (const id of expired) {
      expect(Object.values(await present(db, id))).toEqual([false, false, false, false, false]);
    }
    for (const id of live) {
      expect(Object.values(await present(db, id))).toEqual([true, true, true, true, true]);
    }
    // The live ones go once they expire too.
    await purgeExpired(db, at(11 * MINUTE_MS));
    for (const id of live) {
      expect(Object.values(await present(db, id))).toEqual([false, false, false, false, false]);
    }
  });

  it('stops at its batch budget, and the next run goes on from there', async () => {
    await rows(db, EXPIRED, at(20 * MINUTE_MS));
    const limits = { batchRows: 2, batchesPerRun: 2 };
    const first = await purgeExpired(db, at(30 * MINUTE_MS), limits);
    expect(Object.values(first)).toEqual([4, 4, 4, 4, 4]);
    const second = await purgeExpired(db, at(30 * MINUTE_MS), limits);
    expect(Object.values(second)).toEqual([3, 3, 3, 3, 3]);
    const third = await purgeExpired(db, at(30 * MINUTE_MS), limits);
    expect(Object.values(third)).toEqual([0, 0, 0, 0, 0]);
  });

  it('runs on its own, reports a failed run and goes on', async () => {
    const ids = await rows(db, 2, at(40 * MINUTE_MS));
    let now = at(0);
    const errors: unknown[] = [];
    let failNext = true;
    const job = new Housekeeping({
      db: {
        ...db,
        kind: db.kind,
        query: (sql, params) => {
          if (failNext) {
            failNext = false;
            return Promise.reject(new Error('store hiccup'));
          }
          return db.query(sql, params);
        },
        exec: (script) => db.exec(script),
        transaction: (fn) => db.transaction(fn),
        listen: (...args) => db.listen(...args),
        close: async () => {},
      },
      clock: { now: () => now },
      onError: (error) => errors.push(error),
    });
    job.start(20);
    try {
      await waitFor(async () => errors.length === 1, 'the failed run to be reported');
      now = at(50 * MINUTE_MS);
      await waitFor(async () => !(await present(db, ids[1] ?? '')).nonces, 'a later run');
    } finally {
      await job.stop();
    }
    expect(Object.values(await present(db, ids[0] ?? ''))).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
