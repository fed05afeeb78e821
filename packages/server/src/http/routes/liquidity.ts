/**
 * Liquidity (docs/spec/liquidity.md): intents and positions of the wallet token's party, under the
 * API key like swaps (withdrawals are withdrawals.ts). Another party's intent answers 404.
 */
import {
  CreateLiquidityIntentBodySchema,
  DomainError,
  LIQUIDITY_LIST_LIMIT_DEFAULT,
  LIQUIDITY_STATES,
  LiquidityIntentIdParamsSchema,
  LiquidityIntentListSchema,
  LiquidityIntentSchema,
  LiquidityListQuerySchema,
  PositionListSchema,
} from '@poolparty/core';
import { cancelLiquidityIntent } from '@poolparty/settlement';
import {
  depositsOfLiquidityIntent,
  getLiquidityIntentForParty,
  getPool,
  type LiquidityIntentRecord,
  listLiquidityIntentsForParty,
  listPools,
  listPositionsOfProvider,
} from '@poolparty/store';
import type { ServiceContext } from '../../context.js';
import { createLiquidityIntent } from '../../liquidity/create-intent.js';
import { sidePricesUsdOf } from '../../market/snapshots.js';
import { liquidityIntentView, positionView } from '../../views/liquidity.js';
import { LIQUIDITY_OUTBOX } from '../../views/liquidity-outbox.js';
import { apiKeyOf, walletPartyOf } from '../authenticate.js';
import { WALLET_IDEMPOTENCY } from '../idempotent-routes.js';
import { intentRoutesOf, strictBody, walletTokenOnly } from '../intent-routes.js';
import {
  CREATE_LIQUIDITY_INTENT_EXAMPLE,
  LIQUIDITY_EVENTS_EXAMPLE,
  LIQUIDITY_INTENT_CANCELLED_EXAMPLE,
  LIQUIDITY_INTENT_COMPLETED_EXAMPLE,
  LIQUIDITY_INTENT_EXAMPLE,
  LIQUIDITY_INTENT_LIST_EXAMPLE,
  POSITION_LIST_EXAMPLE,
} from '../openapi-examples.js';
import {
  BODY_PROBLEMS,
  errorResponses,
  INTENT_PROBLEMS,
  TAG,
  WALLET_AUTH_PROBLEMS,
  withExamples,
} from '../route-docs.js';

const EVENTS_DESCRIPTION =
  'A `text/event-stream` of the liquidity intent (docs/spec/liquidity.md#intents), as the swap ' +
  'event stream: the current state first, then one event per state change, ending after a ' +
  'terminal state. Each event has `event:` = the state name (' +
  LIQUIDITY_STATES.map((name) => `\`${name}\``).join(', ') +
  '), `id:` = its sequence number, and `data:` = the LiquidityIntent JSON as of that event. ' +
  'Resume with `Last-Event-ID` (or the `lastEventId` query parameter where headers cannot be ' +
  'set): only later events follow, none twice. A `: heartbeat` comment arrives every 15 s. ' +
  'When the process has no stream left, or the wallet party or the API key already holds as ' +
  'many streams as it may (swap and liquidity streams count alike), it answers 429 ' +
  '`rate_limited`; poll `GET /v1/liquidity/intents/{liquidityIntentId}`.';

/** What the liquidity routes use of the service. */
type LiquidityRouteContext = Pick<ServiceContext, 'db' | 'clock' | 'walletTokens' | 'ledger'>;

const LIQUIDITY_INTENTS = intentRoutesOf<LiquidityRouteContext>()({
  noun: 'liquidity intent',
  path: '/liquidity/intents/:liquidityIntentId',
  params: LiquidityIntentIdParamsSchema,
  tag: TAG.liquidity,
  outbox: LIQUIDITY_OUTBOX,
  findOwn: getLiquidityIntentForParty,
  notFound: noSuchIntent,
});

const { tags: TAGS, security: SECURITY, route: liquidityRoute } = LIQUIDITY_INTENTS;

async function viewOf(ctx: LiquidityRouteContext, intent: LiquidityIntentRecord) {
  const pool = await getPool(ctx.db, intent.poolId);
  if (pool === null) throw new Error(`intent ${intent.liquidityIntentId} names no pool`);
  const deposits = await depositsOfLiquidityIntent(ctx.db, intent.liquidityIntentId);
  return liquidityIntentView(intent, pool, deposits);
}

function noSuchIntent(id: string): DomainError {
  return new DomainError('not_found', `No liquidity intent ${id} of this wallet party.`);
}

const createIntent = liquidityRoute({
  method: 'POST',
  url: '/liquidity/intents',
  hooks: strictBody,
  idempotency: WALLET_IDEMPOTENCY,
  schema: {
    operationId: 'createLiquidityIntent',
    summary: 'Create a liquidity intent',
    description:
      'States what the wallet party will deposit to a pool: both amounts, or one and the other at ' +
      "the pool's ratio. Send both tokens to `depositAddress` (the pool's LP party) with " +
      '`depositReference` as the reason, in either order, before `expiresAt`; the units mint when ' +
      'both arrived, and fewer than `minimumUnits` returns both.',
    tags: TAGS,
    security: SECURITY,
    body: withExamples(CreateLiquidityIntentBodySchema, CREATE_LIQUIDITY_INTENT_EXAMPLE),
    response: { 201: withExamples(LiquidityIntentSchema, LIQUIDITY_INTENT_EXAMPLE) },
    problems: errorResponses(
      [
        ...WALLET_AUTH_PROBLEMS,
        ...BODY_PROBLEMS,
        'amount_out_of_range',
        'first_deposit_too_small',
        'pool_not_found',
        'pool_paused',
        'pool_has_no_price',
        'active_liquidity_intent_exists',
      ],
      {
        amount_out_of_range:
          "the other side at the pool's ratio, the units, or the pool's reserves or units after the deposit would pass 28 integer digits; nothing was recorded",
        first_deposit_too_small:
          "the pool's first deposit would not mint more than the 0.0000001 units locked forever (`detail` says how many it mints)",
        pool_has_no_price: 'the pool has no liquidity yet: give both amounts, which set its price',
        active_liquidity_intent_exists:
          'an intent of this party for this pool is still open; `liquidityIntentId` names it',
      },
    ),
  },
  handler: async ({ ctx }, request, reply) => {
    const intent = await createLiquidityIntent(ctx, {
      body: request.body,
      providerParty: walletPartyOf(request),
      apiKey: apiKeyOf(request),
    });
    reply.code(201);
    return viewOf(ctx, intent);
  },
});

const getIntent = liquidityRoute({
  method: 'GET',
  url: '/liquidity/intents/:liquidityIntentId',
  hooks: walletTokenOnly,
  schema: {
    operationId: 'getLiquidityIntent',
    summary: 'Get a liquidity intent',
    description: 'The intent with its deposits, and what it minted or why it was refunded.',
    tags: TAGS,
    security: SECURITY,
    params: LiquidityIntentIdParamsSchema,
    response: { 200: withExamples(LiquidityIntentSchema, LIQUIDITY_INTENT_COMPLETED_EXAMPLE) },
    problems: errorResponses(INTENT_PROBLEMS, {
      not_found: "no such intent of the wallet token's party",
    }),
  },
  handler: async ({ ctx, ownIntent }, request) => {
    return viewOf(ctx, await ownIntent(request, request.params.liquidityIntentId));
  },
});

const cancelIntent = liquidityRoute({
  method: 'POST',
  url: '/liquidity/intents/:liquidityIntentId/cancel',
  hooks: walletTokenOnly,
  idempotency: WALLET_IDEMPOTENCY,
  schema: {
    operationId: 'cancelLiquidityIntent',
    summary: 'Cancel a pending liquidity intent',
    description:
      'Only a pending intent (nothing arrived yet) can be cancelled. A deposit that arrives after the cancel is returned to its sender.',
    tags: TAGS,
    security: SECURITY,
    params: LiquidityIntentIdParamsSchema,
    response: { 200: withExamples(LiquidityIntentSchema, LIQUIDITY_INTENT_CANCELLED_EXAMPLE) },
    problems: errorResponses([...INTENT_PROBLEMS, 'liquidity_intent_not_cancellable'], {
      not_found: "no such intent of the wallet token's party",
      liquidity_intent_not_cancellable: 'something arrived already, or the intent ended',
    }),
  },
  handler: async ({ ctx }, request) => {
    const { liquidityIntentId } = request.params;
    const cancelled = await cancelLiquidityIntent(ctx.db, {
      liquidityIntentId,
      providerParty: walletPartyOf(request),
      now: ctx.clock.now(),
    });
    if (cancelled === null) throw noSuchIntent(liquidityIntentId);
    return viewOf(ctx, cancelled);
  },
});

const streamIntentEvents = LIQUIDITY_INTENTS.events({
  operationId: 'streamLiquidityIntentEvents',
  description: EVENTS_DESCRIPTION,
  data: 'LiquidityIntent',
  example: LIQUIDITY_EVENTS_EXAMPLE,
  notFoundNote: "no such intent of the wallet token's party",
});

const listIntents = liquidityRoute({
  method: 'GET',
  url: '/liquidity/intents',
  hooks: walletTokenOnly,
  schema: {
    operationId: 'listLiquidityIntents',
    summary: "List the wallet party's liquidity intents",
    description: 'Newest first: the party’s liquidity history.',
    tags: TAGS,
    security: SECURITY,
    querystring: LiquidityListQuerySchema,
    response: { 200: withExamples(LiquidityIntentListSchema, LIQUIDITY_INTENT_LIST_EXAMPLE) },
    problems: errorResponses([...WALLET_AUTH_PROBLEMS, 'validation_error']),
  },
  handler: async ({ ctx }, request) => {
    const limit = request.query.limit ?? LIQUIDITY_LIST_LIMIT_DEFAULT;
    const intents = await listLiquidityIntentsForParty(ctx.db, walletPartyOf(request), limit);
    return { items: await Promise.all(intents.map((intent) => viewOf(ctx, intent))) };
  },
});

const listPositions = liquidityRoute({
  method: 'GET',
  url: '/liquidity/positions',
  hooks: walletTokenOnly,
  schema: {
    operationId: 'listPositions',
    summary: "List the wallet party's liquidity positions",
    description:
      'Per pool: units, share of the supply, what they redeem for now, what went in, the LP ' +
      'fees the units earned since they joined (per side, and in USD where a price exists), and ' +
      'the value against simply holding what went in.',
    tags: TAGS,
    security: SECURITY,
    response: { 200: withExamples(PositionListSchema, POSITION_LIST_EXAMPLE) },
    problems: errorResponses(WALLET_AUTH_PROBLEMS),
  },
  handler: async ({ ctx }, request) => {
    const positions = await listPositionsOfProvider(ctx.db, walletPartyOf(request));
    if (positions.length === 0) return { items: [] };
    // Every pool once: the USD prices of one pool's sides are read through the others.
    const pools = await listPools(ctx.db);
    const items = [];
    for (const position of positions) {
      const pool = pools.find((p) => p.poolId === position.poolId);
      if (pool === undefined) continue;
      const prices = await sidePricesUsdOf(ctx, pool, pools);
      items.push(positionView(position, pool, prices));
    }
    return { items };
  },
});

/** The liquidity routes, a plugin registered with `LiquidityRouteContext`, their hub and the caps. */
export const liquidityRoutes = LIQUIDITY_INTENTS.plugin([
  createIntent,
  listIntents,
  getIntent,
  cancelIntent,
  streamIntentEvents,
  listPositions,
]);
