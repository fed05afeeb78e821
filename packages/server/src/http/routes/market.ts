/**
 * Tokens, pools and quotes (docs/spec/protocol.md#tokens-and-pools, docs/spec/protocol.md#quotes),
 * all answered from the quoter's in-memory state: pools are at most a refresh period (1 s) behind
 * the store.
 *
 * - `GET /v1/tokens` lists the instruments some pool trades (see pool-view.ts).
 * - Pool stats and the ticker are computed from fee events, effective reserves and the hourly USD
 *   snapshots (market/snapshots.ts), kept for a few seconds between requests.
 */
import {
  POOL_STATS_DAYS_DEFAULT,
  POOL_TRADES_LIMIT_DEFAULT,
  PoolHistoryQuerySchema,
  PoolHistorySchema,
  PoolIdParamsSchema,
  PoolListSchema,
  PoolSchema,
  PoolStatsQuerySchema,
  PoolStatsSchema,
  PoolTradesQuerySchema,
  PoolTradesSchema,
  QuoteQuerySchema,
  QuoteSchema,
  TickerSchema,
  TokenListSchema,
} from '@poolparty/core';
import type { PoolRecord } from '@poolparty/store';
import type { ServiceContext } from '../../context.js';
import { poolHistoryOf, poolTradesOf } from '../../market/pool-history.js';
import { poolToWire, tokensOf } from '../../market/pool-view.js';
import { PoolFigures } from '../../market/snapshots.js';
import { apiKeyOf } from '../authenticate.js';
import type { App } from '../fastify.js';
import {
  POOL_DETAIL_EXAMPLE,
  POOL_HISTORY_EXAMPLE,
  POOL_LIST_EXAMPLE,
  POOL_STATS_EXAMPLE,
  POOL_TRADES_EXAMPLE,
  QUOTE_EXAMPLE,
  TICKER_EXAMPLE,
  TOKEN_LIST_EXAMPLE,
} from '../openapi-examples.js';
import { ApiError } from '../problem.js';
import { API_KEY_PROBLEMS, errorResponses, SECURITY, TAG, withExamples } from '../route-docs.js';
import { registerRoutes, routeOf } from '../route-table.js';

const TOKENS_PROBLEMS = [...API_KEY_PROBLEMS];
const POOL_PROBLEMS = [...API_KEY_PROBLEMS, 'validation_error', 'pool_not_found'] as const;
const FIGURES_PROBLEMS = [...POOL_PROBLEMS, 'ledger_unavailable'] as const;
const QUOTE_PROBLEMS = [
  ...API_KEY_PROBLEMS,
  'validation_error',
  'amount_below_minimum',
  'token_not_found',
  'pool_not_found',
  'ambiguous_pool_pair',
  'pool_paused',
  'ledger_unavailable',
] as const;

const STATS_DESCRIPTION =
  'APR, APY, 24-hour volume and fees, TVL (docs/spec/stats.md#pool-stats), from fee events and ' +
  'effective reserves, in USD with Amulet at the ledger price. `apr` and `apy` are null for a ' +
  'pool without a USD-priced side or without liquidity. Figures may be a few seconds old.';
const TICKER_DESCRIPTION =
  'USD price of the base token through the canonical Amulet/USDCx pool, its change over 24 ' +
  'hours from hourly snapshots (null until 23 h of them exist), and 24-hour volume ' +
  '(docs/spec/stats.md#ticker). A pool with no USD-priced side has no ticker (404 `not_found`).';

/** What the market routes read: pools as the quoter holds them, the store, the ledger's prices. */
export type MarketContext = Pick<ServiceContext, 'db' | 'ledger' | 'clock' | 'quoter'>;

/** What the market routes share: their context, and the pool figures kept between requests. */
interface MarketDeps {
  readonly ctx: MarketContext;
  readonly figures: PoolFigures;
}

const marketRoute = routeOf<MarketDeps>();

function poolById(ctx: MarketContext, poolId: string): PoolRecord {
  const pool = ctx.quoter.pools().find((p) => p.poolId === poolId);
  if (pool === undefined) throw new ApiError('pool_not_found', `No pool ${poolId}.`);
  return pool;
}

const listTokens = marketRoute({
  method: 'GET',
  url: '/tokens',
  schema: {
    operationId: 'listTokens',
    summary: 'List the tradable tokens',
    description: 'The tokens some pool trades; a symbol can appear under several admins.',
    tags: [TAG.tokens],
    security: SECURITY.apiKey,
    response: {
      200: withExamples(TokenListSchema, TOKEN_LIST_EXAMPLE),
    },
    problems: errorResponses(TOKENS_PROBLEMS),
  },
  handler: async ({ ctx }) => ({ tokens: tokensOf(ctx.quoter.pools()) }),
});

const listPools = marketRoute({
  method: 'GET',
  url: '/pools',
  schema: {
    operationId: 'listPools',
    summary: 'List the pools',
    description: 'Every pool with its effective reserves, fee and LP supply.',
    tags: [TAG.pools],
    security: SECURITY.apiKey,
    response: {
      200: withExamples(PoolListSchema, POOL_LIST_EXAMPLE),
    },
    problems: errorResponses(TOKENS_PROBLEMS),
  },
  handler: async ({ ctx }) => {
    const pools = ctx.quoter.pools().map(poolToWire);
    return { count: pools.length, pools };
  },
});

const getPool = marketRoute({
  method: 'GET',
  url: '/pools/:poolId',
  schema: {
    operationId: 'getPool',
    summary: 'Get a pool',
    description:
      'One pool, with its swap and LP addresses and its price-deviation guard state ' +
      '(docs/spec/guard.md#pool-guard-state): whether it limits swaps now, which direction passes, ' +
      'the price band and when it clears.',
    tags: [TAG.pools],
    security: SECURITY.apiKey,
    params: PoolIdParamsSchema,
    response: {
      200: withExamples(PoolSchema, POOL_DETAIL_EXAMPLE),
    },
    problems: errorResponses(POOL_PROBLEMS),
  },
  handler: async ({ ctx }, request) => {
    const pool = poolById(ctx, request.params.poolId);
    const guard = ctx.quoter.poolGuard(pool.poolId);
    return { ...poolToWire(pool), ...(guard !== null && { guard }) };
  },
});

const getPoolStats = marketRoute({
  method: 'GET',
  url: '/pools/:poolId/stats',
  schema: {
    operationId: 'getPoolStats',
    summary: "Get a pool's APR, volume, fees and TVL",
    description: STATS_DESCRIPTION,
    tags: [TAG.pools],
    security: SECURITY.apiKey,
    params: PoolIdParamsSchema,
    querystring: PoolStatsQuerySchema,
    response: {
      200: withExamples(PoolStatsSchema, POOL_STATS_EXAMPLE),
    },
    problems: errorResponses(FIGURES_PROBLEMS, {
      ledger_unavailable: 'the Amulet price cannot be read from the ledger yet',
    }),
  },
  handler: async ({ ctx, figures }, request) =>
    figures.stats(
      poolById(ctx, request.params.poolId),
      request.query.days ?? POOL_STATS_DAYS_DEFAULT,
    ),
});

const getPoolTicker = marketRoute({
  method: 'GET',
  url: '/pools/:poolId/ticker',
  schema: {
    operationId: 'getPoolTicker',
    summary: "Get a pool's USD ticker",
    description: TICKER_DESCRIPTION,
    tags: [TAG.pools],
    security: SECURITY.apiKey,
    params: PoolIdParamsSchema,
    response: {
      200: withExamples(TickerSchema, TICKER_EXAMPLE),
    },
    problems: errorResponses([...FIGURES_PROBLEMS, 'not_found'], {
      not_found: 'the pool has no USD-priced side, so it has no ticker',
      ledger_unavailable: 'the Amulet price cannot be read from the ledger yet',
    }),
  },
  handler: async ({ ctx, figures }, request) =>
    figures.ticker(poolById(ctx, request.params.poolId)),
});

const getPoolHistory = marketRoute({
  method: 'GET',
  url: '/pools/:poolId/history',
  schema: {
    operationId: 'getPoolHistory',
    summary: "Get a pool's hourly history",
    description:
      'One point per hourly snapshot over the period (`24h`, `7d` or `30d`, default `7d`): ' +
      'reserves, spot price, USD price and TVL, and the USD volume and swaps of that hour ' +
      '(docs/spec/stats.md#history). Hours the service did not see are absent.',
    tags: [TAG.pools],
    security: SECURITY.apiKey,
    params: PoolIdParamsSchema,
    querystring: PoolHistoryQuerySchema,
    response: {
      200: withExamples(PoolHistorySchema, POOL_HISTORY_EXAMPLE),
    },
    problems: errorResponses(POOL_PROBLEMS),
  },
  handler: async ({ ctx }, request) =>
    poolHistoryOf(
      ctx.db,
      poolById(ctx, request.params.poolId),
      request.query.period ?? '7d',
      ctx.clock.now(),
    ),
});

const listPoolTrades = marketRoute({
  method: 'GET',
  url: '/pools/:poolId/trades',
  schema: {
    operationId: 'listPoolTrades',
    summary: "List a pool's latest swaps",
    description:
      'The latest executed swaps of the pool, newest first: tokens, amounts and USD volume, ' +
      'without the parties. A swap reversed after its payout failed is not listed.',
    tags: [TAG.pools],
    security: SECURITY.apiKey,
    params: PoolIdParamsSchema,
    querystring: PoolTradesQuerySchema,
    response: {
      200: withExamples(PoolTradesSchema, POOL_TRADES_EXAMPLE),
    },
    problems: errorResponses(POOL_PROBLEMS),
  },
  handler: async ({ ctx }, request) => {
    const pool = poolById(ctx, request.params.poolId);
    const trades = await poolTradesOf(
      ctx.db,
      pool,
      request.query.limit ?? POOL_TRADES_LIMIT_DEFAULT,
    );
    return { poolId: pool.poolId, trades };
  },
});

const getQuote = marketRoute({
  method: 'GET',
  url: '/quotes',
  schema: {
    operationId: 'getQuote',
    summary: 'Quote a swap',
    description:
      'Prices a deposit of `amount` `from` → `to`: fees, output, rate, price impact and the ' +
      'settlement-safety verdict. A symbol under several admins needs `poolId`, or both ' +
      '`fromAdmin` and `toAdmin` (409 `ambiguous_pool_pair` lists the candidates).',
    tags: [TAG.quotes],
    security: SECURITY.apiKey,
    querystring: QuoteQuerySchema,
    response: {
      200: withExamples(QuoteSchema, QUOTE_EXAMPLE),
    },
    problems: errorResponses(QUOTE_PROBLEMS, {
      amount_below_minimum:
        'the amount does not cover the network fee; `minimumAmount` is the smallest accepted',
      ambiguous_pool_pair: 'the pair matches several pools; `candidates` lists them',
      pool_paused: 'the operator has paused the pool',
      ledger_unavailable: 'the ledger prices cannot be read yet',
    }),
  },
  // Not an async handler: the usual quote is answered without a promise on the way.
  handler: ({ ctx }, request) => {
    const audience = {
      apiKeyId: apiKeyOf(request).keyId,
      walletParty: request.query.receiverParty ?? null,
    };
    const settled = ctx.quoter.quoteSettled(request.query, audience);
    if (settled !== null) return settled.quote;
    return ctx.quoter.quote(request.query, audience).then((priced) => priced.quote);
  },
});

const MARKET_ROUTES = [
  listTokens,
  listPools,
  getPool,
  getPoolStats,
  getPoolTicker,
  getPoolHistory,
  listPoolTrades,
  getQuote,
];

/** The market routes, a plugin registered with `MarketContext`. */
export async function marketRoutes(app: App, ctx: MarketContext): Promise<void> {
  const figures = new PoolFigures({
    db: ctx.db,
    ledger: ctx.ledger,
    clock: ctx.clock,
    pools: () => ctx.quoter.pools(),
  });
  registerRoutes(app, { ctx, figures }, MARKET_ROUTES);
}
