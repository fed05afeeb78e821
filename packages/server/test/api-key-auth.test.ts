import { API_KEY_CHANGES_CHANNEL, revokeApiKey, rotateApiKeyWithinCap } from '@poolparty/store';
import { beforeAll, describe, expect, it } from 'vitest';
import { displayPrefix, generateApiKey, hashApiKey } from '../src/auth/api-keys.js';
import type { DevnetParty } from '../src/devnet-bootstrap.js';
import { within } from './support/raw-http.js';
import {
  expectProblem,
  portalLogin,
  request,
  seededUser,
  sharedTestService,
} from './support/service.js';

interface CreatedKey {
  keyId: string;
  key: string;
  revokedAt: string | null;
}

const GRACE_MS = 24 * 60 * 60 * 1000;
/** Far longer than a notification takes within one process; short of the look-up cache's TTL. */
const ANNOUNCEMENT_WAIT_MS = 5_000;

describe('API key authentication on /v1', () => {
  const t = sharedTestService();
  let alice: DevnetParty;
  let session: string;

  // The wallet challenge is the probe: any /v1 route sits behind the same API-key check.
  const probe = (apiKey: string | null) =>
    request(t.url, 'POST', '/v1/wallet-auth/challenge', {
      apiKey,
      body: { partyId: alice.partyId },
    });
  const portal = <T>(method: string, path: string, body?: unknown) =>
    request<T>(t.url, method, `/api/sdk${path}`, {
      headers: { authorization: `Bearer ${session}` },
      ...(body === undefined ? {} : { body }),
    });
  const createKey = async (body: Record<string, unknown> = {}) => {
    const created = await portal<CreatedKey>('POST', '/keys', body);
    expect(created.status).toBe(201);
    return created.body;
  };

  beforeAll(async () => {
    alice = seededUser(t, 0);
    const { login } = await portalLogin(t.url, alice);
    session = login.body.token;
  });

  it('accepts the seeded devnet key', async () => {
    expect((await probe(t.apiKey)).status).toBe(200);
  });

  it('refuses a request without a key', async () => {
    expectProblem(await probe(null), 401, 'missing_api_key');
  });

  it('refuses malformed and unknown keys', async () => {
    expectProblem(await probe('not-a-key'), 401, 'invalid_api_key');
    expectProblem(await probe(`pp_test_${'x'.repeat(43)}`), 401, 'invalid_api_key');
  });

  it('refuses a mainnet key on devnet', async () => {
    const answer = await probe(`pp_live_${'x'.repeat(43)}`);
    expectProblem(answer, 401, 'wrong_environment');
  });

  it('refuses a revoked key at once', async () => {
    const created = await createKey({ name: 'short-lived' });
    expect((await probe(created.key)).status).toBe(200);
    const revoked = await portal<CreatedKey>('DELETE', `/keys/${created.keyId}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).not.toBeNull();
    expectProblem(await probe(created.key), 401, 'api_key_revoked');
    // Revoking again changes nothing and is no error.
    const again = await portal<CreatedKey>('DELETE', `/keys/${created.keyId}`);
    expect(again.body.revokedAt).toBe(revoked.body.revokedAt);
  });

  it('refuses to rotate a revoked key', async () => {
    const created = await createKey();
    await portal('DELETE', `/keys/${created.keyId}`);
    expectProblem(await portal('POST', '/keys', { rotate: created.keyId }), 404, 'not_found');
  });

  /**
   * Resolves once the store announced `keyId` as stopped. The service's own listener was
   * registered first, so by then its key cache has heard the announcement too.
   */
  const announced = async (keyId: string) => {
    let heard: () => void = () => {};
    const hearing = new Promise<void>((resolve) => {
      heard = resolve;
    });
    const stop = await t.service.ctx.db.listen(API_KEY_CHANGES_CHANNEL, (payload) => {
      if (payload === keyId) heard();
    });
    return within(hearing, ANNOUNCEMENT_WAIT_MS).finally(stop);
  };

  // Changed in the store directly, as another process would: this process's cache is not told.
  it('refuses at once a key revoked by another process, not after its cached look-up expires', async () => {
    const created = await createKey({ name: 'revoked elsewhere' });
    expect((await probe(created.key)).status).toBe(200);
    const hearing = announced(created.keyId);
    const now = t.service.ctx.clock.now();
    await revokeApiKey(t.service.ctx.db, {
      keyId: created.keyId,
      developerParty: alice.partyId,
      now,
    });
    expect(await hearing).not.toBe('timed out');
    expectProblem(await probe(created.key), 401, 'api_key_revoked');
  });

  it("refuses at once a key whose grace another process's rotation at the cap ended", async () => {
    const created = await createKey({ name: 'rotated elsewhere' });
    expect((await probe(created.key)).status).toBe(200);
    const successor = generateApiKey('devnet');
    const now = t.service.ctx.clock.now();
    const hearing = announced(created.keyId);
    // A cap this developer is already at: the rotated key's own grace is the one that ends.
    const rotated = await rotateApiKeyWithinCap(
      t.service.ctx.db,
      {
        oldKeyId: created.keyId,
        newKey: {
          keyId: `key_elsewhere_${created.keyId}`,
          developerParty: alice.partyId,
          name: 'successor',
          keyHash: hashApiKey(successor),
          prefix: displayPrefix(successor),
          environment: 'devnet',
          createdAt: now,
        },
        now,
      },
      1,
    );
    expect(rotated).not.toBeNull();
    expect(await hearing).not.toBe('timed out');
    expectProblem(await probe(created.key), 401, 'api_key_revoked');
    expect((await probe(successor)).status).toBe(200);
  });

  // Last: it moves the clock a day ahead, past the session too.
  it('keeps a rotated key working for the 24-hour grace period, then refuses it', async () => {
    const old = await createKey({ name: 'rotating' });
    expect((await probe(old.key)).status).toBe(200);
    const rotated = await portal<CreatedKey & { name: string }>('POST', '/keys', {
      rotate: old.keyId,
    });
    expect(rotated.status).toBe(201);
    expect(rotated.body.name).toBe('rotating');
    expect(rotated.body.key).not.toBe(old.key);
    expect((await probe(old.key)).status).toBe(200);
    expect((await probe(rotated.body.key)).status).toBe(200);
    const listed = await portal<{ keys: CreatedKey[] }>('GET', '/keys');
    const oldEntry = listed.body.keys.find((k) => k.keyId === old.keyId);
    const endsInMs = Date.parse(oldEntry?.revokedAt ?? '') - t.service.ctx.clock.now().getTime();
    expect(endsInMs).toBeGreaterThan(GRACE_MS - 60_000);
    expect(endsInMs).toBeLessThanOrEqual(GRACE_MS);
    expectProblem(await portal('POST', '/keys', { rotate: old.keyId }), 404, 'not_found');

    const advanced = await request(t.url, 'POST', '/devnet/clock', {
      body: { advanceMs: GRACE_MS + 1000 },
    });
    expect(advanced.status).toBe(200);
    expectProblem(await probe(old.key), 401, 'api_key_revoked');
    expect((await probe(rotated.body.key)).status).toBe(200);
  });
});
