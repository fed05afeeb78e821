/**
 * What a start opened, closed in reverse order when the service stops or the start fails. Each
 * part is closed whatever became of the others, and a part that fails to close is reported, not
 * dropped: a store that did not close may not have written its last changes, and an operator
 * must hear of it, and a supervisor see it in the exit code.
 */

import { BaseError } from '@poolparty/core';

/** One part a start opened, and how to close it. */
export interface Closer {
  /** The part, as a log line names it: `the store`, `the settlement engine`. */
  readonly what: string;
  close(): Promise<void>;
}

/** A part that did not close; its `cause` is what closing it threw. */
export class CloseFailure extends BaseError<'close_failed'> {
  override readonly name = 'CloseFailure';
  constructor(
    readonly what: string,
    cause: unknown,
  ) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super('close_failed', `closing ${what} failed: ${reason}`, { cause });
  }
}

export class Closers {
  private readonly closers: Closer[] = [];

  push(...closers: Closer[]): void {
    this.closers.push(...closers);
  }

  /**
   * Closes every part opened so far, the last opened first; `report` is told of each that failed,
   * as it fails. Answers the failures, none when everything closed.
   */
  async closeAll(report: (failure: CloseFailure) => void): Promise<CloseFailure[]> {
    const failures: CloseFailure[] = [];
    // Taken out first: a second call (a stop during a failed start) closes nothing twice.
    for (const { what, close } of this.closers.splice(0).reverse()) {
      try {
        await close();
      } catch (error) {
        const failure = new CloseFailure(what, error);
        failures.push(failure);
        report(failure);
      }
    }
    return failures;
  }
}
