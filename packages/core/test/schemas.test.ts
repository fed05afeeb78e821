import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import fc from 'fast-check';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { Amount } from '../src/amount.js';
import { type PoolCandidate, problemFor } from '../src/errors.js';
import { isPartyId } from '../src/party-id.js';
import {
  type AmbiguousCandidate,
  AmountStringSchema,
  ApiKeyCreatedSchema,
  ApiKeyCreateSchema,
  ApiKeyListSchema,
  AtomicSwapProgressSchema,
  AtomicSwapStatusSchema,
  CancelResultSchema,
  ChallengeRequestSchema,
  ChallengeSchema,
  CreateSwapBodySchema,
  DeveloperSessionSchema,
  DevnetBalancesSchema,
  DevnetClockAdvanceSchema,
  DevnetCreatePartySchema,
  DevnetFaucetRequestSchema,
  DevnetFaultsSchema,
  DevnetHoldingsSchema,
  DevnetOfferActionSchema,
  DevnetOffersSchema,
  DevnetOracleSchema,
  DevnetTransferRequestSchema,
  DevnetTransferResultSchema,
  PartyIdSchema,
  PoolListSchema,
  PoolSchema,
  PoolStatsQuerySchema,
  PoolStatsSchema,
  ProblemSchema,
  QuoteQuerySchema,
  QuoteSchema,
  SettlementSafetySchema,
  SwapIntentSchema,
  SwapStateSchema,
  SwapStatusSchema,
  TickerSchema,
  TimestampSchema,
  TokenListSchema,
  TrackQuerySchema,
  TrackResultSchema,
  VerifyRequestSchema,
  WalletLoginRequestSchema,
  WalletTokenSchema,
  WIRE_SCHEMAS,
} from '../src/schemas/index.js';
import { SETTLEMENT_SAFETY_CODES, type SettlementSafety } from '../src/settlement-safety.js';
import { SWAP_STATES, type SwapState } from '../src/swap-state.js';

const FINGERPRINT = `1220${'a1'.repeat(32)}`;
const ALICE = `alice::${FINGERPRINT}`;
const DSO = `DSO::1220${'0'.repeat(64)}`;
const USDC_ADMIN = `circle-issuer::1220${'f'.repeat(64)}`;
const SWAP_PARTY = `pool-amulet-usdcx::1220${'b'.repeat(64)}`;
const NOW = '2026-11-22T13:40:00.000Z';
const LATER = '2026-11-23T13:40:00.000Z';

function errorsOf(schema: TSchema, value: unknown): string[] {
  return [...Value.Errors(schema, value)].map((error) => `${error.path}: ${error.message}`);
}

function expectValid(schema: TSchema, value: unknown): void {
  expect(errorsOf(schema, value)).toEqual([]);
}

function without(value: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: _removed, ...rest } = value;
  return rest;
}

/**
 * The schema has exactly `keys`, each required: the fixture is valid, and missing any one of
 * them it is not.
 */
function expectExactKeys(
  schema: TObject,
  fixture: Record<string, unknown>,
  keys: readonly string[],
): void {
  expect([...(schema.required ?? [])].sort()).toEqual([...keys].sort());
  expect(Object.keys(schema.properties).sort()).toEqual([...keys].sort());
  expectValid(schema, fixture);
  for (const key of keys) expect(Value.Check(schema, without(fixture, key)), key).toBe(false);
}

/** The keys a swap status has of either kind (docs/spec/atomic-swaps.md#status-and-track). */
const STATUS_KEYS_OF_BOTH_KINDS = [
  'kind',
  'intentId',
  'poolId',
  'status',
  'terminal',
  'inputToken',
  'inputTokenAdmin',
  'outputToken',
  'outputTokenAdmin',
  'expectedAmount',
  'expectedOutput',
  'minOutput',
  'actualOutput',
  'slippageTolerance',
  'createdAt',
  'completedAt',
  'expiresAt',
  'failureReason',
  'history',
];

const guardBlock: SettlementSafety = {
  code: 'output_reserve_share_exceeded',
  reason: 'share=0.1432 limit=0.1',
  message: 'This swap would take more than 10 % of the pool.',
};

const pool = {
  poolId: 'amulet-usdcx',
  tokenA: { name: 'Amulet', admin: DSO, reserve: '1000000' },
  tokenB: { name: 'USDCx', admin: USDC_ADMIN, reserve: '145000' },
  fee: 0.003,
  lpSupply: '380788.9',
  swapAddress: SWAP_PARTY,
  lpAddress: `pool-amulet-usdcx-lp::1220${'c'.repeat(64)}`,
  status: 'active',
};

const quote = {
  poolId: 'amulet-usdcx',
  inputToken: 'Amulet',
  inputTokenAdmin: DSO,
  outputToken: 'USDCx',
  outputTokenAdmin: USDC_ADMIN,
  totalInputAmount: '1000',
  networkFeeAmount: '8.2758620690',
  trafficFeeInInput: '8.2758620690',
  poolFeeAmount: '2.9751724138',
  lpFeeAmount: '2.2313793104',
  platformFeeAmount: '0.7437931034',
  inputAmountAfterPoolFee: '988.7489655172',
  outputAmount: '143.2295417521',
  rate: '0.1448592738',
  effectiveRate: '0.1432295417',
  priceImpact: '0.0009877',
  maxPriceImpact: 0.15,
  fee: 0.003,
  estimatedTrafficCost: { bytes: 20000, usd: '1.2', cc: '8.2758620690' },
  networkFeePolicy: {
    targetType: 'api_key',
    chargeBps: 5000,
    estimatedNetworkFeeAmount: '16.551724138',
    chargedNetworkFeeAmount: '8.2758620690',
  },
  platformFeePolicy: null,
  settlementSafety: null,
  expiresIn: 30,
  networkFeeShare: '0.0083',
  minimumInputAmount: '8.2758620691',
  usd: {
    totalInputAmount: '145',
    outputAmount: '143.2295417521',
    networkFeeAmount: '1.2',
    poolFeeAmount: '0.4314',
    totalFeeAmount: '1.6314',
  },
  poolGuard: null,
};

const limitedGuard = {
  state: 'limited',
  since: '2026-01-01T00:00:00.000Z',
  baseToken: 'Amulet',
  quoteToken: 'USDCx',
  price: '0.157',
  referencePrice: '0.145',
  deviation: '0.0828',
  limit: '0.05',
  priceBand: { low: '0.1380952381', high: '0.15225' },
  allowedInputToken: 'Amulet',
  clearsAt: '2026-01-01T00:12:00.000Z',
  referenceHalfLifeSeconds: 900,
};

/** The pair both kinds of swap trade in these fixtures. */
const swapPair = {
  inputToken: 'Amulet',
  inputTokenAdmin: DSO,
  outputToken: 'USDCx',
  outputTokenAdmin: USDC_ADMIN,
};

const swapTerms = {
  intentId: 'si_7KQ2M9XC4F',
  poolId: 'amulet-usdcx',
  depositAddress: SWAP_PARTY,
  depositReference: 'pp-7KQ2M9XC',
  ...swapPair,
  expectedAmount: '1000',
  expectedOutput: '143.2295417521',
  minOutput: '136.0680646644',
  slippageTolerance: 0.05,
  outputAddress: ALICE,
  expiresAt: LATER,
};

const swapIntent = {
  ...swapTerms,
  status: 'pending',
  swapAddress: SWAP_PARTY,
  quotedSwapAmount: '1000',
  totalInputAmount: '1000',
  poolFeeAmount: '2.9751724138',
  lpFeeAmount: '2.2313793104',
  platformFeeAmount: '0.7437931034',
  inputAmountAfterPoolFee: '988.7489655172',
  networkFeeAmount: '8.2758620690',
  trafficFeeInInput: '8.2758620690',
  createdAt: NOW,
  instructions: {
    transferTo: SWAP_PARTY,
    amount: '1000',
    token: 'Amulet',
    tokenAdmin: DSO,
    reason: 'pp-7KQ2M9XC',
    expiresAt: LATER,
    note: 'Send exactly 1000 Amulet to the pool swap party before the intent expires.',
  },
};

const completedStatus = {
  kind: 'deposit',
  ...swapTerms,
  status: 'completed',
  terminal: true,
  actualOutput: '143.2295417521',
  createdAt: NOW,
  matchedAt: NOW,
  completedAt: NOW,
  failureReason: null,
  deposit: { amount: '1000', updateId: '1220abcd', receivedAt: NOW },
  payout: {
    amount: '143.2295417521',
    state: 'committed',
    updateId: '1220abce',
    offerId: null,
    expiresAt: null,
  },
  refund: null,
  history: [
    { status: 'pending', at: NOW },
    { status: 'completed', at: NOW },
  ],
};

const ATOMIC_SWAP_ID = 'atm_7KQ2M9XC4RT0W8N5PJ3HVB6D1F';

const completedAtomicStatus = {
  kind: 'atomic',
  intentId: ATOMIC_SWAP_ID,
  atomicSwapId: ATOMIC_SWAP_ID,
  poolId: 'amulet-usdcx',
  status: 'completed',
  terminal: true,
  ...swapPair,
  expectedAmount: '1000',
  expectedOutput: '143.2295417521',
  minOutput: '136.0680646644',
  actualOutput: '136.0680646644',
  slippageTolerance: 0.05,
  traderParty: ALICE,
  createdAt: NOW,
  completedAt: NOW,
  expiresAt: LATER,
  failureReason: null,
  updateId: '1220abcd',
  excess: '0.41',
  history: [
    { status: 'prepared', at: NOW },
    { status: 'executing', at: NOW },
    { status: 'completed', at: NOW },
  ],
};

describe('the schema catalogue', () => {
  it('names and describes every schema, once', () => {
    const ids = WIRE_SCHEMAS.map((schema) => schema.$id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const schema of WIRE_SCHEMAS) {
      expect(schema.$id).toMatch(/^[A-Z][A-Za-z0-9]*$/);
      expect(typeof schema.description === 'string' && schema.description.length > 0).toBe(true);
    }
  });

  it('keeps each schema self-contained: no nested $id, no $ref (validators refuse repeats)', () => {
    const nested = (node: unknown, path: string): string[] => {
      if (typeof node !== 'object' || node === null) return [];
      return Object.entries(node).flatMap(([key, child]) => {
        const here = `${path}/${key}`;
        const found = key === '$id' || key === '$ref' ? [here] : [];
        return [...found, ...nested(child, here)];
      });
    };
    for (const schema of WIRE_SCHEMAS) {
      const { $id, ...body } = schema;
      expect(nested(body, $id)).toEqual([]);
    }
  });

  it('compiles every schema', () => {
    for (const schema of WIRE_SCHEMAS) {
      expect(() => TypeCompiler.Compile(schema)).not.toThrow();
    }
  });

  it('closes request bodies, queries and path parameters, and leaves responses open', () => {
    const closed = WIRE_SCHEMAS.filter((schema) => schema.additionalProperties === false).map(
      (schema) => schema.$id,
    );
    expect(closed).toEqual(
      expect.arrayContaining([
        'QuoteQuery',
        'CreateSwapBody',
        'PoolStatsQuery',
        'TrackQuery',
        'ChallengeRequest',
        'VerifyRequest',
        'WalletLoginStart',
        'WalletLoginFinish',
        'ApiKeyCreate',
        'PoolIdParams',
        'IntentIdParams',
        'PartyIdParams',
        'DevnetTransferRequest',
      ]),
    );
    for (const response of ['Quote', 'SwapIntent', 'SwapStatus', 'Pool', 'Problem']) {
      expect(closed).not.toContain(response);
    }
    expectValid(QuoteSchema, { ...quote, addedInALaterVersion: true });
  });
});

describe('AmountString', () => {
  it('accepts the wire decimals of docs/spec/amounts-and-fees.md#amounts', () => {
    for (const amount of [
      '0',
      '100',
      '0.0000000001',
      '1.5',
      `${'9'.repeat(28)}.${'9'.repeat(10)}`,
    ]) {
      expectValid(AmountStringSchema, amount);
    }
  });

  it('refuses signs, exponents, spaces, bare dots, 11 decimals and 29 integer digits', () => {
    for (const amount of ['', '-1', '+1', '1e5', ' 1', '1 ', '1.', '.5', '1,5', '0.00000000001']) {
      expect(Value.Check(AmountStringSchema, amount), amount).toBe(false);
    }
    expect(Value.Check(AmountStringSchema, '1'.repeat(29))).toBe(false);
    expect(Value.Check(AmountStringSchema, 100)).toBe(false);
  });

  it('accepts nothing that Amount.parse refuses', () => {
    const digits = (min: number, max: number) =>
      fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });
    const decimal = fc
      .tuple(digits(1, 28), fc.option(digits(1, 10), { nil: undefined }))
      .map(([integer, fraction]) => (fraction === undefined ? integer : `${integer}.${fraction}`));
    fc.assert(
      fc.property(decimal, (text) => {
        expect(Value.Check(AmountStringSchema, text)).toBe(true);
        expect(() => Amount.parse(text)).not.toThrow();
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'0123456789.-e+ ') }), (text) => {
        if (Value.Check(AmountStringSchema, text)) expect(() => Amount.parse(text)).not.toThrow();
      }),
    );
  });
});

describe('PartyId', () => {
  it('accepts Canton party ids, including hints with single colons', () => {
    for (const party of [ALICE, DSO, `a::${FINGERPRINT}`, `team:alice_1-x::${FINGERPRINT}`]) {
      expectValid(PartyIdSchema, party);
    }
  });

  it('refuses ids without hint or with a malformed fingerprint', () => {
    const refused = [
      `::${FINGERPRINT}`,
      'alice',
      `alice::${FINGERPRINT.toUpperCase()}`,
      `alice::1220${'a'.repeat(63)}`,
      `alice::1221${'a'.repeat(64)}`,
      `alice:::${FINGERPRINT}`,
      `a::b::${FINGERPRINT}`,
      `al ice::${FINGERPRINT}`,
      `${'a'.repeat(186)}::${FINGERPRINT}`,
    ];
    for (const party of refused) expect(Value.Check(PartyIdSchema, party), party).toBe(false);
  });

  it('agrees with isPartyId of party-id.ts', () => {
    const hint = fc.string({ unit: fc.constantFrom(...'ab9_-:'), maxLength: 190 });
    const fingerprint = fc.constantFrom(FINGERPRINT, `${FINGERPRINT}:`, FINGERPRINT.slice(1), '');
    const candidate = fc
      .tuple(hint, fc.constantFrom('::', ':', ':::'), fingerprint)
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(candidate, (text) => {
        expect(Value.Check(PartyIdSchema, text)).toBe(isPartyId(text));
      }),
    );
  });
});

describe('Timestamp', () => {
  it('accepts RFC 3339 instants and refuses dates, impossible days and prose', () => {
    expectValid(TimestampSchema, NOW);
    expectValid(TimestampSchema, '2024-02-29T23:59:59+05:30');
    for (const text of ['2026-11-22', '2026-02-29T00:00:00Z', '2026-13-01T00:00:00Z', 'now']) {
      expect(Value.Check(TimestampSchema, text), text).toBe(false);
    }
  });
});

describe('market schemas', () => {
  it('accept tokens, pools, stats and a ticker', () => {
    expectValid(TokenListSchema, { tokens: [{ name: 'Amulet', admin: DSO }] });
    expectValid(PoolSchema, pool);
    expectValid(PoolListSchema, { count: 1, pools: [pool] });
    expectValid(PoolStatsSchema, {
      poolId: 'amulet-usdcx',
      apr: '0.0412',
      apy: '0.0420',
      volume24h: '12000.5',
      fees24h: '36.0015',
      lpFees24h: '27.0011',
      tvl: '290000',
      swapCount24h: 42,
      aprMeta: { lookbackDays: 7, from: NOW, to: LATER, supported: true, quoteToken: 'USDCx' },
    });
    const ticker = {
      poolId: 'amulet-usdcx',
      pair: 'Amulet/USDCx',
      price: '0.145',
      priceChange24h: null,
      volume24h: '12000.5',
      asOf: NOW,
    };
    expectValid(TickerSchema, ticker);
    expectValid(TickerSchema, { ...ticker, priceChange24h: '-0.0213' });
  });

  it('refuse a pool with an unknown status or a fractional reserve of 11 decimals', () => {
    expect(Value.Check(PoolSchema, { ...pool, status: 'closed' })).toBe(false);
    const tokenA = { ...pool.tokenA, reserve: '1.00000000001' };
    expect(Value.Check(PoolSchema, { ...pool, tokenA })).toBe(false);
  });

  it('bound the stats lookback to whole days from 1 to 365', () => {
    expectValid(PoolStatsQuerySchema, {});
    expectValid(PoolStatsQuerySchema, { days: 365 });
    for (const days of [0, 366, 1.5]) {
      expect(Value.Check(PoolStatsQuerySchema, { days }), String(days)).toBe(false);
    }
    expect(Value.Check(PoolStatsQuerySchema, { days: 7, window: 'week' })).toBe(false);
  });
});

describe('quotes', () => {
  it('accept the quote query and refuse unknown parameters', () => {
    expectValid(QuoteQuerySchema, { from: 'Amulet', to: 'USDCx', amount: '1000' });
    const full = {
      from: 'Amulet',
      to: 'USDCx',
      amount: '1000',
      receiverParty: ALICE,
      poolId: 'amulet-usdcx',
      fromAdmin: DSO,
      toAdmin: USDC_ADMIN,
    };
    expectValid(QuoteQuerySchema, full);
    expect(Value.Check(QuoteQuerySchema, { ...full, slippage: '0.01' })).toBe(false);
    expect(Value.Check(QuoteQuerySchema, { ...full, amount: '1e3' })).toBe(false);
    expect(Value.Check(QuoteQuerySchema, { ...full, receiverParty: 'alice' })).toBe(false);
    expect(Value.Check(QuoteQuerySchema, without(full, 'amount'))).toBe(false);
  });

  it('require every field of docs/spec/protocol.md#quotes', () => {
    const seedFields = [
      'outputAmount',
      'rate',
      'priceImpact',
      'fee',
      'inputTokenAdmin',
      'outputTokenAdmin',
      'totalInputAmount',
      'networkFeeAmount',
      'trafficFeeInInput',
      'poolFeeAmount',
      'platformFeeAmount',
      'inputAmountAfterPoolFee',
      'estimatedTrafficCost',
      'networkFeePolicy',
      'platformFeePolicy',
      'settlementSafety',
    ];
    const specFields = [
      'poolId',
      'inputToken',
      'outputToken',
      'lpFeeAmount',
      'effectiveRate',
      'maxPriceImpact',
      'expiresIn',
      'networkFeeShare',
      'minimumInputAmount',
      'usd',
      'poolGuard',
    ];
    expect(QuoteSchema.required).toEqual(expect.arrayContaining([...seedFields, ...specFields]));
    expectValid(QuoteSchema, quote);
    for (const field of [...seedFields, ...specFields]) {
      expect(Value.Check(QuoteSchema, without(quote, field)), field).toBe(false);
    }
  });

  it('carry discount policies and a guard verdict in their wire shapes', () => {
    const platformFeePolicy = {
      targetType: 'wallet_party',
      chargeBps: 7000,
      fullPlatformFeeRate: '0.00075',
      chargedPlatformFeeRate: '0.000525',
      discountBps: 3000,
    };
    expectValid(QuoteSchema, { ...quote, platformFeePolicy, settlementSafety: guardBlock });
    const unknownTarget = { ...platformFeePolicy, targetType: 'everyone' };
    expect(Value.Check(QuoteSchema, { ...quote, platformFeePolicy: unknownTarget })).toBe(false);
    const unknownCode = { ...guardBlock, code: 'too_big' };
    expect(Value.Check(QuoteSchema, { ...quote, settlementSafety: unknownCode })).toBe(false);
  });

  it('carry the pool guard state, the deviation refusal and USD values without an output price', () => {
    const deviation = {
      code: 'reserve_price_deviation_exceeded',
      reason: 'deviation=0.0828 limit=0.05',
      message: 'beyond the 5% limit',
      deviation: '0.0828',
      limit: '0.05',
    };
    expectValid(QuoteSchema, { ...quote, poolGuard: limitedGuard, settlementSafety: deviation });
    expectValid(QuoteSchema, { ...quote, usd: { ...quote.usd, outputAmount: null } });
    const unknownState = { ...limitedGuard, state: 'frozen' };
    expect(Value.Check(QuoteSchema, { ...quote, poolGuard: unknownState })).toBe(false);
    expect(Value.Check(QuoteSchema, { ...quote, networkFeeShare: 0.0083 })).toBe(false);
  });
});

describe('swap creation', () => {
  const body = { fromToken: 'Amulet', toToken: 'USDCx', amount: '1000' };

  it('accepts the swap creation params, the deprecated outputAddress included', () => {
    expectValid(CreateSwapBodySchema, body);
    expectValid(CreateSwapBodySchema, {
      ...body,
      slippageTolerance: 0.01,
      walletAddress: ALICE,
      poolId: 'amulet-usdcx',
      fromAdmin: DSO,
      toAdmin: USDC_ADMIN,
      outputAddress: 'anything',
    });
    expect(CreateSwapBodySchema.properties.outputAddress.deprecated).toBe(true);
  });

  it('bounds slippageTolerance to [0.001, 0.05] inclusive', () => {
    for (const slippageTolerance of [0.001, 0.05]) {
      expectValid(CreateSwapBodySchema, { ...body, slippageTolerance });
    }
    for (const slippageTolerance of [0.0009, 0.0501, 0, -0.01, 1, Number.NaN, Infinity, '0.01']) {
      const candidate = { ...body, slippageTolerance };
      expect(Value.Check(CreateSwapBodySchema, candidate), String(slippageTolerance)).toBe(false);
    }
  });

  it('refuses unknown keys, the idempotency key included (it is a header)', () => {
    expect(Value.Check(CreateSwapBodySchema, { ...body, idempotencyKey: 'k-1' })).toBe(false);
    expect(Value.Check(CreateSwapBodySchema, { ...body, fromTokne: 'Amulet' })).toBe(false);
  });

  it('refuses missing required params and malformed amounts or parties', () => {
    for (const field of ['fromToken', 'toToken', 'amount']) {
      expect(Value.Check(CreateSwapBodySchema, without(body, field)), field).toBe(false);
    }
    expect(Value.Check(CreateSwapBodySchema, { ...body, amount: '-5' })).toBe(false);
    expect(Value.Check(CreateSwapBodySchema, { ...body, amount: 1000 })).toBe(false);
    expect(Value.Check(CreateSwapBodySchema, { ...body, walletAddress: 'alice' })).toBe(false);
  });

  it('answers with every property of a SwapIntent, status and createdAt included', () => {
    const seedProperties = [
      'intentId',
      'poolId',
      'depositAddress',
      'swapAddress',
      'depositReference',
      'inputToken',
      'inputTokenAdmin',
      'outputToken',
      'outputTokenAdmin',
      'expectedAmount',
      'quotedSwapAmount',
      'totalInputAmount',
      'poolFeeAmount',
      'lpFeeAmount',
      'platformFeeAmount',
      'inputAmountAfterPoolFee',
      'networkFeeAmount',
      'trafficFeeInInput',
      'expectedOutput',
      'minOutput',
      'slippageTolerance',
      'outputAddress',
      'expiresAt',
      'instructions',
    ];
    expect([...SwapIntentSchema.required].sort()).toEqual(
      [...seedProperties, 'status', 'createdAt'].sort(),
    );
    expectValid(SwapIntentSchema, swapIntent);
    const instructions = without(swapIntent.instructions, 'tokenAdmin');
    expect(Value.Check(SwapIntentSchema, { ...swapIntent, instructions })).toBe(false);
  });
});

describe('the status of either kind of swap', () => {
  const kinds = [
    {
      schema: SwapStatusSchema,
      fixture: completedStatus,
      spec: 'lifecycle.md#swapstatus',
      own: [
        'depositAddress',
        'depositReference',
        'outputAddress',
        'matchedAt',
        'deposit',
        'payout',
        'refund',
      ],
    },
    {
      schema: AtomicSwapStatusSchema,
      fixture: completedAtomicStatus,
      spec: 'atomic-swaps.md#status-and-track',
      own: ['atomicSwapId', 'traderParty', 'updateId', 'excess'],
    },
  ];
  for (const { schema, fixture, spec, own } of kinds) {
    it(`${schema.$id} has exactly the keys of docs/spec/${spec}, each always present`, () => {
      expectExactKeys(schema, fixture, [...STATUS_KEYS_OF_BOTH_KINDS, ...own]);
    });
  }

  it('has the same keys in both kinds wherever both have one: a list of both reads them alike', () => {
    const shared = Object.keys(SwapStatusSchema.properties).filter((key) =>
      Object.hasOwn(AtomicSwapStatusSchema.properties, key),
    );
    expect(shared.sort()).toEqual([...STATUS_KEYS_OF_BOTH_KINDS].sort());
  });
});

describe('SwapStatus', () => {
  it('describes a refunded failure with nulls where a stage did not happen', () => {
    expectValid(SwapStatusSchema, {
      ...completedStatus,
      status: 'slippage_failed',
      actualOutput: null,
      completedAt: null,
      failureReason: { code: 'slippage_failed', message: 'Output fell below minOutput.' },
      payout: null,
      refund: {
        amount: '991.724137931',
        networkFeeAmount: '8.275862069',
        state: 'committed',
        updateId: '1220abcf',
        offerId: null,
        expiresAt: null,
      },
    });
  });

  it('describes a payout offer waiting for the receiver, and refuses other leg states', () => {
    const offered = {
      ...completedStatus,
      status: 'sending_output',
      terminal: false,
      completedAt: null,
      payout: {
        amount: '143.2295417521',
        state: 'offered',
        updateId: '1220abce',
        offerId: 'offer-17',
        expiresAt: NOW,
      },
    };
    expectValid(SwapStatusSchema, offered);
    for (const state of ['pending', 'accepted', 'withdrawn', '']) {
      const payout = { ...offered.payout, state };
      expect(Value.Check(SwapStatusSchema, { ...offered, payout }), state).toBe(false);
    }
    for (const key of ['state', 'offerId', 'expiresAt', 'updateId']) {
      const payout = without(offered.payout, key);
      expect(Value.Check(SwapStatusSchema, { ...offered, payout }), key).toBe(false);
    }
    const refund = { ...offered.payout, amount: '991', networkFeeAmount: '9' };
    expectValid(SwapStatusSchema, { ...offered, refund });
    const { networkFeeAmount: _fee, ...refundWithoutFee } = refund;
    expect(Value.Check(SwapStatusSchema, { ...offered, refund: refundWithoutFee })).toBe(false);
  });

  it('refuses state names outside docs/spec/lifecycle.md#states', () => {
    for (const status of ['done', 'Completed', 'refunded', '']) {
      expect(Value.Check(SwapStatusSchema, { ...completedStatus, status }), status).toBe(false);
      const history = [{ status, at: NOW }];
      expect(Value.Check(SwapStatusSchema, { ...completedStatus, history }), status).toBe(false);
    }
    for (const state of SWAP_STATES) expectValid(SwapStateSchema, state);
  });

  it('refuses a fact with a missing member', () => {
    const deposit = without(completedStatus.deposit, 'updateId');
    expect(Value.Check(SwapStatusSchema, { ...completedStatus, deposit })).toBe(false);
  });
});

describe('cancel and track', () => {
  it('accept a cancellation and a page of swaps', () => {
    expectValid(CancelResultSchema, { intentId: 'si_7KQ2M9XC4F', status: 'cancelled' });
    expect(Value.Check(CancelResultSchema, { intentId: 'si_1', status: 'expired' })).toBe(false);
    expectValid(TrackResultSchema, { partyId: ALICE, swaps: [completedStatus], nextCursor: null });
    expectValid(TrackResultSchema, { partyId: ALICE, swaps: [], nextCursor: 'c2k' });
    expect(Value.Check(TrackResultSchema, { partyId: ALICE, swaps: [] })).toBe(false);
  });

  it('bound the page size to 1..100 with a default of 20, and filter by a known state', () => {
    expectValid(TrackQuerySchema, { status: 'pending', limit: 100, cursor: 'c2k' });
    expect(TrackQuerySchema.properties.limit.default).toBe(20);
    for (const query of [{ limit: 0 }, { limit: 101 }, { status: 'open' }, { page: 2 }]) {
      expect(Value.Check(TrackQuerySchema, query), JSON.stringify(query)).toBe(false);
    }
  });

  it('list and filter atomic swaps beside the deposit flow’s, told apart by kind', () => {
    expectValid(TrackResultSchema, {
      partyId: ALICE,
      swaps: [completedAtomicStatus, completedStatus],
      nextCursor: null,
    });
    expectValid(TrackQuerySchema, { status: 'price_moved', kind: 'atomic' });
    expectValid(TrackQuerySchema, { status: 'pending', kind: 'deposit' });
    expect(Value.Check(TrackQuerySchema, { kind: 'both' })).toBe(false);
    // A status of one kind wearing the other's `kind` is neither.
    const mixed = { ...completedAtomicStatus, kind: 'deposit' };
    expect(
      Value.Check(TrackResultSchema, { partyId: ALICE, swaps: [mixed], nextCursor: null }),
    ).toBe(false);
  });
});

describe('AtomicSwapStatus', () => {
  it('takes its own states only, and leaves the trader out of the progress', () => {
    expect(
      Value.Check(AtomicSwapStatusSchema, { ...completedAtomicStatus, status: 'pending' }),
    ).toBe(false);
    expectValid(AtomicSwapStatusSchema, {
      ...completedAtomicStatus,
      status: 'price_moved',
      terminal: true,
      actualOutput: null,
      completedAt: null,
      updateId: null,
      excess: null,
      failureReason: { code: 'price_moved', message: 'The curve pays less than signed.' },
    });
    const { traderParty, ...progress } = completedAtomicStatus;
    expectValid(AtomicSwapProgressSchema, progress);
    expect(Object.keys(AtomicSwapProgressSchema.properties)).not.toContain('traderParty');
  });
});

describe('wallet authentication and the portal', () => {
  const answer = {
    partyId: ALICE,
    nonce: 'bm9uY2Utbm9uY2Utbm9uY2U',
    signature: 'c2ln',
    publicKey: 'a2V5',
  };

  it('accept the challenge round trip', () => {
    expectValid(ChallengeRequestSchema, { partyId: ALICE });
    expectValid(ChallengeSchema, {
      partyId: ALICE,
      nonce: answer.nonce,
      message: 'm',
      expiresAt: NOW,
    });
    expectValid(VerifyRequestSchema, answer);
    expectValid(WalletTokenSchema, { partyId: ALICE, token: 'eyJ.x.y', expiresAt: NOW });
    expect(Value.Check(ChallengeRequestSchema, { partyId: 'alice::1220' })).toBe(false);
    expect(Value.Check(VerifyRequestSchema, without(answer, 'publicKey'))).toBe(false);
    expect(Value.Check(VerifyRequestSchema, { ...answer, nonce: 'not base64url!' })).toBe(false);
  });

  it('accept either wallet-login step and nothing in between', () => {
    expectValid(WalletLoginRequestSchema, { partyId: ALICE });
    expectValid(WalletLoginRequestSchema, answer);
    expect(Value.Check(WalletLoginRequestSchema, without(answer, 'signature'))).toBe(false);
    expectValid(DeveloperSessionSchema, { token: 's3cr3t', expiresAt: NOW, partyId: ALICE });
  });

  it('create, rotate and list API keys', () => {
    expectValid(ApiKeyCreateSchema, {});
    expectValid(ApiKeyCreateSchema, { name: 'shop', rotate: 'key_01' });
    expect(Value.Check(ApiKeyCreateSchema, { name: '' })).toBe(false);
    expect(Value.Check(ApiKeyCreateSchema, { scopes: ['all'] })).toBe(false);
    const listed = {
      keyId: 'key_02',
      name: null,
      prefix: 'pp_test_AbCd',
      createdAt: NOW,
      lastUsedAt: null,
      revokedAt: null,
      requestCount: 0,
      working: true,
    };
    expectValid(ApiKeyListSchema, { keys: [listed] });
    expectValid(ApiKeyCreatedSchema, { ...listed, key: 'pp_test_AbCdEfGhIjKlMnOp' });
    expect(Value.Check(ApiKeyCreatedSchema, { ...listed, key: 'sk_live_x' })).toBe(false);
    expect(Value.Check(ApiKeyListSchema, { keys: [without(listed, 'revokedAt')] })).toBe(false);
  });
});

describe('Problem', () => {
  it('accepts the bodies errors.ts builds, with the guard verdict in settlementSafety', () => {
    const blocked = problemFor('settlement_safety', 'Blocked.', { settlementSafety: guardBlock });
    expectValid(ProblemSchema, { ...blocked, requestId: 'req_1' });
    const candidates: PoolCandidate[] = [
      { poolId: 'amulet-usdcx', fromAdmin: DSO, toAdmin: USDC_ADMIN },
      { poolId: 'amulet-usdcx-2', fromAdmin: DSO, toAdmin: ALICE },
    ];
    const ambiguous = problemFor('ambiguous_pool_pair', 'Pick one.', { candidates });
    expectValid(ProblemSchema, { ...ambiguous, requestId: 'req_2' });
  });

  it('accepts the optional extensions and refuses a body without the standard members', () => {
    const base = {
      type: 'urn:poolparty:error:validation_error',
      title: 'Invalid request',
      status: 400,
      detail: 'slippageTolerance must be at most 0.05',
      code: 'validation_error',
      requestId: 'req_3',
    };
    expectValid(ProblemSchema, {
      ...base,
      errors: [{ path: '/slippageTolerance', message: 'must be <= 0.05' }],
      minimumAmount: '8.2758620691',
      retryAfter: 3,
      intentId: 'si_1',
    });
    for (const key of ['type', 'title', 'status', 'detail', 'code', 'requestId']) {
      expect(Value.Check(ProblemSchema, without(base, key)), key).toBe(false);
    }
    const badVerdict = { ...guardBlock, code: 'settlement_safety' };
    expect(Value.Check(ProblemSchema, { ...base, settlementSafety: badVerdict })).toBe(false);
  });
});

describe('devnet', () => {
  it('accept the bodies and answers of docs/spec/ledger.md#devnet-endpoints', () => {
    expectValid(DevnetCreatePartySchema, { partyHint: 'alice' });
    expectValid(DevnetFaucetRequestSchema, { partyId: ALICE, token: 'USDCx', amount: '500' });
    expectValid(DevnetHoldingsSchema, {
      holdings: [{ token: 'USDCx', admin: USDC_ADMIN, amount: '5' }],
    });
    expectValid(DevnetBalancesSchema, {
      holdings: [{ token: 'USDCx', admin: USDC_ADMIN, amount: '5', locked: '0' }],
    });
    const transfer = {
      sender: ALICE,
      receiver: SWAP_PARTY,
      token: 'Amulet',
      amount: '1',
      commandId: 'c1',
      validUntil: LATER,
    };
    expectValid(DevnetTransferRequestSchema, { ...transfer, reason: 'pp-7KQ2M9XC' });
    expectValid(DevnetOfferActionSchema, { partyId: ALICE, validUntil: LATER });
    expectValid(DevnetTransferResultSchema, { updateId: 'u1', kind: 'offer', offerId: 'o1' });
    expectValid(DevnetOffersSchema, {
      offers: [
        {
          offerId: 'o1',
          sender: ALICE,
          receiver: SWAP_PARTY,
          token: 'USDCx',
          admin: USDC_ADMIN,
          amount: '5',
          reason: null,
          expiresAt: LATER,
        },
      ],
    });
    expectValid(DevnetOracleSchema, { amuletPriceUsd: '0.145' });
    expectValid(DevnetFaultsSchema, {
      latencyMs: 250,
      rejectRate: 0.1,
      dropStreamRate: 0,
      seed: 7,
    });
    expect(Value.Check(DevnetTransferRequestSchema, without(transfer, 'commandId'))).toBe(false);
    // validUntil bounds replay of a signed body: it is required.
    expect(Value.Check(DevnetTransferRequestSchema, without(transfer, 'validUntil'))).toBe(false);
    expect(Value.Check(DevnetOfferActionSchema, { partyId: ALICE })).toBe(false);
  });

  it('refuse out-of-range settings and party hints that cannot form a party id', () => {
    expect(Value.Check(DevnetClockAdvanceSchema, { advanceMs: -1 })).toBe(false);
    expect(Value.Check(DevnetClockAdvanceSchema, { advanceMs: 1.5 })).toBe(false);
    expect(Value.Check(DevnetFaultsSchema, { rejectRate: 1.5 })).toBe(false);
    expect(Value.Check(DevnetFaultsSchema, { chaos: true })).toBe(false);
    expect(Value.Check(DevnetOracleSchema, { amuletPriceUsd: 0.145 })).toBe(false);
    for (const partyHint of ['', 'a::b', 'alice:', 'al ice', 'a'.repeat(186)]) {
      expect(Value.Check(DevnetCreatePartySchema, { partyHint }), partyHint).toBe(false);
    }
  });
});

describe('types shared with the domain modules', () => {
  it('match SwapState, SettlementSafety and PoolCandidate', () => {
    expectTypeOf<Static<typeof SwapStateSchema>>().toEqualTypeOf<SwapState>();
    expectTypeOf<Static<typeof SettlementSafetySchema>>().toMatchTypeOf<SettlementSafety>();
    expectTypeOf<SettlementSafety>().toMatchTypeOf<Static<typeof SettlementSafetySchema>>();
    expectTypeOf<AmbiguousCandidate>().toMatchTypeOf<PoolCandidate>();
    for (const code of SETTLEMENT_SAFETY_CODES) {
      expectValid(SettlementSafetySchema, { ...guardBlock, code });
    }
  });
});
