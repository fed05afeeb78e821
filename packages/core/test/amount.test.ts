import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Amount, AmountParseError, AmountRangeError } from '../src/amount.js';

/** Canonical wire strings: no leading zeros, no trailing fractional zeros, ≤ 28 + 10 digits. */
const canonicalAmount = fc
  .tuple(fc.bigInt({ min: 0n, max: 10n ** 28n - 1n }), fc.bigInt({ min: 0n, max: 10n ** 10n - 1n }))
  .map(([integer, fraction]) => {
    const digits = fraction.toString().padStart(10, '0').replace(/0+$/, '');
    return digits.length > 0 ? `${integer}.${digits}` : `${integer}`;
  });

describe('Amount.parse / toString', () => {
  it('format∘parse is the identity on canonical wire strings', () => {
    fc.assert(fc.property(canonicalAmount, (s) => Amount.parse(s).toString() === s));
  });

  it('parse∘format is the identity on every representable amount', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 38n - 1n }), (units) => {
        const amount = Amount.fromUnits(units);
        return Amount.parse(amount.toString()).units === units;
      }),
    );
  });

  it('accepts non-canonical but exact forms and normalises them', () => {
    expect(Amount.parse('0100.5000').toString()).toBe('100.5');
    expect(Amount.parse('0.0000000001').toString()).toBe('0.0000000001');
    expect(Amount.parse('100').units).toBe(100n * 10n ** 10n);
  });

  it.each([
    ['', 'empty'],
    [' 1', 'malformed'],
    ['1 ', 'malformed'],
    ['-1', 'malformed'],
    ['+1', 'malformed'],
    ['1e5', 'malformed'],
    ['1E5', 'malformed'],
    ['.5', 'malformed'],
    ['5.', 'malformed'],
    ['1,5', 'malformed'],
    ['0x10', 'malformed'],
    ['NaN', 'malformed'],
    ['Infinity', 'malformed'],
    ['１', 'malformed'],
    ['1.00000000001', 'too_many_decimals'],
    ['1'.repeat(29), 'too_many_integer_digits'],
  ])('refuses %j (%s)', (input, problem) => {
    const error = Amount.tryParse(input);
    expect(error).toBeInstanceOf(AmountParseError);
    expect((error as AmountParseError).problem).toBe(problem);
    expect(() => Amount.parse(input)).toThrow(AmountParseError);
  });

  it('refuses values that are not strings', () => {
    for (const value of [1, null, undefined, 1n, {}, ['1']]) {
      expect((Amount.tryParse(value) as AmountParseError).problem).toBe('not_a_string');
    }
  });

  it('refuses every string that mixes in a character other than digits and one dot', () => {
    const noise = fc.constantFrom(' ', '-', '+', 'e', 'E', ',', '_', 'x', '\n', '\u00a0');
    fc.assert(
      fc.property(canonicalAmount, fc.nat(), noise, (s, at, ch) => {
        const i = at % (s.length + 1);
        const broken = s.slice(0, i) + ch + s.slice(i);
        return Amount.tryParse(broken) instanceof AmountParseError;
      }),
    );
  });

  it('accepts 28 integer digits with leading zeros beyond them', () => {
    expect(Amount.parse(`00${'9'.repeat(28)}`).toString()).toBe('9'.repeat(28));
  });
});

describe('Amount arithmetic', () => {
  const amount = fc.bigInt({ min: 0n, max: 10n ** 30n }).map((u) => Amount.fromUnits(u));

  it('add and sub are inverse', () => {
    fc.assert(fc.property(amount, amount, (a, b) => a.add(b).sub(b).eq(a)));
  });

  it('refuses to go negative', () => {
    expect(() => Amount.of(1).sub(Amount.of(2))).toThrow(AmountRangeError);
    expect(Amount.of(1).subOrZero(Amount.of(2)).isZero()).toBe(true);
  });

  it('refuses to exceed 28 integer digits', () => {
    const max = Amount.parse(`${'9'.repeat(28)}.9999999999`);
    expect(() => max.add(Amount.parse('0.0000000001'))).toThrow(AmountRangeError);
  });

  it('mul and div round in the direction asked for', () => {
    const third = Amount.of(1).div(Amount.of(3), 'down');
    expect(third.toString()).toBe('0.3333333333');
    expect(Amount.of(1).div(Amount.of(3), 'up').toString()).toBe('0.3333333334');
    expect(Amount.parse('0.0000000001').mul(Amount.parse('0.5'), 'down').isZero()).toBe(true);
    expect(Amount.parse('0.0000000001').mul(Amount.parse('0.5'), 'up').toString()).toBe(
      '0.0000000001',
    );
  });

  it('rounding up never gives less than rounding down, and by at most one unit', () => {
    fc.assert(
      fc.property(
        amount,
        fc.bigInt({ min: 0n, max: 10_000n }),
        fc.bigInt({ min: 1n, max: 10_000n }),
        (a, n, d) => {
          const down = a.mulDiv(n, d, 'down');
          const up = a.mulDiv(n, d, 'up');
          return up.units - down.units === ((a.units * n) % d === 0n ? 0n : 1n);
        },
      ),
    );
  });

  it('refuses division by zero', () => {
    expect(() => Amount.of(1).div(Amount.ZERO, 'down')).toThrow(AmountRangeError);
  });
});
