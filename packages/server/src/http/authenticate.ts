/**
 * Authentication and rate limiting hooks (docs/spec/protocol.md#authentication-headers,
 * docs/spec/protocol.md#rate-limits).
 * - Every `/v1` request carries `X-API-Key`: a valid, unrevoked key of this environment.
 * - Wallet-authenticated routes also carry `Authorization: Bearer <wallet token>`.
 * - Rate limits are token buckets per API key (reads and swap creations apart) and per client
 *   address on the unauthenticated login steps and the devnet faucet; every limited response
 *   says where it stands in `RateLimit-*` headers.
 */

import { type ApiKeyWithDeveloper, isApiKeyUsable, isWalletTokenRevoked } from '@poolparty/store';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { ApiKeyDirectory } from '../auth/api-key-directory.js';
import { classifyApiKey } from '../auth/api-keys.js';
import { DEFAULT_RATE_LIMITS } from '../auth/rate-limits.js';
import type { ServiceContext } from '../context.js';
import { ApiError } from './problem.js';
import type { BucketStore, RateDecision } from './token-bucket.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated API key, on `/v1` routes. */
    apiKey: ApiKeyWithDeveloper | null;
    /** The wallet token's party, on wallet-authenticated routes. */
    walletParty: string | null;
  }
}

const MINUTE_MS = 60_000;

export { DEFAULT_RATE_LIMITS };

/**
 * What a per-client-address bucket counts: each has its own budget, so funding wallets never
 * spends the login attempts, nor the other way round.
 */
export type ClientAddressBucket = 'login' | 'faucet';

export type RateClass = 'reads' | 'swaps';

/** The routes that create a swap: the deposit flow's intent and the atomic swap's prepare. */
const SWAP_CREATIONS: ReadonlySet<string> = new Set(['/v1/swaps', '/v1/atomic-swaps']);

/** Swap creation has its own, smaller budget; every other `/v1` call counts as a read. */
function rateClassOf(method: string, routeUrl: string | undefined): RateClass {
  return method === 'POST' && routeUrl !== undefined && SWAP_CREATIONS.has(routeUrl)
    ? 'swaps'
    : 'reads';
}

/** Names in lower case, as the reply keeps them (see security-headers.ts). */
function setRateLimitHeaders(reply: FastifyReply, decision: RateDecision): void {
  reply.header('ratelimit-limit', String(decision.limit));
  reply.header('ratelimit-remaining', String(decision.remaining));
  reply.header('ratelimit-reset', String(decision.resetSeconds));
}

function refuseIfLimited(reply: FastifyReply, decision: RateDecision): void {
  setRateLimitHeaders(reply, decision);
  if (decision.allowed) return;
  throw new ApiError(
    'rate_limited',
    `Rate limit of ${decision.limit} requests per minute reached; retry in ${decision.retryAfterSeconds} s.`,
    { retryAfter: decision.retryAfterSeconds },
    { 'Retry-After': String(decision.retryAfterSeconds) },
  );
}

export function apiKeyHook(
  ctx: Pick<ServiceContext, 'clock' | 'settings'>,
  directory: ApiKeyDirectory,
  buckets: BucketStore,
) {
  /** Every check after the look-up: revocation, then the key's rate limit. */
  const admit = (
    request: FastifyRequest,
    reply: FastifyReply,
    key: ApiKeyWithDeveloper | null,
  ): void => {
    if (key === null) throw new ApiError('invalid_api_key', 'The API key is not valid.');
    const now = ctx.clock.now();
    if (!isApiKeyUsable(key, now))
      throw new ApiError('api_key_revoked', 'The API key was revoked.');
    // Only a POST can be a swap creation; `routeOptions` builds a new object on every read.
    const rateClass =
      request.method === 'POST' ? rateClassOf('POST', request.routeOptions.url) : 'reads';
    const limit =
      rateClass === 'swaps'
        ? (key.swapsPerMin ?? DEFAULT_RATE_LIMITS.swapsPerMin)
        : (key.readsPerMin ?? DEFAULT_RATE_LIMITS.readsPerMin);
    refuseIfLimited(reply, buckets.take(`${key.keyId}:${rateClass}`, Date.now(), limit, MINUTE_MS));
    request.apiKey = key;
    directory.recordUse(key.keyId, now);
  };
  // A callback hook, not an async one: a key whose look-up is cached (nearly every request) is
  // checked without a promise; only a look-up in the store waits.
  return function authenticateApiKey(
    request: FastifyRequest,
    reply: FastifyReply,
    done: HookHandlerDoneFunction,
  ): void {
    const presented = request.headers['x-api-key'];
    if (typeof presented !== 'string' || presented.length === 0) {
      throw new ApiError('missing_api_key', 'Send your API key in the X-API-Key header.');
    }
    const shape = classifyApiKey(presented);
    if (shape === 'malformed') throw new ApiError('invalid_api_key', 'The API key is not valid.');
    if (shape.environment !== ctx.settings.environment) {
      throw new ApiError(
        'wrong_environment',
        `This is the ${ctx.settings.environment} service; the key is for ${shape.environment}.`,
      );
    }
    const cached = directory.cachedPresented(presented);
    if (cached !== undefined) {
      admit(request, reply, cached);
      done();
      return;
    }
    directory
      .findPresented(presented)
      .then((key) => admit(request, reply, key))
      .then(() => done(), done);
  };
}

export function clientAddressLimitHook(
  buckets: BucketStore,
  perMin: number,
  bucket: ClientAddressBucket = 'login',
) {
  return async function limitClientAddress(request: FastifyRequest, reply: FastifyReply) {
    const key = `${bucket}:ip:${request.ip}`;
    refuseIfLimited(reply, buckets.take(key, Date.now(), perMin, MINUTE_MS));
  };
}

const BEARER = /^Bearer ([^\s]+)$/i;

export function walletTokenHook(ctx: Pick<ServiceContext, 'walletTokens' | 'clock' | 'db'>) {
  return async function authenticateWallet(request: FastifyRequest) {
    const header = request.headers.authorization;
    const token = typeof header === 'string' ? BEARER.exec(header)?.[1] : undefined;
    if (token === undefined) {
      throw new ApiError(
        'missing_wallet_token',
        'Send the wallet token as Authorization: Bearer <token>.',
      );
    }
    const claims = await ctx.walletTokens.verify(token, ctx.clock.now());
    if (typeof claims === 'string') {
      throw new ApiError('invalid_wallet_token', walletTokenDetail[claims]);
    }
    if (await isWalletTokenRevoked(ctx.db, claims.jti)) {
      throw new ApiError('invalid_wallet_token', 'The wallet token was revoked.');
    }
    request.walletParty = claims.partyId;
  };
}

const walletTokenDetail = {
  malformed: 'The wallet token is malformed.',
  expired: 'The wallet token expired; ask the wallet to sign a new challenge.',
  invalid: 'The wallet token is not valid for this service.',
} as const;

/** The wallet party of an authenticated request (routes behind `walletTokenHook` only). */
export function walletPartyOf(request: FastifyRequest): string {
  if (request.walletParty === null) throw new Error('route is missing the wallet-token hook');
  return request.walletParty;
}

/** The API key of an authenticated request (routes behind `apiKeyHook` only). */
export function apiKeyOf(request: FastifyRequest): ApiKeyWithDeveloper {
  if (request.apiKey === null) throw new Error('route is missing the API-key hook');
  return request.apiKey;
}
