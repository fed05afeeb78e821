/**
 * Fees set aside and sent from a swap party: a developer's collection and a treasury sweep both
 * take an amount out of a side's `fees` bucket and send it to a party of their own. While the
 * transfer is on its way the amount is promised but still held, so it waits in `outgoing`; the
 * transfer's arrival is `transferArrived`, like any leg's.
 */
import type { Amount } from './amount.js';
import { credit, debit, type Movement, type Side } from './pool-books.js';

/** A collection or sweep is promised away: the amount leaves `fees` for `outgoing`. */
export function feesSetAside(side: Side, amount: Amount): Movement[] {
  return [debit(side, 'fees', amount), credit(side, 'outgoing', amount)];
}

/** A collection or sweep that never reached its receiver: the amount is back among the fees. */
export function feesReturned(side: Side, amount: Amount): Movement[] {
  return [debit(side, 'outgoing', amount), credit(side, 'fees', amount)];
}
