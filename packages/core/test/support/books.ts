/**
 * Arbitraries of amounts and pool books, and how movements change a swap party's holdings: what
 * every property test of a planner that moves the books draws from and checks against.
 */
import fc from 'fast-check';
import { Amount } from '../../src/amount.js';
import type { Movement, PoolBooks, Side } from '../../src/pool-books.js';

const MAX_UNITS = 10n ** 22n;
export const units = fc.bigInt({ min: 0n, max: MAX_UNITS });
export const amount = units.map(Amount.fromUnits);
export const side = fc.constantFrom<Side>('a', 'b');
export const books: fc.Arbitrary<PoolBooks> = fc.record({
  reserveA: amount,
  reserveB: amount,
  inflightA: amount,
  inflightB: amount,
  outgoingA: amount,
  outgoingB: amount,
  feesA: amount,
  feesB: amount,
});

/** What the movements do to the swap party's holdings of one side, in units. */
export function heldChange(movements: readonly Movement[], of: Side): bigint {
  return movements.filter((m) => m.side === of).reduce((sum, m) => sum + m.units, 0n);
}

export function feesOf(b: PoolBooks, s: Side): Amount {
  return s === 'a' ? b.feesA : b.feesB;
}
