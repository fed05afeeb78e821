/**
 * One webhook request (docs/spec/webhooks.md#requests): a POST of the signed body, redirects never
 * followed (a 3xx is a failed attempt, its `Location` kept in the error), the whole exchange
 * within the timeout, and at most `RESPONSE_EXCERPT_BYTES` of the answer read. The host is
 * resolved here and every address it resolves to is checked against the URL policy before the
 * connection is made to it, so a name registered as public that now resolves inwards is refused.
 * With `connections`, connections are kept alive between requests (connections.ts); without, one
 * connection per request.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import {
  addressAllowed,
  BaseError,
  classifyAddress,
  type DestinationPolicy,
} from '@poolparty/core';
import type { WebhookConnections } from './connections.js';

/** The answer's first bytes kept with the attempt: enough to read an error page's first lines. */
export const RESPONSE_EXCERPT_BYTES = 1024;
/** A `Location` longer than this is cut in the attempt's error. */
const LOCATION_CHARS_MAX = 300;

export interface WebhookRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface WebhookResponse {
  readonly statusCode: number | null;
  readonly latencyMs: number;
  readonly error: string | null;
  readonly responseExcerpt: string | null;
  readonly retryAfter: string | null;
}

/** The host resolved to an address the URL policy refuses: no connection is made. */
class RefusedAddress extends BaseError<'webhook_address_refused'> {
  override readonly name = 'RefusedAddress';

  constructor(message: string) {
    super('webhook_address_refused', message);
  }
}

/** A lookup that answers only addresses the policy allows, and refuses the host otherwise. */
function guardedLookup(policy: DestinationPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, found) => {
      if (error) return callback(error, '', 0);
      const addresses = found as LookupAddress[];
      const refused = addresses.find((entry) => !addressAllowed(entry.address, policy));
      if (refused !== undefined || addresses.length === 0) {
        const what =
          refused === undefined
            ? 'no address'
            : `${refused.address}, a ${classifyAddress(refused.address).replace('_', '-')} address`;
        return callback(
          new RefusedAddress(`${hostname} resolves to ${what}: refused on mainnet`),
          '',
          0,
        );
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0] as LookupAddress;
      return callback(null, first.address, first.family);
    });
  };
}

export interface SendOptions {
  readonly timeoutMs: number;
  readonly policy: DestinationPolicy;
  readonly connections?: WebhookConnections;
}

/** Sends the request; never throws: a failure is the answer's `error`. */
export async function sendWebhook(
  request: WebhookRequest,
  options: SendOptions,
): Promise<WebhookResponse> {
  const url = new URL(request.url);
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (classifyAddress(literal) !== 'not_an_address' && !addressAllowed(literal, options.policy)) {
    return Promise.resolve({
      statusCode: null,
      latencyMs: 0,
      error: `${literal} is not a public address: refused on mainnet`,
      responseExcerpt: null,
      retryAfter: null,
    });
  }
  const first = await exchange(url, request, options);
  if (!first.closedWhileIdle) return first.response;
  // The receiver closed a kept connection as the request went out: nothing reached it.
  return (await exchange(url, request, { ...options, connections: undefined })).response;
}

interface Exchange {
  readonly response: WebhookResponse;
  /** Refused on a reused kept-alive socket before any answer: the receiver had closed it. */
  readonly closedWhileIdle: boolean;
}

/** Errors of a socket the other side closed. */
const CLOSED_CODES = new Set(['ECONNRESET', 'EPIPE']);

function exchange(url: URL, request: WebhookRequest, options: SendOptions): Promise<Exchange> {
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    let responded = false;
    let answered = false;
    const finish = (answer: Omit<WebhookResponse, 'latencyMs'>, closedWhileIdle = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // A kept connection whose answer was read whole goes back to its agent.
      if (options.connections === undefined || !answered) outgoing.destroy();
      const response = { ...answer, latencyMs: Math.round(performance.now() - started) };
      resolve({ response, closedWhileIdle });
    };
    const failed = (error: string, closedWhileIdle = false) =>
      finish({ statusCode: null, error, responseExcerpt: null, retryAfter: null }, closedWhileIdle);
    const client = url.protocol === 'https:' ? https : http;
    const outgoing = client.request(url, {
      method: 'POST',
      headers: { ...request.headers, 'content-length': Buffer.byteLength(request.body) },
      lookup: guardedLookup(options.policy),
      agent: options.connections?.agentFor(url) ?? false,
    });
    const timer = setTimeout(
      () => failed(`no complete answer within ${options.timeoutMs} ms`),
      options.timeoutMs,
    );
    outgoing.on('error', (error) => {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      failed(describeError(error), outgoing.reusedSocket && !responded && CLOSED_CODES.has(code));
    });
    outgoing.on('response', (response) => {
      responded = true;
      readAnswer(response, (answer, whole) => {
        answered = whole;
        finish(answer);
      });
    });
    outgoing.end(request.body);
  });
}

/** Reads the answer's first bytes; `whole` when it was read to its end (the socket reusable). */
function readAnswer(
  response: http.IncomingMessage,
  finish: (answer: Omit<WebhookResponse, 'latencyMs'>, whole: boolean) => void,
): void {
  const statusCode = response.statusCode ?? null;
  const retryAfter = headerOf(response, 'retry-after');
  const location = headerOf(response, 'location');
  const chunks: Buffer[] = [];
  let size = 0;
  const done = (whole: boolean) => {
    const excerpt = Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8');
    const redirect = statusCode !== null && statusCode >= 300 && statusCode < 400;
    const error = redirect
      ? `redirect not followed: ${statusCode} to ${(location ?? '(no Location)').slice(0, LOCATION_CHARS_MAX)}`
      : null;
    const answer = {
      statusCode,
      error,
      responseExcerpt: excerpt.length > 0 ? excerpt : null,
      retryAfter,
    };
    finish(answer, whole);
  };
  response.on('data', (chunk: Buffer) => {
    if (size >= RESPONSE_EXCERPT_BYTES) return;
    chunks.push(chunk);
    size += chunk.length;
    // Enough read: the rest of a large answer is not waited for.
    if (size >= RESPONSE_EXCERPT_BYTES) done(false);
  });
  response.on('end', () => done(true));
  response.on('error', () => done(false));
}

function headerOf(response: http.IncomingMessage, name: string): string | null {
  const value = response.headers[name];
  return typeof value === 'string' ? value : null;
}

function describeError(error: Error): string {
  if (error instanceof RefusedAddress) return error.message;
  const code = (error as NodeJS.ErrnoException).code;
  return code === undefined ? error.message : `${code}: ${error.message}`;
}
