/**
 * The error the service's domain throws when a request cannot be served as asked: a quote for an
 * unknown pool, a reused idempotency key, a challenge already answered. It carries the catalogue
 * code (errors.ts) that says what it means to a client, the short sentence a client is shown, the
 * members a client acts on, and the error that caused it, if any. It knows nothing of HTTP: the
 * HTTP layer alone turns it into a problem document, so the same refusal reads the same from a
 * route, a CLI command or a test.
 *
 * `walk()` follows the causes, as one would read a chain of "because": to the deepest, or to the
 * first that a predicate picks.
 */
import type { ErrorCode, ProblemExtensions, RequiredProblemExtensions } from './errors.js';

/** Causes followed at most: a cycle or an absurdly deep chain must not hang a walk. */
const CAUSE_DEPTH_MAX = 16;

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

export class DomainError<C extends ErrorCode = ErrorCode> extends Error {
  override name = 'DomainError';
  /** The sentence a client is shown (a problem's `detail`), without the causes. */
  readonly shortMessage: string;
  /** Members a client acts on (a problem's extensions), e.g. `minimumAmount`. */
  readonly extensions: Readonly<Record<string, unknown>>;
  readonly retryAfterSeconds: number | undefined;

  constructor(
    readonly code: C,
    shortMessage: string,
    ...[extensions, options]: DomainErrorDetails<C>
  ) {
    super(messageWithCause(shortMessage, options?.cause), { cause: options?.cause });
    this.shortMessage = shortMessage;
    this.extensions = extensions ?? {};
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }

  /**
   * The first error of this one and its causes, in order, that `pick` accepts; without `pick`,
   * the deepest cause (this error itself when it has none). Null when `pick` accepts none.
   */
  walk(pick?: (error: unknown) => boolean): unknown {
    if (pick) return findCause(this, pick);
    let current: unknown = this;
    for (let depth = 0; depth < CAUSE_DEPTH_MAX; depth += 1) {
      const cause = current instanceof Error ? current.cause : undefined;
      if (cause === undefined) return current;
      current = cause;
    }
    return current;
  }
}

/**
 * The first of `error` and the causes it wraps, in order, that `pick` accepts; null when none of
 * the first `depthMax` does.
 */
export function findCause(
  error: unknown,
  pick: (error: unknown) => boolean,
  depthMax = CAUSE_DEPTH_MAX,
): unknown {
  let current = error;
  for (let depth = 0; depth < depthMax; depth += 1) {
    if (pick(current)) return current;
    const cause = current instanceof Error ? current.cause : undefined;
    if (cause === undefined) return null;
    current = cause;
  }
  return null;
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
