/**
 * Tokens, pools and quotes (SPEC §2.1; seed §2.3–§2.5, §4.2, §4.3), all answered from the
 * quoter's in-memory state: pools are at most a refresh period (1 s) behind the store.
 *
 * - `GET /v1/tokens` lists the instruments some pool trades (see pool-view.ts).
 * - Pool stats and the ticker are computed from fee events and hourly snapshots by the settlement
 *   engine's stats job; until it runs they answer 501 `not_implemented`, after checking the
 *   request (`days`, the pool) so that a client's mistakes show now rather than later.
 */
import {
  inline,
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
const invalid = validationProblem('`validation_error`: a parameter is missing or malformed.');
const notYet = problem('`not_implemented`: the stats job has not produced figures yet.');

const STATS_DESCRIPTION =
  'APR, APY, 24-hour volume and fees, TVL (SPEC §8), computed by the settlement engine from fee ' +
  'events and effective reserves. Answers 501 `not_implemented` until that engine runs; ' +
  '`days` and the pool are checked first.';
const TICKER_DESCRIPTION =
  'USD price of the base token through the canonical Amulet/USDCx pool, 24-hour change and ' +
  'volume (SPEC §8), computed by the settlement engine from hourly snapshots. Answers 501 ' +
  '`not_implemented` until that engine runs; the pool is checked first.';

export async function marketRoutes(app: App, ctx: ServiceContext): Promise<void> {
  const poolById = (poolId: string): PoolRecord => {
    const pool = ctx.quoter.pools().find((p) => p.poolId === poolId);
    if (pool === undefined) throw new ApiError('pool_not_found', `No pool ${poolId}.`);
    return pool;
  };

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
        response: { 200: PoolStatsSchema, 400: invalid, 404: notFound, 501: notYet },
      },
    },
    async (request) => {
      poolById(request.params.poolId);
      throw new ApiError('not_implemented', 'Pool stats are not available yet.');
    },
  );

  app.get(
    '/pools/:poolId/ticker',
    {
      schema: {
        description: TICKER_DESCRIPTION,
        security: [{ apiKey: [] }],
        params: PoolIdParamsSchema,
        response: { 200: TickerSchema, 400: invalid, 404: notFound, 501: notYet },
      },
    },
    async (request) => {
      poolById(request.params.poolId);
      throw new ApiError('not_implemented', 'The pool ticker is not available yet.');
    },
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
          409: problem('`ambiguous_pool_pair` (with `candidates`).'),
          503: problem('`ledger_unavailable`: the ledger prices cannot be read yet.'),
        },
      },
    },
    async (request) => {
      const { receiverParty } = request.query;
      const priced = await ctx.quoter.quote(
        request.query,
        { apiKeyId: apiKeyOf(request).keyId, walletParty: receiverParty ?? null },
        { allowPaused: true },
      );
      return priced.quote;
    },
  );
}
