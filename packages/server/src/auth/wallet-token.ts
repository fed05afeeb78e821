/**
 * Wallet tokens (docs/spec/auth.md#wallet-tokens): EdDSA-signed JWTs naming the authenticated
 * party, verified without a store round trip. Revocation is by `jti`, checked by the caller against
 * the store.
 *
 * The signing key is shared by every process of a deployment (it lives in the store), so a token
 * issued by one `api` process verifies on any other.
 */
import { randomUUID } from 'node:crypto';
import { WALLET_TOKEN_AUDIENCE, WALLET_TOKEN_TTL_MS } from '@poolparty/core';
import { exportJWK, generateKeyPair, importJWK, type JWK, jwtVerify, SignJWT } from 'jose';
import type { Environment } from '../config.js';

const ALGORITHM = 'EdDSA';
const MS_PER_SECOND = 1000;

/**
 * How far `exp - iat` may exceed the lifetime this service issues. `iat` and `exp` are whole
 * seconds, each rounded down on its own; one second covers that and nothing more, so a token
 * carrying a longer life than the service ever gives was not issued by it as it runs now.
 */
export const WALLET_TOKEN_LIFETIME_SLACK_SECONDS = 1;
/**
 * How far ahead of this process's clock a token's `iat` may lie: processes of one deployment
 * issue and verify on their own clocks, which can disagree by a few seconds. Beyond that, a
 * token from the future was not issued by a process running now.
 */
export const WALLET_TOKEN_CLOCK_SKEW_SECONDS = 30;
const WALLET_TOKEN_LIFETIME_MAX_SECONDS =
  WALLET_TOKEN_TTL_MS / MS_PER_SECOND + WALLET_TOKEN_LIFETIME_SLACK_SECONDS;

export interface WalletClaims {
  readonly partyId: string;
  readonly jti: string;
  readonly expiresAt: Date;
}

export interface IssuedWalletToken extends WalletClaims {
  readonly token: string;
}

export type WalletTokenProblem = 'malformed' | 'expired' | 'invalid';

export class WalletTokenSigner {
  private constructor(
    private readonly privateKey: CryptoKey,
    private readonly publicKey: CryptoKey,
    private readonly environment: Environment,
  ) {}

  /** A new Ed25519 key pair, as private JWK to keep in the store. */
  static async generateJwk(): Promise<JWK> {
    const { privateKey } = await generateKeyPair(ALGORITHM, { crv: 'Ed25519', extractable: true });
    return exportJWK(privateKey);
  }

  static async fromJwk(privateJwk: JWK, environment: Environment): Promise<WalletTokenSigner> {
    const { d: _private, ...publicJwk } = privateJwk;
    const privateKey = (await importJWK(privateJwk, ALGORITHM)) as CryptoKey;
    const publicKey = (await importJWK(publicJwk, ALGORITHM)) as CryptoKey;
    return new WalletTokenSigner(privateKey, publicKey, environment);
  }

  async issue(partyId: string, now: Date): Promise<IssuedWalletToken> {
    const jti = randomUUID();
    const expiresAt = new Date(now.getTime() + WALLET_TOKEN_TTL_MS);
    const token = await new SignJWT({ env: this.environment })
      .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
      .setSubject(partyId)
      .setAudience(WALLET_TOKEN_AUDIENCE)
      .setJti(jti)
      .setIssuedAt(Math.floor(now.getTime() / MS_PER_SECOND))
      .setExpirationTime(Math.floor(expiresAt.getTime() / MS_PER_SECOND))
      .sign(this.privateKey);
    return { token, partyId, jti, expiresAt };
  }

  /** The claims of a valid token, or why it is not one. `now` is the service clock. */
  async verify(token: string, now: Date): Promise<WalletClaims | WalletTokenProblem> {
    if (!/^[\w-]+\.[\w-]+\.[\w-]+$/.test(token)) return 'malformed';
    try {
      const { payload } = await jwtVerify(token, this.publicKey, {
        algorithms: [ALGORITHM],
        audience: WALLET_TOKEN_AUDIENCE,
        currentDate: now,
        requiredClaims: ['sub', 'jti', 'exp', 'iat'],
      });
      // A devnet token must not open a mainnet deployment that happens to share the key.
      if (payload.env !== this.environment) return 'invalid';
      if (!withinIssuedLifetime(payload.iat as number, payload.exp as number, now)) {
        return 'invalid';
      }
      return {
        partyId: payload.sub as string,
        jti: payload.jti as string,
        expiresAt: new Date((payload.exp as number) * 1000),
      };
    } catch (error) {
      return (error as { code?: string }).code === 'ERR_JWT_EXPIRED' ? 'expired' : 'invalid';
    }
  }
}

/**
 * Whether a token's `iat`/`exp` (seconds) are ones this service could have issued: a life no
 * longer than it gives, and an issue time not ahead of `now` beyond the clock-skew allowance. A
 * token signed with the service's key but outside these (a leaked key, a tampered issuer) is
 * refused like any invalid one.
 */
function withinIssuedLifetime(iat: number, exp: number, now: Date): boolean {
  const nowSeconds = now.getTime() / MS_PER_SECOND;
  if (iat > nowSeconds + WALLET_TOKEN_CLOCK_SKEW_SECONDS) return false;
  return exp - iat <= WALLET_TOKEN_LIFETIME_MAX_SECONDS;
}
