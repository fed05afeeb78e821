/**
 * Refusals in Canton's shape: every error answer of the participant paths is a `JsCantonError`
 * with Canton's error code id, error category and the HTTP status Canton's JSON API derives from
 * the category's gRPC code. The registry and scan-proxy paths answer their own `{ error }` body.
 */
import { BaseError } from '@poolparty/core';
import { LedgerError, type LedgerErrorCode } from '@poolparty/ledger';

/** Canton's error categories (the `errorCategory` integer) and what they mean on the wire. */
const ERROR_CATEGORIES = {
  /** Retryable: the service is (briefly) unavailable. */
  TransientServerFailure: { id: 1, grpc: 14, status: 503 },
  /** Retryable: contention, e.g. the same submission already in flight. */
  ContentionOnSharedResources: { id: 2, grpc: 10, status: 409 },
  /** The request may or may not have taken effect. */
  DeadlineExceededRequestStateUnknown: { id: 3, grpc: 4, status: 504 },
  SystemInternalAssumptionViolated: { id: 4, grpc: 13, status: 500 },
  AuthInterceptorInvalidAuthenticationCredentials: { id: 6, grpc: 16, status: 401 },
  InsufficientPermission: { id: 7, grpc: 7, status: 403 },
  InvalidIndependentOfSystemState: { id: 8, grpc: 3, status: 400 },
  InvalidGivenCurrentSystemStateOther: { id: 9, grpc: 9, status: 400 },
  InvalidGivenCurrentSystemStateResourceExists: { id: 10, grpc: 6, status: 409 },
  InvalidGivenCurrentSystemStateResourceMissing: { id: 11, grpc: 5, status: 404 },
  InvalidGivenCurrentSystemStateSeekAfterEnd: { id: 12, grpc: 11, status: 400 },
  InternalUnsupportedOperation: { id: 14, grpc: 12, status: 501 },
} as const;

export type ErrorCategory = keyof typeof ERROR_CATEGORIES;

/** Categories a client may retry the same request in (Canton adds `retryInfo` to those). */
const RETRYABLE: ReadonlySet<ErrorCategory> = new Set([
  'TransientServerFailure',
  'ContentionOnSharedResources',
]);

export interface JsCantonErrorBody {
  readonly code: string;
  readonly cause: string;
  readonly context: Readonly<Record<string, string>>;
  readonly errorCategory: number;
  readonly grpcCodeValue: number;
  readonly definiteAnswer?: boolean;
  readonly retryInfo?: string;
  readonly correlationId?: string;
}

/**
 * A refusal of a participant path; the server's error handler answers it as a JsCantonError. Its
 * code is Canton's error code id (`INVALID_ARGUMENT`, `CONTRACT_NOT_FOUND`, …).
 */
export class CantonApiError extends BaseError {
  override readonly name = 'CantonApiError';
  constructor(
    code: string,
    readonly category: ErrorCategory,
    readonly cause_: string,
    readonly context: Readonly<Record<string, string>> = {},
    readonly definiteAnswer?: boolean,
  ) {
    super(code, `${code}: ${cause_}`);
  }

  get status(): number {
    return ERROR_CATEGORIES[this.category].status;
  }

  body(correlationId?: string): JsCantonErrorBody {
    const category = ERROR_CATEGORIES[this.category];
    return {
      code: this.code,
      cause: this.cause_,
      context: { ...this.context, category: String(category.id) },
      errorCategory: category.id,
      grpcCodeValue: category.grpc,
      ...(this.definiteAnswer !== undefined && { definiteAnswer: this.definiteAnswer }),
      ...(RETRYABLE.has(this.category) && { retryInfo: '1 second' }),
      ...(correlationId !== undefined && { correlationId }),
    };
  }
}

export const invalidArgument = (cause: string, context: Record<string, string> = {}) =>
  new CantonApiError('INVALID_ARGUMENT', 'InvalidIndependentOfSystemState', cause, context);

export const unauthenticated = (cause: string) =>
  new CantonApiError(
    'UNAUTHENTICATED',
    'AuthInterceptorInvalidAuthenticationCredentials',
    `The command is missing a (valid) JWT token: ${cause}`,
  );

export const permissionDenied = (cause: string) =>
  new CantonApiError('PERMISSION_DENIED', 'InsufficientPermission', cause);

/**
 * The ledger's refusals as Canton reports the same situations. Failures raised inside the token
 * standard's Daml code come as `DAML_FAILURE` with the failure's id in `context.error_id` (the
 * ledger error code itself), so a client tells them apart without reading the cause text.
 */
const LEDGER_ERRORS: Readonly<
  Record<LedgerErrorCode, { readonly code: string; readonly category: ErrorCategory }>
> = {
  unknown_party: {
    code: 'PARTY_NOT_KNOWN_ON_LEDGER',
    category: 'InvalidGivenCurrentSystemStateResourceMissing',
  },
  unknown_instrument: { code: 'DAML_FAILURE', category: 'InvalidGivenCurrentSystemStateOther' },
  insufficient_holdings: { code: 'DAML_FAILURE', category: 'InvalidGivenCurrentSystemStateOther' },
  invalid_inputs: { code: 'DAML_FAILURE', category: 'InvalidGivenCurrentSystemStateOther' },
  unknown_contract: {
    code: 'CONTRACT_NOT_FOUND',
    category: 'InvalidGivenCurrentSystemStateResourceMissing',
  },
  invalid_disclosure: {
    code: 'DISCLOSED_CONTRACT_INVALID',
    category: 'InvalidGivenCurrentSystemStateOther',
  },
  invalid_amount: { code: 'DAML_FAILURE', category: 'InvalidIndependentOfSystemState' },
  metadata_limit_exceeded: { code: 'DAML_FAILURE', category: 'InvalidIndependentOfSystemState' },
  offer_not_found: {
    code: 'CONTRACT_NOT_FOUND',
    category: 'InvalidGivenCurrentSystemStateResourceMissing',
  },
  offer_expired: { code: 'DAML_FAILURE', category: 'InvalidGivenCurrentSystemStateOther' },
  allocation_not_found: {
    code: 'CONTRACT_NOT_FOUND',
    category: 'InvalidGivenCurrentSystemStateResourceMissing',
  },
  deadline_passed: { code: 'DAML_FAILURE', category: 'InvalidGivenCurrentSystemStateOther' },
  invalid_settlement: { code: 'DAML_FAILURE', category: 'InvalidIndependentOfSystemState' },
  not_authorized: { code: 'DAML_AUTHORIZATION_ERROR', category: 'InvalidIndependentOfSystemState' },
  signature_invalid: { code: 'INVALID_ARGUMENT', category: 'InvalidIndependentOfSystemState' },
  rejected: { code: 'PARTICIPANT_BACKPRESSURE', category: 'ContentionOnSharedResources' },
  timeout: { code: 'REQUEST_TIME_OUT', category: 'DeadlineExceededRequestStateUnknown' },
  stream_dropped: { code: 'SERVICE_NOT_RUNNING', category: 'TransientServerFailure' },
  closed: { code: 'SERVICE_NOT_RUNNING', category: 'TransientServerFailure' },
};

function cantonErrorOfLedgerError(error: LedgerError): CantonApiError {
  const { code, category } = LEDGER_ERRORS[error.code];
  const context: Record<string, string> = code === 'DAML_FAILURE' ? { error_id: error.code } : {};
  // A timeout is the one refusal that does not say whether the command took effect.
  const definiteAnswer = error.code === 'timeout' ? false : undefined;
  return new CantonApiError(code, category, error.message, context, definiteAnswer);
}

/** Any thrown value as the CantonApiError to answer, or null when it is the server's own fault. */
export function asCantonError(error: unknown): CantonApiError | null {
  if (error instanceof CantonApiError) return error;
  if (error instanceof LedgerError) return cantonErrorOfLedgerError(error);
  // The local ledger refuses malformed control input (a bad party hint, key or instrument) so.
  if (error instanceof RangeError) return invalidArgument(error.message);
  return null;
}

/** The `{ error }` body of the registry and scan-proxy APIs, with its status. */
export class RegistryError extends BaseError<'registry_refused'> {
  override readonly name = 'RegistryError';
  constructor(
    readonly status: 400 | 404 | 501,
    message: string,
  ) {
    super('registry_refused', message);
  }
}
