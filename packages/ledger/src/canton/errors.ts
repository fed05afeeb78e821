/**
 * What a failed Canton request means for the port: one pure decision from what came back (a
 * `JsCantonError`, another HTTP answer, or no answer at all) and what was asked (a read or a
 * submission) to a `LedgerError` code.
 *
 * The rule that matters most: `rejected` promises that nothing changed, so a submission only gets
 * it when the ledger said so. A submission whose answer is lost after it was sent (a 5xx without
 * Canton's error body, a dropped connection, our own time limit) may have committed: `timeout`.
 */
import { LedgerError, type LedgerErrorCode } from '../port.js';

/** Canton's error categories, by the `errorCategory` number of a `JsCantonError`. */
const CANTON_ERROR_CATEGORY = {
  transientServerFailure: 1,
  contentionOnSharedResources: 2,
  deadlineExceededRequestStateUnknown: 3,
  systemInternalAssumptionViolated: 4,
  maliciousOrFaultyBehaviour: 5,
  authInterceptorInvalidAuthenticationCredentials: 6,
  insufficientPermission: 7,
  invalidIndependentOfSystemState: 8,
  invalidGivenCurrentSystemStateOther: 9,
  invalidGivenCurrentSystemStateResourceExists: 10,
  invalidGivenCurrentSystemStateResourceMissing: 11,
  invalidGivenCurrentSystemStateSeekAfterEnd: 12,
  backgroundProcessDegradationWarning: 13,
  internalUnsupportedOperation: 14,
} as const;

/** The fields of a `JsCantonError` the decision reads. */
export interface CantonErrorBody {
  readonly code: string;
  readonly cause: string;
  readonly errorCategory: number;
  readonly context?: Readonly<Record<string, string>>;
  readonly definiteAnswer?: boolean;
}

/**
 * What the request was: `read` changes nothing; `submit` may change the ledger; `offer` is a
 * submission on a transfer instruction (a missing contract then means the offer is gone).
 */
export type RequestKind = 'read' | 'submit' | 'offer';

/** A refusal that is not an error for the caller: the command already committed. */
const DUPLICATE_COMMAND = 'DUPLICATE_COMMAND';

const PORT_CODES: ReadonlySet<string> = new Set<LedgerErrorCode>([
  'unknown_party',
  'unknown_instrument',
  'insufficient_holdings',
  'invalid_inputs',
  'invalid_amount',
  'metadata_limit_exceeded',
  'offer_not_found',
  'offer_expired',
  'deadline_passed',
  'invalid_settlement',
  'not_authorized',
]);

/** Canton error code ids with one meaning whatever the category says. */
const BY_CODE: Readonly<Record<string, LedgerErrorCode>> = {
  PARTY_NOT_KNOWN_ON_LEDGER: 'unknown_party',
  UNKNOWN_INFORMEES: 'unknown_party',
  UNKNOWN_SUBMITTERS: 'unknown_party',
  DAML_AUTHORIZATION_ERROR: 'not_authorized',
  // A disclosed contract that is not the contract its id names: sending it again never passes.
  DISCLOSED_CONTRACT_INVALID: 'invalid_disclosure',
  // Another submission of the same change id is still being processed: it may yet commit.
  SUBMISSION_ALREADY_IN_FLIGHT: 'timeout',
  REQUEST_TIME_OUT: 'timeout',
};

/** Codes of failures raised by Daml code (the token standard's own checks). */
const DAML_FAILURES: ReadonlySet<string> = new Set([
  'DAML_FAILURE',
  'UNHANDLED_EXCEPTION',
  'DAML_INTERPRETATION_ERROR',
  'INTERPRETATION_USER_ERROR',
]);

/**
 * Daml failures name their reason in `context.error_id` (a `failWithStatus` id) or only in the
 * message text (`fail`/`require`, as Amulet's token-standard code does). The ids are the port's
 * own codes; the texts are those the registries' Daml code fails with.
 */
const FAILURE_TEXTS: readonly (readonly [RegExp, LedgerErrorCode])[] = [
  [/insufficient (funds|holdings)|not enough (funds|holdings)/i, 'insufficient_holdings'],
  [/expired|executeBefore|deadline .* passed/i, 'offer_expired'],
  [/metadata .*(limit|too (large|long|many))/i, 'metadata_limit_exceeded'],
  [/amount must be positive|non-positive amount|invalid amount/i, 'invalid_amount'],
  [/unknown instrument|instrument .*not (found|supported)/i, 'unknown_instrument'],
];

function failureCode(body: CantonErrorBody): LedgerErrorCode | null {
  const id = body.context?.error_id;
  if (id !== undefined && PORT_CODES.has(id)) return id as LedgerErrorCode;
  for (const [pattern, code] of FAILURE_TEXTS) if (pattern.test(body.cause)) return code;
  return null;
}

/** The port code of a `JsCantonError` answer to a request of `kind`. */
export function codeOfCantonError(body: CantonErrorBody, kind: RequestKind): LedgerErrorCode {
  const byCode = BY_CODE[body.code];
  if (byCode !== undefined) return byCode;
  if (DAML_FAILURES.has(body.code)) {
    const failure = failureCode(body);
    if (failure !== null) return failure;
  }
  const category = body.errorCategory;
  const C = CANTON_ERROR_CATEGORY;
  switch (category) {
    case C.deadlineExceededRequestStateUnknown:
      return 'timeout';
    case C.authInterceptorInvalidAuthenticationCredentials:
    case C.insufficientPermission:
      return 'not_authorized';
    case C.invalidGivenCurrentSystemStateResourceMissing:
      // The contract a choice was exercised on is gone: for an offer, the offer is.
      return kind === 'offer' && body.code === 'CONTRACT_NOT_FOUND'
        ? 'offer_not_found'
        : 'rejected';
    case C.systemInternalAssumptionViolated:
    case C.maliciousOrFaultyBehaviour:
      // The participant failed mid-request: a submission may have gone through.
      return kind === 'read' ? 'rejected' : 'timeout';
    default:
      // Transient, contention and the "invalid given current state" family: refused, nothing
      // changed; a retry (after reading fresh state) may pass.
      return 'rejected';
  }
}

/** Whether a JSON value has the shape of a `JsCantonError`. */
export function isCantonErrorBody(value: unknown): value is CantonErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const body = value as Record<string, unknown>;
  return (
    typeof body.code === 'string' &&
    typeof body.cause === 'string' &&
    typeof body.errorCategory === 'number'
  );
}

/** How an HTTP exchange failed, as the adapter's HTTP client saw it. */
export type RequestFailure =
  /** An answer with a status outside 2xx, and its parsed JSON body (undefined: not JSON). */
  | { readonly kind: 'status'; readonly status: number; readonly body: unknown }
  /** The connection could not be made: the request provably never reached the server. */
  | { readonly kind: 'unreachable'; readonly detail: string }
  /** The connection broke or our time limit passed after the request was sent. */
  | { readonly kind: 'lost'; readonly detail: string };

/** The port code of any failed request of `kind`. */
export function codeOfFailure(failure: RequestFailure, kind: RequestKind): LedgerErrorCode {
  if (failure.kind === 'unreachable') return 'rejected';
  if (failure.kind === 'lost') return kind === 'read' ? 'rejected' : 'timeout';
  if (isCantonErrorBody(failure.body)) return codeOfCantonError(failure.body, kind);
  const { status } = failure;
  if (status === 401 || status === 403) return 'not_authorized';
  // 4xx: the server read the request and refused it (e.g. a body it could not parse).
  if (status < 500) return 'rejected';
  // A 5xx without Canton's body comes from something in between (a proxy, a crashed handler):
  // whether a submission got through is unknown.
  return kind === 'read' ? 'rejected' : 'timeout';
}

function describeFailure(failure: RequestFailure): string {
  if (failure.kind !== 'status') return failure.detail;
  if (isCantonErrorBody(failure.body)) return `${failure.body.code}: ${failure.body.cause}`;
  const error = (failure.body as { error?: unknown } | undefined)?.error;
  return typeof error === 'string' ? error : `HTTP ${failure.status}`;
}

/** The `LedgerError` to throw for a failed request. */
export function ledgerErrorOf(
  failure: RequestFailure,
  kind: RequestKind,
  what: string,
): LedgerError {
  return new LedgerError(codeOfFailure(failure, kind), `${what}: ${describeFailure(failure)}`);
}

/** Whether the failure is Canton's refusal of a change id that already committed. */
export function isDuplicateCommand(failure: RequestFailure): boolean {
  return (
    failure.kind === 'status' &&
    isCantonErrorBody(failure.body) &&
    failure.body.code === DUPLICATE_COMMAND
  );
}

/** Thrown by the HTTP client; carries what happened so callers can decide beyond the code. */
export class CantonRequestError extends LedgerError {
  constructor(
    readonly failure: RequestFailure,
    kind: RequestKind,
    what: string,
  ) {
    const error = ledgerErrorOf(failure, kind, what);
    super(error.code, error.message);
  }
}
