/**
 * JSON over HTTP to the participant, the registries and the scan proxy: bearer auth where the
 * token belongs, a time limit per request, and every failure turned into a `LedgerError`
 * (errors.ts decides which).
 *
 * Requests go through undici's `request`, not `fetch`: a worker sends several for every swap, and
 * `fetch` (the same client behind WHATWG streams and Response objects) cost about 0.5 ms more CPU
 * per request on the 2-core machine the benchmarks run on. Connections are kept alive per origin.
 */
import { deepestCause, findCause } from '@poolparty/core';
import { request as sendRequest } from 'undici';
import type { TokenSource } from './auth.js';
import { CantonRequestError, type RequestFailure, type RequestKind } from './errors.js';

/** Time limit of a read; submissions use the adapter's `submitTimeoutMs`. */
export const READ_TIMEOUT_MS = 30_000;

/** Connection errors that prove the request never reached the server. */
const UNREACHABLE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * Errors of a kept-alive connection the server closed as the request went out on it: under load
 * the server's idle timer and the client's reuse race. A read is sent again on a new connection.
 */
const STALE_CONNECTION_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);
/** How many times a read goes out when its connection turns out stale: once more, no further. */
const READ_ATTEMPTS = 2;

/** Causes followed to find a socket's error under the errors that wrap it. */
const CAUSE_DEPTH_MAX = 4;

function codeOf(error: unknown): string | null {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : null;
}

/** The first of `error` and its causes whose code is one of `codes`, else null. */
function causeCoded(error: unknown, codes: ReadonlySet<string>): Error | null {
  const found = findCause(error, (cause) => codes.has(codeOf(cause) ?? ''), CAUSE_DEPTH_MAX);
  return found instanceof Error ? found : null;
}

function isStaleConnection(error: unknown): boolean {
  return causeCoded(error, STALE_CONNECTION_CODES) !== null;
}

/** How a rejected request failed: before anything was sent, or after. */
export function classifyFetchError(error: unknown): RequestFailure {
  const detail = error instanceof Error ? error.message : String(error);
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return { kind: 'lost', detail: `no answer in time (${detail})` };
  }
  const unreachable = causeCoded(error, UNREACHABLE_CODES);
  if (unreachable !== null) {
    return { kind: 'unreachable', detail: `${codeOf(unreachable)}: ${unreachable.message}` };
  }
  const deepest = deepestCause(error, CAUSE_DEPTH_MAX);
  const causeDetail = deepest instanceof Error && deepest !== error ? ` (${deepest.message})` : '';
  return { kind: 'lost', detail: `${detail}${causeDetail}` };
}

export interface RequestOptions {
  readonly kind: RequestKind;
  /** Names the request in error messages, e.g. "GET /v2/state/ledger-end". */
  readonly what?: string;
  readonly body?: unknown;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** Whether to send the bearer token (not to third parties, e.g. other admins' registries). */
  readonly authenticated?: boolean;
}

export class JsonHttpClient {
  constructor(private readonly tokens: TokenSource) {}

  get<T>(url: string, options: Omit<RequestOptions, 'body'> = { kind: 'read' }): Promise<T> {
    return this.request<T>('GET', url, options);
  }

  post<T>(url: string, body: unknown, options: Omit<RequestOptions, 'body'>): Promise<T> {
    return this.request<T>('POST', url, { ...options, body });
  }

  /** The current bearer token (for the WebSocket, which carries it as a subprotocol). */
  token(): Promise<string | null> {
    return this.tokens.token();
  }

  async request<T>(method: 'GET' | 'POST', url: string, options: RequestOptions): Promise<T> {
    const what = options.what ?? `${method} ${new URL(url).pathname}`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (options.authenticated !== false) {
      const token = await this.tokens.token();
      if (token !== null) headers.authorization = `Bearer ${token}`;
    }
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const timeout = AbortSignal.timeout(options.timeoutMs ?? READ_TIMEOUT_MS);
    const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
    const body = options.body !== undefined ? JSON.stringify(options.body) : undefined;
    const attempts = options.kind === 'read' ? READ_ATTEMPTS : 1;
    const { status, text } = await sendWithin(attempts, () =>
      sendRequest(url, { method, headers, signal, ...(body !== undefined && { body }) }),
    ).catch((error: unknown) => {
      throw new CantonRequestError(classifyFetchError(error), options.kind, what);
    });
    return answerOf<T>(status, text, options.kind, what);
  }
}

/**
 * Sends a request up to `attempts` times while its connection turns out stale; only reads get
 * more than one, since a submission may have been taken before its connection broke.
 */
async function sendWithin(
  attempts: number,
  send: () => ReturnType<typeof sendRequest>,
): Promise<{ status: number; text: string }> {
  let stale: unknown;
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    try {
      const answer = await send();
      return { status: answer.statusCode, text: await answer.body.text() };
    } catch (error) {
      if (!isStaleConnection(error)) throw error;
      stale = error;
    }
  }
  throw stale;
}

/** The answer's JSON, or the `CantonRequestError` its status or its unreadable body says. */
function answerOf<T>(status: number, text: string, kind: RequestKind, what: string): T {
  const body = parseJson(text);
  if (status < 200 || status > 299) {
    throw new CantonRequestError({ kind: 'status', status, body }, kind, what);
  }
  if (body === undefined) {
    throw new CantonRequestError(
      { kind: 'lost', detail: `the answer is not JSON: ${text.slice(0, 120)}` },
      // An unreadable 2xx to a submission still means it was accepted or is unknown.
      kind,
      what,
    );
  }
  return body as T;
}

function parseJson(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `base` and `path` joined with exactly one slash, the base's own path kept. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}
