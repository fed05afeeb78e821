/**
 * The devnet ledger server's answers outside the Canton paths: RFC 9457 problem documents of
 * core's error catalogue, as the service answers them (core's problems.ts says what each failure
 * answers; this is the glue to Fastify). They answer the `/devnet` routes' refusals (core's
 * `DomainError`, schema validation, malformed bodies), paths served by no route, and requests
 * refused before routing or before there is a request at all.
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { type DomainError, type ErrorCode, statusOf } from '@poolparty/core';
import {
  connectionErrorResponse,
  notFoundProblem,
  PROBLEM_CONTENT_TYPE,
  problemBody,
  problemOfError,
  requestTargetOf,
} from '@poolparty/core/problems';
import type {
  FastifyBaseLogger,
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
} from 'fastify';

/** `METHOD /path`, as problem details name the request they refuse. */
export function requestTarget(request: FastifyRequest): string {
  return requestTargetOf(request.method, request.url);
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

/** Answers a failure as core says; `unhandled` is the log line of the server's own failures. */
function answerError(
  error: FastifyError | DomainError,
  request: FastifyRequest,
  reply: FastifyReply,
  unhandled: string,
): FastifyReply {
  const { code, detail, extensions, headers, serverFault } = problemOfError(error);
  if (serverFault) request.log.error({ err: error }, unhandled);
  reply.headers(headers);
  return sendProblem(request, reply, code, detail, extensions);
}

/** Answers every failure in `scope`, and every path it has no route for, with a problem. */
export function answerWithProblems(scope: FastifyInstance): void {
  scope.setErrorHandler((error: FastifyError | DomainError, request, reply) =>
    answerError(error, request, reply, 'unhandled error'),
  );
  scope.setNotFoundHandler((request, reply) => {
    const { code, detail } = notFoundProblem(request.method, request.url);
    return sendProblem(request, reply, code, detail);
  });
}

/** Answers a failure found before routing (bad percent-encoding, an overlong path segment). */
export function answerFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  return answerError(error, request, reply, 'unhandled framework error');
}

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
  const requestId = randomUUID();
  const { code, response } = connectionErrorResponse(error.code, requestId, headers, STATUS_CODES);
  log.debug({ reqId: requestId, err: error }, `client error: ${code}`);
  socket.end(response, () => socket.destroy());
}
