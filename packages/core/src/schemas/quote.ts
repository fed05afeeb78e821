/**
 * Quotes (docs/spec/protocol.md#quotes).
 *
 * `rate` and `priceImpact` are decimal strings, exact like the amounts
 * (docs/spec/amounts-and-fees.md#constant-product-pricing). `fee` and `maxPriceImpact` are
 * configured rates, not results of arithmetic, and stay numbers. `estimatedTrafficCost` is always
 * present: the network fee is computed from it.
 */
import { type Static, Type } from '@sinclair/typebox';
import { DISCOUNT_TARGET_TYPES } from '../discounts.js';
import {
  amountField,
  DecimalStringSchema,
  decimalField,
  enumOf,
  inline,
  nullable,
  PartyIdSchema,
  PoolIdSchema,
  SettlementSafetySchema,
  TokenSymbolSchema,
} from './common.js';
import { PoolGuardSchema } from './market.js';

const bps = (description: string) => Type.Integer({ minimum: 0, maximum: 10_000, description });
const targetType = enumOf(DISCOUNT_TARGET_TYPES, {
  description: 'What the discount policy targets: an API key, a wallet party or a pool.',
});

export const QuoteQuerySchema = Type.Object(
  {
    from: inline(TokenSymbolSchema, { description: 'Input token symbol.' }),
    to: inline(TokenSymbolSchema, { description: 'Output token symbol.' }),
    amount: amountField('Exact deposit amount the user plans to send.'),
    receiverParty: Type.Optional(
      inline(PartyIdSchema, { description: 'Receiving party; enables wallet-party discounts.' }),
    ),
    poolId: Type.Optional(inline(PoolIdSchema, { description: 'Picks the pool explicitly.' })),
    fromAdmin: Type.Optional(inline(PartyIdSchema, { description: 'Admin of the input token.' })),
    toAdmin: Type.Optional(inline(PartyIdSchema, { description: 'Admin of the output token.' })),
  },
  {
    $id: 'QuoteQuery',
    description:
      'Query of `GET /v1/quotes`. When a symbol exists under several admins, pass `poolId` or ' +
      'both `fromAdmin` and `toAdmin`.',
    additionalProperties: false,
  },
);
export type QuoteQuery = Static<typeof QuoteQuerySchema>;

const NetworkFeePolicySchema = Type.Object(
  {
    targetType,
    chargeBps: bps('Charged share of the network fee; 5000 is a 50 % discount.'),
    estimatedNetworkFeeAmount: amountField('Network fee before the discount, in the input token.'),
    chargedNetworkFeeAmount: amountField('Network fee charged, in the input token.'),
  },
  { $id: 'NetworkFeePolicy', description: 'The network-fee discount that applied.' },
);
export type NetworkFeePolicy = Static<typeof NetworkFeePolicySchema>;

const PlatformFeePolicySchema = Type.Object(
  {
    targetType,
    chargeBps: bps('Charged share of the platform fee; 7000 is a 30 % discount.'),
    fullPlatformFeeRate: decimalField('Platform fee rate without the discount.'),
    chargedPlatformFeeRate: decimalField('Platform fee rate charged.'),
    discountBps: bps('10000 − chargeBps.'),
  },
  { $id: 'PlatformFeePolicy', description: 'The platform-fee discount that applied.' },
);
export type PlatformFeePolicy = Static<typeof PlatformFeePolicySchema>;

const EstimatedTrafficCostSchema = Type.Object(
  {
    bytes: Type.Integer({ minimum: 0, description: 'Traffic of the payout transfer.' }),
    usd: amountField('Its cost in USD, rounded up.'),
    cc: amountField('Its cost in Amulet (CC), rounded up.'),
  },
  {
    $id: 'EstimatedTrafficCost',
    description:
      'The estimated traffic cost of the payout leg (docs/spec/amounts-and-fees.md#network-fee).',
  },
);
export type EstimatedTrafficCost = Static<typeof EstimatedTrafficCostSchema>;

const QuoteUsdSchema = Type.Object(
  {
    totalInputAmount: decimalField('The deposit in USD.'),
    outputAmount: nullable(DecimalStringSchema, {
      description: 'The output in USD; null when the output token has no USD price.',
    }),
    networkFeeAmount: decimalField('The network fee in USD.'),
    poolFeeAmount: decimalField('The pool fee in USD.'),
    totalFeeAmount: decimalField('networkFeeAmount + poolFeeAmount, in USD.'),
  },
  {
    $id: 'QuoteUsd',
    description:
      "The quote's amounts in USD at the prices it was priced with (USDCx 1, Amulet the open " +
      "mining round's price, other tokens through their Amulet pool), cut to 10 decimals.",
  },
);
export type QuoteUsd = Static<typeof QuoteUsdSchema>;

export const QuoteSchema = Type.Object(
  {
    poolId: inline(PoolIdSchema),
    inputToken: inline(TokenSymbolSchema, { description: 'Input token symbol.' }),
    inputTokenAdmin: inline(PartyIdSchema, { description: 'Admin of the input token.' }),
    outputToken: inline(TokenSymbolSchema, { description: 'Output token symbol.' }),
    outputTokenAdmin: inline(PartyIdSchema, { description: 'Admin of the output token.' }),
    totalInputAmount: amountField('The deposit to send; equals the requested amount.'),
    networkFeeAmount: amountField('Estimated payout-leg network fee, in the input token.'),
    trafficFeeInInput: amountField('Compatibility alias of `networkFeeAmount`.'),
    poolFeeAmount: amountField('The pool fee: `lpFeeAmount` + `platformFeeAmount`.'),
    lpFeeAmount: amountField('The part of the pool fee that stays in the pool.'),
    platformFeeAmount: amountField('The part of the pool fee the platform keeps.'),
    inputAmountAfterPoolFee: amountField('The amount priced into the pool.'),
    outputAmount: amountField('Output of the priced swap, rounded down.'),
    rate: decimalField('outputAmount / inputAmountAfterPoolFee.'),
    effectiveRate: decimalField('outputAmount / totalInputAmount: all fees included.'),
    priceImpact: decimalField('1 − rate / spot price, as a fraction; fees excluded.'),
    maxPriceImpact: Type.Number({
      minimum: 0,
      maximum: 1,
      description: 'The server price-impact cap; a swap beyond it is refused.',
    }),
    fee: Type.Number({
      minimum: 0,
      maximum: 1,
      description: 'Nominal pool fee rate (0.003), unchanged by discounts.',
    }),
    estimatedTrafficCost: inline(EstimatedTrafficCostSchema),
    networkFeePolicy: nullable(NetworkFeePolicySchema, {
      description: 'The network-fee discount applied; null when none.',
    }),
    platformFeePolicy: nullable(PlatformFeePolicySchema, {
      description: 'The platform-fee discount applied; null when none.',
    }),
    settlementSafety: nullable(SettlementSafetySchema, {
      description: 'Null when clear; otherwise a swap of this size or timing would be blocked.',
    }),
    expiresIn: Type.Integer({ minimum: 0, description: 'Seconds the quote is indicative for.' }),
    networkFeeShare: decimalField(
      'networkFeeAmount / totalInputAmount, to 4 decimals rounded up: what the network fee costs this swap.',
    ),
    minimumInputAmount: amountField(
      'The least deposit accepted: the network fee plus 0.0000000001; below it `amount_below_minimum`.',
    ),
    usd: inline(QuoteUsdSchema),
    poolGuard: nullable(PoolGuardSchema, {
      description: "The pool's guard state now; null while the pool has no reference price.",
    }),
  },
  {
    $id: 'Quote',
    description:
      'A priced swap (docs/spec/protocol.md#quotes). Identity: totalInputAmount = ' +
      'networkFeeAmount + poolFeeAmount + inputAmountAfterPoolFee.',
  },
);
export type Quote = Static<typeof QuoteSchema>;

export const QUOTE_SCHEMAS = [
  QuoteQuerySchema,
  NetworkFeePolicySchema,
  PlatformFeePolicySchema,
  EstimatedTrafficCostSchema,
  QuoteUsdSchema,
  QuoteSchema,
] as const;
