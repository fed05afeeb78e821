import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Amount } from '../src/amount.js';
import {
  chooseFreeHoldings,
  type HoldingsPlan,
  POOL_HOLDINGS_MAX,
  planHoldingSplits,
  type SideHolding,
  SPLIT_PIECE_MIN,
  selfTransfersOf,
} from '../src/pool-holdings.js';

/** Up to 40 holdings, from dust to a large reserve, some of them busy. */
const sideArb = fc
  .array(
    fc.record({
      units: fc.oneof(
        fc.bigInt({ min: 1n, max: 10n ** 6n }),
        fc.bigInt({ min: 1n, max: 10n ** 20n }),
      ),
      busy: fc.boolean(),
    }),
    { minLength: 1, maxLength: 40 },
  )
  .map((rows) =>
    rows.map(
      (row, n): SideHolding => ({
        holdingId: `h${n}`,
        amount: Amount.fromUnits(row.units),
        busy: row.busy,
      }),
    ),
  );
const targetArb = fc.integer({ min: 1, max: 80 });

/** The side once every split of the plan was carried out: each split holding replaced by its pieces. */
function applied(side: readonly SideHolding[], plan: HoldingsPlan, round = 0): SideHolding[] {
  const split = new Map(plan.splits.map((s) => [s.holdingId, s.pieces]));
  return side.flatMap((holding) => {
    const pieces = split.get(holding.holdingId);
    if (pieces === undefined) return [holding];
    return pieces.map((amount, i) => ({
      holdingId: `${holding.holdingId}.${round}.${i}`,
      amount,
      busy: false,
    }));
  });
}

const total = (side: readonly { readonly amount: Amount }[]) =>
  Amount.sum(side.map((h) => h.amount));

describe('planning the splits of a pool side', () => {
  it('conserves every amount, splits only free holdings, and never goes past the max', () => {
    fc.assert(
      fc.property(sideArb, targetArb, (side, target) => {
        const plan = planHoldingSplits(side, target);
        const byId = new Map(side.map((h) => [h.holdingId, h]));
        for (const split of plan.splits) {
          const holding = byId.get(split.holdingId);
          expect(holding?.busy).toBe(false);
          expect(split.amount).toEqual(holding?.amount);
          expect(Amount.sum(split.pieces)).toEqual(split.amount);
          expect(split.pieces.length).toBeGreaterThanOrEqual(2);
        }
        expect(new Set(plan.splits.map((s) => s.holdingId)).size).toBe(plan.splits.length);
        const after = applied(side, plan);
        expect(total(after)).toEqual(total(side));
        expect(after.length).toBeLessThanOrEqual(Math.max(side.length, POOL_HOLDINGS_MAX));
        expect(selfTransfersOf(plan)).toBe(after.length - side.length);
      }),
    );
  });

  it('leaves no dust: every piece holds at least half a piece, the pieces of a holding within one unit', () => {
    fc.assert(
      fc.property(sideArb, targetArb, (side, target) => {
        const plan = planHoldingSplits(side, target);
        for (const split of plan.splits) {
          const half = plan.pieceSize.mulDiv(1n, 2n, 'down');
          for (const piece of split.pieces) {
            expect(piece.gte(half) && piece.gte(SPLIT_PIECE_MIN)).toBe(true);
          }
          const largest = split.pieces.reduce((x, y) => Amount.max(x, y));
          const smallest = split.pieces.reduce((x, y) => Amount.min(x, y));
          expect(largest.sub(smallest).lte(Amount.fromUnits(1n))).toBe(true);
        }
      }),
    );
  });

  it('converges: once a plan is carried out, the next plans nothing', () => {
    fc.assert(
      fc.property(sideArb, targetArb, (side, target) => {
        const first = planHoldingSplits(side, target, POOL_HOLDINGS_MAX);
        const second = planHoldingSplits(applied(side, first), target, POOL_HOLDINGS_MAX);
        expect(second.splits).toEqual([]);
      }),
    );
  });

  it('converges over rounds with a small budget, each round within it', () => {
    fc.assert(
      fc.property(sideArb, targetArb, fc.integer({ min: 1, max: 8 }), (side, target, budget) => {
        let now: SideHolding[] = side;
        // Each round but the last adds at least one holding, and there is room for at most the max.
        for (let round = 1; round <= POOL_HOLDINGS_MAX + 1; round++) {
          const plan = planHoldingSplits(now, target, budget);
          expect(selfTransfersOf(plan)).toBeLessThanOrEqual(budget);
          if (plan.splits.length === 0) return;
          now = applied(now, plan, round);
        }
        expect.unreachable('the plans never ended');
      }),
    );
  });

  it('splits one large holding into the target, and a side at its target not at all', () => {
    const one: SideHolding[] = [{ holdingId: 'h', amount: Amount.of(1_000), busy: false }];
    const plan = planHoldingSplits(one, 8);
    expect(plan.splits).toEqual([
      { holdingId: 'h', amount: Amount.of(1_000), pieces: Array(8).fill(Amount.of(125)) },
    ]);
    const at = applied(one, plan);
    expect(planHoldingSplits(at, 8).splits).toEqual([]);
    // Four more wanted: four of the eight halved, no more than the target misses.
    const twelve = planHoldingSplits(at, 12);
    expect(twelve.splits.map((split) => split.pieces)).toEqual(
      Array(4).fill([Amount.parse('62.5'), Amount.parse('62.5')]),
    );
    expect(planHoldingSplits(applied(at, twelve), 12).splits).toEqual([]);
  });

  it('counts a reserved holding and never splits it; small holdings are left to merge later', () => {
    const side: SideHolding[] = [
      { holdingId: 'reserved', amount: Amount.of(900), busy: true },
      { holdingId: 'change', amount: Amount.of(60), busy: false },
      ...Array.from({ length: 40 }, (_, n) => ({
        holdingId: `deposit-${n}`,
        amount: Amount.of(1),
        busy: false,
      })),
    ];
    const plan = planHoldingSplits(side, 8);
    // A piece is 1000 / 8 = 125: the change of 60 is not two halves of one, the reserved one is
    // not free, and the deposits are below half a piece.
    expect(plan.pieceSize).toEqual(Amount.of(125));
    expect(plan.counted).toBe(1);
    expect(plan.splits).toEqual([]);
  });

  it('leaves a nearly empty side as it is', () => {
    const dust: SideHolding[] = [{ holdingId: 'h', amount: Amount.parse('0.0007'), busy: false }];
    expect(planHoldingSplits(dust, 8).splits).toEqual([]);
  });
});

describe('choosing the free holdings a transfer names', () => {
  it('names free holdings only, largest first, and as few as cover the amount', () => {
    fc.assert(
      fc.property(
        sideArb,
        fc.bigInt({ min: 1n, max: 10n ** 21n }),
        fc.integer({ min: 1, max: 50 }),
        (side, want, max) => {
          const taken = (id: string) => side.find((h) => h.holdingId === id)?.busy === true;
          const cover = Amount.fromUnits(want);
          const { holdingIds, total: sum } = chooseFreeHoldings(side, taken, cover, max);
          expect(holdingIds.length).toBeLessThanOrEqual(max);
          expect(holdingIds.some(taken)).toBe(false);
          const chosen = holdingIds.map((id) => side.find((h) => h.holdingId === id));
          expect(total(chosen.filter((h) => h !== undefined))).toEqual(sum);
          const free = side.filter((h) => !h.busy);
          const smallestChosen = chosen.at(-1)?.amount;
          // Largest first: no free holding left out is larger than the smallest one named.
          for (const h of free.filter((h) => !holdingIds.includes(h.holdingId))) {
            if (smallestChosen !== undefined) expect(h.amount.lte(smallestChosen)).toBe(true);
          }
          if (sum.gte(cover) && smallestChosen !== undefined) {
            expect(sum.sub(smallestChosen).lt(cover)).toBe(true);
          }
        },
      ),
    );
  });

  it('spreads transfers by their key over the free holdings that each cover them alone', () => {
    fc.assert(
      fc.property(
        sideArb,
        fc.bigInt({ min: 1n, max: 10n ** 19n }),
        fc.string(),
        (side, want, key) => {
          const taken = (id: string) => side.find((h) => h.holdingId === id)?.busy === true;
          const cover = Amount.fromUnits(want);
          const pick = chooseFreeHoldings(side, taken, cover, 100, key);
          const covering = side.filter((h) => !h.busy && h.amount.gte(cover));
          if (covering.length > 1) {
            // One holding that covers alone, and the same one whatever order the holdings come in.
            expect(pick.holdingIds).toHaveLength(1);
            expect(covering.map((h) => h.holdingId)).toContain(pick.holdingIds[0]);
            expect(chooseFreeHoldings([...side].reverse(), taken, cover, 100, key)).toEqual(pick);
          } else {
            expect(pick).toEqual(chooseFreeHoldings(side, taken, cover, 100));
          }
        },
      ),
    );
    const eight = Array.from({ length: 8 }, (_, n) => ({
      holdingId: `h${n}`,
      amount: Amount.of(10),
    }));
    const named = new Set(
      Array.from({ length: 64 }, (_, n) =>
        chooseFreeHoldings(eight, () => false, Amount.of(4), 100, `payout-${n}`).holdingIds.join(),
      ),
    );
    // Keys of 64 transfers fall on most of the eight holdings, not all on the largest.
    expect(named.size).toBeGreaterThan(4);
  });

  it('gives transfers in flight at once disjoint inputs while free holdings cover them', () => {
    const side = [5, 4, 3, 2, 1].map((n) => ({ holdingId: `h${n}`, amount: Amount.of(n) }));
    const named = new Set<string>();
    const picks: (readonly string[])[] = [];
    for (let i = 0; i < 4; i++) {
      const pick = chooseFreeHoldings(side, (id) => named.has(id), Amount.of(2), 100);
      for (const id of pick.holdingIds) named.add(id);
      picks.push(pick.holdingIds);
    }
    expect(picks).toEqual([['h5'], ['h4'], ['h3'], ['h2']]);
  });
});
