/**
 * The base of every error the service's packages throw: a refusal the API answers (`DomainError`)
 * as much as a ledger that is out of reach, a store that cannot be used, a malformed amount or a
 * broken invariant. Each carries a stable `code` that says what happened without parsing the
 * message, optional `details` for whoever reads it, and the error that caused it.
 *
 * The class keeps to what every error shares: it sets no `name` (each class names itself, and a
 * log or a stored failure reads as it always did) and adds no own `cause` unless one is given.
 * The SDK is published without dependencies and has its own base with the same members
 * (`PoolPartyError`, packages/sdk/src/errors.ts).
 */

/** Causes followed at most: a cycle or an absurdly deep chain must not hang a walk. */
const CAUSE_DEPTH_MAX = 16;

export interface BaseErrorOptions {
  /** What a reader needs beyond the message: the ids involved, the values compared. */
  readonly details?: Readonly<Record<string, unknown>>;
  /** The error underneath: a store error, a ledger error, a parse error. */
  readonly cause?: unknown;
}

export class BaseError<C extends string = string> extends Error {
  /** Stable per situation, for code that tells errors apart; the message is for people. */
  readonly code: C;
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(code: C, message: string, options: BaseErrorOptions = {}) {
    // An own `cause` only when one is given, as `new Error(message)` has none.
    super(message, 'cause' in options ? { cause: options.cause } : undefined);
    this.code = code;
    this.details = options.details;
  }

  /** This error, then each error it wraps, in order: its cause, the cause's cause, … */
  chain(): Generator<unknown, void, undefined> {
    return causeChain(this);
  }

  /**
   * The first error of this one and its causes, in order, that `pick` accepts; without `pick`,
   * the deepest cause (this error itself when it has none). Null when `pick` accepts none.
   */
  walk(pick?: (error: unknown) => boolean): unknown {
    return pick ? findCause(this, pick) : deepestCause(this);
  }
}

/**
 * The deepest of `error` and the causes it wraps, followed at most `depthMax` steps down: `error`
 * itself when it wraps none.
 */
export function deepestCause(error: unknown, depthMax = CAUSE_DEPTH_MAX): unknown {
  let deepest: unknown = error;
  // One past the bound: the deepest is the cause the last step reached.
  for (const cause of causeChain(error, depthMax + 1)) deepest = cause;
  return deepest;
}

/**
 * `error`, then each cause it wraps, in order, at most `depthMax` of them. Only an `Error` has a
 * cause to follow; the chain ends at the first without one.
 */
export function* causeChain(
  error: unknown,
  depthMax = CAUSE_DEPTH_MAX,
): Generator<unknown, void, undefined> {
  let current = error;
  for (let depth = 0; depth < depthMax; depth += 1) {
    yield current;
    const cause = current instanceof Error ? current.cause : undefined;
    if (cause === undefined) return;
    current = cause;
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
  for (const cause of causeChain(error, depthMax)) if (pick(cause)) return cause;
  return null;
}
