import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { feesReturned, feesSetAside } from '../src/fee-transfers.js';
import { AccountingError, applyMovements, type PoolBooks } from '../src/pool-books.js';
import { amount, books, feesOf, heldChange, side } from './support/books.js';

describe('fees set aside for a collection or a sweep', () => {
  it('move no holding, and a return undoes the set-aside exactly', () => {
    fc.assert(
      fc.property(books, side, amount, (before, s, sent) => {
        const aside = feesSetAside(s, sent);
        expect(heldChange(aside, s)).toBe(0n);
        expect(heldChange(aside, s === 'a' ? 'b' : 'a')).toBe(0n);
        let reserved: PoolBooks;
        try {
          reserved = applyMovements(before, aside);
        } catch (error) {
          // More than the fees hold is refused as a whole.
          expect(error).toBeInstanceOf(AccountingError);
          expect(sent.gt(feesOf(before, s))).toBe(true);
          return;
        }
        expect(heldChange(feesReturned(s, sent), s)).toBe(0n);
        expect(applyMovements(reserved, feesReturned(s, sent))).toEqual(before);
      }),
    );
  });
});
