import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Amount } from '../src/amount.js';
import {
  DEFAULT_GUARD_THRESHOLDS,
  evaluateSettlementSafety,
  type GuardSnapshot,
  type GuardThresholds,
  type GuardTrade,
  type ReferencePrice,
} from '../src/guard.js';
import { ratio } from '../src/ratio.js';
import { SETTLEMENT_SAFETY_CODES, type SettlementSafetyCode } from '../src/settlement-safety.js';

const amount = (wire: string) => Amount.parse(wire);
/** The smallest representable amount, 10^-10. */
const UNIT = Amount.fromUnits(1n);
const THIRTY_MINUTES_MS = 30 * 60 * 1000;

/**
 * A 1000/1000 pool at a price of 1 with no reference prices, so the size checks are judged on their
 * own (a trade of a tenth of this pool moves its price by a fifth); the deviation tests give it
 * references.
 */
function pool(overrides: Partial<GuardSnapshot> = {}): GuardSnapshot {
  return {
    inputReserve: Amount.of(1000),
    outputReserve: Amount.of(1000),
    trailingHourOutputs: Amount.ZERO,
    outputReserveAtWindowStart: Amount.of(1000),
    timeWeightedPrice: null,
    reference: null,
    accounting: { incompleteCompletedSwaps: 0, lastReconciliationMismatch: false },
    ...overrides,
  };
}

function trade(output: Amount, pricedInput: Amount = output): GuardTrade {
  return { output, pricedInput };
}

/** Moves the pool's price by about 1 %: within every deviation limit. */
const SMALL_TRADE = trade(Amount.of(5));

function codeOf(
  snapshot: GuardSnapshot,
  swap: GuardTrade = SMALL_TRADE,
  thresholds?: Partial<GuardThresholds>,
): SettlementSafetyCode | null {
  return evaluateSettlementSafety(snapshot, swap, thresholds)?.code ?? null;
}

describe('evaluateSettlementSafety: a clear trade', () => {
  it('returns null when every check passes', () => {
    expect(evaluateSettlementSafety(pool(), SMALL_TRADE)).toBeNull();
  });

  it('does not block a new pool without a time-weighted price or a USD reference', () => {
    expect(codeOf(pool({ timeWeightedPrice: null, reference: null }))).toBeNull();
  });

  it('exports the documented defaults', () => {
    expect(DEFAULT_GUARD_THRESHOLDS).toEqual({
      outputReserveShareMax: 0.1,
      outputVelocityShareMax: 0.25,
      reservePriceDeviationMax: 0.05,
      referencePriceDeviationMax: 0.1,
      referencePriceAgeMaxMs: THIRTY_MINUTES_MS,
    });
  });
});

describe('output_reserve_share_exceeded', () => {
  it('passes at exactly 10 % of the output reserve', () => {
    expect(codeOf(pool(), trade(Amount.of(100)))).toBeNull();
  });

  it('fires one unit above 10 %', () => {
    const result = evaluateSettlementSafety(pool(), trade(Amount.of(100).add(UNIT)));
    expect(result).toEqual({
      code: 'output_reserve_share_exceeded',
      reason: 'share=0.1001 limit=0.1',
      message: expect.stringContaining('10%'),
    });
  });

  it('reports the share to 4 decimals', () => {
    const result = evaluateSettlementSafety(pool(), trade(amount('143.2')));
    expect(result?.reason).toBe('share=0.1432 limit=0.1');
  });
});

describe('output_velocity_exceeded', () => {
  const busy = pool({ trailingHourOutputs: Amount.of(200) });

  it('passes when the trailing hour plus this output is exactly 25 % of the window-start reserve', () => {
    expect(codeOf(busy, trade(Amount.of(50)))).toBeNull();
  });

  it('fires one unit above 25 %', () => {
    const result = evaluateSettlementSafety(busy, trade(Amount.of(50).add(UNIT)));
    expect(result?.code).toBe('output_velocity_exceeded');
    expect(result?.reason).toBe('share=0.2501 limit=0.25');
  });

  it('measures against the reserve at the window start, not the current one', () => {
    const drained = pool({
      trailingHourOutputs: Amount.of(200),
      outputReserveAtWindowStart: Amount.of(800),
    });
    expect(codeOf(drained, trade(Amount.of(50)))).toBe('output_velocity_exceeded');
  });

  it('blocks any output when the window started with an empty reserve', () => {
    const result = evaluateSettlementSafety(
      pool({ outputReserveAtWindowStart: Amount.ZERO }),
      SMALL_TRADE,
    );
    expect(result?.code).toBe('output_velocity_exceeded');
    expect(result?.reason).toBe('windowStartReserve=0 limit=0.25');
  });
});

describe('reserve_price_deviation_exceeded: the price the trade ends at', () => {
  /** 1000/1000 pools against a reference of 1 output per input. */
  const steady = pool({ timeWeightedPrice: ratio(1n, 1n) });
  const against = (outputReserve: string) =>
    pool({ outputReserve: amount(outputReserve), timeWeightedPrice: ratio(1n, 1n) });

  it('passes a trade that ends exactly at the band edge: 980 / 1029 is 1 / 1.05', () => {
    expect(codeOf(steady, trade(Amount.of(20), Amount.of(29)))).toBeNull();
  });

  it('refuses the trade that ends one unit beyond, naming the figure and the limit', () => {
    const result = evaluateSettlementSafety(steady, trade(Amount.of(20), Amount.of(29).add(UNIT)));
    expect(result).toEqual({
      code: 'reserve_price_deviation_exceeded',
      reason: 'deviation=0.0501 limit=0.05',
      deviation: '0.0501',
      limit: '0.05',
      message: expect.stringMatching(/5\.01% from its reference price, beyond the 5% limit/),
    });
  });

  it('judges the pool before the trade too: a pool already 10 % above passes a trade that heals it', () => {
    const above = against('1100');
    // 1060 / 1040 is within 2 % of the reference.
    expect(codeOf(above, trade(Amount.of(40), Amount.of(40)))).toBeNull();
    // 1099 / 1001 is still outside the band, but nearer: healing is never refused.
    expect(codeOf(above, trade(Amount.of(1), Amount.of(1)))).toBeNull();
  });

  it('refuses a trade from outside the band that moves the price further away', () => {
    expect(codeOf(against('900'), trade(Amount.of(1), Amount.of(1)))).toBe(
      'reserve_price_deviation_exceeded',
    );
  });

  it('refuses a trade that overshoots the reference to a larger deviation on the other side', () => {
    // 1100 / 1000 is 10 % above; 900 / 1180 is 31 % below.
    const large = { outputReserveShareMax: 0.5, outputVelocityShareMax: 1 };
    expect(codeOf(against('1100'), trade(Amount.of(200), Amount.of(180)), large)).toBe(
      'reserve_price_deviation_exceeded',
    );
  });
});

describe('reference_price_deviation_exceeded', () => {
  const withReference = (outputReserve: string) =>
    pool({ outputReserve: amount(outputReserve), reference: { price: ratio(1n, 1n), ageMs: 0 } });

  it('passes a trade that ends exactly 10 % from the reference: 990 / 1089 is 1 / 1.1', () => {
    expect(codeOf(withReference('1000'), trade(Amount.of(10), Amount.of(89)))).toBeNull();
  });

  it('refuses the trade that ends one unit beyond', () => {
    const result = evaluateSettlementSafety(
      withReference('1000'),
      trade(Amount.of(10), Amount.of(89).add(UNIT)),
    );
    expect(result?.code).toBe('reference_price_deviation_exceeded');
    expect(result?.reason).toBe('deviation=0.1001 limit=0.1');
    expect(result?.limit).toBe('0.1');
  });

  it('never refuses the trade that brings a deviated pool back toward the reference', () => {
    expect(codeOf(withReference('1200'), SMALL_TRADE)).toBeNull();
    expect(codeOf(withReference('800'), SMALL_TRADE)).toBe('reference_price_deviation_exceeded');
  });

  it('compares the reference as output per unit of input', () => {
    // 1 input buys 2 outputs at USD prices; the pool prices it the same.
    const snapshot = pool({
      outputReserve: Amount.of(2000),
      outputReserveAtWindowStart: Amount.of(2000),
      timeWeightedPrice: null,
      reference: { price: ratio(2n, 1n), ageMs: 0 },
    });
    expect(codeOf(snapshot)).toBeNull();
  });
});

describe('incomplete_completed_accounting', () => {
  it('fires for one incomplete completed swap', () => {
    const result = evaluateSettlementSafety(
      pool({ accounting: { incompleteCompletedSwaps: 1, lastReconciliationMismatch: false } }),
      SMALL_TRADE,
    );
    expect(result?.code).toBe('incomplete_completed_accounting');
    expect(result?.reason).toBe('incompleteCompletedSwaps=1 reconciliationMismatch=false');
  });

  it('fires after a reconciliation mismatch', () => {
    const snapshot = pool({
      accounting: { incompleteCompletedSwaps: 0, lastReconciliationMismatch: true },
    });
    expect(codeOf(snapshot)).toBe('incomplete_completed_accounting');
  });
});

describe('invalid_output_reserve', () => {
  it.each([
    ['missing', null, 'outputReserve=missing'],
    ['zero', Amount.ZERO, 'outputReserve=0'],
  ])('fires when the output reserve is %s', (_, outputReserve, reason) => {
    const result = evaluateSettlementSafety(pool({ outputReserve }), SMALL_TRADE);
    expect(result?.code).toBe('invalid_output_reserve');
    expect(result?.reason).toBe(reason);
  });

  it('fires when the reserve is one unit below the output, not when equal to it', () => {
    const below = evaluateSettlementSafety(pool(), trade(Amount.of(1000).add(UNIT)));
    expect(below?.code).toBe('invalid_output_reserve');
    expect(below?.reason).toBe('outputReserve=1000 output=1000.0000000001');
    expect(codeOf(pool(), trade(Amount.of(1000)))).toBe('output_reserve_share_exceeded');
  });
});

describe('invalid_execution_price', () => {
  it.each([
    ['a zero output', pool(), trade(Amount.ZERO, Amount.of(1)), 'output=0'],
    ['a zero priced input', pool(), trade(Amount.of(1), Amount.ZERO), 'pricedInput=0'],
    ['a missing input reserve', pool({ inputReserve: null }), SMALL_TRADE, 'inputReserve=missing'],
    ['an empty input reserve', pool({ inputReserve: Amount.ZERO }), SMALL_TRADE, 'inputReserve=0'],
  ])('fires for %s', (_, snapshot, swap, reason) => {
    const result = evaluateSettlementSafety(snapshot, swap);
    expect(result?.code).toBe('invalid_execution_price');
    expect(result?.reason).toBe(reason);
  });

  it('fires when the rate falls one unit below the smallest Numeric 10 value', () => {
    expect(codeOf(pool(), trade(UNIT, Amount.of(1)))).toBeNull();
    const result = evaluateSettlementSafety(pool(), trade(UNIT, Amount.of(1).add(UNIT)));
    expect(result?.code).toBe('invalid_execution_price');
    expect(result?.reason).toBe(
      'rate=unrepresentable output=0.0000000001 pricedInput=1.0000000001',
    );
  });

  it('fires when the rate needs more than 28 integer digits', () => {
    const huge = pool({ outputReserve: Amount.fromUnits(10n ** 37n) });
    const largest = trade(Amount.fromUnits(10n ** 28n - 1n), UNIT);
    expect(codeOf(huge, largest)).not.toBe('invalid_execution_price');
    expect(codeOf(huge, trade(Amount.fromUnits(10n ** 28n), UNIT))).toBe('invalid_execution_price');
  });
});

describe('settlement_safety_guard_unavailable', () => {
  const withReference = (reference: ReferencePrice) => pool({ reference });

  it('fails closed on a store error, naming the input', () => {
    const result = evaluateSettlementSafety(pool({ unavailable: 'store' }), SMALL_TRADE);
    expect(result?.code).toBe('settlement_safety_guard_unavailable');
    expect(result?.reason).toBe('input=store');
  });

  it('fires for a reference one millisecond older than 30 minutes, not at exactly 30', () => {
    expect(codeOf(withReference({ price: ratio(1n, 1n), ageMs: THIRTY_MINUTES_MS }))).toBeNull();
    const stale = evaluateSettlementSafety(
      withReference({ price: ratio(1n, 1n), ageMs: THIRTY_MINUTES_MS + 1 }),
      SMALL_TRADE,
    );
    expect(stale?.code).toBe('settlement_safety_guard_unavailable');
    expect(stale?.reason).toBe('referencePriceAgeMs=1800001 limit=1800000');
  });

  it('derives the age from an observation time and the current time', () => {
    const observedAtMs = 1_700_000_000_000;
    const at = (nowMs: number) => withReference({ price: ratio(1n, 1n), observedAtMs, nowMs });
    expect(codeOf(at(observedAtMs + THIRTY_MINUTES_MS))).toBeNull();
    expect(codeOf(at(observedAtMs + THIRTY_MINUTES_MS + 1))).toBe(
      'settlement_safety_guard_unavailable',
    );
  });

  it.each<[string, Partial<GuardSnapshot>, string]>([
    [
      'an unreadable reference price',
      { reference: { price: null, ageMs: 0 } },
      'input=referencePrice',
    ],
    [
      'a zero reference price',
      { reference: { price: ratio(0n, 1n), ageMs: 0 } },
      'referencePrice=0',
    ],
    [
      'an unknown reference age',
      { reference: { price: ratio(1n, 1n), ageMs: Number.NaN } },
      'input=referencePriceAge',
    ],
    [
      'an unknown window-start reserve',
      { outputReserveAtWindowStart: null },
      'input=outputReserveAtWindowStart',
    ],
    ['a zero time-weighted price', { timeWeightedPrice: ratio(0n, 1n) }, 'timeWeightedPrice=0'],
    [
      'an impossible accounting count',
      { accounting: { incompleteCompletedSwaps: -1, lastReconciliationMismatch: false } },
      'input=accounting',
    ],
  ])('fails closed on %s', (_, overrides, reason) => {
    const result = evaluateSettlementSafety(pool(overrides), SMALL_TRADE);
    expect(result?.code).toBe('settlement_safety_guard_unavailable');
    expect(result?.reason).toBe(reason);
  });

  it('fails closed on a threshold it cannot read', () => {
    const result = evaluateSettlementSafety(pool(), SMALL_TRADE, { outputReserveShareMax: -0.1 });
    expect(result?.reason).toBe('threshold=outputReserveShareMax');
    expect(codeOf(pool(), SMALL_TRADE, { referencePriceAgeMaxMs: Number.POSITIVE_INFINITY })).toBe(
      'settlement_safety_guard_unavailable',
    );
  });
});

describe('custom thresholds', () => {
  it('moves the output share limit and keeps the other defaults', () => {
    const custom = { outputReserveShareMax: 0.2 };
    expect(codeOf(pool(), trade(Amount.of(200)), custom)).toBeNull();
    const above = evaluateSettlementSafety(pool(), trade(Amount.of(200).add(UNIT)), custom);
    expect(above?.reason).toBe('share=0.2001 limit=0.2');
    const busy = pool({ trailingHourOutputs: Amount.of(100) });
    expect(codeOf(busy, trade(Amount.of(200)), custom)).toBe('output_velocity_exceeded');
  });

  it('tightens the velocity and price limits', () => {
    expect(codeOf(pool(), SMALL_TRADE, { outputVelocityShareMax: 0.004 })).toBe(
      'output_velocity_exceeded',
    );
    // 995 / 1005 ends 1.0051 % below a reference of 1.
    const priced = pool({
      timeWeightedPrice: ratio(1n, 1n),
      reference: { price: ratio(1n, 1n), ageMs: 0 },
    });
    expect(codeOf(priced)).toBeNull();
    expect(codeOf(priced, SMALL_TRADE, { reservePriceDeviationMax: 0.011 })).toBeNull();
    const result = evaluateSettlementSafety(priced, SMALL_TRADE, {
      reservePriceDeviationMax: 0.01,
    });
    expect(result?.reason).toBe('deviation=0.0101 limit=0.01');
    expect(codeOf(priced, SMALL_TRADE, { referencePriceDeviationMax: 0.01 })).toBe(
      'reference_price_deviation_exceeded',
    );
  });

  it('lets a pool trust an older reference', () => {
    const old = pool({ reference: { price: ratio(1n, 1n), ageMs: 2 * THIRTY_MINUTES_MS } });
    expect(codeOf(old)).toBe('settlement_safety_guard_unavailable');
    expect(codeOf(old, SMALL_TRADE, { referencePriceAgeMaxMs: 2 * THIRTY_MINUTES_MS })).toBeNull();
  });
});

describe('order of precedence', () => {
  type Scenario = { snapshot: GuardSnapshot; swap: GuardTrade };
  /** One way to fail each check, each touching its own field so any two combine. */
  const failures: [SettlementSafetyCode, (s: Scenario) => Scenario][] = [
    [
      'settlement_safety_guard_unavailable',
      (s) => ({ ...s, snapshot: { ...s.snapshot, unavailable: 'store' } }),
    ],
    ['invalid_output_reserve', (s) => ({ ...s, snapshot: { ...s.snapshot, outputReserve: null } })],
    ['invalid_execution_price', (s) => ({ ...s, swap: { ...s.swap, pricedInput: Amount.ZERO } })],
    [
      'incomplete_completed_accounting',
      (s) => ({
        ...s,
        snapshot: {
          ...s.snapshot,
          accounting: { incompleteCompletedSwaps: 0, lastReconciliationMismatch: true },
        },
      }),
    ],
    [
      'output_reserve_share_exceeded',
      (s) => ({ ...s, swap: { ...s.swap, output: Amount.of(150) } }),
    ],
    [
      'output_velocity_exceeded',
      (s) => ({ ...s, snapshot: { ...s.snapshot, trailingHourOutputs: Amount.of(248) } }),
    ],
    [
      'reserve_price_deviation_exceeded',
      (s) => ({ ...s, snapshot: { ...s.snapshot, timeWeightedPrice: ratio(2n, 1n) } }),
    ],
    [
      'reference_price_deviation_exceeded',
      (s) => ({ ...s, snapshot: { ...s.snapshot, reference: { price: ratio(2n, 1n), ageMs: 0 } } }),
    ],
  ];
  const clear: Scenario = { snapshot: pool(), swap: SMALL_TRADE };
  const verdictFor = ({ snapshot, swap }: Scenario) => codeOf(snapshot, swap);

  it('covers every code', () => {
    expect(failures.map(([code]) => code).sort()).toEqual([...SETTLEMENT_SAFETY_CODES].sort());
  });

  it.each(failures)('%s fires on its own', (code, fail) => {
    expect(verdictFor(fail(clear))).toBe(code);
  });

  const pairs = failures.flatMap(([first, failFirst], i) =>
    failures.slice(i + 1).map(([second, failSecond]) => ({ first, second, failFirst, failSecond })),
  );
  it.each(pairs)('$first wins over $second', ({ first, failFirst, failSecond }) => {
    expect(verdictFor(failFirst(failSecond(clear)))).toBe(first);
    expect(verdictFor(failSecond(failFirst(clear)))).toBe(first);
  });

  it('reports a stale reference before an oversized output', () => {
    const stale = pool({ reference: { price: ratio(1n, 1n), ageMs: THIRTY_MINUTES_MS + 1 } });
    expect(codeOf(stale, trade(Amount.of(500)))).toBe('settlement_safety_guard_unavailable');
  });
});

describe('evaluateSettlementSafety over arbitrary inputs', () => {
  const units = fc.oneof(
    fc.bigInt({ min: 0n, max: 10n ** 14n }),
    fc.bigInt({ min: 0n, max: 10n ** 38n - 1n }),
  );
  const anAmount = units.map((u) => Amount.fromUnits(u));
  const aRatio = fc
    .tuple(units, fc.bigInt({ min: 1n, max: 10n ** 20n }))
    .map(([n, d]) => ratio(n, d));
  const aTime = fc.oneof(fc.integer(), fc.double());
  const aReference: fc.Arbitrary<ReferencePrice> = fc.oneof(
    fc.record({ price: fc.option(aRatio), ageMs: aTime }),
    fc.record({ price: fc.option(aRatio), observedAtMs: aTime, nowMs: aTime }),
  );
  const aSnapshot: fc.Arbitrary<GuardSnapshot> = fc.record(
    {
      inputReserve: fc.option(anAmount),
      outputReserve: fc.option(anAmount),
      trailingHourOutputs: anAmount,
      outputReserveAtWindowStart: fc.option(anAmount),
      timeWeightedPrice: fc.option(aRatio),
      reference: fc.option(aReference),
      accounting: fc.record({
        incompleteCompletedSwaps: fc.oneof(fc.nat(3), fc.integer(), fc.double()),
        lastReconciliationMismatch: fc.boolean(),
      }),
      unavailable: fc.string(),
    },
    {
      requiredKeys: [
        'inputReserve',
        'outputReserve',
        'trailingHourOutputs',
        'outputReserveAtWindowStart',
        'timeWeightedPrice',
        'reference',
        'accounting',
      ],
    },
  );
  const aTrade = fc.record({ output: anAmount, pricedInput: anAmount });
  const aLimit = fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.double());
  const someThresholds: fc.Arbitrary<Partial<GuardThresholds>> = fc.record(
    {
      outputReserveShareMax: aLimit,
      outputVelocityShareMax: aLimit,
      reservePriceDeviationMax: aLimit,
      referencePriceDeviationMax: aLimit,
      referencePriceAgeMaxMs: aTime,
    },
    { requiredKeys: [] },
  );

  it('never throws, answers null or a listed code, and is deterministic', () => {
    fc.assert(
      fc.property(aSnapshot, aTrade, someThresholds, (snapshot, swap, thresholds) => {
        const first = evaluateSettlementSafety(snapshot, swap, thresholds);
        expect(evaluateSettlementSafety(snapshot, swap, thresholds)).toEqual(first);
        if (first === null) return;
        expect(SETTLEMENT_SAFETY_CODES).toContain(first.code);
        expect(first.reason).toMatch(/^\S+(?: \S+)*$/);
        expect(first.message.length).toBeGreaterThan(0);
      }),
    );
  });

  /** Healthy pools of random size with trades around the limits, so both outcomes occur. */
  const aSizedTrade = fc
    .record({
      reserve: fc.bigInt({ min: 1n, max: 10n ** 25n }),
      windowStartPercent: fc.bigInt({ min: 50n, max: 150n }),
      trailingPercent: fc.bigInt({ min: 0n, max: 30n }),
      outputPerMille: fc.bigInt({ min: 1n, max: 150n }),
    })
    .map(({ reserve, windowStartPercent, trailingPercent, outputPerMille }) => ({
      snapshot: pool({
        inputReserve: Amount.fromUnits(reserve),
        outputReserve: Amount.fromUnits(reserve),
        outputReserveAtWindowStart: Amount.fromUnits((reserve * windowStartPercent) / 100n),
        trailingHourOutputs: Amount.fromUnits((reserve * trailingPercent) / 100n),
      }),
      swap: trade(Amount.fromUnits((reserve * outputPerMille) / 1000n + 1n), Amount.of(1)),
    }));

  it('clears a trade only when it is within the default size limits', () => {
    fc.assert(
      fc.property(aSizedTrade, ({ snapshot, swap }) => {
        const reserve = snapshot.outputReserve?.units ?? 0n;
        const windowStart = snapshot.outputReserveAtWindowStart?.units ?? 0n;
        const moved = snapshot.trailingHourOutputs.units + swap.output.units;
        const withinLimits =
          swap.output.units <= reserve &&
          swap.output.units * 10n <= reserve &&
          moved * 4n <= windowStart;
        const result = evaluateSettlementSafety(snapshot, swap);
        if (withinLimits) expect(result).toBeNull();
        else expect(result?.code).toMatch(/^(invalid_output_reserve|output_.*_exceeded)$/);
      }),
    );
  });
});
