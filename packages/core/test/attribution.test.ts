import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Amount } from '../src/amount.js';
import {
  type AttributionCandidates,
  attributeDeposit,
  type IntentCandidate,
  type ObservedDeposit,
  refundOfDeposit,
  returnOfUnmatched,
} from '../src/attribution.js';
import type { Instrument } from '../src/instrument.js';

const amulet: Instrument = { admin: 'DSO::1220aa', id: 'Amulet' };
const usdcx: Instrument = { admin: 'circle::1220bb', id: 'USDCx' };
const bridged: Instrument = { admin: 'bridge::1220cc', id: 'USDCx' };
const ALICE = 'alice::1220dd';
const BOB = 'bob::1220ee';
const T0 = new Date('2026-01-01T00:00:00Z');
const LATER = new Date('2026-01-02T00:00:00Z');

function intent(overrides: Partial<IntentCandidate> = {}): IntentCandidate {
  return {
    intentId: 'swp_a',
    poolId: 'amulet-usdcx',
    walletParty: ALICE,
    input: amulet,
    expectedAmount: Amount.of(100),
    networkFeeAmount: Amount.parse('8.2758620690'),
    status: 'pending',
    expiresAt: LATER,
    ...overrides,
  };
}

function deposit(overrides: Partial<ObservedDeposit> = {}): ObservedDeposit {
  return {
    poolId: 'amulet-usdcx',
    sender: ALICE,
    instrument: amulet,
    amount: Amount.of(100),
    reference: null,
    receivedAt: T0,
    ...overrides,
  };
}

function candidates(overrides: Partial<AttributionCandidates> = {}): AttributionCandidates {
  return {
    poolInstruments: [amulet, usdcx],
    byReference: null,
    pendingOfSender: null,
    ...overrides,
  };
}

describe('attributeDeposit', () => {
  it('matches by reference first', () => {
    const referenced = intent();
    const result = attributeDeposit(
      deposit({ reference: 'pp-1' }),
      candidates({ byReference: referenced, pendingOfSender: referenced }),
    );
    expect(result).toEqual({ kind: 'matched', intent: referenced, by: 'reference' });
  });

  it("falls back to the sender's pending intent when there is no usable reference", () => {
    const pending = intent({ intentId: 'swp_b' });
    expect(attributeDeposit(deposit(), candidates({ pendingOfSender: pending }))).toEqual({
      kind: 'matched',
      intent: pending,
      by: 'sender',
    });
    const foreign = intent({ intentId: 'swp_c', walletParty: BOB });
    expect(
      attributeDeposit(
        deposit({ reference: 'pp-c' }),
        candidates({ byReference: foreign, pendingOfSender: pending }),
      ),
    ).toMatchObject({ kind: 'matched', intent: { intentId: 'swp_b' }, by: 'sender' });
  });

  const unmatchedCases: [string, ObservedDeposit, Partial<AttributionCandidates>, string][] = [
    ['no intent at all', deposit(), {}, 'no_intent'],
    [
      'an instrument the pool does not have',
      deposit({ instrument: bridged }),
      { pendingOfSender: intent() },
      'wrong_instrument',
    ],
    [
      'a reference of another party',
      deposit({ sender: BOB, reference: 'pp-a' }),
      { byReference: intent() },
      'wrong_party',
    ],
    [
      'a reference of another instrument',
      deposit({ instrument: usdcx, reference: 'pp-a' }),
      { byReference: intent() },
      'wrong_instrument',
    ],
    [
      'a wrong amount',
      deposit({ amount: Amount.parse('99.9999999999') }),
      { pendingOfSender: intent() },
      'wrong_amount',
    ],
    [
      'a larger amount',
      deposit({ amount: Amount.parse('100.0000000001') }),
      { pendingOfSender: intent() },
      'wrong_amount',
    ],
    [
      'a referenced intent that expired',
      deposit({ reference: 'pp-a' }),
      { byReference: intent({ status: 'expired' }) },
      'intent_expired',
    ],
    [
      'a referenced intent that was cancelled',
      deposit({ reference: 'pp-a' }),
      { byReference: intent({ status: 'cancelled' }) },
      'intent_cancelled',
    ],
    [
      'a second deposit',
      deposit({ reference: 'pp-a' }),
      { byReference: intent({ status: 'completed' }) },
      'intent_already_funded',
    ],
    [
      'arrival at expiresAt, before the sweep',
      deposit({ receivedAt: LATER }),
      { pendingOfSender: intent() },
      'intent_expired',
    ],
  ];
  for (const [name, observed, given, reason] of unmatchedCases) {
    it(`leaves unmatched: ${name}`, () => {
      expect(attributeDeposit(observed, candidates(given))).toMatchObject({
        kind: 'unmatched',
        reason,
      });
    });
  }

  it("names the intent whose network fee a refund charges, only for the deposit's instrument", () => {
    const expired = intent({ status: 'expired' });
    expect(
      attributeDeposit(deposit({ reference: 'pp-a' }), candidates({ byReference: expired })),
    ).toMatchObject({
      intent: expired,
    });
    expect(
      attributeDeposit(
        deposit({ instrument: usdcx, reference: 'pp-a' }),
        candidates({ byReference: expired }),
      ),
    ).toMatchObject({ intent: null });
  });

  it('matches exactly when sender, pool, instrument, amount and time fit (property)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 20n }),
        fc.bigInt({ min: 1n, max: 10n ** 20n }),
        (sent, expected) => {
          const result = attributeDeposit(
            deposit({ amount: Amount.fromUnits(sent) }),
            candidates({ pendingOfSender: intent({ expectedAmount: Amount.fromUnits(expected) }) }),
          );
          expect(result.kind).toBe(sent === expected ? 'matched' : 'unmatched');
        },
      ),
    );
  });
});

describe('returnOfUnmatched', () => {
  const fee = Amount.parse('8.2758620690');

  it('rejects an offer whatever its size: it returns at no cost', () => {
    expect(returnOfUnmatched({ amount: Amount.of(1), twoStep: true }, fee)).toEqual({
      kind: 'reject_offer',
    });
  });

  it('refunds a transfer minus the fee', () => {
    expect(returnOfUnmatched({ amount: Amount.of(100), twoStep: false }, fee)).toEqual({
      kind: 'refund',
      amount: Amount.parse('91.724137931'),
      networkFeeAmount: fee,
    });
  });

  it('keeps a transfer not larger than the fee, whole', () => {
    expect(returnOfUnmatched({ amount: fee, twoStep: false }, fee)).toEqual({
      kind: 'keep_as_fee',
      networkFeeAmount: fee,
    });
    expect(returnOfUnmatched({ amount: Amount.of(1), twoStep: false }, fee)).toEqual({
      kind: 'keep_as_fee',
      networkFeeAmount: Amount.of(1),
    });
  });

  it('never returns more than was sent, and returns plus keeps the whole deposit (property)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 24n }),
        fc.bigInt({ min: 0n, max: 10n ** 24n }),
        (sent, feeUnits) => {
          const { refund, kept } = refundOfDeposit(
            Amount.fromUnits(sent),
            Amount.fromUnits(feeUnits),
          );
          expect(refund.add(kept).units).toBe(sent);
          expect(refund.units <= sent).toBe(true);
        },
      ),
    );
  });
});
