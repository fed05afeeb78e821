/**
 * The one place requests are sent from: authentication headers, JSON, the timeout joined with the
 * caller's `AbortSignal`, retries with backoff, idempotency keys and the mapping of failures to
 * typed errors. Resources describe a request; this sends it.
 */
import { errorFromResponse } from '../error-mapping.js';
import { AuthenticationError, PoolPartyError, TimeoutError } from '../errors.js';
import { deadline, raceAbort, type Sleep } from './abort.js';
import { idempotencyKeyOf } from './idempotency-key.js';
import { noResponse, timedOut } from './no-response.js';
import { REQUEST_ID_HEADER, readBody } from './response-body.js';
import { type AttemptFailure, parseRetryAfterMs, retryDelayMs, shouldRetry } from './retry.js';

/** The `fetch` the SDK calls: the platform's, or one passed in the client options. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** A wallet token, or a getter read on every wallet-authenticated request. */
export type WalletTokenSource =
  | string
  | (() => string | undefined | null | Promise<string | undefined | null>);

/** Per-call options every operation accepts. */
export interface CallOptions {
  /** Aborts the call; the call then rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Overrides the client's `timeout` (ms) for each attempt of this call. */
  readonly timeout?: number;
  /** Overrides the client's `walletToken` for this call (wallet-authenticated calls only). */
  readonly walletToken?: WalletTokenSource;
}

/** Per-call options of every call that changes something (a POST the service deduplicates). */
export interface WriteOptions extends CallOptions {
  /**
   * The call's `Idempotency-Key` (1 to 255 printable ASCII characters): the same key with the
   * same request replays the first answer for 24 h. One is generated per call when absent;
   * every retry of the call reuses it.
   */
  readonly idempotencyKey?: string;
}

export interface SenderSettings {
  /** Null for the developer portal's calls, which a session authenticates instead. */
  readonly apiKey: string | null;
  /** The developer session sent as a bearer token on `session` requests, when there is one. */
  readonly sessionToken?: () => string | null;
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly retriesMax: number;
  readonly fetch: FetchLike;
  readonly walletToken: WalletTokenSource | undefined;
  readonly sleep: Sleep;
  readonly random: () => number;
  readonly now: () => number;
}

type QueryValue = string | number | undefined;

/** A request as a resource describes it. */
export interface ApiRequest {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly query?: Readonly<Record<string, QueryValue>>;
  readonly body?: unknown;
  /** Needs the wallet token as well as the API key. */
  readonly wallet?: boolean;
  /** A developer portal call: sends the session (a browser also sends its session cookie). */
  readonly session?: boolean;
  /**
   * Sending it twice does no harm, so failures may be retried. A POST that is retried carries an
   * `Idempotency-Key` (`options`' or a new one), the same on every retry: for the writes, that is
   * what makes retrying them safe, as the service answers a retry with the first answer.
   */
  readonly retrySafe: boolean;
  readonly options?: WriteOptions;
}

type Attempt<T> =
  | { readonly ok: true; readonly value: T }
  | {
      readonly ok: false;
      readonly error: PoolPartyError;
      readonly failure: AttemptFailure;
      readonly retryAfterMs: number | null;
    };

export class RequestSender {
  constructor(private readonly settings: SenderSettings) {}

  /** Sends `request`, retrying where safe, and returns the parsed JSON answer. */
  async send<T>(request: ApiRequest): Promise<T> {
    const headers = await this.headersFor(request);
    // Drawn once per call, before the first attempt: every retry carries the same key.
    if (request.method === 'POST' && request.retrySafe) {
      headers['idempotency-key'] = idempotencyKeyOf(request.options?.idempotencyKey);
    }
    const init = this.initFor(request, headers);
    const url = this.url(request.path, request.query);
    const signal = request.options?.signal;
    for (let retriesMade = 0; ; retriesMade += 1) {
      const attempt = await this.attempt<T>(url, init, request.options);
      if (attempt.ok) return attempt.value;
      const retry = shouldRetry({
        retrySafe: request.retrySafe,
        retriesMade,
        retriesMax: this.settings.retriesMax,
        failure: attempt.failure,
        retryAfterMs: attempt.retryAfterMs,
      });
      if (!retry) throw attempt.error;
      const waitMs = retryDelayMs(retriesMade, attempt.retryAfterMs, this.settings.random);
      await this.settings.sleep(waitMs, signal);
    }
  }

  /**
   * Opens a streaming GET (Server-Sent Events): the timeout covers the wait for the response
   * head only, and nothing is retried here — the caller reconnects or falls back.
   */
  async openStream(
    path: string,
    extraHeaders: Readonly<Record<string, string>>,
    signal: AbortSignal,
    walletToken?: WalletTokenSource,
  ): Promise<Response> {
    const own = await this.headersFor({ wallet: true, options: { walletToken } });
    const headers = { ...own, ...extraHeaders };
    const limit = deadline(signal, this.settings.timeoutMs);
    const url = this.url(path);
    try {
      const opened = this.settings.fetch(url, {
        method: 'GET',
        headers,
        signal: limit.signal,
      });
      const response = await raceAbort(opened, limit.signal);
      if (!response.ok) throw await raceAbort(this.failure(response), limit.signal);
      return response;
    } catch (error) {
      const sent = { method: 'GET', url, timeoutMs: this.settings.timeoutMs };
      throw this.thrownError(error, limit.timedOut(), sent, signal);
    } finally {
      limit.dispose();
    }
  }

  /** The absolute URL of a path under the base URL. */
  url(path: string, query?: Readonly<Record<string, QueryValue>>): string {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) search.set(name, String(value));
    }
    const encoded = search.toString();
    const suffix = encoded.length > 0 ? `?${encoded}` : '';
    return `${this.settings.baseUrl}${path}${suffix}`;
  }

  private async headersFor(request: Pick<ApiRequest, 'wallet' | 'session' | 'body' | 'options'>) {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.settings.apiKey !== null) headers['x-api-key'] = this.settings.apiKey;
    if (request.wallet) {
      headers.authorization = `Bearer ${await this.walletToken(request.options?.walletToken)}`;
    }
    const session = request.session ? this.settings.sessionToken?.() : null;
    if (typeof session === 'string' && session.length > 0) {
      headers.authorization = `Bearer ${session}`;
    }
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    return headers;
  }

  /** The wallet token as it is now; a getter is asked on every call, so it can refresh. */
  private async walletToken(source = this.settings.walletToken): Promise<string> {
    const token = typeof source === 'function' ? await source() : source;
    if (typeof token !== 'string' || token.length === 0) {
      throw new AuthenticationError('A wallet token is required for this call', {
        code: 'missing_wallet_token',
        details:
          'Pass `walletToken` to the client (a string, or a function returning one); get it from ' +
          'walletAuth.requestChallenge and walletAuth.verifyChallenge.',
      });
    }
    return token;
  }

  private initFor(request: ApiRequest, headers: Record<string, string>): RequestInit {
    return {
      method: request.method,
      headers,
      ...(request.body !== undefined && { body: JSON.stringify(request.body) }),
    };
  }

  private async attempt<T>(
    url: string,
    init: RequestInit,
    options: CallOptions | undefined,
  ): Promise<Attempt<T>> {
    if (options?.signal?.aborted) throw options.signal.reason;
    const timeoutMs = options?.timeout ?? this.settings.timeoutMs;
    const limit = deadline(options?.signal, timeoutMs);
    const exchange = async (): Promise<Attempt<T>> => {
      const response = await this.settings.fetch(url, { ...init, signal: limit.signal });
      if (response.ok) return { ok: true, value: (await readBody(response)) as T };
      const error = await this.failure(response);
      const code = typeof error.code === 'string' ? error.code : null;
      return {
        ok: false,
        error,
        failure: { kind: 'status', status: response.status, code },
        retryAfterMs: parseRetryAfterMs(response.headers.get('retry-after'), this.settings.now()),
      };
    };
    try {
      // Raced, not only signalled: the timeout holds even for a fetch that ignores the signal,
      // and it covers reading the body as well as the response head.
      return await raceAbort(exchange(), limit.signal);
    } catch (thrown) {
      const sent = { method: init.method ?? 'GET', url, timeoutMs };
      const error = this.thrownError(thrown, limit.timedOut(), sent, options?.signal);
      const kind = error instanceof TimeoutError ? 'timeout' : 'network';
      return { ok: false, error, failure: { kind }, retryAfterMs: null };
    } finally {
      limit.dispose();
    }
  }

  /**
   * A typed error for what `fetch` (or reading the body) threw, naming the request; a caller's
   * abort stays as is.
   */
  private thrownError(
    thrown: unknown,
    wasTimedOut: boolean,
    sent: { readonly method: string; readonly url: string; readonly timeoutMs: number },
    signal?: AbortSignal,
  ): PoolPartyError {
    if (signal?.aborted) throw signal.reason;
    if (thrown instanceof PoolPartyError) return thrown;
    if (wasTimedOut) return timedOut(sent.method, sent.url, sent.timeoutMs, thrown);
    return noResponse(sent.method, sent.url, thrown);
  }

  private async failure(response: Response): Promise<PoolPartyError> {
    const body = await readBody(response).catch(() => undefined);
    const retryAfterMs = parseRetryAfterMs(
      response.headers.get('retry-after'),
      this.settings.now(),
    );
    return errorFromResponse({
      status: response.status,
      body,
      requestId: response.headers.get(REQUEST_ID_HEADER),
      retryAfter: retryAfterMs === null ? null : Math.ceil(retryAfterMs / 1000),
    });
  }
}
