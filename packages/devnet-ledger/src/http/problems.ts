/**
 * The devnet ledger server's answers outside the Canton paths: RFC 9457 problem documents of
 * core's error catalogue, as the service answers them. They answer the `/devnet` routes' refusals
 * (core's `DomainError`, schema validation, malformed bodies), paths served by no route, and
 * requests refused before routing or before there is a request at all.
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  codeOfClientStatus,
  DomainError,
  type ErrorCode,
  problemFor,
  statusOf,
} from '@poolparty/core';
import type {
  FastifyBaseLogger,
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
} from 'fastify';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** `METHOD /path`, as problem details name the request they refuse. */
export function requestTarget(request: FastifyRequest): string {
  return `${request.method} ${request.url.split('?')[0]}`;
}

export function sendProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  code: ErrorCode,
  detail: string,
  extensions: Readonly<Record<string, unknown>> = {},
): FastifyReply {
  const problem = (problemFor as (c: ErrorCode, d: string, e: object) => object)(
    code,
    detail,
    extensions,
  );
  return reply
    .code(statusOf(code))
    .type(PROBLEM_CONTENT_TYPE)
    .send({ ...problem, requestId: request.id });
}

/**
 * What a framework error means for the client: its catalogue code, or null when it is the
 * server's own failure. A path that is no URL is malformed; any other 4xx has the code of its
 * status (a body that is no JSON, or an empty one, is a `validation_error`).
 */
export function clientErrorCode(error: {
  readonly code?: string;
  readonly statusCode?: number;
}): ErrorCode | null {
  if (error.code === 'FST_ERR_BAD_URL') return 'malformed_request';
  const status = error.statusCode;
  if (status === undefined || status < 400 || status > 499) return null;
  return codeOfClientStatus(status);
}

/** Answers every failure in `scope`, and every path it has no route for, with a problem. */
export function answerWithProblems(scope: FastifyInstance): void {
  scope.setErrorHandler((error: FastifyError | DomainError, request, reply) => {
    if (error instanceof DomainError) {
      if (error.retryAfterSeconds !== undefined) {
        reply.header('Retry-After', String(error.retryAfterSeconds));
      }
      return sendProblem(request, reply, error.code, error.shortMessage, error.extensions);
    }
    if (error.validation) {
      const errors = error.validation.map((issue) => ({
        path: `/${error.validationContext ?? 'request'}${issue.instancePath}`,
        message: issue.message ?? 'is invalid',
      }));
      const detail = errors.map((e) => `${e.path} ${e.message}`).join('; ');
      return sendProblem(request, reply, 'validation_error', detail, { errors });
    }
    const code = clientErrorCode(error);
    if (code !== null) return sendProblem(request, reply, code, error.message);
    request.log.error({ err: error }, 'unhandled error');
    return sendProblem(request, reply, 'internal_error', INTERNAL_ERROR_DETAIL);
  });
  scope.setNotFoundHandler((request, reply) =>
    sendProblem(request, reply, 'not_found', `No route for ${requestTarget(request)}.`),
  );
}

const INTERNAL_ERROR_DETAIL = 'The service failed to handle this request.';

/** Answers a failure found before routing (bad percent-encoding, an overlong path segment). */
export function answerFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const code = clientErrorCode(error);
  if (code === null) request.log.error({ err: error }, 'unhandled framework error');
  const detail = code === null ? INTERNAL_ERROR_DETAIL : error.message;
  return sendProblem(request, reply, code ?? 'internal_error', detail);
}

/** The problem of a connection-level failure Node reports before there is a request. */
const CONNECTION_ERRORS: Readonly<Record<string, readonly [ErrorCode, string]>> = {
  HPE_HEADER_OVERFLOW: [
    'headers_too_large',
    'The request line and headers exceed the size the service reads.',
  ],
  ERR_HTTP_REQUEST_TIMEOUT: ['request_timeout', 'The request was not received in time.'],
};
const MALFORMED: readonly [ErrorCode, string] = [
  'malformed_request',
  'The request is not well-formed HTTP/1.1.',
];

/**
 * Answers a `clientError` (unparseable HTTP, headers too large, a request too slow to arrive)
 * with a whole HTTP/1.1 problem response written on the socket, `headers` among its headers,
 * and closes the connection. Nothing is written when the client is gone or an answer to an
 * earlier request on the connection is under way: bytes in the middle of it would corrupt it.
 */
export function answerConnectionError(
  error: NodeJS.ErrnoException,
  socket: Duplex,
  headers: readonly (readonly [string, string])[],
  log: FastifyBaseLogger,
): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (!socket.writable || inFlight?.headersSent === true) {
    socket.destroy();
    return;
  }
  const [code, detail] = CONNECTION_ERRORS[error.code ?? ''] ?? MALFORMED;
  const requestId = randomUUID();
  log.debug({ reqId: requestId, err: error }, `client error: ${code}`);
  const body = JSON.stringify({ ...problemFor(code as 'validation_error', detail), requestId });
  const status = statusOf(code);
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    `Content-Type: ${PROBLEM_CONTENT_TYPE}; charset=utf-8`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    ...headers.map(([name, value]) => `${name}: ${value}`),
    'Connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
}
