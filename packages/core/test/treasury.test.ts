import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Amount } from '../src/amount.js';
import { feesSetAside } from '../src/fee-transfers.js';
import { planOfferOutcome } from '../src/leg-outcomes.js';
import { applyMovements } from '../src/pool-books.js';
import { amountFor, sweepableFees, sweepDue } from '../src/treasury.js';
import { amount, books, feesOf, side } from './support/books.js';

const heldBack = fc
  .tuple(amount, amount, amount)
  .map(([owedToDevelopers, releasable, networkReserve]) => ({
    owedToDevelopers,
    releasable,
    networkReserve,
  }));

describe('what a sweep may take', () => {
  it('never takes what developers are owed, a reversal may release, or the network reserve', () => {
    fc.assert(
      fc.property(amount, heldBack, (fees, held) => {
        const sweepable = sweepableFees(fees, held);
        expect(sweepable.lte(fees)).toBe(true);
        const left = fees.sub(sweepable);
        const kept = held.owedToDevelopers.add(held.releasable).add(held.networkReserve);
        // What stays covers everything held back, or the sweep takes nothing at all.
        expect(left.gte(kept) || sweepable.isZero()).toBe(true);
        // And nothing more than that stays: the sweep takes all it may.
        if (sweepable.isPositive()) expect(left).toEqual(kept);
      }),
    );
  });

  it('leaves nothing sweepable after it is swept, and developers can still collect all they are owed', () => {
    fc.assert(
      fc.property(books, side, heldBack, (before, s, held) => {
        const sweepable = sweepableFees(feesOf(before, s), held);
        if (!sweepable.isPositive()) return;
        const after = applyMovements(before, feesSetAside(s, sweepable));
        expect(sweepableFees(feesOf(after, s), held)).toEqual(Amount.ZERO);
        expect(feesOf(after, s).gte(held.owedToDevelopers)).toBe(true);
      }),
    );
  });
});

describe('the automatic schedule', () => {
  const now = new Date('2030-01-02T00:00:00Z');
  const day = 24 * 3_600_000;
  const base = { threshold: Amount.parse('10'), intervalMs: day, now };

  it('sweeps a side above its threshold once its last sweep is an interval old', () => {
    expect(sweepDue({ ...base, sweepable: Amount.parse('10.1'), lastSweptAt: null })).toEqual({
      kind: 'sweep',
      amount: Amount.parse('10.1'),
    });
    const dayAgo = new Date(now.getTime() - day);
    expect(sweepDue({ ...base, sweepable: Amount.parse('11'), lastSweptAt: dayAgo }).kind).toBe(
      'sweep',
    );
  });

  it('does not sweep at or below the threshold, nor nothing at a zero threshold', () => {
    expect(sweepDue({ ...base, sweepable: Amount.parse('10'), lastSweptAt: null }).kind).toBe(
      'below_threshold',
    );
    expect(
      sweepDue({ ...base, threshold: Amount.ZERO, sweepable: Amount.ZERO, lastSweptAt: null }).kind,
    ).toBe('below_threshold');
  });

  it('waits for the interval since the last sweep, whatever is sweepable', () => {
    const hourAgo = new Date(now.getTime() - 3_600_000);
    expect(sweepDue({ ...base, sweepable: Amount.parse('1000'), lastSweptAt: hourAgo })).toEqual({
      kind: 'not_yet_due',
      dueAt: new Date(hourAgo.getTime() + day),
    });
  });
});

describe('amounts per instrument', () => {
  const amulet = { id: 'Amulet', admin: 'DSO::1' };
  const cbtc = { id: 'CBTC', admin: 'bitsafe::1' };
  it("takes the instrument's entry, else *, else zero", () => {
    const table = { Amulet: Amount.parse('100'), '*': Amount.parse('1') };
    expect(amountFor(table, amulet)).toEqual(Amount.parse('100'));
    expect(amountFor(table, cbtc)).toEqual(Amount.parse('1'));
    expect(amountFor({}, cbtc)).toEqual(Amount.ZERO);
  });
});

describe("the end of a sweep's offer", () => {
  it('finishes the sweep when accepted and returns it to the fees otherwise', () => {
    expect(planOfferOutcome('sweep', 'accepted')).toEqual({
      legOutcome: null,
      step: { kind: 'finish_sweep' },
    });
    for (const ending of ['rejected', 'withdrawn', 'expired'] as const) {
      expect(planOfferOutcome('sweep', ending)).toEqual({
        legOutcome: null,
        step: { kind: 'return_sweep', error: `the sweep offer was ${ending}` },
      });
    }
  });
});
