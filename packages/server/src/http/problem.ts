/**
 * Turning failures into RFC 9457 problem responses. Routes throw `ApiError` with a catalogue
 * code; everything else a route can throw is mapped here too, so a client never sees a bare 500
 * page or a stack trace.
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  codeOfClientStatus,
  DomainError,
  type DomainErrorDetails,
  ERROR_CATALOGUE,
  type ErrorCode,
  type ProblemExtensions,
  problemFor,
  type RequiredProblemExtensions,
  statusOf,
} from '@poolparty/core';
import { causedByConnectionLoss } from '@poolparty/store';
import type {
  FastifyBaseLogger,
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
} from 'fastify';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

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

/** The response headers a domain refusal asks for: `Retry-After` when a retry can succeed. */
function headersOf(error: DomainError): Readonly<Record<string, string>> {
  const own = error instanceof ApiError ? error.headers : {};
  return error.retryAfterSeconds === undefined
    ? own
    : { 'Retry-After': String(error.retryAfterSeconds), ...own };
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
  const body = {
    ...(problemFor as (c: ErrorCode, d: string, e: object) => object)(code, detail, extensions),
    requestId: request.id,
  };
  return reply.code(statusOf(code)).type(PROBLEM_CONTENT_TYPE).send(body);
}

/** Fastify's own error codes that are the client's fault, and what they mean in the catalogue. */
const FRAMEWORK_ERRORS: Readonly<Record<string, ErrorCode>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'validation_error',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'validation_error',
  FST_ERR_VALIDATION: 'validation_error',
  // Raised before routing (through `frameworkErrors`): bad percent-encoding, an overlong segment.
  FST_ERR_BAD_URL: 'malformed_request',
  FST_ERR_MAX_PARAM_LENGTH: 'uri_too_long',
};

/**
 * What a thrown error means for the client: its catalogue code, or `null` when it is the
 * service's own failure (logged, answered as `internal_error`).
 */
export function clientErrorCode(error: {
  readonly code?: string;
  readonly statusCode?: number;
}): ErrorCode | null {
  const mapped = error.code === undefined ? undefined : FRAMEWORK_ERRORS[error.code];
  if (mapped !== undefined) return mapped;
  // A plugin's 4xx: the static files under `/docs` refuse odd paths with 403 and answer
  // conditional and range requests with 412 and 416.
  const status = error.statusCode;
  if (status === undefined || status < 400 || status > 499) return null;
  return codeOfClientStatus(status);
}

export function registerProblemHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
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
    if (error instanceof DomainError) {
      reply.headers(headersOf(error));
      return sendProblem(request, reply, error.code, error.shortMessage, error.extensions);
    }
    if (error.validation) {
      const errors = error.validation.map((issue) => ({
        path: `/${error.validationContext ?? 'request'}${issue.instancePath}`,
        message: issue.message ?? 'is invalid',
      }));
      return sendProblem(request, reply, 'validation_error', describeValidation(errors), {
        errors,
      });
    }
    // Malformed JSON surfaces as a SyntaxError with status 400; the static plugin's refusals
    // carry their 4xx status.
    const code = clientErrorCode(error);
    if (code !== null) return sendProblem(request, reply, code, error.message);
    request.log.error({ err: error }, 'unhandled error');
    return sendProblem(
      request,
      reply,
      'internal_error',
      'The service failed to handle this request.',
    );
  });
  app.setNotFoundHandler((request, reply) => {
    const page = unknownPathPages.get(request.server.server);
    if (page?.(request, reply)) return reply;
    return sendProblem(request, reply, 'not_found', `No route for ${requestTarget(request)}.`);
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

/**
 * Seconds a client waits before retrying after the store's connection was lost: the pool opens
 * a new connection at the next statement, so a failover or a pooler restart is usually over
 * within a second or two.
 */
export const STORE_RETRY_AFTER_S = 2;
function describeValidation(errors: readonly { path: string; message: string }[]): string {
  return errors.map((e) => `${e.path} ${e.message}`).join('; ');
}

/** What a connection-level failure (`clientError`) means for the client. */
export function connectionErrorCode(errorCode: string | undefined): ErrorCode {
  if (errorCode === 'HPE_HEADER_OVERFLOW') return 'headers_too_large';
  if (errorCode === 'ERR_HTTP_REQUEST_TIMEOUT') return 'request_timeout';
  return 'malformed_request';
}

const CONNECTION_ERROR_DETAIL: Partial<Record<ErrorCode, string>> = {
  headers_too_large: 'The request line and headers exceed the size the service reads.',
  request_timeout: 'The request was not received in time.',
  malformed_request: 'The request is not well-formed HTTP/1.1.',
};

/**
 * A whole HTTP/1.1 problem response as bytes for the socket, for failures Node reports before
 * there is a request to reply to: nothing of Fastify runs, so the headers are written here.
 */
export function rawProblemResponse(
  code: ErrorCode,
  requestId: string,
  headers: Readonly<Record<string, string>>,
): string {
  const detail = CONNECTION_ERROR_DETAIL[code] ?? ERROR_CATALOGUE[code].title;
  const body = JSON.stringify({ ...problemFor(code as 'validation_error', detail), requestId });
  const lines = [
    `HTTP/1.1 ${statusOf(code)} ${STATUS_CODES[statusOf(code)] ?? 'Error'}`,
    `Content-Type: ${PROBLEM_CONTENT_TYPE}; charset=utf-8`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    'Connection: close',
  ];
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

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
  const code = connectionErrorCode(error.code);
  const requestId = randomUUID();
  log.debug({ reqId: requestId, err: error }, `client error: ${code}`);
  socket.end(rawProblemResponse(code, requestId, headers), () => socket.destroy());
}
