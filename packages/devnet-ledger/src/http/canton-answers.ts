/**
 * How the participant's and the validator's paths answer failures, as a participant and a
 * validator do: a JsCantonError on the JSON Ledger API (`/v2/...`, unknown paths there included),
 * the `{ error }` body of the registry and scan-proxy APIs. And how they read request bodies.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { asCantonError, CantonApiError, invalidArgument, RegistryError } from '../canton-errors.js';

function isClientError(error: unknown): error is FastifyError {
  const status = (error as { statusCode?: unknown }).statusCode;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/** The JsCantonError answer of any failure on a participant path. */
export function answerCantonError(
  error: FastifyError | Error,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const canton =
    asCantonError(error) ??
    (isClientError(error) ? invalidArgument(error.message) : null) ??
    new CantonApiError(
      'INTERNAL_ERROR',
      'SystemInternalAssumptionViolated',
      'An error occurred. Please contact the operator and inquire about the request',
    );
  if (canton.code === 'INTERNAL_ERROR') request.log.error({ err: error }, 'unhandled error');
  return reply.status(canton.status).send(canton.body(request.id));
}

/** The NOT_FOUND JsCantonError of a participant path no route serves. */
export function answerUnknownParticipantPath(request: FastifyRequest, reply: FastifyReply) {
  const error = new CantonApiError(
    'NOT_FOUND',
    'InvalidGivenCurrentSystemStateResourceMissing',
    `No endpoint ${request.method} ${request.url.split('?')[0]}`,
  );
  return reply.status(error.status).send(error.body(request.id));
}

/** The `{ error }` answer of the registry and scan-proxy paths. */
export function answerRegistryError(
  error: FastifyError | Error,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  if (error instanceof RegistryError)
    return reply.status(error.status).send({ error: error.message });
  const canton = asCantonError(error);
  if (canton !== null) {
    return reply.status(canton.status >= 500 ? canton.status : 400).send({ error: canton.cause_ });
  }
  if (isClientError(error)) return reply.status(400).send({ error: error.message });
  request.log.error({ err: error }, 'unhandled error');
  return reply.status(500).send({ error: 'internal error' });
}

/**
 * Reads a request body as JSON whatever its Content-Type says, as a participant and a validator
 * do: Canton's own TypeScript client (core-ledger-client 1.8.0) sends its POST bodies with no
 * Content-Type at all (its token-adding fetch wrapper replaces the request's headers).
 */
export function readBodiesAsJson(scope: FastifyInstance): void {
  scope.addContentTypeParser(
    '*',
    { parseAs: 'string' },
    scope.getDefaultJsonParser('error', 'error'),
  );
}
