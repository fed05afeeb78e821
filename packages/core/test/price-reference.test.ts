import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Amount } from '../src/amount.js';
import { evaluateSettlementSafety, type GuardSnapshot, reservePriceLimitOf } from '../src/guard.js';
import {
  meanSpotPrice,
  observeSpot,
  type PoolPriceReference,
  perUnitOfInput,
  poolGuardStateOf,
  priceDeviation,
  REFERENCE_HALF_LIFE_MS,
  referenceAtExecution,
  referencePriceAt,
  spotOfReserves,
  startReference,
} from '../src/price-reference.js';
import { constantProductOutput } from '../src/pricing.js';
import { compareRatio, type Ratio, ratio, ratioFromNumber, ratioToNumber } from '../src/ratio.js';

const LIMIT = ratioFromNumber(0.05);
/** Size checks opened up: these tests are about the price deviation alone. */
const SIZE_LIMITS_OFF = { outputReserveShareMax: 1, outputVelocityShareMax: 1_000_000 };

interface Pool {
  readonly a: Amount;
  readonly b: Amount;
}
type Side = 'a' | 'b';

const spotOf = (pool: Pool): Ratio => ratio(pool.b.units, pool.a.units);
const invert = (value: Ratio): Ratio => ratio(value.denominator, value.numerator);

/**
 * The guard's verdict on `pricedInput` of side `input` against the pool's reference (tokenB per
 * tokenA), read per unit of the input by `perUnitOf` (the test's own inversion unless given).
 */
function judge(
  pool: Pool,
  input: Side,
  pricedInput: Amount,
  reference: Ratio,
  perUnitOf: (reference: Ratio, input: Side) => Ratio | null = (r, side) =>
    side === 'a' ? r : invert(r),
) {
  const [inputReserve, outputReserve] = input === 'a' ? [pool.a, pool.b] : [pool.b, pool.a];
  const output = constantProductOutput({ input: inputReserve, output: outputReserve }, pricedInput);
  const snapshot: GuardSnapshot = {
    inputReserve,
    outputReserve,
    trailingHourOutputs: Amount.ZERO,
    outputReserveAtWindowStart: outputReserve,
    timeWeightedPrice: perUnitOf(reference, input),
    reference: null,
    accounting: { incompleteCompletedSwaps: 0, lastReconciliationMismatch: false },
  };
  const verdict = evaluateSettlementSafety(snapshot, { output, pricedInput }, SIZE_LIMITS_OFF);
  const after: Pool =
    input === 'a'
      ? { a: pool.a.add(pricedInput), b: pool.b.sub(output) }
      : { a: pool.a.sub(output), b: pool.b.add(pricedInput) };
  return { verdict, after, output };
}

describe('the reference price', () => {
  const start = startReference(ratio(2n, 1n), ratio(1n, 1n), 0, LIMIT);

  it('covers half the distance to the spot in one half-life, three quarters in two', () => {
    expect(ratioToNumber(referencePriceAt(start, REFERENCE_HALF_LIFE_MS))).toBeCloseTo(1.5, 9);
    expect(ratioToNumber(referencePriceAt(start, 2 * REFERENCE_HALF_LIFE_MS))).toBeCloseTo(1.75, 9);
  });

  it('does not move when the clock steps back', () => {
    expect(referencePriceAt({ ...start, atMs: 1_000 }, 0)).toEqual(start.price);
  });

  it('is the same whether observed once or at every minute in between', () => {
    let often: PoolPriceReference = start;
    for (let minute = 1; minute <= 30; minute++) {
      often = observeSpot(often, start.spot, minute * 60_000, LIMIT);
    }
    const once = referencePriceAt(start, 30 * 60_000);
    expect(ratioToNumber(often.price)).toBeCloseTo(ratioToNumber(once), 9);
  });

  it('starts at the spot when there is no history to seed it', () => {
    const spot = ratio(145n, 1000n);
    expect(startReference(spot, null, 0, LIMIT).price).toEqual(spot);
  });
});

describe('the pool guard state', () => {
  it('is limited since the trade that left the band, tells the direction and when it clears', () => {
    const reference = observeSpot(
      startReference(ratio(1n, 1n), null, 0, LIMIT),
      ratio(110n, 100n),
      60_000,
      LIMIT,
    );
    const state = poolGuardStateOf(reference, 120_000, LIMIT);
    expect(state.state).toBe('limited');
    expect(state.since).toBe(60_000);
    // tokenA is dear: selling it (A → B) brings the price back.
    expect(state.allowedDirection).toBe('tokenA_to_tokenB');
    expect(state.clearsAtMs).not.toBeNull();
    const clearsAt = state.clearsAtMs ?? 0;
    expect(poolGuardStateOf(reference, clearsAt - 1_000, LIMIT).state).toBe('limited');
    expect(poolGuardStateOf(reference, clearsAt + 1_000, LIMIT).state).toBe('clear');
    expect(ratioToNumber(state.band.low)).toBeCloseTo(ratioToNumber(state.reference) / 1.05, 9);
    expect(ratioToNumber(state.band.high)).toBeCloseTo(ratioToNumber(state.reference) * 1.05, 9);
  });

  it('is clear, either way, within the band', () => {
    const state = poolGuardStateOf(startReference(ratio(1n, 1n), null, 0, LIMIT), 0, LIMIT);
    expect(state).toMatchObject({ state: 'clear', since: null, allowedDirection: 'either' });
    expect(state.clearsAtMs).toBeNull();
  });
});

describe('the devnet pool (1 000 000 Amulet / 145 000 USDCx)', () => {
  const seeded: Pool = { a: Amount.of(1_000_000), b: Amount.of(145_000) };
  const reference = spotOf(seeded);

  it('refuses a 40 000 Amulet swap, with the deviation it would cause, and quotes a reverse trade', () => {
    const { verdict } = judge(seeded, 'a', Amount.parse('39871.72'), reference);
    expect(verdict?.code).toBe('reserve_price_deviation_exceeded');
    expect(Number(verdict?.deviation)).toBeGreaterThan(0.08);
    expect(verdict?.limit).toBe('0.05');
    expect(judge(seeded, 'b', Amount.of(1_000), reference).verdict).toBeNull();
  });

  it('after the largest swap within the band, takes the reverse trade and refuses more of the same', () => {
    const { verdict, after } = judge(seeded, 'a', Amount.of(24_000), reference);
    expect(verdict).toBeNull();
    expect(judge(after, 'b', Amount.of(3_000), reference).verdict).toBeNull();
    expect(judge(after, 'a', Amount.of(1_000), reference).verdict?.code).toBe(
      'reserve_price_deviation_exceeded',
    );
  });
});

describe('no sequence of trades freezes a pool', () => {
  /**
   * A trade, and whether it lands whatever the verdict now: a swap judged earlier, against the
   * pool as it was then, executes later without the deviation check (as several created at once
   * do), so the pool can end up outside its band.
   */
  const aStep = fc.record({
    input: fc.constantFrom<Side>('a', 'b'),
    tokens: fc.integer({ min: 1, max: 120_000 }),
    minutes: fc.integer({ min: 0, max: 90 }),
    judgedEarlier: fc.boolean(),
  });

  it('heals are never refused, band-leaving trades always are, and the way back stays open', () => {
    fc.assert(
      fc.property(fc.array(aStep, { minLength: 1, maxLength: 40 }), (steps) => {
        let pool: Pool = { a: Amount.of(1_000_000), b: Amount.of(145_000) };
        let nowMs = 0;
        let reference = startReference(spotOf(pool), null, nowMs, LIMIT);
        for (const step of steps) {
          nowMs += step.minutes * 60_000;
          const base = referencePriceAt(reference, nowMs);
          const { verdict, after } = judge(pool, step.input, Amount.of(step.tokens), base);
          const before = priceDeviation(spotOf(pool), base);
          const ending = priceDeviation(spotOf(after), base);
          const heals = compareRatio(ending, before) < 0;
          const leaves = compareRatio(ending, LIMIT) > 0 && !heals;
          if (heals) expect(verdict).toBeNull();
          if (leaves) expect(verdict?.code).toBe('reserve_price_deviation_exceeded');
          if (verdict === null || step.judgedEarlier) {
            pool = after;
            reference = observeSpot(reference, spotOf(pool), nowMs, LIMIT);
          }
          expectWayBack(pool, referencePriceAt(reference, nowMs));
        }
      }),
    );
  });

  it('a pool pushed outside its band by swaps judged earlier takes the way back at once', () => {
    const seeded: Pool = { a: Amount.of(1_000_000), b: Amount.of(145_000) };
    let reference = startReference(spotOf(seeded), null, 0, LIMIT);
    // Two 24 000 Amulet swaps, each within the band when created, executed one after the other.
    const first = judge(seeded, 'a', Amount.of(24_000), reference.price).after;
    const second = judge(first, 'a', Amount.of(24_000), reference.price).after;
    reference = observeSpot(reference, spotOf(second), 1_000, LIMIT);
    const state = poolGuardStateOf(reference, 1_000, LIMIT);
    expect(state).toMatchObject({ state: 'limited', since: 1_000 });
    expect(state.allowedDirection).toBe('tokenB_to_tokenA');
    const base = referencePriceAt(reference, 1_000);
    expect(judge(second, 'b', Amount.of(3_000), base).verdict).toBeNull();
    expect(judge(second, 'a', Amount.of(1), base).verdict?.code).toBe(
      'reserve_price_deviation_exceeded',
    );
  });
});

/** One token toward the reference is always allowed: the pool never refuses both directions. */
function expectWayBack(pool: Pool, reference: Ratio): void {
  const toward: Side = compareRatio(spotOf(pool), reference) >= 0 ? 'a' : 'b';
  expect(judge(pool, toward, Amount.of(1), reference).verdict).toBeNull();
}

describe('the reference at execution', () => {
  /** The guard's verdict at execution: the reference read per unit of the input, as settlement does. */
  const atExecution = (pool: Pool, input: Side, pricedInput: Amount, reference: Ratio) =>
    judge(pool, input, pricedInput, reference, (r, side) => perUnitOfInput(r, side === 'a'));

  const anExecution = fc.record({
    input: fc.constantFrom<Side>('a', 'b'),
    tokens: fc.integer({ min: 1, max: 120_000 }),
    minutes: fc.integer({ min: 0, max: 90 }),
  });

  it('never lets an execution move the pool beyond its band away from the reference', () => {
    fc.assert(
      fc.property(fc.array(anExecution, { minLength: 1, maxLength: 40 }), (executions) => {
        let pool: Pool = { a: Amount.of(1_000_000), b: Amount.of(145_000) };
        let nowMs = 0;
        let stored: PoolPriceReference | null = null;
        for (const step of executions) {
          nowMs += step.minutes * 60_000;
          const reference = referenceAtExecution(stored, spotOf(pool), null, nowMs, LIMIT);
          const base = referencePriceAt(reference, nowMs);
          const { verdict, after } = atExecution(pool, step.input, Amount.of(step.tokens), base);
          const before = priceDeviation(spotOf(pool), base);
          const ending = priceDeviation(spotOf(after), base);
          const allowed = compareRatio(ending, LIMIT) <= 0 || compareRatio(ending, before) < 0;
          // Refused exactly when the trade ends outside the band and no nearer the reference.
          expect(verdict === null).toBe(allowed);
          if (verdict !== null) expect(verdict.code).toBe('reserve_price_deviation_exceeded');
          else pool = after;
          stored = observeSpot(reference, spotOf(pool), nowMs, LIMIT);
          expectWayBack(pool, referencePriceAt(stored, nowMs));
        }
      }),
    );
  });

  it('reads the same reference as a process observing the pool every minute', () => {
    fc.assert(
      fc.property(fc.array(anExecution, { minLength: 1, maxLength: 20 }), (executions) => {
        let pool: Pool = { a: Amount.of(1_000_000), b: Amount.of(145_000) };
        let nowMs = 0;
        let stored: PoolPriceReference | null = null;
        let quoting = startReference(spotOf(pool), null, 0, LIMIT);
        for (const step of executions) {
          for (let minute = 1; minute <= step.minutes; minute += 1) {
            quoting = observeSpot(quoting, spotOf(pool), nowMs + minute * 60_000, LIMIT);
          }
          nowMs += step.minutes * 60_000;
          const reference = referenceAtExecution(stored, spotOf(pool), null, nowMs, LIMIT);
          const executed = ratioToNumber(referencePriceAt(reference, nowMs));
          expect(executed).toBeCloseTo(ratioToNumber(referencePriceAt(quoting, nowMs)), 9);
          const { verdict, after } = atExecution(
            pool,
            step.input,
            Amount.of(step.tokens),
            referencePriceAt(reference, nowMs),
          );
          if (verdict === null) pool = after;
          stored = observeSpot(reference, spotOf(pool), nowMs, LIMIT);
          quoting = observeSpot(quoting, spotOf(pool), nowMs, LIMIT);
        }
      }),
    );
  });

  it("starts a pool's first execution at its snapshots' mean, or at the spot without one", () => {
    const spot = ratio(150n, 1000n);
    const seed = meanSpotPrice([
      { reserveA: Amount.of(1_000_000), reserveB: Amount.of(140_000) },
      { reserveA: Amount.of(1_000_000), reserveB: Amount.of(160_000) },
      { reserveA: Amount.ZERO, reserveB: Amount.of(1) },
    ]);
    expect(seed).not.toBeNull();
    expect(ratioToNumber(seed as Ratio)).toBeCloseTo(0.15, 12);
    expect(referenceAtExecution(null, spot, seed, 5, LIMIT)).toMatchObject({
      price: seed,
      atMs: 5,
    });
    expect(referenceAtExecution(null, spot, null, 5, LIMIT).price).toEqual(spot);
    expect(meanSpotPrice([])).toBeNull();
    // A stored reference is followed to now with its spot, then takes the spot under the lock.
    const stored = startReference(ratio(1n, 10n), ratio(2n, 10n), 0, LIMIT);
    const followed = referenceAtExecution(stored, spot, seed, REFERENCE_HALF_LIFE_MS, LIMIT);
    expect(ratioToNumber(followed.price)).toBeCloseTo(0.15, 9);
    expect(followed.spot).toEqual(spot);
  });

  it('reads a tokenB-per-tokenA price per unit of either input', () => {
    const price = ratio(145n, 1000n);
    expect(perUnitOfInput(price, true)).toEqual(price);
    expect(perUnitOfInput(price, false)).toEqual(ratio(1000n, 145n));
    expect(perUnitOfInput(ratio(0n, 1n), false)).toBeNull();
    expect(spotOfReserves(Amount.of(10), Amount.ZERO)).toBeNull();
  });

  it("takes the band's limit from the pool's thresholds, the default for one it cannot read", () => {
    expect(reservePriceLimitOf({ reservePriceDeviationMax: 0.02 })).toEqual(ratioFromNumber(0.02));
    expect(reservePriceLimitOf({})).toEqual(ratioFromNumber(0.05));
    expect(reservePriceLimitOf({ reservePriceDeviationMax: Number.NaN })).toEqual(
      ratioFromNumber(0.05),
    );
  });
});
