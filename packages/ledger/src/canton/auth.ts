/**
 * Bearer tokens for the JSON Ledger API, per `CantonAuth`: none, a fixed token, self-signed
 * HS256 user tokens, or OAuth2 client credentials. Minted and fetched tokens are cached and
 * replaced before they expire, so a request never leaves with a token about to lapse; callers
 * asking at once share one token request.
 */
import { SignJWT } from 'jose';
import { LedgerError } from '../port.js';
import type { CantonAuth } from './options.js';

/** The scope a ledger API user token carries. */
export const LEDGER_API_SCOPE = 'daml_ledger_api';
/** Lifetime of a self-signed token: short, since it is re-minted freely. */
export const HS256_TOKEN_LIFETIME_S = 300;
/** A token is replaced once less than this share of its lifetime is left... */
const REFRESH_SHARE = 0.2;
/** ...or less than this, whichever is more. */
const REFRESH_MARGIN_MIN_MS = 5_000;

export interface TokenSource {
  /** A bearer token valid for a while yet, or null when the ledger needs none. */
  token(): Promise<string | null>;
}

export interface TokenSourceEnvironment {
  /** The clock deciding expiry; the wall clock by default. */
  readonly nowMs?: () => number;
  readonly fetch?: typeof fetch;
}

interface CachedToken {
  readonly token: string;
  /** When to stop using it (already less the refresh margin). */
  readonly refreshAtMs: number;
}

function refreshAt(issuedAtMs: number, lifetimeMs: number): number {
  const margin = Math.max(lifetimeMs * REFRESH_SHARE, Math.min(REFRESH_MARGIN_MIN_MS, lifetimeMs));
  return issuedAtMs + lifetimeMs - margin;
}

/** Caches what `obtain` returns until its refresh time; concurrent callers share one call. */
class CachingTokenSource implements TokenSource {
  private cached: CachedToken | null = null;
  private pending: Promise<CachedToken> | null = null;

  constructor(
    private readonly obtain: () => Promise<CachedToken>,
    private readonly nowMs: () => number,
  ) {}

  async token(): Promise<string> {
    const cached = this.cached;
    if (cached !== null && this.nowMs() < cached.refreshAtMs) return cached.token;
    if (this.pending === null) {
      this.pending = this.obtain().finally(() => {
        this.pending = null;
      });
    }
    const fresh = await this.pending;
    this.cached = fresh;
    return fresh.token;
  }
}

function hs256Source(
  auth: Extract<CantonAuth, { kind: 'hs256' }>,
  userId: string,
  nowMs: () => number,
): TokenSource {
  const key = new TextEncoder().encode(auth.secret);
  return new CachingTokenSource(async () => {
    const issuedAtMs = nowMs();
    const issuedAt = Math.floor(issuedAtMs / 1000);
    const token = await new SignJWT({ scope: LEDGER_API_SCOPE })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(userId)
      .setAudience(auth.audience)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + HS256_TOKEN_LIFETIME_S)
      .sign(key);
    return { token, refreshAtMs: refreshAt(issuedAtMs, HS256_TOKEN_LIFETIME_S * 1000) };
  }, nowMs);
}

/** The lifetime assumed when a token endpoint does not say (`expires_in` is optional). */
const OAUTH2_DEFAULT_LIFETIME_S = 300;

function oauth2Source(
  auth: Extract<CantonAuth, { kind: 'oauth2' }>,
  nowMs: () => number,
  fetchImpl: typeof fetch,
): TokenSource {
  return new CachingTokenSource(async () => {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: auth.clientId,
      client_secret: auth.clientSecret,
    });
    if (auth.audience !== undefined) form.set('audience', auth.audience);
    if (auth.scope !== undefined) form.set('scope', auth.scope);
    const requestedAtMs = nowMs();
    let response: Response;
    try {
      response = await fetchImpl(auth.tokenUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: form.toString(),
      });
    } catch (error) {
      throw new LedgerError(
        'rejected',
        `the OAuth2 token endpoint ${auth.tokenUrl} is unreachable: ${(error as Error).message}`,
      );
    }
    const text = await response.text();
    if (!response.ok) {
      // 4xx: the credentials are wrong and retrying will not help; 5xx: the endpoint is down.
      const code = response.status < 500 ? 'not_authorized' : 'rejected';
      throw new LedgerError(
        code,
        `the OAuth2 token endpoint ${auth.tokenUrl} refused client ${auth.clientId}: HTTP ${response.status} ${text.slice(0, 200)}`,
      );
    }
    const body = parseTokenResponse(text);
    if (body === null) {
      throw new LedgerError(
        'rejected',
        `the OAuth2 token endpoint ${auth.tokenUrl} answered without an access_token`,
      );
    }
    const lifetimeS = body.expiresIn ?? OAUTH2_DEFAULT_LIFETIME_S;
    return { token: body.accessToken, refreshAtMs: refreshAt(requestedAtMs, lifetimeS * 1000) };
  }, nowMs);
}

/** The `access_token` and `expires_in` (seconds) of an RFC 6749 token response, or null. */
function parseTokenResponse(
  text: string,
): { readonly accessToken: string; readonly expiresIn: number | null } | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  const { access_token: accessToken, expires_in: expiresIn } = (body ?? {}) as Record<
    string,
    unknown
  >;
  if (typeof accessToken !== 'string' || accessToken.length === 0) return null;
  const seconds = typeof expiresIn === 'string' ? Number(expiresIn) : expiresIn;
  const valid = typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0;
  return { accessToken, expiresIn: valid ? seconds : null };
}

/** The token source of `auth` for the ledger API user `userId`. */
export function tokenSource(
  auth: CantonAuth,
  userId: string,
  environment: TokenSourceEnvironment = {},
): TokenSource {
  const nowMs = environment.nowMs ?? Date.now;
  switch (auth.kind) {
    case 'none':
      return { token: async () => null };
    case 'static': {
      const { token } = auth;
      return { token: async () => token };
    }
    case 'hs256':
      return hs256Source(auth, userId, nowMs);
    case 'oauth2':
      return oauth2Source(auth, nowMs, environment.fetch ?? fetch);
    default:
      throw new RangeError(`unknown auth kind ${(auth as { kind: unknown }).kind}`);
  }
}
