import { describe, expect, it } from 'vitest';
import { DomainError } from '../src/domain-error.js';
import { problemFor } from '../src/errors.js';
import {
  clientErrorCode,
  connectionErrorResponse,
  INTERNAL_ERROR_DETAIL,
  notFoundProblem,
  problemBody,
  problemOfError,
  requestTargetOf,
  validationProblem,
} from '../src/problems.js';

describe('problemBody', () => {
  it("is the catalogue's problem with its extensions, then the request id", () => {
    const body = problemBody('gone', 'The offer expired.', { offerId: 'o1' }, 'req-1');
    expect(body).toEqual({
      ...problemFor('gone', 'The offer expired.'),
      offerId: 'o1',
      requestId: 'req-1',
    });
    expect(Object.keys(body).at(-1)).toBe('requestId');
  });

  it('lets no extension override a standard member', () => {
    const body = problemBody('not_found', 'No such party.', { status: 200, code: 'x' }, 'req-2');
    expect(body).toMatchObject({ status: 404, code: 'not_found', detail: 'No such party.' });
  });
});

describe('clientErrorCode', () => {
  it("names the framework's own refusals by their code", () => {
    expect(clientErrorCode({ code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 })).toBe(
      'payload_too_large',
    );
    expect(clientErrorCode({ code: 'FST_ERR_CTP_EMPTY_JSON_BODY', statusCode: 400 })).toBe(
      'validation_error',
    );
    expect(clientErrorCode({ code: 'FST_ERR_MAX_PARAM_LENGTH', statusCode: 414 })).toBe(
      'uri_too_long',
    );
  });

  it('reads a path that is no URL as malformed, not as a failed validation', () => {
    expect(clientErrorCode({ code: 'FST_ERR_BAD_URL', statusCode: 400 })).toBe('malformed_request');
  });

  it('gives any other 4xx the code of its status', () => {
    expect(clientErrorCode({ statusCode: 400 })).toBe('validation_error');
    expect(clientErrorCode({ code: 'SOMETHING', statusCode: 416 })).toBe('range_not_satisfiable');
    expect(clientErrorCode({ statusCode: 418 })).toBe('validation_error');
  });

  it("is null for the server's own failures", () => {
    expect(clientErrorCode({})).toBeNull();
    expect(clientErrorCode({ statusCode: 500 })).toBeNull();
    expect(clientErrorCode({ code: 'ECONNREFUSED' })).toBeNull();
    expect(clientErrorCode({ statusCode: 302 })).toBeNull();
  });
});

describe('validationProblem', () => {
  it('names each finding by the part of the request and its path there', () => {
    const problem = validationProblem(
      [
        { instancePath: '/amount', message: 'must be string' },
        { instancePath: '', message: "must have required property 'partyId'" },
      ],
      'body',
    );
    expect(problem.errors).toEqual([
      { path: '/body/amount', message: 'must be string' },
      { path: '/body', message: "must have required property 'partyId'" },
    ]);
    expect(problem.detail).toBe(
      "/body/amount must be string; /body must have required property 'partyId'",
    );
  });

  it('says "request" and "is invalid" where the validator does not say', () => {
    expect(validationProblem([{ instancePath: '/x' }], undefined)).toEqual({
      detail: '/request/x is invalid',
      errors: [{ path: '/request/x', message: 'is invalid' }],
    });
  });

  it('names a member the operation does not define, such as an unknown query parameter', () => {
    const unknown = {
      instancePath: '',
      message: 'must NOT have additional properties',
      params: { additionalProperty: 'limt' },
    };
    expect(validationProblem([unknown], 'querystring')).toEqual({
      detail: '/querystring/limt is not defined by this operation',
      errors: [{ path: '/querystring/limt', message: 'is not defined by this operation' }],
    });
  });
});

describe('problemOfError', () => {
  it('answers a domain refusal as it says, with Retry-After when a retry can succeed', () => {
    const refusal = new DomainError(
      'ledger_unavailable',
      'Try again.',
      { attempt: 1 },
      {
        retryAfterSeconds: 3,
      },
    );
    expect(problemOfError(refusal)).toEqual({
      code: 'ledger_unavailable',
      detail: 'Try again.',
      extensions: { attempt: 1 },
      headers: { 'Retry-After': '3' },
      serverFault: false,
    });
    expect(problemOfError(new DomainError('not_found', 'No such party.')).headers).toEqual({});
  });

  it('answers the short message of a refusal, not its causes', () => {
    const refusal = new DomainError('not_found', 'No such offer.', {}, { cause: new Error('db') });
    expect(problemOfError(refusal).detail).toBe('No such offer.');
  });

  it('answers a failed validation with its findings', () => {
    const failed = {
      message: 'body/amount must be string',
      code: 'FST_ERR_VALIDATION',
      statusCode: 400,
      validation: [{ instancePath: '/amount', message: 'must be string' }],
      validationContext: 'body',
    };
    expect(problemOfError(failed)).toMatchObject({
      code: 'validation_error',
      detail: '/body/amount must be string',
      extensions: { errors: [{ path: '/body/amount', message: 'must be string' }] },
    });
  });

  it("answers a client's error with its message, and anything else as the server's fault", () => {
    const tooLarge = { message: 'Request body is too large', code: 'FST_ERR_CTP_BODY_TOO_LARGE' };
    expect(problemOfError(tooLarge)).toMatchObject({
      code: 'payload_too_large',
      detail: 'Request body is too large',
      serverFault: false,
    });
    expect(problemOfError(new Error('secret internals'))).toEqual({
      code: 'internal_error',
      detail: INTERNAL_ERROR_DETAIL,
      extensions: {},
      headers: {},
      serverFault: true,
    });
  });
});

describe('notFoundProblem', () => {
  it('names the request without its query string', () => {
    expect(requestTargetOf('GET', '/devnet/nothing?x=1')).toBe('GET /devnet/nothing');
    expect(notFoundProblem('POST', '/nowhere?a=b')).toMatchObject({
      code: 'not_found',
      detail: 'No route for POST /nowhere.',
    });
  });
});

describe('connectionErrorResponse', () => {
  const REASONS = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Too Large' };
  const codeOf = (errorCode: string | undefined) =>
    connectionErrorResponse(errorCode, 'r', [], REASONS).code;

  it('maps connection failures by their code, and anything else to malformed HTTP', () => {
    expect(codeOf('HPE_HEADER_OVERFLOW')).toBe('headers_too_large');
    expect(codeOf('ERR_HTTP_REQUEST_TIMEOUT')).toBe('request_timeout');
    expect(codeOf('HPE_INVALID_METHOD')).toBe('malformed_request');
    expect(codeOf(undefined)).toBe('malformed_request');
  });

  it('is a whole response: status line, headers, then the problem body', () => {
    const { response } = connectionErrorResponse(
      'HPE_HEADER_OVERFLOW',
      'rid-1',
      [['X-A', '1']],
      REASONS,
    );
    const [head, body] = response.split('\r\n\r\n') as [string, string];
    expect(head.split('\r\n')).toEqual([
      'HTTP/1.1 431 Too Large',
      'Content-Type: application/problem+json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'X-Request-Id: rid-1',
      'X-A: 1',
      'Connection: close',
    ]);
    expect(JSON.parse(body)).toEqual({
      ...problemFor(
        'headers_too_large',
        'The request line and headers exceed the size the service reads.',
      ),
      requestId: 'rid-1',
    });
  });

  it('names a status without a reason phrase "Error", and counts bytes, not characters', () => {
    const { response } = connectionErrorResponse('HPE_INVALID_METHOD', 'réq-ü', [], {});
    expect(response.startsWith('HTTP/1.1 400 Error\r\n')).toBe(true);
    const body = response.split('\r\n\r\n')[1] ?? '';
    expect(response).toContain(`Content-Length: ${Buffer.byteLength(body)}\r\n`);
    expect(Buffer.byteLength(body)).toBeGreaterThan(body.length);
  });
});
