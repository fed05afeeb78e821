/**
 * The error the service's domain throws when a request cannot be served as asked: a quote for an
 * unknown pool, a reused idempotency key, a challenge already answered. It carries the catalogue
 * code (errors.ts) that says what it means to a client, the short sentence a client is shown, the
 * members a client acts on, and the error that caused it, if any. It knows nothing of HTTP: the
 * HTTP layer alone turns it into a problem document, so the same refusal reads the same from a
 * route, a CLI command or a test.
 *
 * It is the `BaseError` whose code is the catalogue's: `walk()` follows its causes, as one would
 * read a chain of "because", and `details` are the problem's extensions.
 */
import { BaseError } from './base-error.js';
import type { ErrorCode, ProblemExtensions, RequiredProblemExtensions } from './errors.js';

export interface DomainErrorOptions {
  /** The error underneath: a store error, a ledger error, a parse error. */
  readonly cause?: unknown;
  /** When a retry can succeed, in how many seconds (a client is told as `Retry-After`). */
  readonly retryAfterSeconds?: number;
}

/** The members a code's problem must carry (errors.ts), then the options. */
export type DomainErrorDetails<C extends ErrorCode> = C extends keyof RequiredProblemExtensions
  ? [extensions: ProblemExtensions<C>, options?: DomainErrorOptions]
  : [extensions?: Readonly<Record<string, unknown>>, options?: DomainErrorOptions];

export class DomainError<C extends ErrorCode = ErrorCode> extends BaseError<C> {
  override name = 'DomainError';
  /** The sentence a client is shown (a problem's `detail`), without the causes. */
  readonly shortMessage: string;
  /** Members a client acts on (a problem's extensions), e.g. `minimumAmount`. */
  readonly extensions: Readonly<Record<string, unknown>>;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: C, shortMessage: string, ...[extensions, options]: DomainErrorDetails<C>) {
    // Always an own `cause`, undefined when nothing caused it: the shape a domain error keeps.
    super(code, messageWithCause(shortMessage, options?.cause), {
      cause: options?.cause,
      ...(extensions !== undefined && { details: extensions }),
    });
    this.shortMessage = shortMessage;
    this.extensions = extensions ?? {};
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
}

/** The message logs show: the short message, then what caused it. */
function messageWithCause(shortMessage: string, cause: unknown): string {
  if (cause === undefined) return shortMessage;
  const because = cause instanceof Error ? cause.message : String(cause);
  return `${shortMessage} (caused by: ${because})`;
}

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}
