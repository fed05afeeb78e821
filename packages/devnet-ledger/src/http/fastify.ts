/**
 * The devnet ledger server's Fastify instance: its logging, body limit, timeouts and connection
 * cap, request ids (a caller's own kept when it is sane, so Canton errors name it as their
 * `correlationId`), security headers on every answer, and problem documents for what fails before
 * routing or before there is a request at all. The paths it serves set their own error answers:
 * Canton's on the participant's, the registries' `{ error }` on the validator's, problems on
 * `/devnet`.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import {
  answerConnectionError,
  answerFrameworkError,
  answerWithProblems,
  sendProblem,
} from './problems.js';

/** Request bodies are JSON documents of a few kilobytes; anything larger is a mistake. */
const BODY_LIMIT_BYTES = 64 * 1024;
/** How long the headers, and the whole request, may take to arrive. */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** How often Node looks for requests past those timeouts (its default is 30 s). */
const CONNECTIONS_CHECKING_INTERVAL_MS = 500;
/** Open connections at most; one beyond is closed before HTTP sees it. */
const CONNECTIONS_MAX = 10_000;

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/**
 * The headers every answer carries: a JSON document opened in a browser loads and runs nothing
 * and is not framed (the header set helmet gives an API, as the service answers with).
 */
const SECURITY_HEADERS: readonly (readonly [string, string])[] = [
  [
    'Content-Security-Policy',
    "default-src 'none';base-uri 'none';form-action 'none';frame-ancestors 'none'",
  ],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Cross-Origin-Resource-Policy', 'same-origin'],
  ['Origin-Agent-Cluster', '?1'],
  ['Referrer-Policy', 'no-referrer'],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-DNS-Prefetch-Control', 'off'],
  ['X-Download-Options', 'noopen'],
  ['X-Frame-Options', 'DENY'],
  ['X-Permitted-Cross-Domain-Policies', 'none'],
  ['X-XSS-Protection', '0'],
];
/** The same, named as a reply keeps them. */
const REPLY_SECURITY_HEADERS = SECURITY_HEADERS.map(
  ([name, value]) => [name.toLowerCase(), value] as const,
);
/** Two years; sent only to requests that came over TLS. */
const STRICT_TRANSPORT_SECURITY = 'max-age=63072000';

/**
 * Whether the request came over TLS. The server listens on plain HTTP, so only a TLS-ending proxy
 * in front of it can say so, in `X-Forwarded-Proto`.
 */
export function arrivedOverTls(raw: IncomingMessage): boolean {
  const forwarded = raw.headers['x-forwarded-proto'];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0];
  return first?.trim().toLowerCase() === 'https';
}

/** What every answer carries: its request id, and the security headers. */
function withAnswerHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  for (const [name, value] of REPLY_SECURITY_HEADERS) reply.header(name, value);
  if (arrivedOverTls(request.raw)) {
    reply.header('strict-transport-security', STRICT_TRANSPORT_SECURITY);
  }
}

/** A request's id: the caller's own `X-Request-Id` when it is sane, else a new one. */
function requestIdOf(given: string | string[] | undefined): string {
  return typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
}

/** A path's runs of slashes: each an empty segment, or several. */
const EMPTY_SEGMENTS = /\/{2,}/g;

/**
 * The URL a request is routed by. A WebSocket upgrade's empty path segments are dropped, as a
 * participant does (`//v2/updates` is `/v2/updates`; official clients joining a base URL that
 * ends in `/` send such paths); plain HTTP paths are routed as they come.
 */
export function routedUrl(url: string, upgrade: string | undefined): string {
  if (upgrade?.toLowerCase() !== 'websocket') return url;
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  return path.replace(EMPTY_SEGMENTS, '/') + (query === -1 ? '' : url.slice(query));
}

/** Ajv as the service validates its `/devnet` bodies: unknown members refused, numbers finite. */
const AJV_OPTIONS = { removeAdditional: false, strictNumbers: true } as const;

export function createLedgerFastify(logLevel: string): FastifyInstance {
  const app: FastifyInstance = Fastify({
    logger: { level: logLevel },
    bodyLimit: BODY_LIMIT_BYTES,
    requestTimeout: REQUEST_TIMEOUT_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    http: {
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS,
      // An HTTP/1.1 request without Host is refused below, as a problem rather than a bare 400.
      requireHostHeader: false,
    },
    genReqId: (request) => requestIdOf(request.headers['x-request-id']),
    rewriteUrl: (request) => routedUrl(request.url ?? '/', request.headers.upgrade),
    ajv: { customOptions: AJV_OPTIONS },
    // Failures found before routing skip the hooks, so their answers' headers are set here.
    frameworkErrors: (error, request, reply) => {
      withAnswerHeaders(request, reply);
      return answerFrameworkError(error, request, reply);
    },
    // Unparseable HTTP and oversized headers never become a request: answered on the socket.
    clientErrorHandler: (error, socket) =>
      answerConnectionError(error, socket, SECURITY_HEADERS, app.log),
    return503OnClosing: true,
    // Open update streams and idle keep-alive sockets must not hold up a shutdown.
    forceCloseConnections: true,
  });
  app.server.maxConnections = CONNECTIONS_MAX;
  app.addHook('onRequest', (request, reply, done) => {
    withAnswerHeaders(request, reply);
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      sendProblem(request, reply, 'malformed_request', 'An HTTP/1.1 request needs a Host header.');
      return;
    }
    done();
  });
  answerWithProblems(app);
  return app;
}
