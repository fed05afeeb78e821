import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Amount } from '../src/amount.js';
import {
  ATOMIC_EXECUTION_BATCH_MAX,
  atomicExecutionBatch,
  type BatchedSwap,
  curvePaysEachCommitted,
} from '../src/atomic-execution-batch.js';
import { constantProductOutput, type Reserves } from '../src/pricing.js';

interface Queued {
  readonly id: number;
  readonly direction: 'a' | 'b';
}

const queueOf = fc
  .array(fc.constantFrom<'a' | 'b'>('a', 'b'), { maxLength: 40 })
  .map((directions) => directions.map((direction, id): Queued => ({ id, direction })));

describe('atomicExecutionBatch', () => {
  it('takes the first swap and later ones of its direction, in order, within the bound', () => {
    fc.assert(
      fc.property(queueOf, fc.integer({ min: 1, max: 20 }), (queued, max) => {
        const { batch, rest } = atomicExecutionBatch(queued, (swap) => swap.direction, max);
        if (queued.length === 0) {
          expect(batch).toEqual([]);
          return;
        }
        expect(batch[0]).toBe(queued[0]);
        expect(batch.length).toBeLessThanOrEqual(max);
        expect(batch.every((swap) => swap.direction === queued[0]?.direction)).toBe(true);
        // Nothing lost or doubled, and each part keeps the queue's order.
        const ids = (list: readonly Queued[]) => list.map((swap) => swap.id);
        expect([...ids(batch), ...ids(rest)].sort((x, y) => x - y)).toEqual(ids(queued));
        for (const part of [batch, rest])
          expect(ids(part)).toEqual([...ids(part)].sort((x, y) => x - y));
        // A swap of the batch's direction is left out only when the batch is full.
        const leftSame = rest.some((swap) => swap.direction === queued[0]?.direction);
        if (leftSame) expect(batch.length).toBe(max);
        return true;
      }),
    );
  });

  it('batches at most ATOMIC_EXECUTION_BATCH_MAX by default', () => {
    const queued = Array.from({ length: 40 }, (_, id): Queued => ({ id, direction: 'a' }));
    expect(atomicExecutionBatch(queued, (swap) => swap.direction).batch).toHaveLength(
      ATOMIC_EXECUTION_BATCH_MAX,
    );
  });
});

const units = (min: bigint, max: bigint) => fc.bigInt({ min, max }).map(Amount.fromUnits);
const ONE = 10_000_000_000n;

/** A one-direction batch, each swap signed for exactly what the curve paid at its planned turn. */
function plannedBatch(reserves: Reserves, inputs: readonly [Amount, Amount][]): BatchedSwap[] {
  let { input, output } = reserves;
  return inputs.map(([pricedInput, lpFee]) => {
    const paid = constantProductOutput({ input, output }, pricedInput);
    const inputReserveAdded = pricedInput.add(lpFee);
    input = input.add(inputReserveAdded);
    output = output.sub(paid);
    return { pricedInput, inputReserveAdded, paid };
  });
}

describe('curvePaysEachCommitted', () => {
  it('holds for every subset the ledger commits of a one-direction batch', () => {
    fc.assert(
      fc.property(
        units(ONE, 1_000_000n * ONE),
        units(ONE, 1_000_000n * ONE),
        fc.array(fc.tuple(units(1n, 10_000n * ONE), units(0n, 100n * ONE)), { maxLength: 16 }),
        fc.array(fc.boolean(), { minLength: 16, maxLength: 16 }),
        (input, output, inputs, committed) => {
          const reserves = { input, output };
          expect(curvePaysEachCommitted(reserves, plannedBatch(reserves, inputs), committed)).toBe(
            true,
          );
        },
      ),
    );
  });

  it('finds a swap paid above the curve at the reserves it met', () => {
    const reserves = { input: Amount.parse('1000'), output: Amount.parse('1000') };
    const [swap] = plannedBatch(reserves, [[Amount.parse('10'), Amount.ZERO]]);
    if (swap === undefined) throw new Error('no swap');
    const above = { ...swap, paid: swap.paid.add(Amount.fromUnits(1n)) };
    expect(curvePaysEachCommitted(reserves, [above], [true])).toBe(false);
    expect(curvePaysEachCommitted(reserves, [above], [false])).toBe(true);
  });
});
