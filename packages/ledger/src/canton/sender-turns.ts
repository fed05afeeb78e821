/**
 * Transfers of one sender take turns in this process. A Token Standard transfer names its input
 * holdings (`inputHoldingCids`), read from the sender's active set just before it is submitted;
 * two transfers of one sender read at once would name the same holdings, the first to commit
 * archives them, and every other is refused for inputs that are gone, again and again while
 * payouts keep arriving. In turn, each reads the holdings the previous one left (its change).
 * Other senders, and other processes (which a refusal and a retry cover), are not held up.
 */
import { LedgerError } from '../port.js';

/** Transfers of one sender waiting for their turn, at most: past it, one is refused to retry. */
export const SENDER_TURN_WAITERS_MAX = 1_000;

export class SenderTurns {
  private readonly tails = new Map<string, { tail: Promise<unknown>; waiting: number }>();

  /** Runs `task` once every earlier task of `sender` has ended, whether it failed or not. */
  async take<T>(sender: string, task: () => Promise<T>): Promise<T> {
    const turn = this.tails.get(sender) ?? { tail: Promise.resolve(), waiting: 0 };
    if (turn.waiting >= SENDER_TURN_WAITERS_MAX) {
      throw new LedgerError(
        'rejected',
        `${SENDER_TURN_WAITERS_MAX} transfers of ${sender} are waiting already; try again`,
      );
    }
    const run = turn.tail.then(task, task);
    turn.tail = run.catch(() => undefined);
    turn.waiting += 1;
    this.tails.set(sender, turn);
    try {
      return await run;
    } finally {
      turn.waiting -= 1;
      // The last of the sender's turns forgets the sender, so the map holds only busy senders.
      if (turn.waiting === 0) this.tails.delete(sender);
    }
  }
}
