import { WALLET_TOKEN_AUDIENCE, WALLET_TOKEN_TTL_MS } from '@poolparty/core';
import { importJWK, type JWK, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  WALLET_TOKEN_CLOCK_SKEW_SECONDS,
  WALLET_TOKEN_LIFETIME_SLACK_SECONDS,
  WalletTokenSigner,
} from '../src/auth/wallet-token.js';

const PARTY = `alice::1220${'ab'.repeat(32)}`;

describe('WalletTokenSigner', async () => {
  const jwk = await WalletTokenSigner.generateJwk();
  const signer = await WalletTokenSigner.fromJwk(jwk, 'devnet');
  const now = new Date('2026-11-22T13:40:00.000Z');

  it('issues a token that verifies to its party for 15 minutes', async () => {
    const issued = await signer.issue(PARTY, now);
    expect(issued.expiresAt.getTime() - now.getTime()).toBe(WALLET_TOKEN_TTL_MS);
    const claims = await signer.verify(
      issued.token,
      new Date(now.getTime() + WALLET_TOKEN_TTL_MS - 1000),
    );
    expect(claims).toEqual({ partyId: PARTY, jti: issued.jti, expiresAt: issued.expiresAt });
  });

  it('refuses an expired token', async () => {
    const issued = await signer.issue(PARTY, now);
    expect(
      await signer.verify(issued.token, new Date(now.getTime() + WALLET_TOKEN_TTL_MS + 1000)),
    ).toBe('expired');
  });

  it('refuses malformed and tampered tokens', async () => {
    expect(await signer.verify('not a token', now)).toBe('malformed');
    const issued = await signer.issue(PARTY, now);
    const [header, payload, signature] = issued.token.split('.') as [string, string, string];
    const forged = Buffer.from(JSON.stringify({ sub: `mallory::1220${'cd'.repeat(32)}` })).toString(
      'base64url',
    );
    expect(await signer.verify(`${header}.${forged}.${signature}`, now)).toBe('invalid');
    const flipped = Buffer.from(signature, 'base64url');
    flipped[0] = (flipped[0] ?? 0) ^ 0xff;
    expect(await signer.verify(`${header}.${payload}.${flipped.toString('base64url')}`, now)).toBe(
      'invalid',
    );
  });

  it('refuses a token signed by another key or for another environment', async () => {
    const other = await WalletTokenSigner.fromJwk(await WalletTokenSigner.generateJwk(), 'devnet');
    const foreign = await other.issue(PARTY, now);
    expect(await signer.verify(foreign.token, now)).toBe('invalid');
    const mainnet = await WalletTokenSigner.fromJwk(jwk, 'mainnet');
    const devnetToken = await signer.issue(PARTY, now);
    expect(await mainnet.verify(devnetToken.token, now)).toBe('invalid');
  });

  describe("tokens signed with the service's own key", () => {
    const TTL_SECONDS = WALLET_TOKEN_TTL_MS / 1000;
    const nowSeconds = Math.floor(now.getTime() / 1000);
    /** A token as the service's key signs it, with the times given (seconds; null: left out). */
    const signed = async (iat: number | null, exp: number) => {
      const key = await importJWK(jwk as JWK, 'EdDSA');
      const token = new SignJWT({ env: 'devnet' })
        .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT' })
        .setSubject(PARTY)
        .setAudience(WALLET_TOKEN_AUDIENCE)
        .setJti('f2b8c1de-0000-4000-8000-000000000001')
        .setExpirationTime(exp);
      if (iat !== null) token.setIssuedAt(iat);
      return token.sign(key);
    };

    it('accepts the lifetime the service issues, to the second it allows', async () => {
      const longest = nowSeconds + TTL_SECONDS + WALLET_TOKEN_LIFETIME_SLACK_SECONDS;
      expect(await signer.verify(await signed(nowSeconds, longest), now)).toMatchObject({
        partyId: PARTY,
      });
    });

    it('refuses a longer life, such as ten years', async () => {
      const longer = nowSeconds + TTL_SECONDS + WALLET_TOKEN_LIFETIME_SLACK_SECONDS + 1;
      expect(await signer.verify(await signed(nowSeconds, longer), now)).toBe('invalid');
      const tenYears = nowSeconds + 10 * 365 * 24 * 60 * 60;
      expect(await signer.verify(await signed(nowSeconds, tenYears), now)).toBe('invalid');
    });

    it('refuses a token issued in the future beyond the clock skew, and one without iat', async () => {
      const skewed = nowSeconds + WALLET_TOKEN_CLOCK_SKEW_SECONDS;
      expect(await signer.verify(await signed(skewed, skewed + TTL_SECONDS), now)).toMatchObject({
        partyId: PARTY,
      });
      const ahead = skewed + 1;
      expect(await signer.verify(await signed(ahead, ahead + TTL_SECONDS), now)).toBe('invalid');
      const issued = await signer.issue(PARTY, new Date(now.getTime() + 60 * 60 * 1000));
      expect(await signer.verify(issued.token, now)).toBe('invalid');
      expect(await signer.verify(await signed(null, nowSeconds + TTL_SECONDS), now)).toBe(
        'invalid',
      );
    });
  });
});
