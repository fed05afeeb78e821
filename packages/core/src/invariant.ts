/**
 * Invariants: what the code relies on and a caller cannot cause, such as a row found again under
 * the lock that was taken to keep it, or a payout planned only for an executed swap. A broken
 * one is a bug, never a refusal to answer: the HTTP layer answers it as any failure of the
 * server's own, and the engine treats it as a failure of the item it was working on.
 */
import { BaseError } from './base-error.js';

export class InvariantError extends BaseError<'invariant_violated'> {
  override name = 'InvariantError';

  constructor(message: string, details?: Readonly<Record<string, unknown>>) {
    super('invariant_violated', message, details === undefined ? {} : { details });
  }
}

/**
 * Throws an `InvariantError` with `message` (and `details`) unless `condition` holds; the code
 * after it may count on the condition, and so may the type checker.
 */
export function assert(
  condition: unknown,
  message: string,
  details?: Readonly<Record<string, unknown>>,
): asserts condition {
  if (!condition) throw new InvariantError(message, details);
}
