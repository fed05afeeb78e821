/**
 * Tokens, pools and quotes (SPEC §2.1; seed §2.3–§2.5, §4.2, §4.3), all answered from the
 * quoter's in-memory state: pools are at most a refresh period (1 s) behind the store.
 *
 * - `GET /v1/tokens` lists the instruments some pool trades (see pool-view.ts).
 * - Pool stats and the ticker are computed from fee events, effective reserves and the hourly USD
 *   snapshots (market/snapshots.ts), kept for a few seconds between requests.
 */
import {
  inline,
  POOL_STATS_DAYS_DEFAULT,
  PoolIdParamsSchema,
  PoolListSchema,
  PoolSchema,
  PoolStatsQuerySchema,
  PoolStatsSchema,
  ProblemSchema,
  QuoteQuerySchema,
  QuoteSchema,
  TickerSchema,
  TokenListSchema,
} from '@poolparty/core';
import { Type } from '@sinclair/typebox';
import type { ServiceContext } from '../../context.js';
import { poolToWire, tokensOf } from '../../market/pool-view.js';
import { PoolFigures } from '../../market/snapshots.js';
import type { PoolRecord } from '../../store/pools.js';
import { apiKeyOf } from '../authenticate.js';
import type { App } from '../fastify.js';
import { ApiError } from '../problem.js';

const problem = (description: string) => inline(ProblemSchema, { description });

/**
 * 400 bodies carry the request validator's issues, which the error handler spells
 * `{location, message}` while core's `ValidationIssue` says `{path, message}`; a strict item
 * schema would make the serializer fail on one of them, so items here accept either.
 */
const validationProblem = (description: string) =>
  Type.Object(
    {
      ...ProblemSchema.properties,
      errors: Type.Optional(
        Type.Array(
          Type.Object({
            path: Type.Optional(Type.String()),
            location: Type.Optional(Type.String()),
            message: Type.String(),
          }),
        ),
      ),
    },
    { description },
  );

const notFound = problem('`pool_not_found`: no pool with this id.');
const unavailable = problem('`ledger_unavailable`: the Amulet price cannot be read yet.');
const invalid = validationProblem('`validation_error`: a parameter is missing or malformed.');

const STATS_DESCRIPTION =
  'APR, APY, 24-hour volume and fees, TVL (SPEC §8), from fee events and effective reserves, in ' +
  'USD with Amulet at the ledger price. `apr` and `apy` are null for a pool without a ' +
  'USD-priced side or without liquidity. Figures may be a few seconds old.';
const TICKER_DESCRIPTION =
  'USD price of the base token through the canonical Amulet/USDCx pool, its change over 24 ' +
  'hours from hourly snapshots (null until 23 h of them exist), and 24-hour volume (SPEC §8). ' +
  'A pool with no USD-priced side has no ticker (404 `not_found`).';

export async function marketRoutes(app: App, ctx: ServiceContext): Promise<void> {
  const poolById = (poolId: string): PoolRecord => {
    const pool = ctx.quoter.pools().find((p) => p.poolId === poolId);
    if (pool === undefined) throw new ApiError('pool_not_found', `No pool ${poolId}.`);
    return pool;
  };
  const figures = new PoolFigures({
    db: ctx.db,
    ledger: ctx.ledger,
    clock: ctx.clock,
    pools: () => ctx.quoter.pools(),
  });

  app.get(
    '/tokens',
    {
      schema: {
        description: 'The tokens some pool trades; a symbol can appear under several admins.',
        security: [{ apiKey: [] }],
        response: { 200: TokenListSchema },
      },
    },
    async () => ({ tokens: tokensOf(ctx.quoter.pools()) }),
  );

  app.get(
    '/pools',
    {
      schema: {
        description: 'Every pool with its effective reserves, fee and LP supply.',
        security: [{ apiKey: [] }],
        response: { 200: PoolListSchema },
      },
    },
    async () => {
      const pools = ctx.quoter.pools().map(poolToWire);
      return { count: pools.length, pools };
    },
  );

  app.get(
    '/pools/:poolId',
    {
      schema: {
        description: 'One pool, with its swap and LP addresses.',
        security: [{ apiKey: [] }],
        params: PoolIdParamsSchema,
        response: { 200: PoolSchema, 400: invalid, 404: notFound },
      },
    },
    async (request) => poolToWire(poolById(request.params.poolId)),
  );

  app.get(
    '/pools/:poolId/stats',
    {
      schema: {
        description: STATS_DESCRIPTION,
        security: [{ apiKey: [] }],
        params: PoolIdParamsSchema,
        querystring: PoolStatsQuerySchema,
        response: { 200: PoolStatsSchema, 400: invalid, 404: notFound, 503: unavailable },
      },
    },
    async (request) =>
      figures.stats(poolById(request.params.poolId), request.query.days ?? POOL_STATS_DAYS_DEFAULT),
  );

  app.get(
    '/pools/:poolId/ticker',
    {
      schema: {
        description: TICKER_DESCRIPTION,
        security: [{ apiKey: [] }],
        params: PoolIdParamsSchema,
        response: {
          200: TickerSchema,
          400: invalid,
          404: problem('`pool_not_found`, or `not_found` when the pool has no USD price.'),
          503: unavailable,
        },
      },
    },
    async (request) => figures.ticker(poolById(request.params.poolId)),
  );

  app.get(
    '/quotes',
    {
      schema: {
        description:
          'Prices a deposit of `amount` `from` → `to`: fees, output, rate, price impact and the ' +
          'settlement-safety verdict. A symbol under several admins needs `poolId`, or both ' +
          '`fromAdmin` and `toAdmin` (409 `ambiguous_pool_pair` lists the candidates).',
        security: [{ apiKey: [] }],
        querystring: QuoteQuerySchema,
        response: {
          200: QuoteSchema,
          400: validationProblem(
            '`validation_error`, or `amount_below_minimum` (with `minimumAmount`) when the ' +
              'amount does not cover the network fee.',
          ),
          404: problem('`token_not_found` or `pool_not_found`.'),
          409: problem(
            '`ambiguous_pool_pair` (with `candidates`), or `pool_paused` while the operator has paused the pool.',
          ),
          503: problem('`ledger_unavailable`: the ledger prices cannot be read yet.'),
        },
      },
    },
    async (request) => {
      const { receiverParty } = request.query;
      const priced = await ctx.quoter.quote(request.query, {
        apiKeyId: apiKeyOf(request).keyId,
        walletParty: receiverParty ?? null,
      });
      return priced.quote;
    },
  );
}
