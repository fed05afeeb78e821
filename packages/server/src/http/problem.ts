/**
 * Turning failures into RFC 9457 problem responses. Routes throw `ApiError` with a catalogue
 * code; everything else a route can throw is mapped here too, so a client never sees a bare 500
 * page or a stack trace. What each failure answers is core's (problems.ts), as the devnet ledger
 * server answers it; this is the glue to Fastify, and the service's own store-loss answer.
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  DomainError,
  type DomainErrorDetails,
  type ErrorCode,
  type ProblemExtensions,
  type RequiredProblemExtensions,
  statusOf,
} from '@poolparty/core';
import {
  connectionErrorResponse,
  notFoundProblem,
  PROBLEM_CONTENT_TYPE,
  type ProblemAnswer,
  problemBody,
  problemOfError,
} from '@poolparty/core/problems';
import { causedByConnectionLoss } from '@poolparty/store';
import type {
  FastifyBaseLogger,
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
} from 'fastify';
import { clientConnectionClosed, clientHangUpCode } from './client-hang-up.js';

/**
 * A refusal of the HTTP layer itself (a missing API key, a rate limit, a capped stream), which may
 * set response headers. The domain throws core's `DomainError`, of which this is one kind; both
 * are answered as problem documents by the handler below.
 */
export class ApiError<C extends ErrorCode = ErrorCode> extends DomainError<C> {
  override name = 'ApiError';
  /** Extra response headers, e.g. `Retry-After`. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: C,
    detail: string,
    ...[extensions, headers]: C extends keyof RequiredProblemExtensions
      ? [extensions: ProblemExtensions<C>, headers?: Record<string, string>]
      : [extensions?: Readonly<Record<string, unknown>>, headers?: Record<string, string>]
  ) {
    super(code, detail, ...([extensions] as unknown as DomainErrorDetails<C>));
    this.headers = headers ?? {};
  }

  get detail(): string {
    return this.shortMessage;
  }

  get status(): number {
    return statusOf(this.code);
  }
}

/** The request's path, without its query string. */
export function requestPath(request: FastifyRequest): string {
  return request.url.split('?')[0] ?? '';
}

/** `METHOD /path`, as problem details name the request they refuse. */
export function requestTarget(request: FastifyRequest): string {
  return `${request.method} ${requestPath(request)}`;
}

export function sendProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  code: ErrorCode,
  detail: string,
  extensions: Readonly<Record<string, unknown>> = {},
): FastifyReply {
  return reply
    .code(statusOf(code))
    .type(PROBLEM_CONTENT_TYPE)
    .send(problemBody(code, detail, extensions, request.id));
}

export function registerProblemHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    // Only the store says its connection was lost (StoreUnavailable); a socket error of the
    // client's own connection carries the same codes and is the client hanging up.
    if (causedByConnectionLoss(error)) {
      request.log.warn({ err: error }, 'store connection lost; answered 503');
      reply.header('Retry-After', String(STORE_RETRY_AFTER_S));
      return sendProblem(
        request,
        reply,
        'store_unavailable',
        'The service lost its connection to its store and is reconnecting. Retry shortly.',
        { retryAfterSeconds: STORE_RETRY_AFTER_S },
      );
    }
    const hangUp = clientHangUpCode(error, clientConnectionClosed(request));
    if (hangUp !== null) {
      // Routine, and nobody is left to read an answer: said at info, since no "request
      // completed" line follows for a connection that is gone.
      request.log.info({ code: hangUp }, 'client closed its connection mid-request');
      return sendProblem(
        request,
        reply,
        'malformed_request',
        'The client closed its connection before the request was answered.',
      );
    }
    // Malformed JSON surfaces as a SyntaxError with status 400; the static plugin's refusals
    // carry their 4xx status.
    const answer = problemOfError(error);
    if (answer.serverFault) request.log.error({ err: error }, 'unhandled error');
    const own = error instanceof ApiError ? error.headers : {};
    return sendAnswer(request, reply, { ...answer, headers: { ...answer.headers, ...own } });
  });
  app.setNotFoundHandler((request, reply) => {
    const page = unknownPathPages.get(request.server.server);
    if (page?.(request, reply)) return reply;
    return sendAnswer(request, reply, notFoundProblem(request.method, request.url));
  });
}

/**
 * Answers an unknown path with a page instead of the problem, when it can: true once it has
 * answered. At most one per server (the web pages'), set by whoever serves the pages.
 */
export type UnknownPathPage = (request: FastifyRequest, reply: FastifyReply) => boolean;

/** Keyed by the node server, which every encapsulated scope of one Fastify app shares. */
const unknownPathPages = new WeakMap<object, UnknownPathPage>();

export function answerUnknownPathsWith(scope: FastifyInstance, page: UnknownPathPage): void {
  unknownPathPages.set(scope.server, page);
}

/** Answers a failure as core says, with the headers it asks for. */
export function sendAnswer(
  request: FastifyRequest,
  reply: FastifyReply,
  answer: ProblemAnswer,
): FastifyReply {
  reply.headers(answer.headers);
  return sendProblem(request, reply, answer.code, answer.detail, answer.extensions);
}

/**
 * Seconds a client waits before retrying after the store's connection was lost: the pool opens
 * a new connection at the next statement, so a failover or a pooler restart is usually over
 * within a second or two.
 */
const STORE_RETRY_AFTER_S = 2;

/**
 * Answers a `clientError` (unparseable HTTP, headers too large, a request too slow to arrive)
 * with a problem document and closes the connection. Nothing is written when the client is gone
 * or a response to an earlier request on the connection is already under way: bytes of ours in
 * the middle of it would corrupt it.
 */
export function answerClientError(
  error: NodeJS.ErrnoException,
  socket: Duplex,
  headers: Readonly<Record<string, string>>,
  log: FastifyBaseLogger,
): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (!socket.writable || inFlight?.headersSent === true) {
    socket.destroy();
    return;
  }
  const requestId = randomUUID();
  const { code, response } = connectionErrorResponse(
    error.code,
    requestId,
    Object.entries(headers),
    STATUS_CODES,
  );
  log.debug({ reqId: requestId, err: error }, `client error: ${code}`);
  socket.end(response, () => socket.destroy());
}
