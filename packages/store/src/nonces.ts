/**
 * Challenge nonces (docs/spec/auth.md#wallet-challenge): single-use. Consumption is one conditional
 * UPDATE, so of any number of concurrent verifications of one nonce exactly one gets it back.
 */
import { read } from './columns.js';
import type { Queryable, Row } from './database.js';
import { deleteExpired } from './expiry.js';

export interface NonceRecord {
  readonly nonce: string;
  readonly partyId: string;
  /** What the challenge authenticates for, e.g. wallet authentication or portal login. */
  readonly purpose: string;
  readonly message: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly usedAt: Date | null;
}

export type NewNonce = Omit<NonceRecord, 'usedAt'>;

const NONCE_COLUMNS = 'nonce, party_id, purpose, message, created_at, expires_at, used_at';

function nonceFromRow(row: Row): NonceRecord {
  return {
    nonce: read.string(row.nonce),
    partyId: read.string(row.party_id),
    purpose: read.string(row.purpose),
    message: read.string(row.message),
    createdAt: read.date(row.created_at),
    expiresAt: read.date(row.expires_at),
    usedAt: read.dateOrNull(row.used_at),
  };
}

export async function insertNonce(q: Queryable, nonce: NewNonce): Promise<void> {
  await q.query(
    `INSERT INTO nonces (nonce, party_id, purpose, message, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [nonce.nonce, nonce.partyId, nonce.purpose, nonce.message, nonce.createdAt, nonce.expiresAt],
  );
}

/**
 * Marks the nonce used at `now` and returns it, or null when it does not exist or was already
 * used. It is consumed whatever happens next (expired, other party, bad signature): the caller
 * checks those on the returned record, and a failed attempt cannot be replayed.
 */
export async function consumeNonce(
  q: Queryable,
  nonce: string,
  now: Date,
): Promise<NonceRecord | null> {
  const rows = await q.query(
    `UPDATE nonces SET used_at = $2 WHERE nonce = $1 AND used_at IS NULL
     RETURNING ${NONCE_COLUMNS}`,
    [nonce, now],
  );
  return rows[0] ? nonceFromRow(rows[0]) : null;
}

/**
 * The nonce as stored, used or not, or null when there is none (never issued, or purged after it
 * expired). Read after `consumeNonce` found nothing to consume, to tell a spent nonce from an
 * unknown one.
 */
export async function findNonce(q: Queryable, nonce: string): Promise<NonceRecord | null> {
  const rows = await q.query(`SELECT ${NONCE_COLUMNS} FROM nonces WHERE nonce = $1`, [nonce]);
  return rows[0] ? nonceFromRow(rows[0]) : null;
}

/** Removes up to `limit` nonces that expired by `now`, used or not; returns how many. */
export function purgeExpiredNonces(q: Queryable, now: Date, limit: number): Promise<number> {
  return deleteExpired(q, { table: 'nonces', key: 'nonce' }, now, limit);
}
