/**
 * The developer portal's client: wallet sign-in, API keys, earnings, usage and
 * collections under `/api/sdk` (webhook endpoints are the webhooks entry's `withWebhooks`). A session authenticates these calls, not an API key: `signIn`
 * keeps the session it receives and sends it as a bearer token; in a browser on the service's
 * origin the session cookie the sign-in sets is sent as well.
 *
 * @example
 * const portal = new DeveloperPortal({ environment: 'devnet', baseUrl });
 * const challenge = await portal.requestChallenge(partyId);
 * await portal.signIn({ partyId, nonce: challenge.nonce, ...(await wallet.sign(challenge.message)) });
 * const { key } = await portal.keys.create({ name: 'web shop' });
 */

import { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS } from './client.js';
import { recordParts } from './client-parts.js';
import { DEFAULT_BASE_URLS, type Environment, resolveBaseUrl } from './environments.js';
import { ValidationError } from './errors.js';
import type { Sleep } from './http/abort.js';
import { sleep } from './http/abort.js';
import {
  type CallOptions,
  type FetchLike,
  RequestSender,
  type WriteOptions,
} from './http/request-sender.js';
import type {
  ApiKeyCreated,
  ApiKeyList,
  ApiKeyListEntry,
  Collection,
  CollectionList,
  DeveloperSession,
  Earnings,
  PortalPeriod,
  SignedOut,
  Usage,
} from './portal-types.js';
import { segment } from './resources/path.js';
import type { VerifyChallengeParams } from './resources/wallet-auth.js';
import type { Challenge } from './types.js';
import { checkText } from './validation.js';

/** Options of `new DeveloperPortal(...)`. */
export interface DeveloperPortalOptions {
  /** Logical target; selects the default `baseUrl`. Default `'mainnet'`. */
  readonly environment?: Environment;
  /** The API origin; overrides the environment's default. */
  readonly baseUrl?: string;
  /** A session token from an earlier `signIn`, to resume it. */
  readonly session?: string;
  /** Milliseconds each request attempt may take. Default 30000. */
  readonly timeout?: number;
  /** The `fetch` to use. Default: the platform's `fetch`. */
  readonly fetch?: FetchLike;
  /** Retries of a failed request where retrying is safe. Default 2. */
  readonly maxRetries?: number;
  /** Replaces timer waits (backoff); for deterministic tests. */
  readonly sleep?: Sleep;
}

/** Parameters of the earnings and usage reports. */
export interface PortalReportParams {
  /** Default `'30d'`. */
  readonly period?: PortalPeriod;
  /** Only the swaps made with this key of yours. */
  readonly keyId?: string;
}

/** Parameters of `portal.collections.create`. */
export interface CollectParams {
  readonly poolId: string;
  /** The token whose earnings to collect (the swaps' input token). */
  readonly token: string;
  readonly tokenAdmin: string;
}

const PERIODS: readonly PortalPeriod[] = ['24h', '7d', '30d', 'all'];

/** `portal.keys`. */
export class PortalKeys {
  readonly #sender: RequestSender;

  /** @param sender - The portal's request sender. */
  constructor(sender: RequestSender) {
    this.#sender = sender;
  }

  /** Every key of the signed-in developer, revoked ones included, with its request count. */
  async list(options?: CallOptions): Promise<ApiKeyList> {
    return this.#sender.send({
      method: 'GET',
      path: '/api/sdk/keys',
      session: true,
      retrySafe: true,
      options,
    });
  }

  /**
   * Creates a key; the full key is in this answer only. Retried under one `Idempotency-Key`, so a
   * retry answers the key the first attempt created rather than making a second.
   */
  async create(
    params: { readonly name?: string } = {},
    options?: WriteOptions,
  ): Promise<ApiKeyCreated> {
    if (params.name !== undefined) checkText('name', params.name);
    return this.#sender.send({
      method: 'POST',
      path: '/api/sdk/keys',
      body: params.name === undefined ? {} : { name: params.name },
      session: true,
      retrySafe: true,
      options,
    });
  }

  /** Replaces a key: the old one keeps working for the grace period (`revokedAt`), then stops. */
  async rotate(
    keyId: string,
    params: { readonly name?: string } = {},
    options?: WriteOptions,
  ): Promise<ApiKeyCreated> {
    checkText('keyId', keyId);
    if (params.name !== undefined) checkText('name', params.name);
    return this.#sender.send({
      method: 'POST',
      path: '/api/sdk/keys',
      body: { rotate: keyId, ...(params.name !== undefined && { name: params.name }) },
      session: true,
      retrySafe: true,
      options,
    });
  }

  /** Revokes a key at once; revoking a revoked key answers it as it stands. */
  async revoke(keyId: string, options?: CallOptions): Promise<ApiKeyListEntry> {
    return this.#sender.send({
      method: 'DELETE',
      path: `/api/sdk/keys/${segment('keyId', keyId)}`,
      session: true,
      retrySafe: true,
      options,
    });
  }
}

/** `portal.collections`. */
export class PortalCollections {
  readonly #sender: RequestSender;

  /** @param sender - The portal's request sender. */
  constructor(sender: RequestSender) {
    this.#sender = sender;
  }

  /** Your collections, newest first. */
  async list(options?: CallOptions): Promise<CollectionList> {
    return this.#sender.send({
      method: 'GET',
      path: '/api/sdk/collections',
      session: true,
      retrySafe: true,
      options,
    });
  }

  /**
   * Collects everything accrued in one pool and token to your party, exactly once; follow it with
   * `get` until `collected` (with the ledger's update id). Retried under one `Idempotency-Key`,
   * which answers the first attempt's collection; a new call finds nothing left
   * (`ConflictError`, code `nothing_to_collect`) and pays nothing.
   */
  async create(params: CollectParams, options?: WriteOptions): Promise<Collection> {
    for (const field of ['poolId', 'token', 'tokenAdmin'] as const) checkText(field, params[field]);
    const { poolId, token, tokenAdmin } = params;
    return this.#sender.send({
      method: 'POST',
      path: '/api/sdk/collections',
      body: { poolId, token, tokenAdmin },
      session: true,
      retrySafe: true,
      options,
    });
  }

  /** One collection as it stands. */
  async get(collectionId: string, options?: CallOptions): Promise<Collection> {
    return this.#sender.send({
      method: 'GET',
      path: `/api/sdk/collections/${segment('collectionId', collectionId)}`,
      session: true,
      retrySafe: true,
      options,
    });
  }
}

/** The developer portal's client. */
export class DeveloperPortal {
  /** API keys: list, create, rotate, revoke. */
  readonly keys: PortalKeys;
  /** Collections of earnings. */
  readonly collections: PortalCollections;
  /** The API origin this client calls. */
  readonly baseUrl: string;
  readonly #sender: RequestSender;
  #session: string | null;

  /** @param options - Environment or base URL, an existing session, timeout, retries. */
  constructor(options: DeveloperPortalOptions = {}) {
    const problem = optionsProblem(options);
    if (problem !== null) {
      throw new ValidationError(`Invalid portal options: ${problem}`, { code: 'validation_error' });
    }
    this.baseUrl = resolveBaseUrl(options.environment ?? 'mainnet', options.baseUrl);
    this.#session = options.session ?? null;
    this.#sender = new RequestSender({
      apiKey: null,
      sessionToken: () => this.#session,
      baseUrl: this.baseUrl,
      timeoutMs: options.timeout ?? DEFAULT_TIMEOUT_MS,
      retriesMax: options.maxRetries ?? DEFAULT_MAX_RETRIES,
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      walletToken: undefined,
      sleep: options.sleep ?? sleep,
      random: Math.random,
      now: () => Date.now(),
    });
    this.keys = new PortalKeys(this.#sender);
    this.collections = new PortalCollections(this.#sender);
    recordParts(this, { sender: this.#sender });
  }

  /** The session token in use; null before `signIn`. */
  get session(): string | null {
    return this.#session;
  }

  /** Ends the session on the service (and its cookie), then forgets it here. */
  async signOut(options?: CallOptions): Promise<SignedOut> {
    try {
      return await this.#sender.send<SignedOut>({
        method: 'DELETE',
        path: '/api/sdk/session',
        session: true,
        retrySafe: true,
        options,
      });
    } finally {
      this.#session = null;
    }
  }

  /** Step one of the wallet sign-in: the challenge the developer's wallet signs. */
  async requestChallenge(partyId: string, options?: CallOptions): Promise<Challenge> {
    checkText('partyId', partyId);
    return this.#sender.send({
      method: 'POST',
      path: '/api/sdk/wallet-login',
      body: { partyId },
      retrySafe: true,
      options,
    });
  }

  /** Step two: the signed challenge; the session it answers is used from now on. */
  async signIn(params: VerifyChallengeParams, options?: CallOptions): Promise<DeveloperSession> {
    for (const field of ['partyId', 'nonce', 'signature', 'publicKey'] as const) {
      checkText(field, params[field]);
    }
    const { partyId, nonce, signature, publicKey } = params;
    const session = await this.#sender.send<DeveloperSession>({
      method: 'POST',
      path: '/api/sdk/wallet-login',
      body: { partyId, nonce, signature, publicKey },
      // The nonce is consumed by the first attempt that arrives.
      retrySafe: false,
      options,
    });
    this.#session = session.token;
    return session;
  }

  /** Earnings per pool and token over the period, with a series for charts. */
  async earnings(params: PortalReportParams = {}, options?: CallOptions): Promise<Earnings> {
    return this.#sender.send({
      method: 'GET',
      path: '/api/sdk/earnings',
      query: reportQuery(params),
      session: true,
      retrySafe: true,
      options,
    });
  }

  /** Swaps, failures and volume over time, and request counts per key. */
  async usage(params: PortalReportParams = {}, options?: CallOptions): Promise<Usage> {
    return this.#sender.send({
      method: 'GET',
      path: '/api/sdk/usage',
      query: reportQuery(params),
      session: true,
      retrySafe: true,
      options,
    });
  }
}

function reportQuery(params: PortalReportParams): Record<string, string | undefined> {
  if (params.period !== undefined && !PERIODS.includes(params.period)) {
    throw new ValidationError(`period must be one of ${PERIODS.join(', ')}`, {
      code: 'validation_error',
    });
  }
  if (params.keyId !== undefined) checkText('keyId', params.keyId);
  return { period: params.period, keyId: params.keyId };
}

function optionsProblem(options: DeveloperPortalOptions): string | null {
  const { environment, timeout, maxRetries } = options;
  if (environment !== undefined && !Object.hasOwn(DEFAULT_BASE_URLS, environment)) {
    return `environment must be 'mainnet' or 'devnet'`;
  }
  if (timeout !== undefined && !(timeout > 0)) return 'timeout must be a positive number of ms';
  if (maxRetries !== undefined && !(Number.isInteger(maxRetries) && maxRetries >= 0)) {
    return 'maxRetries must be a whole number ≥ 0';
  }
  if (typeof globalThis.fetch !== 'function' && options.fetch === undefined) {
    return 'no fetch: pass the `fetch` option on platforms without one';
  }
  return null;
}
