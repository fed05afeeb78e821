/**
 * The developer portal's API (docs/spec/portal.md, docs/spec/auth.md#developer-keys): wallet
 * login, then the developer's API keys (here) and earnings, usage and collections
 * (portal-earnings.ts). Registered under `/api/sdk`; the wallet login is limited per client
 * address.
 *
 * Choices made here:
 * - the session travels as cookie `pp_session` (HttpOnly, SameSite=Strict, Path=/api/sdk, Secure
 *   over HTTPS) or as `Authorization: Bearer <token>`; the cookie wins when both are sent;
 * - a write (any method but GET, HEAD, OPTIONS) authenticated by the cookie must come from a page
 *   of the service's own origin or of `POOLPARTY_PORTAL_ORIGINS`: its `Origin`, or when that is
 *   absent its `Referer`, names one. A write naming neither is refused too: browsers send
 *   `Origin` on every write of a page's `fetch`, so only a non-browser client sends the cookie
 *   without it, and such a client sends the session as a bearer token instead (not checked: a
 *   browser never attaches one by itself). Refused with 403 `origin_not_allowed` before the
 *   session is looked up. SameSite=Strict already keeps the cookie off other sites' requests;
 *   this also covers browsers or subdomains where it does not;
 * - a key is revoked with `DELETE /api/sdk/keys/{keyId}`; revoking a revoked key answers the key
 *   as it stands, so a retried revocation is no error;
 * - a rotation without `name` keeps the old key's name;
 * - keys of other developers answer 404, exactly like keys that do not exist;
 * - a developer has at most `WORKING_API_KEYS_MAX` working keys: keys that authenticate, active
 *   ones and rotated ones in their grace period alike. One more is refused with 409
 *   `api_key_limit_reached`. A rotation is always allowed; at the cap it ends at once the grace
 *   of the developer's rotated key that would stop soonest (the rotated key itself when no other
 *   is in its grace period), so chained rotations cannot multiply the keys that work.
 */
import { randomBytes } from 'node:crypto';
import cookie from '@fastify/cookie';
import {
  type ApiKeyCreate,
  ApiKeyCreatedSchema,
  ApiKeyCreateSchema,
  ApiKeyIdSchema,
  type ApiKeyListEntry,
  ApiKeyListEntrySchema,
  ApiKeyListSchema,
  apiKeyWorks,
  type ChallengePurpose,
  type DeveloperSession,
  inline,
  PortalSessionStateSchema,
  SignedOutSchema,
  WalletLoginRequestSchema,
  WalletLoginResponseSchema,
} from '@poolparty/core';
import {
  type ApiKeyRecord,
  deleteSession,
  getApiKey,
  insertApiKeyWithinCap,
  listApiKeys,
  type NewApiKey,
  revokeApiKey,
  rotateApiKeyWithinCap,
} from '@poolparty/store';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { displayPrefix, generateApiKey, hashApiKey } from '../../auth/api-keys.js';
import { issueChallenge, type SignedChallenge, verifyChallenge } from '../../auth/challenges.js';
import {
  developerOfSession,
  hashSessionToken,
  SESSION_COOKIE,
  SESSION_TTL_MS,
  startDeveloperSession,
} from '../../auth/sessions.js';
import { listingOf } from '../../views/portal.js';
import { clientAddressLimitHook, DEFAULT_RATE_LIMITS } from '../authenticate.js';
import type { HttpDeps } from '../deps.js';
import type { App } from '../fastify.js';
import { DEVELOPER_IDEMPOTENCY } from '../idempotent-routes.js';
import {
  API_KEY_CREATE_EXAMPLE,
  API_KEY_CREATED_EXAMPLE,
  API_KEY_LIST_EXAMPLE,
  API_KEY_REVOKED_EXAMPLE,
  CHALLENGE_REQUEST_EXAMPLE,
  challengeExample,
  DEVELOPER_SESSION_EXAMPLE,
  PORTAL_SESSION_SIGNED_IN_EXAMPLE,
  PORTAL_SESSION_SIGNED_OUT_EXAMPLE,
  SIGNED_CHALLENGE_EXAMPLE,
  SIGNED_OUT_EXAMPLE,
} from '../openapi-examples.js';
import { originAllowed, ownOrigin, requestOrigin } from '../origins.js';
import { ApiError, requestTarget } from '../problem.js';
import {
  BODY_PROBLEMS,
  errorResponses,
  PORTAL_SESSION,
  SECURITY,
  sessionResponses,
  sessionWriteResponses,
  TAG,
  withExamples,
} from '../route-docs.js';
import { registerRoutes, routeOf } from '../route-table.js';
import {
  EARNINGS_ROUTES,
  type PortalContext,
  type PortalDeps,
  sessionOnly,
  sessionOnlyBodyOptional,
} from './portal-earnings.js';
import { WEBHOOK_ROUTES } from './webhooks.js';

const PURPOSE: ChallengePurpose = 'developer portal login';
const KEY_ID_BYTES = 12;
/**
 * Working keys (active, or rotated and still in their grace period) a developer may hold. One per
 * app, environment or CI job is a handful; 25 leaves room for that and for the fuzzer's 20, while
 * a script creating or rotating keys in a loop stops here instead of filling the store and the
 * key cache. Every per-key allowance (rate limits, stream caps) is multiplied by at most this.
 */
export const WORKING_API_KEYS_MAX = 25;
const BEARER = /^Bearer ([^\s]+)$/i;
/** Methods that change nothing: a cookie may come with them from anywhere. */
const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

const KeyIdParamsSchema = Type.Object(
  { keyId: inline(ApiKeyIdSchema) },
  { description: 'Path parameters naming an API key.', additionalProperties: false },
);

const TAGS = [TAG.portal];

/** What the key, login and sign-out routes need beside the portal's shared dependencies. */
interface KeyRouteDeps extends PortalDeps {
  /** The per-client-address limit of the wallet login. */
  readonly limitLogins: ReturnType<typeof clientAddressLimitHook>;
}

const keyRoute = routeOf<KeyRouteDeps>();

const developerWalletLogin = keyRoute({
  method: 'POST',
  url: '/wallet-login',
  hooks: ({ limitLogins }) => ({ onRequest: limitLogins }),
  schema: {
    operationId: 'developerWalletLogin',
    summary: 'Sign in to the developer portal with a Canton wallet',
    description:
      'Two steps: `{partyId}` answers a challenge; the signed challenge answers a developer ' +
      'session (also set as the HttpOnly cookie `pp_session`). Limited per client address.',
    tags: TAGS,
    security: SECURITY.none,
    body: withExamples(
      WalletLoginRequestSchema,
      CHALLENGE_REQUEST_EXAMPLE,
      SIGNED_CHALLENGE_EXAMPLE,
    ),
    response: {
      200: withExamples(
        WalletLoginResponseSchema,
        challengeExample(PURPOSE),
        DEVELOPER_SESSION_EXAMPLE,
      ),
    },
    problems: errorResponses(
      [
        ...BODY_PROBLEMS,
        'invalid_nonce',
        'invalid_signature',
        'rate_limited',
        'ledger_unavailable',
      ],
      {
        rate_limited: 'too many login attempts from this client address',
        ledger_unavailable:
          "the ledger could not be asked whether the key acts for the party (a party in a participant's namespace)",
      },
    ),
  },
  handler: async ({ ctx }, request, reply) => {
    const { body } = request;
    if (!('signature' in body)) return issueChallenge(ctx, body.partyId, PURPOSE);
    return signIn(ctx, request, reply, body);
  },
});

const listApiKeysRoute = keyRoute({
  method: 'GET',
  url: '/keys',
  hooks: sessionOnly,
  schema: {
    operationId: 'listApiKeys',
    summary: "List the developer's API keys",
    description: 'Every key of the signed-in developer, revoked ones included, with its usage.',
    ...PORTAL_SESSION,
    response: {
      200: withExamples(ApiKeyListSchema, API_KEY_LIST_EXAMPLE),
    },
    problems: sessionResponses(),
  },
  handler: async ({ ctx, apiKeys, developerOf }, request) => {
    // Counts still buffered in this process would otherwise show up only seconds later.
    await apiKeys.flushUsage();
    const keys = await listApiKeys(ctx.db, developerOf(request));
    const now = ctx.clock.now();
    return { keys: keys.map((key) => listingOf(key, now)) };
  },
});

/** `POST /keys`: a new key, or the successor of a rotated one. */
const createApiKey = keyRoute({
  method: 'POST',
  url: '/keys',
  idempotency: DEVELOPER_IDEMPOTENCY,
  // A bare POST creates an unnamed key, as `{}` does.
  hooks: sessionOnlyBodyOptional,
  schema: {
    operationId: 'createApiKey',
    summary: 'Create an API key, or rotate one',
    description:
      'The full key is in this answer only. With `rotate`, the old key keeps working for 24 h. ' +
      `An empty body creates an unnamed key. At most ${WORKING_API_KEYS_MAX} working keys ` +
      '(active, or rotated and in their grace period) per developer. A rotation is always ' +
      'allowed; at the cap it ends at once the grace of the rotated key that would stop soonest ' +
      '(the rotated key itself when no other is in its grace period).',
    ...PORTAL_SESSION,
    body: withExamples(ApiKeyCreateSchema, API_KEY_CREATE_EXAMPLE),
    response: {
      201: withExamples(ApiKeyCreatedSchema, API_KEY_CREATED_EXAMPLE),
    },
    problems: sessionWriteResponses([...BODY_PROBLEMS, 'not_found', 'api_key_limit_reached'], {
      not_found: 'the key to `rotate` does not exist, is not yours, or is already revoked',
      api_key_limit_reached: `you have ${WORKING_API_KEYS_MAX} working keys already (rotated ones count until their grace ends); revoke one first (a rotation is always allowed)`,
    }),
  },
  handler: async ({ ctx, apiKeys, developerOf }, request, reply) => {
    const created = await createKey(ctx, developerOf(request), request.body);
    apiKeys.invalidate();
    reply.code(201);
    return created;
  },
});

const revokeApiKeyRoute = keyRoute({
  method: 'DELETE',
  url: '/keys/:keyId',
  hooks: sessionOnly,
  schema: {
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key at once',
    description: 'Revoking a revoked key answers the key as it stands, so a retry is no error.',
    ...PORTAL_SESSION,
    params: KeyIdParamsSchema,
    response: {
      200: withExamples(ApiKeyListEntrySchema, API_KEY_REVOKED_EXAMPLE),
    },
    problems: sessionWriteResponses(['validation_error', 'not_found'], {
      not_found: 'no key with this id among yours',
    }),
  },
  handler: async ({ ctx, apiKeys, developerOf }, request) => {
    const revoked = await revokeKey(ctx, developerOf(request), request.params.keyId);
    apiKeys.invalidate();
    return listingOf(revoked, ctx.clock.now());
  },
});

const developerSignOut = keyRoute({
  method: 'DELETE',
  url: '/session',
  hooks: sessionOnly,
  schema: {
    operationId: 'developerSignOut',
    summary: 'Sign out of the developer portal',
    description:
      'Ends the session presented (cookie or bearer token) and clears the session cookie.',
    ...PORTAL_SESSION,
    response: { 200: withExamples(SignedOutSchema, SIGNED_OUT_EXAMPLE) },
    problems: sessionWriteResponses(),
  },
  handler: async ({ ctx, developerOf }, request, reply) => {
    const token = sessionOf(request)?.token;
    if (token !== undefined) await deleteSession(ctx.db, hashSessionToken(token));
    reply.clearCookie(SESSION_COOKIE, { path: '/api/sdk' });
    return { partyId: developerOf(request), signedOut: true as const };
  },
});

const developerSessionState = keyRoute({
  method: 'GET',
  url: '/session',
  schema: {
    operationId: 'getDeveloperSession',
    summary: 'Say who is signed in to the developer portal',
    description:
      'Who the session presented (cookie or bearer token) signs in, if anyone. Answers 200 ' +
      'either way: a page asks it before sign-in, and "signed out" is an answer, not an error.',
    tags: TAGS,
    security: [{}, ...SECURITY.developerSession],
    response: {
      200: withExamples(
        PortalSessionStateSchema,
        PORTAL_SESSION_SIGNED_IN_EXAMPLE,
        PORTAL_SESSION_SIGNED_OUT_EXAMPLE,
      ),
    },
    problems: errorResponses([]),
  },
  handler: async ({ ctx }, request, reply) => {
    reply.header('Cache-Control', 'no-store');
    const token = sessionOf(request)?.token;
    const partyId =
      token === undefined ? null : await developerOfSession(ctx.db, token, ctx.clock.now());
    return { signedIn: partyId !== null, partyId };
  },
});

const PORTAL_ROUTES = [
  developerWalletLogin,
  developerSessionState,
  listApiKeysRoute,
  createApiKey,
  revokeApiKeyRoute,
  developerSignOut,
  ...EARNINGS_ROUTES,
  ...WEBHOOK_ROUTES,
];

/** What the portal plugin is registered with: its context, the API keys and the login buckets. */
export interface PortalRoutesOptions extends Pick<HttpDeps, 'apiKeys' | 'buckets'> {
  readonly ctx: PortalContext;
}

/** The developer portal's routes, a plugin (mounted at `/api/sdk`). */
export async function portalRoutes(
  app: App,
  { ctx, apiKeys, buckets }: PortalRoutesOptions,
): Promise<void> {
  await app.register(cookie);
  registerRoutes(
    app,
    {
      ctx,
      apiKeys,
      limitLogins: clientAddressLimitHook(buckets, DEFAULT_RATE_LIMITS.loginAttemptsPerMin),
      ...sessionGuard(ctx),
    },
    PORTAL_ROUTES,
  );
}

type SessionGuard = Pick<PortalDeps, 'requireSession' | 'developerOf'>;

function sessionGuard(ctx: PortalContext): SessionGuard {
  const developers = new WeakMap<FastifyRequest, string>();
  return {
    async requireSession(request) {
      const session = sessionOf(request);
      if (session === undefined) {
        throw new ApiError(
          'missing_session',
          `Sign in at POST /api/sdk/wallet-login; send the session as cookie ${SESSION_COOKIE} or as Authorization: Bearer <token>.`,
        );
      }
      if (session.from === 'cookie' && !READ_METHODS.has(request.method)) {
        requirePortalOrigin(request, ctx.settings.portalOrigins);
      }
      const developer = await developerOfSession(ctx.db, session.token, ctx.clock.now());
      if (developer === null) {
        throw new ApiError(
          'invalid_session',
          'The session is unknown or has expired; sign in again.',
        );
      }
      developers.set(request, developer);
    },
    developerOf(request) {
      const developer = developers.get(request);
      if (developer === undefined) throw new Error('route is missing the session hook');
      return developer;
    },
  };
}

async function signIn(
  ctx: PortalContext,
  request: FastifyRequest,
  reply: FastifyReply,
  answer: SignedChallenge,
): Promise<DeveloperSession> {
  const partyId = await verifyChallenge(ctx, answer, PURPOSE);
  const session = await startDeveloperSession(ctx.db, partyId, ctx.clock.now());
  // Max-Age rather than Expires: the browser's clock need not agree with the service's.
  reply.setCookie(SESSION_COOKIE, session.token, {
    httpOnly: true,
    sameSite: 'strict',
    path: '/api/sdk',
    secure: request.protocol === 'https',
    maxAge: SESSION_TTL_MS / 1000,
  });
  return { token: session.token, expiresAt: session.expiresAt.toISOString(), partyId };
}

interface PresentedSession {
  readonly token: string;
  /** The cookie a browser attaches by itself, or a bearer token a client sets on purpose. */
  readonly from: 'cookie' | 'bearer';
}

function sessionOf(request: FastifyRequest): PresentedSession | undefined {
  const fromCookie = request.cookies[SESSION_COOKIE];
  if (fromCookie !== undefined && fromCookie.length > 0)
    return { token: fromCookie, from: 'cookie' };
  const header = request.headers.authorization;
  const bearer = typeof header === 'string' ? BEARER.exec(header)?.[1] : undefined;
  return bearer === undefined ? undefined : { token: bearer, from: 'bearer' };
}

/** A cookie-authenticated write comes from a page of this service or of `portalOrigins`. */
function requirePortalOrigin(request: FastifyRequest, allowed: readonly string[]): void {
  const origin = requestOrigin(request);
  if (origin !== undefined && originAllowed(origin, ownOrigin(request), allowed)) return;
  const from = origin === undefined ? 'a request naming no Origin' : `the browser origin ${origin}`;
  throw new ApiError(
    'origin_not_allowed',
    `${requestTarget(request)} with the session cookie does not take ${from}: only pages of this service (${ownOrigin(request)}) and POOLPARTY_PORTAL_ORIGINS may. Scripts send the session as Authorization: Bearer <token> instead of the cookie.`,
  );
}

async function createKey(
  ctx: PortalContext,
  developer: string,
  request: ApiKeyCreate,
): Promise<ApiKeyListEntry & { readonly key: string }> {
  const key = generateApiKey(ctx.settings.environment);
  const now = ctx.clock.now();
  const newKey: NewApiKey = {
    keyId: `key_${randomBytes(KEY_ID_BYTES).toString('base64url')}`,
    developerParty: developer,
    name: request.name ?? '',
    keyHash: hashApiKey(key),
    prefix: displayPrefix(key),
    environment: ctx.settings.environment,
    createdAt: now,
  };
  if (request.rotate === undefined) {
    const created = await insertApiKeyWithinCap(ctx.db, newKey, WORKING_API_KEYS_MAX);
    if (created === null) {
      throw new ApiError(
        'api_key_limit_reached',
        `You have ${WORKING_API_KEYS_MAX} working API keys (rotated keys count until their grace period ends), the most a developer may hold; revoke one (DELETE /api/sdk/keys/{keyId}) to free a place, or rotate an existing key.`,
        { limit: WORKING_API_KEYS_MAX },
      );
    }
    return { ...listingOf(created, now), key };
  }
  const old = await ownKey(ctx, developer, request.rotate);
  const rotated = await rotateApiKeyWithinCap(
    ctx.db,
    { oldKeyId: old.keyId, newKey: { ...newKey, name: request.name ?? old.name }, now },
    WORKING_API_KEYS_MAX,
  );
  if (rotated === null) {
    throw new ApiError('not_found', `Key ${old.keyId} is revoked or was already rotated.`);
  }
  return { ...listingOf(rotated, now), key };
}

async function revokeKey(
  ctx: PortalContext,
  developer: string,
  keyId: string,
): Promise<ApiKeyRecord> {
  const key = await ownKey(ctx, developer, keyId);
  if (key.revokedAt !== null) return key;
  const revoked = await revokeApiKey(ctx.db, {
    keyId,
    developerParty: developer,
    now: ctx.clock.now(),
  });
  // A concurrent revocation got there first: the key is revoked either way.
  return revoked ?? (await ownKey(ctx, developer, keyId));
}

/** The developer's key; anyone else's answers exactly like a key that does not exist. */
async function ownKey(ctx: PortalContext, developer: string, keyId: string): Promise<ApiKeyRecord> {
  const key = await getApiKey(ctx.db, keyId);
  if (key === null || key.developerParty !== developer) {
    throw new ApiError('not_found', `No API key ${keyId}.`);
  }
  return key;
}
