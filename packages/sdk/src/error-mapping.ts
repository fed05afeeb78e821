/**
 * From what the service answered to the error the SDK throws: the catalogue's class for a known
 * code, the status class for a code this SDK does not know yet (a newer service), and the typed
 * outcome error for a swap that ended without a payout.
 */
import { ERROR_CLASS_BY_CODE, OUTCOME_ERROR_CLASS } from './catalogue.js';
import {
  AmbiguousPoolPairError,
  AuthenticationError,
  CancelledError,
  ConflictError,
  ExpiredError,
  InsufficientAmountError,
  InsufficientLiquidityError,
  NetworkError,
  NoOutputHoldingsError,
  NotFoundError,
  OutputFailedError,
  PoolPartyError,
  type PoolPartyErrorOptions,
  PriceImpactError,
  RateLimitError,
  RefundFailedError,
  type SdkErrorClassName,
  ServerError,
  SettlementSafetyError,
  SlippageError,
  SwapFailedError,
  type SwapOutcomeError,
  TimeoutError,
  ValidationError,
} from './errors.js';
import type { AmbiguousCandidate, SettlementSafety, SwapStatus } from './types.js';

/** What the request sender knows of a failed response. */
export interface FailedResponse {
  readonly status: number;
  /** The parsed body; a problem object when the service sent one. */
  readonly body: unknown;
  readonly requestId: string | null;
  /** `Retry-After` in seconds, when sent. */
  readonly retryAfter: number | null;
}

/** The class for a status whose code this SDK does not know: by status class. */
export function errorClassForStatus(status: number): SdkErrorClassName {
  if (status === 401 || status === 403) return 'AuthenticationError';
  if (status === 404 || status === 410) return 'NotFoundError';
  if (status === 409) return 'ConflictError';
  if (status === 429) return 'RateLimitError';
  if (status === 408) return 'TimeoutError';
  if ([400, 412, 413, 414, 415, 416, 422, 431].includes(status)) return 'ValidationError';
  if (status >= 500 && status <= 599) return 'ServerError';
  return 'PoolPartyError';
}

/** The class for a problem's code: the catalogue's when the code is known, else by status. */
export function errorClassFor(code: string, status: number): SdkErrorClassName {
  return Object.hasOwn(ERROR_CLASS_BY_CODE, code)
    ? ERROR_CLASS_BY_CODE[code as keyof typeof ERROR_CLASS_BY_CODE]
    : errorClassForStatus(status);
}

type Problem = Readonly<Record<string, unknown>>;

function asProblem(body: unknown): Problem {
  return typeof body === 'object' && body !== null ? (body as Problem) : {};
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

type PlainErrorClass = new (
  shortMessage: string,
  options?: PoolPartyErrorOptions,
) => PoolPartyError;

const PLAIN_CLASSES: Partial<Record<SdkErrorClassName, PlainErrorClass>> = {
  PoolPartyError,
  ValidationError,
  AuthenticationError,
  NotFoundError,
  ConflictError,
  ServerError,
  NetworkError,
  TimeoutError,
};

/** The error for a non-2xx response. */
export function errorFromResponse(response: FailedResponse): PoolPartyError {
  const problem = asProblem(response.body);
  const code = text(problem.code) ?? `http_${response.status}`;
  const options: PoolPartyErrorOptions = {
    code,
    status: response.status,
    requestId: text(problem.requestId) ?? response.requestId,
    body: response.body,
    ...(text(problem.detail) !== undefined && { details: text(problem.detail) }),
  };
  const shortMessage =
    text(problem.title) ?? `The service answered HTTP ${response.status} (${code})`;
  const name = errorClassFor(code, response.status);
  const special = specialError(name, shortMessage, options, problem, response);
  if (special) return special;
  const ErrorClass = PLAIN_CLASSES[name] ?? PoolPartyError;
  return new ErrorClass(shortMessage, options);
}

function specialError(
  name: SdkErrorClassName,
  shortMessage: string,
  options: PoolPartyErrorOptions,
  problem: Problem,
  response: FailedResponse,
): PoolPartyError | null {
  if (name === 'AmbiguousPoolPairError') {
    const candidates = Array.isArray(problem.candidates)
      ? (problem.candidates as AmbiguousCandidate[])
      : [];
    return new AmbiguousPoolPairError(shortMessage, { ...options, candidates });
  }
  if (name === 'SettlementSafetyError') {
    // A body without the verdict still names the refusal; the guard's code is then unknown.
    const verdict = isSettlementSafety(problem.settlementSafety)
      ? problem.settlementSafety
      : ({ code: options.code, reason: '', message: shortMessage } as SettlementSafety);
    return new SettlementSafetyError(verdict, options);
  }
  if (name === 'RateLimitError') {
    const fromBody = typeof problem.retryAfter === 'number' ? problem.retryAfter : null;
    return new RateLimitError(shortMessage, {
      ...options,
      retryAfter: response.retryAfter ?? fromBody,
    });
  }
  return null;
}

function isSettlementSafety(value: unknown): value is SettlementSafety {
  const candidate = asProblem(value);
  return (
    typeof candidate.code === 'string' &&
    typeof candidate.reason === 'string' &&
    typeof candidate.message === 'string'
  );
}

type OutcomeErrorClass = new (status: SwapStatus) => SwapOutcomeError;

const OUTCOME_CLASSES: Readonly<
  Record<(typeof OUTCOME_ERROR_CLASS)[keyof typeof OUTCOME_ERROR_CLASS], OutcomeErrorClass>
> = {
  SlippageError,
  PriceImpactError,
  InsufficientAmountError,
  InsufficientLiquidityError,
  OutputFailedError,
  NoOutputHoldingsError,
  SwapFailedError,
  RefundFailedError,
  ExpiredError,
  CancelledError,
};

/**
 * The error `swap.wait()` rejects with for a terminal status other than `completed`; a terminal
 * state this SDK does not know yet is a generic failure.
 */
export function outcomeErrorFor(status: SwapStatus): SwapOutcomeError {
  const name = Object.hasOwn(OUTCOME_ERROR_CLASS, status.status)
    ? OUTCOME_ERROR_CLASS[status.status as keyof typeof OUTCOME_ERROR_CLASS]
    : 'SwapFailedError';
  return new OUTCOME_CLASSES[name](status);
}
