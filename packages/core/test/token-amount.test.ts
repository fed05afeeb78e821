import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Amount, AmountRangeError } from '../src/amount.js';
import { attributeDeposit } from '../src/attribution.js';
import type { Instrument } from '../src/instrument.js';
import { InstrumentMismatchError, TokenAmount } from '../src/token-amount.js';

const AMULET: Instrument = { id: 'Amulet', admin: 'DSO::1220aa' };
const USDCX: Instrument = { id: 'USDCx', admin: 'circle::1220bb' };
// The same symbol under another admin is another instrument.
const OTHER_USDCX: Instrument = { id: 'USDCx', admin: 'mallory::1220cc' };

const units = fc.bigInt({ min: 0n, max: 10n ** 24n });
const instrument = fc.constantFrom(AMULET, USDCX, OTHER_USDCX);
const tokenAmount = fc
  .tuple(instrument, units)
  .map(([i, u]) => TokenAmount.of(i, Amount.fromUnits(u)));

describe('an amount of one instrument', () => {
  it('adds and subtracts as its amount does when both are of one instrument', () => {
    fc.assert(
      fc.property(instrument, units, units, (i, x, y) => {
        const [a, b] = [
          TokenAmount.of(i, Amount.fromUnits(x)),
          TokenAmount.of(i, Amount.fromUnits(y)),
        ];
        const sum = a.add(b);
        expect(sum.instrument).toEqual(i);
        expect(sum.amount.units).toBe(x + y);
        expect(sum.sub(b).eq(a)).toBe(true);
        expect(a.subOrZero(b).amount.units).toBe(x > y ? x - y : 0n);
        expect(a.compare(b)).toBe(x < y ? -1 : x > y ? 1 : 0);
        expect(a.lte(b)).toBe(x <= y);
      }),
    );
  });

  it('refuses to add, subtract or compare two instruments, the same symbol under two admins too', () => {
    fc.assert(
      fc.property(tokenAmount, tokenAmount, (a, b) => {
        fc.pre(a.instrument.admin !== b.instrument.admin || a.instrument.id !== b.instrument.id);
        for (const operation of [
          () => a.add(b),
          () => a.sub(b),
          () => a.subOrZero(b),
          () => a.eq(b),
        ]) {
          expect(operation).toThrow(InstrumentMismatchError);
        }
        try {
          a.add(b);
        } catch (error) {
          expect(error).toMatchObject({ code: 'instrument_mismatch' });
        }
      }),
    );
  });

  it('goes no lower than zero, as an amount does', () => {
    const small = TokenAmount.of(AMULET, Amount.of(1));
    expect(() => small.sub(TokenAmount.of(AMULET, Amount.of(2)))).toThrow(AmountRangeError);
    expect(small.subOrZero(TokenAmount.of(AMULET, Amount.of(2))).isZero()).toBe(true);
    expect(TokenAmount.zero(USDCX).isPositive()).toBe(false);
    expect(`${TokenAmount.of(USDCX, Amount.parse('12.5'))}`).toBe('12.5 USDCx');
  });
});

describe('deposit attribution', () => {
  it('matches only a deposit of the intent’s own instrument and amount', () => {
    const intent = {
      intentId: 'int_1',
      poolId: 'amulet-usdcx',
      walletParty: 'alice::1220dd',
      input: AMULET,
      expectedAmount: Amount.of(100),
      networkFeeAmount: Amount.of(1),
      status: 'pending' as const,
      expiresAt: new Date('2026-01-02T00:00:00Z'),
    };
    const deposit = (of: Instrument) => ({
      poolId: 'amulet-usdcx',
      sender: 'alice::1220dd',
      instrument: of,
      amount: Amount.of(100),
      reference: null,
      receivedAt: new Date('2026-01-01T00:00:00Z'),
    });
    const candidates = {
      poolInstruments: [AMULET, USDCX] as const,
      byReference: null,
      pendingOfSender: intent,
    };
    expect(attributeDeposit(deposit(AMULET), candidates).kind).toBe('matched');
    expect(attributeDeposit(deposit(USDCX), candidates)).toMatchObject({ kind: 'unmatched' });
  });
});
