import { encodeBase64, generateKeyPair, sign } from '@poolparty/core';
import { importJWK, type JWK, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DevnetParty } from '../src/devnet-bootstrap.js';
import {
  expectProblem,
  type JsonResponse,
  request,
  seededUser,
  sharedTestService,
  signChallenge,
} from './support/service.js';

interface Challenge {
  partyId: string;
  nonce: string;
  message: string;
  expiresAt: string;
}

function jwtPayload(token: string): Record<string, unknown> {
  const payload = token.split('.')[1] ?? '';
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
}

describe('wallet authentication', () => {
  const t = sharedTestService();
  let alice: DevnetParty;
  let bob: DevnetParty;

  beforeAll(async () => {
    alice = seededUser(t, 0);
    bob = seededUser(t, 1);
  });

  const challenge = async (partyId: string) => {
    const answer = await request<Challenge>(t.url, 'POST', '/v1/wallet-auth/challenge', {
      apiKey: t.apiKey,
      body: { partyId },
    });
    expect(answer.status).toBe(200);
    return answer.body;
  };
  const verify = (body: Record<string, unknown>) =>
    request(t.url, 'POST', '/v1/wallet-auth/verify', { apiKey: t.apiKey, body });
  const answerAs = (issued: Challenge, party: DevnetParty) => ({
    partyId: issued.partyId,
    nonce: issued.nonce,
    ...signChallenge(issued.message, party),
  });

  it('issues a challenge that names the domain, party, purpose, environment and nonce', async () => {
    const issued = await challenge(alice.partyId);
    expect(issued.partyId).toBe(alice.partyId);
    expect(issued.nonce).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    const lines = issued.message.split('\n');
    expect(lines[0]).toBe(
      `${t.settings.serviceDomain} wants you to authenticate your Canton party:`,
    );
    expect(lines[1]).toBe(alice.partyId);
    expect(lines).toContain('Purpose: swap wallet authentication');
    expect(lines).toContain('Environment: devnet');
    expect(lines).toContain(`Nonce: ${issued.nonce}`);
    expect(lines).toContain(`Expiration Time: ${issued.expiresAt}`);
    const issuedAt = lines.find((line) => line.startsWith('Issued At: '))?.slice(11) ?? '';
    expect(Date.parse(issued.expiresAt) - Date.parse(issuedAt)).toBe(5 * 60 * 1000);
  });

  it('exchanges a signed challenge for a wallet token of the party', async () => {
    const answer = await verify(answerAs(await challenge(alice.partyId), alice));
    expect(answer.status).toBe(200);
    const { partyId, token, expiresAt } = answer.body as Record<string, string>;
    expect(partyId).toBe(alice.partyId);
    const claims = jwtPayload(token ?? '');
    expect(claims).toMatchObject({ sub: alice.partyId, aud: 'poolparty-wallet', env: 'devnet' });
    expect(claims.exp).toBe(Math.floor(Date.parse(expiresAt ?? '') / 1000));
    const verified = await t.service.ctx.walletTokens.verify(
      token ?? '',
      t.service.ctx.clock.now(),
    );
    expect(verified).toMatchObject({ partyId: alice.partyId });
  });

  const expectNonceProblem = (answer: JsonResponse, reason: string) => {
    expectProblem(answer, 401, 'invalid_nonce');
    expect(answer.body.reason).toBe(reason);
  };

  it('refuses a replayed answer as a used nonce', async () => {
    const signed = answerAs(await challenge(alice.partyId), alice);
    expect((await verify(signed)).status).toBe(200);
    expectNonceProblem(await verify(signed), 'nonce_used');
  });

  it('refuses a nonce that was never issued as unknown', async () => {
    const issued = await challenge(alice.partyId);
    const made = { ...answerAs(issued, alice), nonce: 'A'.repeat(43) };
    expectNonceProblem(await verify(made), 'unknown_nonce');
  });

  it('refuses a bad signature, and the nonce is spent by the attempt', async () => {
    const issued = await challenge(alice.partyId);
    const forged = { ...answerAs(issued, alice), ...signChallenge(`${issued.message} `, alice) };
    expectProblem(await verify(forged), 401, 'invalid_signature');
    expectNonceProblem(await verify(answerAs(issued, alice)), 'nonce_used');
  });

  it('refuses a wallet token of the service key with a longer life or from the future', async () => {
    const track = (token: string) =>
      request(t.url, 'GET', `/v1/track/${alice.partyId}`, { apiKey: t.apiKey, walletToken: token });
    const now = t.service.ctx.clock.now();
    const [secret] = await t.service.ctx.db.query<{ value: JWK }>(
      "SELECT value FROM service_secrets WHERE name = 'wallet_token_signing_key:devnet'",
    );
    if (!secret) throw new Error('the wallet-token key is not in the store');
    const seconds = Math.floor(now.getTime() / 1000);
    const tenYears = await new SignJWT({ env: 'devnet' })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT' })
      .setSubject(alice.partyId)
      .setAudience('poolparty-wallet')
      .setJti(crypto.randomUUID())
      .setIssuedAt(seconds)
      .setExpirationTime(seconds + 10 * 365 * 24 * 60 * 60)
      .sign(await importJWK(secret.value, 'EdDSA'));
    expectProblem(await track(tenYears), 401, 'invalid_wallet_token');
    const ahead = await t.service.ctx.walletTokens.issue(
      alice.partyId,
      new Date(now.getTime() + 60 * 60 * 1000),
    );
    expectProblem(await track(ahead.token), 401, 'invalid_wallet_token');
    const fresh = await t.service.ctx.walletTokens.issue(alice.partyId, now);
    expect((await track(fresh.token)).status).toBe(200);
  });

  it('refuses a valid signature by a key that does not control the party', async () => {
    const issued = await challenge(alice.partyId);
    expectProblem(await verify(answerAs(issued, bob)), 401, 'invalid_signature');
  });

  it("accepts a party's signing key registered on the ledger when the namespace differs", async () => {
    const ledger = t.service.ctx.devnetLedger;
    if (!ledger) throw new Error('devnet ledger missing');
    const { partyId } = await ledger.createParty({ hint: 'hosted-carol' });
    const keys = generateKeyPair();
    await ledger.addSigningKey(partyId, keys.publicKey);
    const issued = await challenge(partyId);
    const answer = await verify({
      partyId,
      nonce: issued.nonce,
      signature: encodeBase64(sign(issued.message, keys.privateKey)),
      publicKey: Buffer.from(keys.publicKey).toString('hex'),
    });
    expect(answer.status).toBe(200);
    expect(answer.body.partyId).toBe(partyId);
  });

  it('refuses a challenge of the portal login', async () => {
    const portal = await request<Challenge>(t.url, 'POST', '/api/sdk/wallet-login', {
      body: { partyId: alice.partyId },
    });
    expect(portal.status).toBe(200);
    // Unknown here, also once the first attempt spent it: nothing says it exists elsewhere.
    expectNonceProblem(await verify(answerAs(portal.body, alice)), 'unknown_nonce');
    expectNonceProblem(await verify(answerAs(portal.body, alice)), 'unknown_nonce');
  });

  it('refuses malformed input with validation_error, leaving the nonce usable', async () => {
    expectProblem(
      await request(t.url, 'POST', '/v1/wallet-auth/challenge', {
        apiKey: t.apiKey,
        body: { partyId: 'alice' },
      }),
      400,
      'validation_error',
    );
    const issued = await challenge(alice.partyId);
    const good = answerAs(issued, alice);
    const shortSignature = await verify({ ...good, signature: 'ab'.repeat(10) });
    expectProblem(shortSignature, 400, 'validation_error');
    expect(shortSignature.body.errors).toEqual([expect.objectContaining({ path: '/signature' })]);
    const shortKey = await verify({ ...good, publicKey: 'AAAA' });
    expectProblem(shortKey, 400, 'validation_error');
    expect(shortKey.body.errors).toEqual([expect.objectContaining({ path: '/publicKey' })]);
    expect((await verify(good)).status).toBe(200);
  });

  it('refuses an expired challenge', async () => {
    const issued = await challenge(alice.partyId);
    const advanced = await request(t.url, 'POST', '/devnet/clock', {
      body: { advanceMs: 5 * 60 * 1000 + 1000 },
    });
    expect(advanced.status).toBe(200);
    const late = await verify(answerAs(issued, alice));
    expectProblem(late, 401, 'invalid_nonce');
    expect(late.body.reason).toBe('nonce_expired');
  });

  // Last: it spends this address's login budget.
  it('limits login attempts per client address', async () => {
    // Twice the budget: the bucket refills a little while the attempts run.
    const ATTEMPTS_MAX = 60;
    let limited: JsonResponse | undefined;
    for (let attempt = 0; attempt < ATTEMPTS_MAX && limited === undefined; attempt++) {
      const answer = await request(t.url, 'POST', '/v1/wallet-auth/challenge', {
        apiKey: t.apiKey,
        body: { partyId: alice.partyId },
      });
      if (answer.status === 429) limited = answer;
      else expect(answer.headers.get('ratelimit-limit')).toBe('30');
    }
    if (limited === undefined) throw new Error(`${ATTEMPTS_MAX} rapid attempts were not limited`);
    expectProblem(limited, 429, 'rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('ratelimit-limit')).toBe('30');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    expect(limited.headers.get('ratelimit-reset')).toBe(limited.headers.get('retry-after'));
  });
});
