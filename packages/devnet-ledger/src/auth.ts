/**
 * Bearer authentication of the participant paths, LocalNet style: an HS256 JWT signed with a
 * shared secret, whose `sub` is the ledger API user and whose `aud` names the participant. On
 * the WebSocket the token travels as the subprotocol `jwt.token.<JWT>` (browsers cannot set
 * headers there), next to the marker protocol `daml.ws.auth`.
 *
 * Without a secret every request acts as the default user, as a participant with auth disabled.
 */
import { keepRecent } from '@poolparty/core';
import { errors as joseErrors, jwtVerify } from 'jose';
import { unauthenticated } from './canton-errors.js';

export const DEFAULT_AUDIENCE = 'https://canton.network.global';
export const WS_AUTH_PROTOCOL = 'daml.ws.auth';
const WS_TOKEN_PROTOCOL_PREFIX = 'jwt.token.';

export interface AuthSettings {
  /** null: no token required, every request is the default user. */
  readonly secret: string | null;
  readonly audience: string;
  readonly defaultUser: string;
}

/** The bearer token of an `Authorization` header, or null when there is none. */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) throw unauthenticated('the Authorization header is not "Bearer <token>"');
  return match[1];
}

/** The token carried in the WebSocket subprotocols, or null when there is none. */
export function subprotocolToken(protocols: readonly string[]): string | null {
  const carrier = protocols.find((protocol) => protocol.startsWith(WS_TOKEN_PROTOCOL_PREFIX));
  return carrier === undefined ? null : carrier.slice(WS_TOKEN_PROTOCOL_PREFIX.length);
}

/**
 * Tokens already verified, by settings: a client sends the same token with every request until
 * it expires, and checking its HMAC each time was a tenth of this server's work under load.
 */
const verified = new WeakMap<AuthSettings, Map<string, VerifiedToken>>();
/** Verified tokens kept per settings; the oldest goes first. */
const VERIFIED_TOKENS_KEPT = 1_024;

interface VerifiedToken {
  readonly user: string;
  /** When the token expires (ms since the epoch): it is checked again from then, and refused. */
  readonly expiresAtMs: number;
}

/** The user id a request acts as; throws UNAUTHENTICATED for a missing or invalid token. */
export async function authenticatedUser(
  settings: AuthSettings,
  token: string | null,
): Promise<string> {
  if (settings.secret === null) return settings.defaultUser;
  if (token === null) throw unauthenticated('no bearer token');
  const kept = verified.get(settings)?.get(token);
  if (kept !== undefined && Date.now() < kept.expiresAtMs) return kept.user;
  const checked = await verifiedToken(settings, settings.secret, token);
  if (checked.expiresAtMs !== Number.POSITIVE_INFINITY) keepVerified(settings, token, checked);
  return checked.user;
}

async function verifiedToken(
  settings: AuthSettings,
  secret: string,
  token: string,
): Promise<VerifiedToken> {
  try {
    const { payload } = await jwtVerify(token, new TextEncoder().encode(secret), {
      algorithms: ['HS256'],
      audience: settings.audience,
    });
    if (typeof payload.sub !== 'string' || payload.sub.length === 0) {
      throw unauthenticated('the token has no subject (the user id)');
    }
    const expiresAtMs =
      typeof payload.exp === 'number' ? payload.exp * 1000 : Number.POSITIVE_INFINITY;
    return { user: payload.sub, expiresAtMs };
  } catch (error) {
    if (error instanceof joseErrors.JOSEError) throw unauthenticated(error.message);
    throw error;
  }
}

/** Keeps a token that expires (one that never does is verified every time). */
function keepVerified(settings: AuthSettings, token: string, checked: VerifiedToken): void {
  let tokens = verified.get(settings);
  if (tokens === undefined) {
    tokens = new Map();
    verified.set(settings, tokens);
  }
  keepRecent(tokens, token, checked, VERIFIED_TOKENS_KEPT);
}
