/**
 * When one item the engine works on — a ledger update it applies, a swap it executes — keeps
 * failing, it is set aside with an operator flag instead of being retried for ever: one bad item
 * must never stop every other one behind it (docs/operations.md#items-set-aside).
 *
 * What counts: a failure the item itself causes (a payload the code did not foresee, a state it
 * cannot apply, a bug). A lost store connection, or a transaction the store rolled back to let
 * another through (a deadlock, a serialization failure), says nothing about the item and is
 * retried without counting.
 */
import { keepRecent } from './recent-entries.js';

export type FailureVerdict = 'retry' | 'set_aside';

/** Whether an item that has now failed `attempts` times (1-based) is tried again or set aside. */
export function judgeItemFailure(attempts: number, attemptsMax: number): FailureVerdict {
  return attempts >= attemptsMax ? 'set_aside' : 'retry';
}

/**
 * Items failing at once that are counted; past it the least recently failed is forgotten (it
 * starts counting again from one). Far above what a batch can hold.
 */
const FAILING_ITEMS_MAX = 4_096;

/** Failed attempts per item, counted in memory since the item first failed in this process. */
export class FailedAttempts<K> {
  private readonly counts = new Map<K, number>();

  /** Counts a failure of `item`; answers its attempts so far, this one included. */
  failed(item: K): number {
    const attempts = (this.counts.get(item) ?? 0) + 1;
    keepRecent(this.counts, item, attempts, FAILING_ITEMS_MAX);
    return attempts;
  }

  /** The item applied, or was set aside: it is no longer counted. */
  settled(item: K): void {
    this.counts.delete(item);
  }
}
