/**
 * Tokens, pools, pool stats and the ticker (docs/spec/protocol.md#tokens-and-pools,
 * docs/spec/stats.md).
 *
 * USD values, APR and APY are decimal strings like every other exact figure on the wire; APR and
 * APY are fractions (`"0.0412"` is 4.12 %) and `null` when the pool has no USD-priced side
 * (`aprMeta.supported` false), since a made-up `"0"` would read as a real yield.
 */
import { type Static, Type } from '@sinclair/typebox';
import {
  AmountStringSchema,
  DecimalStringSchema,
  decimalField,
  enumOf,
  inline,
  nullable,
  PartyIdSchema,
  PoolIdSchema,
  TimestampSchema,
  TokenSchema,
  TokenSymbolSchema,
} from './common.js';

/** The nominal pool fee rate; it stays nominal when a discount applies. */
const feeRate = Type.Number({
  minimum: 0,
  maximum: 1,
  description: 'Nominal pool fee rate, e.g. 0.003.',
});

export const TokenListSchema = Type.Object(
  { tokens: Type.Array(inline(TokenSchema)) },
  { $id: 'TokenList', description: 'The tokens that can be swapped.' },
);
export type TokenList = Static<typeof TokenListSchema>;

const PoolSideSchema = Type.Object(
  {
    name: inline(TokenSymbolSchema),
    admin: inline(PartyIdSchema, { description: "The token's admin party." }),
    reserve: inline(AmountStringSchema, {
      description: 'Effective reserve: holdings minus amounts committed but not settled.',
    }),
  },
  { $id: 'PoolSide', description: 'One token of a pool with its effective reserve.' },
);
export type PoolSide = Static<typeof PoolSideSchema>;

/** The type is `WirePoolGuard` of price-reference.ts. */
export const PoolGuardSchema = Type.Object(
  {
    state: Type.Union([Type.Literal('clear'), Type.Literal('limited')], {
      description:
        "`limited`: the pool's price is outside the band around its reference, and only swaps " +
        'that bring it back (sending `allowedInputToken`) or end within the band pass.',
    }),
    since: nullable(TimestampSchema, {
      description: 'When the pool became limited; null while clear.',
    }),
    baseToken: inline(TokenSymbolSchema, { description: 'Prices are of this token (tokenA)…' }),
    quoteToken: inline(TokenSymbolSchema, { description: '…in this one (tokenB).' }),
    price: decimalField("The pool's spot price, tokenB per tokenA."),
    referencePrice: decimalField(
      'The reference price: an exponential moving average of the spot price (docs/spec/guard.md#reference).',
    ),
    deviation: decimalField('max(price, reference) / min(price, reference) − 1, rounded up.'),
    limit: decimalField('The largest deviation a swap may end at.'),
    priceBand: Type.Object(
      {
        low: decimalField('reference / (1 + limit).'),
        high: decimalField('reference × (1 + limit).'),
      },
      { description: 'Prices a swap may end at, whichever way it goes.' },
    ),
    allowedInputToken: nullable(TokenSymbolSchema, {
      description: 'While limited, the token a swap must send to be let through; null while clear.',
    }),
    clearsAt: nullable(TimestampSchema, {
      description: 'While limited, when the reference reaches the band if nothing trades.',
    }),
    referenceHalfLifeSeconds: Type.Number({
      minimum: 0,
      description: 'The reference covers half its distance to the price in this time.',
    }),
  },
  {
    $id: 'PoolGuard',
    description: "The pool's price-deviation guard (docs/spec/guard.md#pool-guard-state).",
  },
);
export type PoolGuard = Static<typeof PoolGuardSchema>;

export const PoolSchema = Type.Object(
  {
    poolId: inline(PoolIdSchema),
    tokenA: inline(PoolSideSchema, { description: 'The base token.' }),
    tokenB: inline(PoolSideSchema, { description: 'The quote token.' }),
    fee: feeRate,
    lpSupply: inline(AmountStringSchema, { description: 'Liquidity-provider token supply.' }),
    swapAddress: inline(PartyIdSchema, { description: 'The pool swap party: deposits go here.' }),
    lpAddress: inline(PartyIdSchema, { description: 'The liquidity-provider party.' }),
    status: Type.Union([Type.Literal('active'), Type.Literal('paused')], {
      description: 'A paused pool refuses quotes and new swaps (409 `pool_paused`).',
    }),
    guard: Type.Optional(
      inline(PoolGuardSchema, { description: 'In `GET /v1/pools/{poolId}`: the guard state.' }),
    ),
  },
  { $id: 'Pool', description: 'A constant-product pool (docs/spec/protocol.md#tokens-and-pools).' },
);
export type Pool = Static<typeof PoolSchema>;

export const PoolListSchema = Type.Object(
  {
    count: Type.Integer({ minimum: 0, description: 'Number of pools in `pools`.' }),
    pools: Type.Array(inline(PoolSchema)),
  },
  { $id: 'PoolList', description: 'All pools.' },
);
export type PoolList = Static<typeof PoolListSchema>;

export const POOL_STATS_DAYS_DEFAULT = 7;
const POOL_STATS_DAYS_MAX = 365;

export const PoolStatsQuerySchema = Type.Object(
  {
    days: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: POOL_STATS_DAYS_MAX,
        default: POOL_STATS_DAYS_DEFAULT,
        description: 'APR lookback in days.',
      }),
    ),
  },
  {
    $id: 'PoolStatsQuery',
    description: 'Query of `GET /v1/pools/{poolId}/stats`.',
    additionalProperties: false,
  },
);

const AprMetaSchema = Type.Object(
  {
    lookbackDays: Type.Integer({ minimum: 1, description: 'Days of LP fees the APR is from.' }),
    from: inline(TimestampSchema, { description: 'Start of the lookback window.' }),
    to: inline(TimestampSchema, { description: 'End of the lookback window.' }),
    supported: Type.Boolean({ description: 'False when the pool has no USD-priced side.' }),
    quoteToken: Type.String({
      description: 'The token USD figures are quoted through, e.g. `USDCx`.',
    }),
  },
  { $id: 'AprMeta', description: 'How `apr` and `apy` were computed.' },
);
export type AprMeta = Static<typeof AprMetaSchema>;

export const PoolStatsSchema = Type.Object(
  {
    poolId: inline(PoolIdSchema),
    apr: nullable(DecimalStringSchema, {
      description: 'lpFees(days) / tvl × 365 / days as a fraction; null when not supported.',
    }),
    apy: nullable(DecimalStringSchema, {
      description: '(1 + apr/365)^365 − 1 as a fraction; null when not supported.',
    }),
    volume24h: decimalField('Swap volume of the last 24 hours, USD.'),
    fees24h: decimalField('All fees of the last 24 hours, USD.'),
    lpFees24h: decimalField('LP fees of the last 24 hours, USD.'),
    tvl: decimalField('Value of the effective reserves, USD.'),
    swapCount24h: Type.Integer({ minimum: 0, description: 'Swaps executed in 24 hours.' }),
    aprMeta: inline(AprMetaSchema),
  },
  {
    $id: 'PoolStats',
    description: 'Pool statistics from fee events and reserves (docs/spec/stats.md#pool-stats).',
  },
);
export type PoolStats = Static<typeof PoolStatsSchema>;

export const TickerSchema = Type.Object(
  {
    poolId: inline(PoolIdSchema),
    pair: Type.String({ description: 'Base and quote symbol, e.g. `Amulet/USDCx`.' }),
    price: decimalField(
      'USD price of the base token (tokenA) via the canonical Amulet/USDCx pool.',
    ),
    priceChange24h: nullable(DecimalStringSchema, {
      description: 'Change of `price` over 24 hours as a fraction; null until 23 h of history.',
    }),
    volume24h: decimalField('Swap volume of the last 24 hours, USD.'),
    asOf: inline(TimestampSchema, { description: 'When the figures were taken.' }),
  },
  { $id: 'Ticker', description: 'Price ticker of a pool (docs/spec/stats.md#ticker).' },
);
export type Ticker = Static<typeof TickerSchema>;

/** The windows a pool's history is asked for: hourly points over each. */
const POOL_HISTORY_PERIODS = ['24h', '7d', '30d'] as const;
export type PoolHistoryPeriod = (typeof POOL_HISTORY_PERIODS)[number];

export const PoolHistoryQuerySchema = Type.Object(
  {
    period: Type.Optional(
      enumOf(POOL_HISTORY_PERIODS, { default: '7d', description: 'The window, ending now.' }),
    ),
  },
  {
    $id: 'PoolHistoryQuery',
    description: 'Query of `GET /v1/pools/{poolId}/history`.',
    additionalProperties: false,
  },
);

const PoolHistoryPointSchema = Type.Object(
  {
    hour: inline(TimestampSchema, { description: 'Start of the hour (UTC).' }),
    reserveA: inline(AmountStringSchema, { description: 'Effective reserve of tokenA.' }),
    reserveB: inline(AmountStringSchema, { description: 'Effective reserve of tokenB.' }),
    price: nullable(DecimalStringSchema, {
      description:
        'Spot price, tokenB per tokenA (reserveB / reserveA, cut to 10 decimals); null for an ' +
        'empty pool.',
    }),
    priceUsd: nullable(DecimalStringSchema, {
      description: 'USD price of tokenA in that hour; null without a USD-priced side.',
    }),
    tvl: nullable(DecimalStringSchema, {
      description: '2 × reserveA × priceUsd: both sides are worth the same at the spot price.',
    }),
    volume: decimalField('USD volume of the swaps executed in that hour.'),
    swapCount: Type.Integer({ minimum: 0, description: 'Swaps executed in that hour.' }),
  },
  { $id: 'PoolHistoryPoint', description: "One hour of a pool's history." },
);
export type PoolHistoryPoint = Static<typeof PoolHistoryPointSchema>;

export const PoolHistorySchema = Type.Object(
  {
    poolId: inline(PoolIdSchema),
    period: enumOf(POOL_HISTORY_PERIODS, { description: 'The window answered.' }),
    from: inline(TimestampSchema, { description: 'Start of the window.' }),
    to: inline(TimestampSchema, { description: 'End of the window (now).' }),
    points: Type.Array(inline(PoolHistoryPointSchema), {
      description:
        'One per hourly snapshot, oldest first; hours the service did not see are absent.',
    }),
  },
  {
    $id: 'PoolHistory',
    description: "A pool's hourly snapshots and swap volume (docs/spec/stats.md#history).",
  },
);
export type PoolHistory = Static<typeof PoolHistorySchema>;

const POOL_TRADES_LIMIT_MAX = 100;
export const POOL_TRADES_LIMIT_DEFAULT = 20;

export const PoolTradesQuerySchema = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: POOL_TRADES_LIMIT_MAX,
        default: POOL_TRADES_LIMIT_DEFAULT,
        description: 'How many of the latest swaps.',
      }),
    ),
  },
  {
    $id: 'PoolTradesQuery',
    description: 'Query of `GET /v1/pools/{poolId}/trades`.',
    additionalProperties: false,
  },
);

const PoolTradeSchema = Type.Object(
  {
    at: inline(TimestampSchema, { description: 'When the swap executed.' }),
    inputToken: inline(TokenSymbolSchema),
    outputToken: inline(TokenSymbolSchema),
    inputAmount: inline(AmountStringSchema, { description: 'The deposit.' }),
    outputAmount: inline(AmountStringSchema, { description: 'The output paid.' }),
    volume: nullable(DecimalStringSchema, {
      description: 'The deposit in USD at execution; null without a USD price.',
    }),
  },
  { $id: 'PoolTrade', description: "One executed swap of a pool, without the parties' ids." },
);
export type PoolTrade = Static<typeof PoolTradeSchema>;

export const PoolTradesSchema = Type.Object(
  {
    poolId: inline(PoolIdSchema),
    trades: Type.Array(inline(PoolTradeSchema), { description: 'Newest first.' }),
  },
  { $id: 'PoolTrades', description: "A pool's latest executed swaps." },
);
export type PoolTrades = Static<typeof PoolTradesSchema>;

export const MARKET_SCHEMAS = [
  TokenListSchema,
  PoolSideSchema,
  PoolGuardSchema,
  PoolSchema,
  PoolListSchema,
  PoolStatsQuerySchema,
  AprMetaSchema,
  PoolStatsSchema,
  TickerSchema,
  PoolHistoryQuerySchema,
  PoolHistoryPointSchema,
  PoolHistorySchema,
  PoolTradesQuerySchema,
  PoolTradeSchema,
  PoolTradesSchema,
] as const;
