import type { ApiKeyCreated, ApiKeyListEntry } from '@poolparty/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../src/auth/api-keys.js';
import type { DevnetParty } from '../src/devnet-bootstrap.js';
import { WORKING_API_KEYS_MAX } from '../src/http/routes/portal.js';
import {
  expectProblem,
  type JsonResponse,
  portalLogin,
  request,
  seededUser,
  sharedTestService,
  signChallenge,
} from './support/service.js';

interface Session {
  token: string;
  expiresAt: string;
  partyId: string;
}

const HOUR_MS = 60 * 60 * 1000;
/** Rotations chained on one key at the cap: each rotates the key the one before created. */
const CHAINED_ROTATIONS = 40;

describe('developer portal', () => {
  const t = sharedTestService();
  let alice: DevnetParty;
  let bob: DevnetParty;
  let aliceLogin: JsonResponse<Session>;
  let aliceKey: ApiKeyCreated;

  const signIn = async (party: DevnetParty, signer: DevnetParty = party) => {
    const { started, login } = await portalLogin<Session>(t.url, party, signer);
    expect(started.status).toBe(200);
    expect(started.body.message).toContain('Purpose: developer portal login');
    return login;
  };
  const asDeveloper = (session: Session) => ({ authorization: `Bearer ${session.token}` });
  /** A party of its own, with a generated key, so it starts without keys or sessions. */
  const partyOfOwn = async (hint: string): Promise<DevnetParty> => {
    const created = await request<{ partyId: string; publicKey: string; privateKey: string }>(
      t.url,
      'POST',
      '/devnet/parties',
      { body: { partyHint: hint } },
    );
    expect(created.status).toBe(201);
    const hex = (base64: string) => Buffer.from(base64, 'base64').toString('hex');
    return {
      partyId: created.body.partyId,
      publicKey: hex(created.body.publicKey),
      privateKey: hex(created.body.privateKey),
    };
  };
  const probe = (apiKey: string) =>
    request(t.url, 'POST', '/v1/wallet-auth/challenge', {
      apiKey,
      body: { partyId: alice.partyId },
    });

  beforeAll(async () => {
    alice = seededUser(t, 0);
    bob = seededUser(t, 1);
    aliceLogin = await signIn(alice);
  });

  it('signs a developer in with a wallet and returns a 12-hour session', async () => {
    expect(aliceLogin.status).toBe(200);
    const { token, expiresAt, partyId } = aliceLogin.body;
    expect(partyId).toBe(alice.partyId);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    const remainingMs = Date.parse(expiresAt) - t.service.ctx.clock.now().getTime();
    expect(remainingMs).toBeGreaterThan(12 * HOUR_MS - 60_000);
    expect(remainingMs).toBeLessThanOrEqual(12 * HOUR_MS);
  });

  it('sets the session as an HttpOnly, SameSite=Strict cookie scoped to /api/sdk', () => {
    const cookie = aliceLogin.headers.get('set-cookie') ?? '';
    const [pair, ...attributes] = cookie.split(';').map((part) => part.trim());
    expect(pair).toBe(`pp_session=${aliceLogin.body.token}`);
    expect(attributes).toEqual(
      expect.arrayContaining(['HttpOnly', 'SameSite=Strict', 'Path=/api/sdk']),
    );
    // Plain HTTP here: a Secure cookie would never be sent back.
    expect(attributes).not.toContain('Secure');
  });

  it('refuses a login whose signature is not by the party', async () => {
    expectProblem(await signIn(alice, bob), 401, 'invalid_signature');
  });

  it('refuses a replayed login answer as a used nonce', async () => {
    const { started, login } = await portalLogin<Session>(t.url, bob);
    expect(login.status).toBe(200);
    const replayed = await request(t.url, 'POST', '/api/sdk/wallet-login', {
      body: {
        partyId: bob.partyId,
        nonce: started.body.nonce,
        ...signChallenge(started.body.message, bob),
      },
    });
    expectProblem(replayed, 401, 'invalid_nonce');
    expect(replayed.body.reason).toBe('nonce_used');
  });

  it('refuses a login body that is neither step', async () => {
    const answer = await request(t.url, 'POST', '/api/sdk/wallet-login', {
      body: { partyId: alice.partyId, nonce: 'abc' },
    });
    expectProblem(answer, 400, 'validation_error');
  });

  it('creates a key that authenticates /v1 requests', async () => {
    const created = await request<ApiKeyCreated>(t.url, 'POST', '/api/sdk/keys', {
      headers: asDeveloper(aliceLogin.body),
      body: { name: 'ci' },
    });
    expect(created.status).toBe(201);
    aliceKey = created.body;
    expect(aliceKey.key).toMatch(/^pp_test_[A-Za-z0-9_-]{43}$/);
    expect(aliceKey).toMatchObject({
      name: 'ci',
      prefix: aliceKey.key.slice(0, 12),
      revokedAt: null,
      requestCount: 0,
    });
    expect((await probe(aliceKey.key)).status).toBe(200);
  });

  it('creates an unnamed key from a bare POST', async () => {
    const created = await request<ApiKeyCreated>(t.url, 'POST', '/api/sdk/keys', {
      headers: asDeveloper(aliceLogin.body),
    });
    expect(created.status).toBe(201);
    expect(created.body.name).toBeNull();
  });

  it('lists keys by prefix and usage, never the key or its hash (cookie session)', async () => {
    const listed = await request<{ keys: ApiKeyListEntry[] }>(t.url, 'GET', '/api/sdk/keys', {
      headers: { cookie: `pp_session=${aliceLogin.body.token}` },
    });
    expect(listed.status).toBe(200);
    expect(listed.body.keys).toHaveLength(2);
    const entry = listed.body.keys.find((k) => k.keyId === aliceKey.keyId);
    expect(entry).toMatchObject({ name: 'ci', prefix: aliceKey.prefix, revokedAt: null });
    expect(entry?.prefix).toHaveLength(12);
    expect(entry?.requestCount).toBe(1);
    expect(entry?.lastUsedAt).not.toBeNull();
    const text = JSON.stringify(listed.body);
    expect(text).not.toContain(aliceKey.key);
    expect(text).not.toContain(hashApiKey(aliceKey.key));
    expect(text).not.toContain('"key"');
  });

  it('says who is signed in, and answers "signed out" with 200 rather than an error', async () => {
    const signedOut = await request(t.url, 'GET', '/api/sdk/session');
    expect(signedOut.status).toBe(200);
    expect(signedOut.body).toEqual({ signedIn: false, partyId: null });
    expect(signedOut.headers.get('cache-control')).toBe('no-store');
    const forged = await request(t.url, 'GET', '/api/sdk/session', {
      headers: { cookie: `pp_session=${'A'.repeat(43)}` },
    });
    expect(forged.body).toEqual({ signedIn: false, partyId: null });
    const signedIn = await request(t.url, 'GET', '/api/sdk/session', {
      headers: { cookie: `pp_session=${aliceLogin.body.token}` },
    });
    expect(signedIn.body).toEqual({ signedIn: true, partyId: alice.partyId });
  });

  it('answers 401 without a session or with an unknown one', async () => {
    expectProblem(await request(t.url, 'GET', '/api/sdk/keys'), 401, 'missing_session');
    const forged = 'A'.repeat(43);
    expectProblem(
      await request(t.url, 'GET', '/api/sdk/keys', {
        headers: { authorization: `Bearer ${forged}` },
      }),
      401,
      'invalid_session',
    );
    expectProblem(
      await request(t.url, 'POST', '/api/sdk/keys', {
        headers: { cookie: `pp_session=${forged}`, origin: t.url },
        body: {},
      }),
      401,
      'invalid_session',
    );
  });

  describe('cookie-authenticated writes and the Origin of the page', () => {
    const EVIL = 'https://evil.example';
    const withCookie = (extra: Record<string, string> = {}) => ({
      cookie: `pp_session=${aliceLogin.body.token}`,
      ...extra,
    });
    const keyCount = async () =>
      (
        await request<{ keys: ApiKeyListEntry[] }>(t.url, 'GET', '/api/sdk/keys', {
          headers: asDeveloper(aliceLogin.body),
        })
      ).body.keys.length;
    const createWith = (headers: Record<string, string>) =>
      request<ApiKeyCreated>(t.url, 'POST', '/api/sdk/keys', { headers, body: { name: 'origin' } });

    it("accepts a write from the service's own pages, by Origin or else by Referer", async () => {
      expect((await createWith(withCookie({ origin: t.url }))).status).toBe(201);
      expect((await createWith(withCookie({ referer: `${t.url}/developer/keys` }))).status).toBe(
        201,
      );
    });

    it('refuses a write from another origin, or naming none, with 403 origin_not_allowed', async () => {
      const before = await keyCount();
      for (const headers of [
        withCookie({ origin: EVIL }),
        withCookie({ origin: 'null' }),
        withCookie({ referer: `${EVIL}/page` }),
        withCookie({ origin: EVIL, referer: `${t.url}/developer/keys` }),
        withCookie(),
      ]) {
        const refused = await createWith(headers);
        expectProblem(refused, 403, 'origin_not_allowed');
        expect(String((refused.body as { detail?: string }).detail)).toContain(
          'POOLPARTY_PORTAL_ORIGINS',
        );
      }
      const [key] = (
        await request<{ keys: ApiKeyListEntry[] }>(t.url, 'GET', '/api/sdk/keys', {
          headers: asDeveloper(aliceLogin.body),
        })
      ).body.keys;
      const revoke = await request(t.url, 'DELETE', `/api/sdk/keys/${key?.keyId}`, {
        headers: withCookie({ origin: EVIL }),
      });
      expectProblem(revoke, 403, 'origin_not_allowed');
      const signOut = await request(t.url, 'DELETE', '/api/sdk/session', {
        headers: withCookie({ origin: EVIL }),
      });
      expectProblem(signOut, 403, 'origin_not_allowed');
      expect(await keyCount()).toBe(before);
    });

    it('leaves reads with the cookie and writes with a bearer token alone', async () => {
      const read = await request(t.url, 'GET', '/api/sdk/keys', {
        headers: withCookie({ origin: EVIL }),
      });
      expect(read.status).toBe(200);
      expect((await createWith(asDeveloper(aliceLogin.body))).status).toBe(201);
    });
  });

  it("keeps developers' keys apart: another developer's key is not found", async () => {
    const bobLogin = await signIn(bob);
    expect(bobLogin.status).toBe(200);
    const asBob = asDeveloper(bobLogin.body);
    const listed = await request<{ keys: ApiKeyListEntry[] }>(t.url, 'GET', '/api/sdk/keys', {
      headers: asBob,
    });
    expect(listed.body.keys).toEqual([]);
    expectProblem(
      await request(t.url, 'POST', '/api/sdk/keys', {
        headers: asBob,
        body: { rotate: aliceKey.keyId },
      }),
      404,
      'not_found',
    );
    expectProblem(
      await request(t.url, 'DELETE', `/api/sdk/keys/${aliceKey.keyId}`, { headers: asBob }),
      404,
      'not_found',
    );
    expect((await probe(aliceKey.key)).status).toBe(200);
  });

  it('caps working keys per developer at 25: 409 api_key_limit_reached until one is revoked', async () => {
    const carol = await partyOfOwn('carol');
    const login = await signIn(carol);
    expect(login.status).toBe(200);
    const create = (body: Record<string, unknown> = {}) =>
      request<ApiKeyCreated>(t.url, 'POST', '/api/sdk/keys', {
        headers: asDeveloper(login.body),
        body,
      });
    const created: ApiKeyCreated[] = [];
    for (let i = 0; i < WORKING_API_KEYS_MAX; i++) {
      const answer = await create({ name: `key ${i}` });
      expect(answer.status).toBe(201);
      created.push(answer.body);
    }
    const over = await create({ name: 'one too many' });
    expectProblem(over, 409, 'api_key_limit_reached');
    expect(over.body).toMatchObject({ title: 'API key limit reached', limit: 25 });
    expect(String((over.body as { detail?: string }).detail)).toMatch(
      /25 working API keys.*revoke/,
    );
    // A rotation at the cap still works; with no other key in its grace period, the rotated key
    // stops at once instead, so the keys that work stay at 25.
    const [first, second] = created;
    if (!first || !second) throw new Error('no keys created');
    const rotated = await create({ rotate: first.keyId });
    expect(rotated.status).toBe(201);
    expect((await probe(rotated.body.key)).status).toBe(200);
    expectProblem(await probe(first.key), 401, 'api_key_revoked');
    expectProblem(await create(), 409, 'api_key_limit_reached');
    // Revoking frees a place, for exactly one more key.
    const revoked = await request(t.url, 'DELETE', `/api/sdk/keys/${second.keyId}`, {
      headers: asDeveloper(login.body),
    });
    expect(revoked.status).toBe(200);
    expect((await create({ name: 'in the freed place' })).status).toBe(201);
    expectProblem(await create(), 409, 'api_key_limit_reached');
  });

  it('never lets more than 25 keys authenticate, however many rotations are chained', async () => {
    const dave = await partyOfOwn('dave');
    const login = await signIn(dave);
    expect(login.status).toBe(200);
    const create = async (body: Record<string, unknown>) => {
      const answer = await request<ApiKeyCreated>(t.url, 'POST', '/api/sdk/keys', {
        headers: asDeveloper(login.body),
        body,
      });
      expect(answer.status).toBe(201);
      return answer.body;
    };
    const untouched: ApiKeyCreated[] = [];
    for (let i = 0; i < WORKING_API_KEYS_MAX; i++) untouched.push(await create({ name: `k${i}` }));
    const first = untouched.shift();
    if (!first) throw new Error('no keys created');
    // A rotation at the cap always succeeds; each rotates the newest key of the chain.
    const chain = [first];
    for (let i = 0; i < CHAINED_ROTATIONS; i++) {
      chain.push(await create({ rotate: chain[chain.length - 1]?.keyId }));
    }
    const newest = chain.pop();
    if (!newest) throw new Error('no rotation');

    // A read: every key has a budget of its own, so only a key that no longer works is refused.
    const read = (apiKey: string) => request(t.url, 'GET', '/v1/pools', { apiKey });
    const working: string[] = [];
    for (const key of [...untouched, ...chain, newest]) {
      const answer = await read(key.key);
      if (answer.status === 200) working.push(key.keyId);
    }
    expect(working.length).toBeLessThanOrEqual(WORKING_API_KEYS_MAX);
    expect(working).toEqual([...untouched, newest].map((key) => key.keyId));
    // Every key the chain left behind stopped at once, as a revoked key does.
    for (const retired of chain) expectProblem(await read(retired.key), 401, 'api_key_revoked');
    const listed = await request<{ keys: ApiKeyListEntry[] }>(t.url, 'GET', '/api/sdk/keys', {
      headers: asDeveloper(login.body),
    });
    const now = t.service.ctx.clock.now().getTime();
    const endOf = new Map(listed.body.keys.map((key) => [key.keyId, key.revokedAt]));
    for (const retired of chain) {
      expect(Date.parse(endOf.get(retired.keyId) ?? '')).toBeLessThanOrEqual(now);
    }
    expect(endOf.get(newest.keyId)).toBeNull();
  });

  // Last: it moves the clock past every session.
  it("says whether a key works on the service's clock, not the page's", async () => {
    // The devnet clock ahead of real time: a key's end is hours past the caller's clock.
    const advanced = await request(t.url, 'POST', '/devnet/clock', {
      body: { advanceMs: 2 * HOUR_MS },
    });
    expect(advanced.status).toBe(200);
    const headers = asDeveloper(aliceLogin.body);
    const created = await request<ApiKeyCreated>(t.url, 'POST', '/api/sdk/keys', {
      headers,
      body: { name: 'short-lived' },
    });
    expect(created.body.working).toBe(true);
    const rotated = await request<ApiKeyCreated>(t.url, 'POST', '/api/sdk/keys', {
      headers,
      body: { rotate: created.body.keyId },
    });
    const revoked = await request<ApiKeyListEntry>(
      t.url,
      'DELETE',
      `/api/sdk/keys/${rotated.body.keyId}`,
      {
        headers,
      },
    );
    expect(revoked.body.working).toBe(false);
    expect(Date.parse(revoked.body.revokedAt ?? '')).toBeGreaterThan(Date.now() + HOUR_MS);

    const listed = await request<{ keys: ApiKeyListEntry[] }>(t.url, 'GET', '/api/sdk/keys', {
      headers,
    });
    const byId = new Map(listed.body.keys.map((key) => [key.keyId, key]));
    expect(byId.get(rotated.body.keyId)).toMatchObject({ working: false });
    // The rotated key is in its grace period: it still works, until a revokedAt to come.
    expect(byId.get(created.body.keyId)).toMatchObject({ working: true });
    expect(byId.get(created.body.keyId)?.revokedAt).not.toBeNull();
    expect(byId.get(aliceKey.keyId)).toMatchObject({ revokedAt: null, working: true });
    const usage = await request<{ keys: { keyId: string; working: boolean }[] }>(
      t.url,
      'GET',
      '/api/sdk/usage',
      { headers },
    );
    expect(usage.body.keys.find((key) => key.keyId === rotated.body.keyId)?.working).toBe(false);
  });

  it('ends a session after 12 hours', async () => {
    const advanced = await request(t.url, 'POST', '/devnet/clock', {
      body: { advanceMs: 12 * HOUR_MS + 1000 },
    });
    expect(advanced.status).toBe(200);
    expectProblem(
      await request(t.url, 'GET', '/api/sdk/keys', { headers: asDeveloper(aliceLogin.body) }),
      401,
      'invalid_session',
    );
  });
});
