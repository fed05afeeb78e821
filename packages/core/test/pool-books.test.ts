import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Amount } from '../src/amount.js';
import {
  AccountingError,
  applyMovements,
  type Bucket,
  credit,
  debit,
  deltasOf,
  type Movement,
  networkCost,
  type PoolBooks,
  type Side,
} from '../src/pool-books.js';

const FIELDS = [
  'reserveA',
  'reserveB',
  'inflightA',
  'inflightB',
  'outgoingA',
  'outgoingB',
  'feesA',
  'feesB',
] as const;
const MAX_UNITS = 10n ** 24n;
const amount = fc.bigInt({ min: 0n, max: MAX_UNITS }).map(Amount.fromUnits);
const books: fc.Arbitrary<PoolBooks> = fc
  .tuple(...FIELDS.map(() => amount))
  .map((values) => Object.fromEntries(FIELDS.map((f, i) => [f, values[i]])) as never);
const side = fc.constantFrom<Side>('a', 'b');
const bucket = fc.constantFrom<Bucket>('reserve', 'inflight', 'outgoing', 'fees');
const movement: fc.Arbitrary<Movement> = fc
  .tuple(side, bucket, amount, fc.boolean())
  .map(([s, b, a, up]) => (up ? credit(s, b, a) : debit(s, b, a)));

const total = (b: PoolBooks, s: Side) =>
  (s === 'a'
    ? [b.reserveA, b.inflightA, b.outgoingA, b.feesA]
    : [b.reserveB, b.inflightB, b.outgoingB, b.feesB]
  ).reduce((sum, v) => sum + v.units, 0n);

describe('pool books', () => {
  it('moves exactly the units asked, or refuses and changes nothing', () => {
    fc.assert(
      fc.property(books, fc.array(movement, { maxLength: 12 }), (before, movements) => {
        const sums = deltasOf(movements);
        let after: PoolBooks;
        try {
          after = applyMovements(before, movements);
        } catch (error) {
          expect(error).toBeInstanceOf(AccountingError);
          return;
        }
        for (const field of FIELDS) {
          expect(after[field].units - before[field].units).toBe(sums[field] ?? 0n);
        }
      }),
    );
  });

  it('refuses to take from a bucket more than it holds', () => {
    fc.assert(
      fc.property(books, side, bucket, amount, (before, s, b, extra) => {
        const field = `${b === 'reserve' ? 'reserve' : b}${s.toUpperCase()}` as keyof PoolBooks;
        const held = before[field];
        const tooMuch = Amount.fromUnits(held.units + extra.units + 1n);
        expect(() => applyMovements(before, [debit(s, b, tooMuch)])).toThrow(AccountingError);
        expect(applyMovements(before, [debit(s, b, held)])[field]).toEqual(Amount.ZERO);
      }),
    );
  });

  it('moves between buckets of a side without changing what the side holds', () => {
    fc.assert(
      fc.property(books, side, bucket, bucket, amount, (before, s, from, to, moved) => {
        const movements = [debit(s, from, moved), credit(s, to, moved)];
        try {
          expect(total(applyMovements(before, movements), s)).toBe(total(before, s));
        } catch (error) {
          expect(error).toBeInstanceOf(AccountingError);
        }
      }),
    );
  });

  it('pays a network cost from the fees collected first, then from the reserve, to the unit', () => {
    fc.assert(
      fc.property(books, side, amount, (before, s, cost) => {
        const movements = networkCost(before, s, cost);
        const paid = movements.reduce((sum, m) => sum - m.units, 0n);
        expect(paid).toBe(cost.units);
        const fees = (s === 'a' ? before.feesA : before.feesB).units;
        const fromFees = movements.find((m) => m.bucket === 'fees');
        // The fees pay all of it when they can, else all they hold.
        let fromFeesExpected = fees;
        if (cost.units <= fees) fromFeesExpected = cost.units;
        expect(-(fromFees?.units ?? 0n)).toBe(fromFeesExpected);
        for (const m of movements) expect(m.side).toBe(s);
      }),
    );
  });
});
