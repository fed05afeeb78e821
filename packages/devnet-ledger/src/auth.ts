/**
 * Bearer authentication of the participant paths, LocalNet style: an HS256 JWT signed with a
 * shared secret, whose `sub` is the ledger API user and whose `aud` names the participant. On
 * the WebSocket the token travels as the subprotocol `jwt.token.<JWT>` (browsers cannot set
 * headers there), next to the marker protocol `daml.ws.auth`.
 *
 * Without a secret every request acts as the default user, as a participant with auth disabled.
 */
import { errors as joseErrors, jwtVerify } from 'jose';
import { unauthenticated } from './canton-errors.js';

export const DEFAULT_AUDIENCE = 'https://canton.network.global';
export const WS_AUTH_PROTOCOL = 'daml.ws.auth';
export const WS_TOKEN_PROTOCOL_PREFIX = 'jwt.token.';

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

/** The user id a request acts as; throws UNAUTHENTICATED for a missing or invalid token. */
export async function authenticatedUser(
  settings: AuthSettings,
  token: string | null,
): Promise<string> {
  if (settings.secret === null) return settings.defaultUser;
  if (token === null) throw unauthenticated('no bearer token');
  try {
    const { payload } = await jwtVerify(token, new TextEncoder().encode(settings.secret), {
      algorithms: ['HS256'],
      audience: settings.audience,
    });
    if (typeof payload.sub !== 'string' || payload.sub.length === 0) {
      throw unauthenticated('the token has no subject (the user id)');
    }
    return payload.sub;
  } catch (error) {
    if (error instanceof joseErrors.JOSEError) throw unauthenticated(error.message);
    throw error;
  }
}
