/**
 * Migration 0015: a swap creation's response stored under an API key before keys had scopes is,
 * after it, the response of that API key's scope, still replayed to a retry with its key.
 */
import { describe, expect, it } from 'vitest';
import { claimIdempotencyKey, getIdempotencyRecord, migrate } from '../src/index.js';
import { usePgliteStores } from '../testing/index.js';

const T0 = new Date('2026-03-01T12:00:00.000Z');
const openStore = usePgliteStores();

describe('migration 0015', () => {
  it('keeps a stored swap response under the scope of its API key', async () => {
    const db = await openStore({ before: '0015' });
    await db.query(
      `INSERT INTO idempotency_records (api_key_id, key, request_hash, response_status,
         response_body, created_at)
       VALUES ('key_1', 'order-7', 'h1', 201, '{"intentId": "int_1"}', $1)`,
      [T0],
    );
    expect(await migrate(db)).toContain('0015_idempotency_scopes.sql');

    const response = { status: 201, body: { intentId: 'int_1' } };
    expect(await getIdempotencyRecord(db, 'api_key:key_1', 'order-7', T0)).toMatchObject({
      requestHash: 'h1',
      response,
      claimToken: null,
    });
    const retry = { scope: 'api_key:key_1', key: 'order-7', requestHash: 'h1', at: T0 };
    expect(await claimIdempotencyKey(db, { ...retry, claimToken: 'c1' })).toMatchObject({
      response,
      claimToken: null,
    });
  });
});
