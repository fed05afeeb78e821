/**
 * Which of a pool's signed atomic swaps execute together under one hold of its lock
 * (docs/spec/atomic-swaps.md#execution-batches). A batch is decided swap by swap against the
 * books as each earlier one would leave them, then its transactions go to the ledger at once: one
 * ledger round trip for the batch instead of one each while the lock is held.
 *
 * Only swaps in one direction go together. Should the ledger refuse an earlier member, every
 * later one was judged at reserves holding more of its output and less of its input than the
 * books it meets without that member, where the curve pays at least as much: the pool still never
 * pays above its curve (`curvePaysEachCommitted` states it, and the tests hold it over random
 * batches and refusals). Swaps the other way wait for the next batch.
 */
import type { Amount } from './amount.js';
import { constantProductOutput, type Reserves } from './pricing.js';

/** The most signed swaps of one pool executed under one hold of its lock. */
export const ATOMIC_EXECUTION_BATCH_MAX = 16;

/**
 * The next batch of a pool's queue, in queue order: its first swap and every later one in the
 * same direction (`directionOf`), at most `max`; `rest` keeps the others in their order.
 */
export function atomicExecutionBatch<T>(
  queued: readonly T[],
  directionOf: (swap: T) => string,
  max: number = ATOMIC_EXECUTION_BATCH_MAX,
): { readonly batch: readonly T[]; readonly rest: readonly T[] } {
  const head = queued[0];
  if (head === undefined || max < 1) return { batch: [], rest: [...queued] };
  const direction = directionOf(head);
  const batch: T[] = [];
  const rest: T[] = [];
  for (const swap of queued) {
    if (batch.length < max && directionOf(swap) === direction) batch.push(swap);
    else rest.push(swap);
  }
  return { batch, rest };
}

/** A swap of a one-direction batch: what it adds to the input reserve and what it is paid. */
export interface BatchedSwap {
  /** The input the curve prices (after the pool fee). */
  readonly pricedInput: Amount;
  /** What joins the input reserve (the priced input and the LP fee). */
  readonly inputReserveAdded: Amount;
  /** The signed output. */
  readonly paid: Amount;
}

/**
 * Whether the curve, at the reserves the committed swaps leave one after the other (the refused
 * ones moving nothing), pays each committed swap at least its signed output.
 */
export function curvePaysEachCommitted(
  reserves: Reserves,
  swaps: readonly BatchedSwap[],
  committed: readonly boolean[],
): boolean {
  let { input, output } = reserves;
  for (const [index, swap] of swaps.entries()) {
    if (committed[index] !== true) continue;
    if (constantProductOutput({ input, output }, swap.pricedInput).lt(swap.paid)) return false;
    input = input.add(swap.inputReserveAdded);
    output = output.sub(swap.paid);
  }
  return true;
}
