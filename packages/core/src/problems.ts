/**
 * What a server of the catalogue answers for a failure, as RFC 9457 problem documents, over plain
 * data: the service and the devnet ledger server each keep only the glue to their framework, so
 * the same refusal reads the same from both. Everything here is pure; nothing knows of a request,
 * a reply or a socket.
 */
import { DomainError } from './domain-error.js';
import {
  codeOfClientStatus,
  type ErrorCode,
  type ProblemBody,
  problemFor,
  statusOf,
} from './errors.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

type Extensions = Readonly<Record<string, unknown>>;

/** A problem body as a server sends it: the catalogue's for `code`, and the request's id. */
export function problemBody(
  code: ErrorCode,
  detail: string,
  extensions: Extensions,
  requestId: string,
): ProblemBody & { readonly requestId: string } {
  // Extensions are whatever the refusal carries; the catalogue's required members are checked
  // where a refusal is made, not here.
  const problem = (problemFor as (c: ErrorCode, d: string, e: Extensions) => ProblemBody)(
    code,
    detail,
    extensions,
  );
  return { ...problem, requestId };
}

/** A failure as a server answers it, before it knows of a request id. */
export interface ProblemAnswer {
  readonly code: ErrorCode;
  readonly detail: string;
  readonly extensions: Extensions;
  /** Response headers the answer asks for, e.g. `Retry-After`. */
  readonly headers: Readonly<Record<string, string>>;
  /** The server's own failure: it logs the error, and tells the client only that it failed. */
  readonly serverFault: boolean;
}

const NO_EXTENSIONS: Extensions = Object.freeze({});
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

function answer(code: ErrorCode, detail: string, extensions = NO_EXTENSIONS): ProblemAnswer {
  return { code, detail, extensions, headers: NO_HEADERS, serverFault: false };
}

/** What the client is told of a failure of the server's own: nothing of its cause. */
export const INTERNAL_ERROR_DETAIL = 'The service failed to handle this request.';

/** `METHOD /path` without the query string, as problem details name the request they refuse. */
export function requestTargetOf(method: string, url: string): string {
  return `${method} ${url.split('?')[0]}`;
}

/** The answer of a path no route serves. */
export function notFoundProblem(method: string, url: string): ProblemAnswer {
  return answer('not_found', `No route for ${requestTargetOf(method, url)}.`);
}

/** The framework's own error codes that are the client's fault, and what they mean here. */
const FRAMEWORK_ERRORS: Readonly<Record<string, ErrorCode>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'validation_error',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'validation_error',
  FST_ERR_VALIDATION: 'validation_error',
  // Raised before routing: bad percent-encoding, an overlong path segment. The first is a 400,
  // which by its status alone would read as a body that failed validation.
  FST_ERR_BAD_URL: 'malformed_request',
  FST_ERR_MAX_PARAM_LENGTH: 'uri_too_long',
};

/**
 * What a framework error means for the client: its catalogue code, or null when it is the
 * server's own failure. Any other 4xx (a body that is no JSON, a static file plugin's 403, 412 or
 * 416) has the code of its status.
 */
export function clientErrorCode(error: {
  readonly code?: string;
  readonly statusCode?: number;
}): ErrorCode | null {
  const mapped = error.code === undefined ? undefined : FRAMEWORK_ERRORS[error.code];
  if (mapped !== undefined) return mapped;
  const status = error.statusCode;
  if (status === undefined || status < 400 || status > 499) return null;
  return codeOfClientStatus(status);
}

/** One finding of schema validation, as the validator reports it. */
export interface ValidationIssue {
  readonly instancePath: string;
  readonly message?: string;
  /** Ajv names a member the schema does not define here. */
  readonly params?: { readonly additionalProperty?: unknown };
}

/** Where a finding is, and what is wrong there: an unknown member is named in the path. */
function findingOf(issue: ValidationIssue, part: string | undefined): ValidationFinding {
  const at = `/${part ?? 'request'}${issue.instancePath}`;
  const unknown = issue.params?.additionalProperty;
  if (typeof unknown === 'string') {
    return { path: `${at}/${unknown}`, message: 'is not defined by this operation' };
  }
  return { path: at, message: issue.message ?? 'is invalid' };
}

/** A member of a `validation_error` problem's `errors`: where, and what is wrong there. */
export interface ValidationFinding {
  readonly path: string;
  readonly message: string;
}

/**
 * The `detail` and `errors` of a `validation_error` from the validator's findings in one part of
 * the request (`body`, `querystring`, `params`, `headers`).
 */
export function validationProblem(
  issues: readonly ValidationIssue[],
  part: string | undefined,
): { readonly detail: string; readonly errors: readonly ValidationFinding[] } {
  const errors = issues.map((issue) => findingOf(issue, part));
  return { detail: errors.map((e) => `${e.path} ${e.message}`).join('; '), errors };
}

/** A thrown error as a framework hands it to its error handler. */
export interface ThrownError {
  readonly message: string;
  readonly code?: string;
  readonly statusCode?: number;
  /** The validator's findings, when the request failed schema validation. */
  readonly validation?: readonly ValidationIssue[];
  /** The part of the request that failed it. */
  readonly validationContext?: string;
}

/**
 * The answer to a thrown error: a `DomainError` as it says (with `Retry-After` when a retry can
 * succeed), a failed validation with its findings, a framework error the client caused by its
 * code, and anything else as the server's own failure.
 */
export function problemOfError(error: ThrownError | DomainError): ProblemAnswer {
  if (error instanceof DomainError) {
    const retryAfter = error.retryAfterSeconds;
    return {
      ...answer(error.code, error.shortMessage, error.extensions),
      ...(retryAfter !== undefined && { headers: { 'Retry-After': String(retryAfter) } }),
    };
  }
  if (error.validation) {
    const { detail, errors } = validationProblem(error.validation, error.validationContext);
    return answer('validation_error', detail, { errors });
  }
  const code = clientErrorCode(error);
  if (code !== null) return answer(code, error.message);
  return { ...answer('internal_error', INTERNAL_ERROR_DETAIL), serverFault: true };
}

/** The failures Node reports on a connection before there is a request, and what they mean. */
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
 * The answer to a connection-level failure, by Node's error code (unparseable HTTP otherwise): its
 * code, and the whole HTTP/1.1 response with `headers` among its headers. Nothing of a framework
 * runs before there is a request, so the status line and headers are written here; `reasons`
 * names each status in the status line (Node's `STATUS_CODES`).
 */
export function connectionErrorResponse(
  errorCode: string | undefined,
  requestId: string,
  headers: Iterable<readonly [string, string]>,
  reasons: Readonly<Record<number, string | undefined>>,
): { readonly code: ErrorCode; readonly response: string } {
  const [code, detail] = CONNECTION_ERRORS[errorCode ?? ''] ?? MALFORMED;
  const body = JSON.stringify(problemBody(code, detail, NO_EXTENSIONS, requestId));
  const status = statusOf(code);
  const lines = [
    `HTTP/1.1 ${status} ${reasons[status] ?? 'Error'}`,
    `Content-Type: ${PROBLEM_CONTENT_TYPE}; charset=utf-8`,
    `Content-Length: ${new TextEncoder().encode(body).byteLength}`,
    `X-Request-Id: ${requestId}`,
    ...Array.from(headers, ([name, value]) => `${name}: ${value}`),
    'Connection: close',
  ];
  return { code, response: `${lines.join('\r\n')}\r\n\r\n${body}` };
}
