/**
 * Revoked wallet tokens (docs/spec/auth.md#wallet-tokens). Tokens are verified statelessly; this
 * list is the one exception, keyed by `jti` and kept only until the token would have expired
 * anyway.
 */
import type { Queryable } from './database.js';
import { deleteExpired } from './expiry.js';

export interface WalletTokenRevocation {
  readonly jti: string;
  readonly revokedAt: Date;
  /** The token's own `exp`. */
  readonly expiresAt: Date;
}

/** Idempotent: revoking a revoked token changes nothing. */
export async function revokeWalletToken(
  q: Queryable,
  revocation: WalletTokenRevocation,
): Promise<void> {
  await q.query(
    `INSERT INTO wallet_token_revocations (jti, revoked_at, expires_at) VALUES ($1, $2, $3)
     ON CONFLICT (jti) DO NOTHING`,
    [revocation.jti, revocation.revokedAt, revocation.expiresAt],
  );
}

export async function isWalletTokenRevoked(q: Queryable, jti: string): Promise<boolean> {
  const rows = await q.query('SELECT 1 AS hit FROM wallet_token_revocations WHERE jti = $1', [jti]);
  return rows.length > 0;
}

/** Drops up to `limit` revocations of tokens that have expired by `now`; returns how many. */
export function purgeExpiredRevocations(q: Queryable, now: Date, limit: number): Promise<number> {
  return deleteExpired(q, { table: 'wallet_token_revocations', key: 'jti' }, now, limit);
}
