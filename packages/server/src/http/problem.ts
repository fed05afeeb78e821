/**
 * Turning failures into RFC 9457 problem responses. Routes throw `ApiError` with a catalogue
 * code; everything else a route can throw is mapped here too, so a client never sees a bare 500
 * page or a stack trace.
 */
import {
  type ErrorCode,
  type ProblemExtensions,
  problemFor,
  type RequiredProblemExtensions,
  statusOf,
} from '@poolparty/core';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export class ApiError<C extends ErrorCode = ErrorCode> extends Error {
  override readonly name = 'ApiError';
  readonly extensions: Readonly<Record<string, unknown>>;
  /** Extra response headers, e.g. `Retry-After`. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    readonly code: C,
    readonly detail: string,
    ...[extensions, headers]: C extends keyof RequiredProblemExtensions
      ? [extensions: ProblemExtensions<C>, headers?: Record<string, string>]
      : [extensions?: Readonly<Record<string, unknown>>, headers?: Record<string, string>]
  ) {
    super(detail);
    this.extensions = extensions ?? {};
    this.headers = headers ?? {};
  }

  get status(): number {
    return statusOf(this.code);
  }
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
};

export function registerProblemHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    if (error instanceof ApiError) {
      reply.headers(error.headers);
      return sendProblem(request, reply, error.code, error.detail, error.extensions);
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
    const mapped = error.code === undefined ? undefined : FRAMEWORK_ERRORS[error.code];
    if (mapped) return sendProblem(request, reply, mapped, error.message);
    // Malformed JSON surfaces as a SyntaxError with status 400.
    if (error.statusCode === 400)
      return sendProblem(request, reply, 'validation_error', error.message);
    request.log.error({ err: error }, 'unhandled error');
    return sendProblem(
      request,
      reply,
      'internal_error',
      'The service failed to handle this request.',
    );
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      request,
      reply,
      'not_found',
      `No route for ${request.method} ${request.url.split('?')[0]}.`,
    ),
  );
}

function describeValidation(errors: readonly { path: string; message: string }[]): string {
  return errors.map((e) => `${e.path} ${e.message}`).join('; ');
}
