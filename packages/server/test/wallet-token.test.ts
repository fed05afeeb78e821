import { WALLET_TOKEN_TTL_MS } from '@poolparty/core';
import { describe, expect, it } from 'vitest';
import { WalletTokenSigner } from '../src/auth/wallet-token.js';

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
});
