/**
 * Developer portal sessions (docs/spec/auth.md#developer-portal-sessions): a random bearer token,
 * sent back as an HttpOnly cookie and usable as `Authorization: Bearer` from scripts. The store
 * keeps only its SHA-256, so a leaked store does not hand out sessions.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Database } from '@poolparty/store';
import { findValidSession, insertSession, upsertDeveloper } from '@poolparty/store';

export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
export const SESSION_COOKIE = 'pp_session';
/** 256 bits, 43 characters of base64url. */
const SESSION_TOKEN_BYTES = 32;
const SESSION_TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export interface StartedSession {
  readonly token: string;
  readonly partyId: string;
  readonly expiresAt: Date;
}

export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Registers the developer on first sign-in and opens a session for them. */
export async function startDeveloperSession(
  db: Database,
  partyId: string,
  now: Date,
): Promise<StartedSession> {
  const token = randomBytes(SESSION_TOKEN_BYTES).toString('base64url');
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  await db.transaction(async (tx) => {
    await upsertDeveloper(tx, partyId, now);
    await insertSession(tx, {
      tokenHash: hashSessionToken(token),
      developerParty: partyId,
      createdAt: now,
      expiresAt,
    });
  });
  return { token, partyId, expiresAt };
}

/** The developer a presented token signs in, or null when it is no live session. */
export async function developerOfSession(
  db: Database,
  token: string,
  now: Date,
): Promise<string | null> {
  // Nothing of another shape was ever issued: no query for it.
  if (!SESSION_TOKEN_SHAPE.test(token)) return null;
  const session = await findValidSession(db, hashSessionToken(token), now);
  return session?.developerParty ?? null;
}
