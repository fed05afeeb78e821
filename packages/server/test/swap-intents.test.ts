/**
 * The pure parts of swap creation and the intent views: refusals, the intent a quote becomes,
 * identifiers, strict validation and the collision retry.
 */
import {
  Amount,
  assembleQuote,
  CreateSwapBodySchema,
  DomainError,
  type Instrument,
  type PricedTrade,
  priceTrade,
  ratio,
} from '@poolparty/core';
import {
  CROCKFORD_ALPHABET,
  IDENTIFIER_ATTEMPTS_MAX,
  INTENT_VALIDITY_MS,
  newDepositReference,
  newIntentFrom,
  newIntentId,
  newLiquidityIntentId,
  randomCrockford,
  refuseUnsafeTrade,
  retryingCollisions,
  SWAP_IDENTIFIER_CONSTRAINTS,
} from '@poolparty/settlement';
import type { IntentRecord } from '@poolparty/store';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quoteRequestOf, requireOwnWallet, resolveSlippage } from '../src/swaps/create-intent.js';
import { swapIntentView } from '../src/swaps/intent-view.js';
import { strictValidatorCompiler } from '../src/swaps/strict-validation.js';
import { swapStatusView } from '../src/views/swap-status.js';

const party = (hint: string, digit: string) => `${hint}::1220${digit.repeat(64)}`;
const AMULET: Instrument = { admin: party('DSO', 'a'), id: 'Amulet' };
const USDCX: Instrument = { admin: party('circle', 'b'), id: 'USDCx' };
const ALICE = party('alice', 'c');
const SWAP_PARTY = party('swap', 'd');
const NOW = new Date('2026-11-22T13:40:00.000Z');

function problemOf(run: () => unknown): { code: string; extensions: Record<string, unknown> } {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError)
      return { code: error.code, extensions: { ...error.extensions } };
    throw error;
  }
  throw new Error('expected a refusal');
}

function pricedTrade(amount: string, maxPriceImpact = 0.15): PricedTrade {
  const trade = priceTrade({
    pool: {
      poolId: 'amulet-usdcx',
      tokenA: { instrument: AMULET, reserve: Amount.parse('1000000') },
      tokenB: { instrument: USDCX, reserve: Amount.parse('145000') },
      feeBps: 30,
      status: 'active',
    },
    inputSide: 'tokenA',
    amount: Amount.parse(amount),
    traffic: { amuletPriceUsd: ratio(145n, 1000n) },
    inputPriceUsd: ratio(145n, 1000n),
    maxPriceImpact,
  });
  if (trade.kind !== 'priced') throw new Error('test trade below minimum');
  return trade;
}

function pricedQuote(amount: string) {
  const trade = pricedTrade(amount);
  const pool = { poolId: 'amulet-usdcx', swapParty: SWAP_PARTY };
  return { trade, quote: assembleQuote(trade, null), pool } as const;
}

const origin = {
  intentId: 'swp_TEST',
  depositReference: 'pp-TEST',
  apiKeyId: 'key_1',
  developerParty: party('dev', 'e'),
  walletParty: ALICE,
  slippageTolerance: 0.01,
  now: NOW,
};

function recordOf(amount = '100'): IntentRecord {
  const { quote, trade, pool } = pricedQuote(amount);
  const intent = newIntentFrom({ quote, trade, pool: pool as never }, origin);
  return {
    ...intent,
    status: 'pending',
    failureReason: null,
    deposit: null,
    actualOutput: null,
    payout: null,
    refund: null,
    payoutOffer: null,
    refundOffer: null,
    matchedAt: null,
    completedAt: null,
    updatedAt: NOW,
  };
}

describe('resolveSlippage', () => {
  it('defaults to 0.05 and keeps a value within [0.001, 0.05]', () => {
    expect(resolveSlippage(undefined)).toBe(0.05);
    for (const value of [0.001, 0.01, 0.05]) expect(resolveSlippage(value)).toBe(value);
  });

  it.each([0.0009, 0.0501, -0.01, Number.NaN, Number.POSITIVE_INFINITY, '0.01', null])(
    'refuses %s with validation_error',
    (value) => {
      expect(problemOf(() => resolveSlippage(value)).code).toBe('validation_error');
    },
  );
});

describe('requireOwnWallet', () => {
  it("accepts an absent walletAddress or the token's party, and refuses another with 403", () => {
    expect(() => requireOwnWallet(undefined, ALICE)).not.toThrow();
    expect(() => requireOwnWallet(ALICE, ALICE)).not.toThrow();
    const refusal = problemOf(() => requireOwnWallet(party('bob', 'f'), ALICE));
    expect(refusal.code).toBe('wallet_party_mismatch');
  });
});

describe('quoteRequestOf', () => {
  it('passes the pair, the unparsed amount and only the disambiguators given', () => {
    const request = quoteRequestOf({ fromToken: 'Amulet', toToken: 'USDCx', amount: '1.50' });
    expect(request).toEqual({ from: 'Amulet', to: 'USDCx', amount: '1.50' });
    const pinned = quoteRequestOf({
      fromToken: 'Amulet',
      toToken: 'USDCx',
      amount: '1',
      poolId: 'p',
      fromAdmin: AMULET.admin,
      toAdmin: USDCX.admin,
      outputAddress: 'ignored',
    });
    expect(pinned).toEqual({
      from: 'Amulet',
      to: 'USDCx',
      amount: '1',
      poolId: 'p',
      fromAdmin: AMULET.admin,
      toAdmin: USDCX.admin,
    });
  });
});

describe('refuseUnsafeTrade', () => {
  const safety = {
    code: 'output_reserve_share_exceeded',
    reason: 'share=0.15 limit=0.1',
    message: 'Too large for the pool.',
  } as const;

  it('lets a clear trade within the cap pass', () => {
    expect(() =>
      refuseUnsafeTrade({ settlementSafety: null, trade: pricedTrade('100') }),
    ).not.toThrow();
  });

  it("refuses a guarded trade with settlement_safety carrying the guard's verdict", () => {
    const refusal = problemOf(() =>
      refuseUnsafeTrade({ settlementSafety: safety, trade: pricedTrade('100') }),
    );
    expect(refusal).toEqual({
      code: 'settlement_safety',
      extensions: { settlementSafety: safety },
    });
  });

  it('refuses a trade beyond the price-impact cap, after the guard', () => {
    const beyond = pricedTrade('50000', 0.01);
    expect(beyond.exceedsPriceImpactCap).toBe(true);
    expect(problemOf(() => refuseUnsafeTrade({ settlementSafety: null, trade: beyond })).code).toBe(
      'price_impact_exceeded',
    );
    expect(
      problemOf(() => refuseUnsafeTrade({ settlementSafety: safety, trade: beyond })).code,
    ).toBe('settlement_safety');
  });
});

describe('newIntentFrom', () => {
  it('keeps every quoted amount, conserves the deposit and floors minOutput', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 10, max: 90_000 }),
        fc.integer({ min: 1, max: 50 }),
        (whole, slippageThousandths) => {
          const { quote, trade, pool } = pricedQuote(String(whole));
          const slippageTolerance = slippageThousandths / 1000;
          const intent = newIntentFrom(
            { quote, trade, pool: pool as never },
            { ...origin, slippageTolerance },
          );
          expect(intent.expectedAmount).toEqual(Amount.parse(String(whole)));
          expect(intent.quotedSwapAmount).toEqual(Amount.parse(String(whole)));
          const parts = [
            intent.networkFeeAmount,
            intent.poolFeeAmount,
            intent.inputAmountAfterPoolFee,
          ];
          expect(Amount.sum(parts)).toEqual(intent.expectedAmount);
          const fees = [intent.lpFeeAmount, intent.platformFeeAmount];
          expect(Amount.sum(fees)).toEqual(intent.poolFeeAmount);
          const expected = intent.expectedOutput;
          const kept = BigInt(1000 - slippageThousandths);
          expect(intent.minOutput).toEqual(expected.mulDiv(kept, 1000n, 'down'));
        },
      ),
      { numRuns: 50 },
    );
  });

  it('pays in to the pool swap party, out to the wallet party, and expires in 24 h', () => {
    const intent = recordOf();
    expect(intent.depositAddress).toBe(SWAP_PARTY);
    expect(intent.outputAddress).toBe(ALICE);
    expect(intent.walletParty).toBe(ALICE);
    expect(intent.expiresAt.getTime() - intent.createdAt.getTime()).toBe(INTENT_VALIDITY_MS);
    expect(INTENT_VALIDITY_MS).toBe(24 * 60 * 60 * 1000);
  });
});

describe('intent views', () => {
  it('shows a SwapIntent with aliases and instructions for the wallet', () => {
    const view = swapIntentView(recordOf('100'));
    expect(view).toMatchObject({
      status: 'pending',
      swapAddress: SWAP_PARTY,
      depositAddress: SWAP_PARTY,
      totalInputAmount: '100',
      trafficFeeInInput: view.networkFeeAmount,
      createdAt: NOW.toISOString(),
      instructions: {
        transferTo: SWAP_PARTY,
        amount: '100',
        token: 'Amulet',
        tokenAdmin: AMULET.admin,
        reason: 'pp-TEST',
        expiresAt: view.expiresAt,
      },
    });
    expect(view.instructions.note).toContain('pp-TEST');
    expect(view.instructions.note).toContain('splice.lfdecentralizedtrust.org/reason');
  });

  it('shows a refund only once its transfer committed, and completedAt only when completed', () => {
    const owed = {
      ...recordOf(),
      status: 'processing' as const,
      refund: { amount: Amount.parse('90'), networkFeeAmount: Amount.parse('10'), updateId: null },
      completedAt: null,
    };
    expect(swapStatusView(owed, []).refund).toBeNull();
    const refunded = {
      ...owed,
      status: 'slippage_failed' as const,
      refund: { amount: Amount.parse('90'), networkFeeAmount: Amount.parse('10'), updateId: 'u-2' },
      completedAt: NOW,
      failureReason: { code: 'slippage_failed', message: 'Output below minOutput.' },
    };
    const status = swapStatusView(refunded, [
      { status: 'pending', at: NOW },
      { status: 'slippage_failed', at: NOW },
    ]);
    expect(status).toMatchObject({
      terminal: true,
      completedAt: null,
      refund: { amount: '90', networkFeeAmount: '10', updateId: 'u-2' },
      failureReason: { code: 'slippage_failed' },
      history: [
        { status: 'pending', at: NOW.toISOString() },
        { status: 'slippage_failed', at: NOW.toISOString() },
      ],
    });
    const completed = { ...refunded, status: 'completed' as const, refund: null };
    expect(swapStatusView(completed, []).completedAt).toBe(NOW.toISOString());
  });

  it('shows a leg waiting as an offer, then as the offer ended, and a direct one as committed', () => {
    const expiresAt = new Date(NOW.getTime() + 86_400_000);
    const offer = { offerId: 'offer-9', state: 'offered' as const, expiresAt, updateId: 'u-3' };
    const waiting = {
      ...recordOf(),
      status: 'sending_output' as const,
      actualOutput: Amount.parse('13.5'),
      payoutOffer: offer,
    };
    expect(swapStatusView(waiting, []).payout).toEqual({
      amount: '13.5',
      state: 'offered',
      updateId: 'u-3',
      offerId: 'offer-9',
      expiresAt: expiresAt.toISOString(),
    });
    const accepted = {
      ...waiting,
      status: 'completed' as const,
      payout: { amount: Amount.parse('13.5'), updateId: 'u-4' },
      payoutOffer: { ...offer, state: 'committed' as const, updateId: 'u-4' },
    };
    expect(swapStatusView(accepted, []).payout).toMatchObject({
      state: 'committed',
      updateId: 'u-4',
      offerId: 'offer-9',
    });
    const direct = { ...accepted, payoutOffer: null };
    expect(swapStatusView(direct, []).payout).toEqual({
      amount: '13.5',
      state: 'committed',
      updateId: 'u-4',
      offerId: null,
      expiresAt: null,
    });
    const refundOffered = {
      ...recordOf(),
      status: 'processing' as const,
      refund: { amount: Amount.parse('90'), networkFeeAmount: Amount.parse('10'), updateId: null },
      refundOffer: { ...offer, state: 'rejected' as const },
    };
    expect(swapStatusView(refundOffered, []).refund).toMatchObject({
      amount: '90',
      networkFeeAmount: '10',
      state: 'rejected',
      offerId: 'offer-9',
    });
    // Leg events are not state changes: they stay out of the history.
    const history = swapStatusView(waiting, [
      { status: 'sending_output', at: NOW },
      { status: 'sending_output', at: NOW, legEvent: 'payout_offered' },
    ]).history;
    expect(history).toEqual([{ status: 'sending_output', at: NOW.toISOString() }]);
  });
});

describe('identifiers', () => {
  it('draws deposit references of 13 Crockford symbols after pp-, within 32 characters', () => {
    const reference = newDepositReference();
    expect(reference).toMatch(/^pp-[0-9A-HJKMNP-TV-Z]{13}$/);
    expect(reference.length).toBeLessThanOrEqual(32);
    expect(newIntentId()).toMatch(/^swp_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(newLiquidityIntentId()).toMatch(/^liq_[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it('maps every byte onto the alphabet, each symbol from 5 bits', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 8, maxLength: 8 }), (bytes) => {
        const text = randomCrockford(8, () => bytes);
        expect([...text].map((c) => CROCKFORD_ALPHABET.indexOf(c))).toEqual(
          [...bytes].map((b) => b & 0x1f),
        );
      }),
    );
  });

  it('refuses a random source that gives too few bytes', () => {
    expect(() => randomCrockford(8, () => new Uint8Array(4))).toThrow(RangeError);
  });
});

describe('strictValidatorCompiler', () => {
  const validate = strictValidatorCompiler({
    schema: CreateSwapBodySchema,
    method: 'POST',
    url: '/v1/swaps',
  }) as ((data: unknown) => boolean) & { errors?: { instancePath: string }[] };

  it('accepts a well-typed body and refuses coercible but mistyped members', () => {
    expect(validate({ fromToken: 'Amulet', toToken: 'USDCx', amount: '1' })).toBe(true);
    expect(validate({ fromToken: 'Amulet', toToken: 'USDCx', amount: 1 })).toBe(false);
    expect(validate.errors?.map((e) => e.instancePath)).toContain('/amount');
    const slippage = { fromToken: 'A', toToken: 'B', amount: '1', slippageTolerance: '0.01' };
    expect(validate(slippage)).toBe(false);
    expect(validate.errors?.map((e) => e.instancePath)).toContain('/slippageTolerance');
  });
});

describe('retryingCollisions', () => {
  const collision = Object.assign(new Error('duplicate key'), {
    code: '23505',
    constraint: 'intents_deposit_reference_key',
  });

  it('tries again with fresh identifiers after a collision', async () => {
    let attempts = 0;
    const result = await retryingCollisions(SWAP_IDENTIFIER_CONSTRAINTS, async () => {
      attempts += 1;
      if (attempts === 1) throw collision;
      return 'created';
    });
    expect({ result, attempts }).toEqual({ result: 'created', attempts: 2 });
  });

  it('gives up after the bound, and never retries other failures', async () => {
    let attempts = 0;
    await expect(
      retryingCollisions(SWAP_IDENTIFIER_CONSTRAINTS, async () => {
        attempts += 1;
        throw collision;
      }),
    ).rejects.toBe(collision);
    expect(attempts).toBe(IDENTIFIER_ATTEMPTS_MAX);
    const other = Object.assign(new Error('x'), {
      code: '23505',
      constraint: 'intents_one_pending',
    });
    attempts = 0;
    await expect(
      retryingCollisions(SWAP_IDENTIFIER_CONSTRAINTS, async () => {
        attempts += 1;
        throw other;
      }),
    ).rejects.toBe(other);
    expect(attempts).toBe(1);
  });
});
