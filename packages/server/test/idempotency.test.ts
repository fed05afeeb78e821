/**
 * The decisions of idempotent POSTs (docs/spec/protocol.md#idempotency): whose a key is, when two
 * requests are the same, and what a request finds under its key.
 */
import { IDEMPOTENCY_CLAIM_RUNNING_MS, type IdempotencyRecord } from '@poolparty/store';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  apiKeyScope,
  canonicalJson,
  developerScope,
  keepsResponse,
  requestHash,
  routeRequestOf,
  verdictOf,
} from '../src/http/idempotency.js';

const ALICE = `alice::1220${'c'.repeat(64)}`;
const BOB = `bob::1220${'f'.repeat(64)}`;
const NOW = new Date('2026-11-22T13:40:00.000Z');

describe('request hashing', () => {
  const body = { fromToken: 'Amulet', toToken: 'USDCx', amount: '1', slippageTolerance: 0.05 };

  it('hashes the same request alike whatever its key order', () => {
    fc.assert(
      fc.property(fc.shuffledSubarray(Object.entries(body), { minLength: 4 }), (entries) => {
        expect(requestHash(Object.fromEntries(entries), ALICE)).toBe(requestHash(body, ALICE));
      }),
    );
    expect(canonicalJson({ b: [1, { d: 1, c: 2 }], a: null, e: undefined })).toBe(
      '{"a":null,"b":[1,{"c":2,"d":1}]}',
    );
  });

  it('hashes another body or another wallet party differently', () => {
    expect(requestHash({ ...body, amount: '2' }, ALICE)).not.toBe(requestHash(body, ALICE));
    expect(requestHash(body, BOB)).not.toBe(requestHash(body, ALICE));
  });

  it('hashes a swap creation as the records stored before every POST took keys', () => {
    const swap = {
      fromToken: 'Amulet',
      toToken: 'USDCx',
      amount: '70',
      poolId: 'amulet-usdcx',
      slippageTolerance: 0.05,
    };
    expect(requestHash(swap, ALICE)).toBe(
      '992fbd0fd54d2d0eeae32327f4eba88e304b8766757e1e28949f8d09336c5290',
    );
  });

  it('tells routes apart: the same body at another route or path is another request', () => {
    const cancel = (id: string) =>
      routeRequestOf({
        method: 'POST',
        routeUrl: '/v1/swaps/:intentId/cancel',
        params: { intentId: id },
        body: undefined,
      });
    const other = routeRequestOf({
      method: 'POST',
      routeUrl: '/v1/liquidity/intents/:liquidityIntentId/cancel',
      params: { intentId: 'int_1' },
      body: undefined,
    });
    expect(requestHash(cancel('int_1'), ALICE)).toBe(requestHash(cancel('int_1'), ALICE));
    expect(requestHash(cancel('int_2'), ALICE)).not.toBe(requestHash(cancel('int_1'), ALICE));
    expect(requestHash(other, ALICE)).not.toBe(requestHash(cancel('int_1'), ALICE));
  });

  it('keeps the keys of an API key and of a developer apart', () => {
    expect(apiKeyScope('key_1')).not.toBe(developerScope('key_1'));
  });
});

describe('what a request finds under its key', () => {
  const mine = { claimToken: 'mine', requestHash: 'h1', at: NOW };
  const record = (overrides: Partial<IdempotencyRecord>): IdempotencyRecord => ({
    scope: apiKeyScope('key_1'),
    key: 'k',
    requestHash: 'h1',
    response: null,
    claimToken: 'mine',
    createdAt: NOW,
    ...overrides,
  });
  const stored = { status: 201, body: { withdrawalId: 'wd_1' } };

  it('runs on its own claim', () => {
    expect(verdictOf(record({}), mine)).toEqual({ kind: 'run' });
  });

  it('replays the response stored for the same request', () => {
    expect(verdictOf(record({ claimToken: 'first', response: stored }), mine)).toEqual({
      kind: 'replay',
      response: stored,
    });
    // Stored before claims existed.
    expect(verdictOf(record({ claimToken: null, response: stored }), mine).kind).toBe('replay');
  });

  it('is refused 409 while the same request runs under another claim', () => {
    expect(verdictOf(record({ claimToken: 'first' }), mine)).toMatchObject({
      kind: 'refuse',
      code: 'idempotency_key_in_use',
      detail: expect.stringMatching(/still running/),
    });
  });

  it('is never run again after a claim nobody settled: refused 409, saying it was interrupted', () => {
    const later = { ...mine, at: new Date(NOW.getTime() + IDEMPOTENCY_CLAIM_RUNNING_MS) };
    expect(verdictOf(record({ claimToken: 'dead' }), later)).toMatchObject({
      kind: 'refuse',
      code: 'idempotency_key_in_use',
      detail: expect.stringMatching(/interrupted .* look the result up/),
    });
  });

  it('is refused 422 for another request, running or finished', () => {
    for (const response of [null, stored]) {
      const other = record({ claimToken: 'first', requestHash: 'h2', response });
      expect(verdictOf(other, mine)).toMatchObject({
        kind: 'refuse',
        code: 'idempotency_key_reused',
      });
    }
  });

  it('keeps success responses only', () => {
    expect([200, 201, 299].map(keepsResponse)).toEqual([true, true, true]);
    expect([199, 304, 409, 422, 500].map(keepsResponse)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
