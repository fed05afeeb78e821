/**
 * The PoolParty client: options, and one instance of each resource
 * over one request sender.
 */
import { recordParts } from './client-parts.js';
import { DEFAULT_BASE_URLS, type Environment, resolveBaseUrl } from './environments.js';
import { ValidationError } from './errors.js';
import { type Sleep, sleep } from './http/abort.js';
import {
  type CallOptions,
  type FetchLike,
  RequestSender,
  type WalletTokenSource,
} from './http/request-sender.js';
import { Pools } from './resources/pools.js';
import { Quotes } from './resources/quotes.js';
import { Swaps } from './resources/swaps.js';
import { Tokens } from './resources/tokens.js';
import { TrackList, type TrackParams } from './resources/track.js';
import { WalletAuth } from './resources/wallet-auth.js';
import type { AtomicSwapStatus, SwapStatus } from './types.js';

/** Options of `new PoolParty(...)`. */
export interface PoolPartyOptions {
  /** Developer API key (`pp_live_…` on mainnet, `pp_test_…` on devnet). Required. */
  readonly apiKey: string;
  /** Logical target; selects the default `baseUrl`. Default `'mainnet'`. */
  readonly environment?: Environment;
  /** The API origin, e.g. `http://127.0.0.1:8787`; overrides the environment's default. */
  readonly baseUrl?: string;
  /**
   * End-user wallet token for wallet-authenticated calls (`swaps.*`, `track`): a string, or a
   * function (sync or async) read on every such call, so a refreshed token is picked up.
   */
  readonly walletToken?: WalletTokenSource;
  /** Milliseconds each request attempt may take. Default 30000. */
  readonly timeout?: number;
  /** The `fetch` to use. Default: the platform's `fetch`. */
  readonly fetch?: FetchLike;
  /** Retries of a failed request where retrying is safe. Default 2. */
  readonly maxRetries?: number;
  /** Milliseconds between status polls when a swap's event stream is unavailable. Default 2000. */
  readonly pollInterval?: number;
  /** Replaces timer waits (backoff, polling); for deterministic tests. */
  readonly sleep?: Sleep;
  /** Replaces `Math.random` in backoff jitter; for deterministic tests. */
  readonly random?: () => number;
}

/** Default timeout of one request attempt, in milliseconds. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** Default retries of a failed request. */
export const DEFAULT_MAX_RETRIES = 2;
/** Default wait between status polls. */
export const DEFAULT_POLL_INTERVAL_MS = 2_000;

/** The PoolParty client. */
export class PoolParty {
  /** Pools: list, detail, stats, ticker. */
  readonly pools: Pools;
  /** Tokens that can be swapped. */
  readonly tokens: Tokens;
  /** Swap quotes. */
  readonly quotes: Quotes;
  /** Swap intents: create, status, cancel. */
  readonly swaps: Swaps;
  /** Wallet challenge and wallet token. */
  readonly walletAuth: WalletAuth;
  /** The API origin this client calls. */
  readonly baseUrl: string;
  /** The environment this client targets. */
  readonly environment: Environment;
  readonly #sender: RequestSender;

  /** @param options - API key, environment or base URL, wallet token, timeout, retries. */
  constructor(options: PoolPartyOptions) {
    checkOptions(options);
    this.environment = options.environment ?? 'mainnet';
    this.baseUrl = resolveBaseUrl(this.environment, options.baseUrl);
    const wait = options.sleep ?? sleep;
    this.#sender = new RequestSender({
      apiKey: options.apiKey,
      baseUrl: this.baseUrl,
      timeoutMs: options.timeout ?? DEFAULT_TIMEOUT_MS,
      retriesMax: options.maxRetries ?? DEFAULT_MAX_RETRIES,
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      walletToken: options.walletToken,
      sleep: wait,
      random: options.random ?? Math.random,
      now: () => Date.now(),
    });
    this.pools = new Pools(this.#sender);
    this.tokens = new Tokens(this.#sender);
    this.quotes = new Quotes(this.#sender);
    this.walletAuth = new WalletAuth(this.#sender);
    const follow = {
      pollIntervalMs: options.pollInterval ?? DEFAULT_POLL_INTERVAL_MS,
      sleep: wait,
      now: () => Date.now(),
    };
    this.swaps = new Swaps(this.#sender, follow, this.quotes);
    // For `withLiquidity(pp)` of `@poolparty/sdk/liquidity`, which adds `pp.liquidity`.
    recordParts(this, { sender: this.#sender, follow });
  }

  /**
   * The swaps of `partyId` created under this API key, newest first: the deposit flow's
   * (`SwapStatus`) and atomic swaps (`AtomicSwapStatus`), `kind` telling them apart; `{ kind }`
   * keeps one kind, typed as it. `partyId` must be the wallet token's party (else
   * `AuthenticationError`). `await` it for the first page, or `for await` over it for every swap
   * on every page.
   */
  track(
    partyId: string,
    params: TrackParams & { readonly kind: 'deposit' },
    options?: CallOptions,
  ): TrackList<SwapStatus>;
  track(
    partyId: string,
    params: TrackParams & { readonly kind: 'atomic' },
    options?: CallOptions,
  ): TrackList<AtomicSwapStatus>;
  track(partyId: string, params?: TrackParams, options?: CallOptions): TrackList;
  track(partyId: string, params?: TrackParams, options?: CallOptions): TrackList {
    return new TrackList(this.#sender, partyId, params, options);
  }
}

function checkOptions(options: PoolPartyOptions): void {
  const problem = optionsProblem(options);
  if (problem !== null) {
    throw new ValidationError(`Invalid client options: ${problem}`, { code: 'validation_error' });
  }
}

function optionsProblem(options: PoolPartyOptions): string | null {
  if (typeof options?.apiKey !== 'string' || options.apiKey.length === 0) {
    return 'apiKey is required';
  }
  const { environment, timeout, maxRetries, pollInterval } = options;
  if (environment !== undefined && !Object.hasOwn(DEFAULT_BASE_URLS, environment)) {
    return `environment must be 'mainnet' or 'devnet'`;
  }
  if (timeout !== undefined && !(timeout > 0)) return 'timeout must be a positive number of ms';
  if (maxRetries !== undefined && !(Number.isInteger(maxRetries) && maxRetries >= 0)) {
    return 'maxRetries must be a whole number ≥ 0';
  }
  if (pollInterval !== undefined && !(pollInterval > 0)) return 'pollInterval must be positive';
  if (typeof globalThis.fetch !== 'function' && options.fetch === undefined) {
    return 'no fetch: pass the `fetch` option on platforms without one';
  }
  return null;
}
