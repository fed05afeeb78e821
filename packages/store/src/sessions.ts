/** Developer portal sessions: stored by the SHA-256 of the session token only. */
import { read } from './columns.js';
import type { Queryable, Row } from './database.js';
import { deleteExpired } from './expiry.js';

export interface SessionRecord {
  readonly tokenHash: string;
  readonly developerParty: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

function sessionFromRow(row: Row): SessionRecord {
  return {
    tokenHash: read.string(row.token_hash),
    developerParty: read.string(row.developer_party),
    createdAt: read.date(row.created_at),
    expiresAt: read.date(row.expires_at),
  };
}

export async function insertSession(q: Queryable, session: SessionRecord): Promise<void> {
  await q.query(
    `INSERT INTO sessions (token_hash, developer_party, created_at, expires_at)
     VALUES ($1, $2, $3, $4)`,
    [session.tokenHash, session.developerParty, session.createdAt, session.expiresAt],
  );
}

/** The session if it exists and has not expired at `now`. */
export async function findValidSession(
  q: Queryable,
  tokenHash: string,
  now: Date,
): Promise<SessionRecord | null> {
  const rows = await q.query(
    `SELECT token_hash, developer_party, created_at, expires_at FROM sessions
     WHERE token_hash = $1 AND expires_at > $2`,
    [tokenHash, now],
  );
  return rows[0] ? sessionFromRow(rows[0]) : null;
}

/** Ends a session (log out). Returns whether there was one. */
export async function deleteSession(q: Queryable, tokenHash: string): Promise<boolean> {
  const rows = await q.query('DELETE FROM sessions WHERE token_hash = $1 RETURNING token_hash', [
    tokenHash,
  ]);
  return rows.length > 0;
}

/** Removes up to `limit` sessions expired at `now`; returns how many. */
export function purgeExpiredSessions(q: Queryable, now: Date, limit: number): Promise<number> {
  return deleteExpired(q, { table: 'sessions', key: 'token_hash' }, now, limit);
}
