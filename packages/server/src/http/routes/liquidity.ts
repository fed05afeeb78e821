/**
 * Liquidity (docs/spec/liquidity.md): intents, withdrawals and positions of the wallet token's
 * party, under the API key like swaps. Another party's intent or withdrawal answers 404.
 */
import {
  Amount,
  type BurnRequest,
  burnRequestOf,
  CreateLiquidityIntentBodySchema,
  CreateWithdrawalBodySchema,
  DomainError,
  LIQUIDITY_LIST_LIMIT_DEFAULT,
  LIQUIDITY_STATES,
  LiquidityIntentIdParamsSchema,
  LiquidityIntentListSchema,
  LiquidityIntentSchema,
  LiquidityListQuerySchema,
  PositionListSchema,
  WithdrawalIdParamsSchema,
  WithdrawalListSchema,
  WithdrawalSchema,
} from '@poolparty/core';
import { cancelLiquidityIntent, recordWithdrawal } from '@poolparty/settlement';
import {
  depositsOfLiquidityIntent,
  getLiquidityIntentForParty,
  getPool,
  getWithdrawalForParty,
  type LiquidityIntentRecord,
  listLiquidityIntentsForParty,
  listPositionsOfProvider,
  listWithdrawalsForParty,
  payoutOffersOf,
} from '@poolparty/store';
import type { ServiceContext } from '../../context.js';
import { createLiquidityIntent } from '../../liquidity/create-intent.js';
import { liquidityIntentView, positionView, withdrawalView } from '../../views/liquidity.js';
import { LIQUIDITY_OUTBOX } from '../../views/liquidity-outbox.js';
import { apiKeyOf, walletPartyOf } from '../authenticate.js';
import { WALLET_IDEMPOTENCY } from '../idempotent-routes.js';
import { intentRoutesOf, strictBody, walletTokenOnly } from '../intent-routes.js';
import {
  CREATE_LIQUIDITY_INTENT_EXAMPLE,
  CREATE_WITHDRAWAL_EXAMPLE,
  LIQUIDITY_EVENTS_EXAMPLE,
  LIQUIDITY_INTENT_CANCELLED_EXAMPLE,
  LIQUIDITY_INTENT_COMPLETED_EXAMPLE,
  LIQUIDITY_INTENT_EXAMPLE,
  LIQUIDITY_INTENT_LIST_EXAMPLE,
  POSITION_LIST_EXAMPLE,
  WITHDRAWAL_COMPLETED_EXAMPLE,
  WITHDRAWAL_EXAMPLE,
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
type LiquidityRouteContext = Pick<ServiceContext, 'db' | 'clock' | 'walletTokens'>;

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

function burnOf(body: { readonly units?: string; readonly shareBps?: number }): BurnRequest {
  const decision = burnRequestOf({
    ...(body.units !== undefined && { units: Amount.parse(body.units) }),
    ...(body.shareBps !== undefined && { shareBps: body.shareBps }),
  });
  if (decision.kind === 'burn') return decision.request;
  throw new DomainError('validation_error', decision.message, {
    errors: [{ path: `/body${decision.path}`, message: decision.message }],
  });
}

const createWithdrawal = liquidityRoute({
  method: 'POST',
  url: '/liquidity/withdrawals',
  hooks: strictBody,
  idempotency: WALLET_IDEMPOTENCY,
  schema: {
    operationId: 'createWithdrawal',
    summary: 'Withdraw liquidity',
    description:
      'Burns units of the wallet party’s position for both tokens at the reserves now, each ' +
      'rounded down, and pays them to the party; below either minimum nothing is burned.',
    tags: TAGS,
    security: SECURITY,
    body: withExamples(CreateWithdrawalBodySchema, CREATE_WITHDRAWAL_EXAMPLE),
    response: { 201: withExamples(WithdrawalSchema, WITHDRAWAL_EXAMPLE) },
    problems: errorResponses(
      [
        ...WALLET_AUTH_PROBLEMS,
        ...BODY_PROBLEMS,
        'pool_not_found',
        'position_not_found',
        'insufficient_units',
        'withdrawal_minimum_not_met',
        'nothing_to_withdraw',
      ],
      {
        validation_error:
          'the body is invalid: neither or both of `units` and `shareBps`, or `units` of zero',
        pool_not_found: 'no such pool; nothing was locked or burned',
        withdrawal_minimum_not_met:
          'the units redeem for less than a minimum now; nothing was burned',
      },
    ),
  },
  handler: async ({ ctx }, request, reply) => {
    const { body } = request;
    const withdrawal = await recordWithdrawal(ctx.db, {
      poolId: body.poolId,
      providerParty: walletPartyOf(request),
      apiKeyId: apiKeyOf(request).keyId,
      burn: burnOf(body),
      minimum: { a: Amount.parse(body.minimumA), b: Amount.parse(body.minimumB) },
      now: ctx.clock.now(),
    });
    reply.code(201);
    return withdrawalView(withdrawal);
  },
});

const getWithdrawal = liquidityRoute({
  method: 'GET',
  url: '/liquidity/withdrawals/:withdrawalId',
  hooks: walletTokenOnly,
  schema: {
    operationId: 'getWithdrawal',
    summary: 'Get a withdrawal',
    description: 'Its two payouts: pending, offered (accept it in your wallet), paid or flagged.',
    tags: TAGS,
    security: SECURITY,
    params: WithdrawalIdParamsSchema,
    response: { 200: withExamples(WithdrawalSchema, WITHDRAWAL_COMPLETED_EXAMPLE) },
    problems: errorResponses(INTENT_PROBLEMS, {
      not_found: "no such withdrawal of the wallet token's party",
    }),
  },
  handler: async ({ ctx }, request) => {
    const { withdrawalId } = request.params;
    const found = await getWithdrawalForParty(ctx.db, withdrawalId, walletPartyOf(request));
    if (found === null)
      throw new DomainError('not_found', `No withdrawal ${withdrawalId} of this wallet party.`);
    return withdrawalView(found, await payoutOffersOf(ctx.db, withdrawalId));
  },
});

const listWithdrawals = liquidityRoute({
  method: 'GET',
  url: '/liquidity/withdrawals',
  hooks: walletTokenOnly,
  schema: {
    operationId: 'listWithdrawals',
    summary: "List the wallet party's withdrawals",
    description: 'Newest first, each with its two payouts (and the offers to accept, if any).',
    tags: TAGS,
    security: SECURITY,
    querystring: LiquidityListQuerySchema,
    response: { 200: WithdrawalListSchema },
    problems: errorResponses([...WALLET_AUTH_PROBLEMS, 'validation_error']),
  },
  handler: async ({ ctx }, request) => {
    const limit = request.query.limit ?? LIQUIDITY_LIST_LIMIT_DEFAULT;
    const found = await listWithdrawalsForParty(ctx.db, walletPartyOf(request), limit);
    const items = [];
    for (const w of found) {
      items.push(withdrawalView(w, await payoutOffersOf(ctx.db, w.withdrawalId)));
    }
    return { items };
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
      'Per pool: units, share of the supply, what they redeem for now, what went in, and what ' +
      'the position earned against simply holding what went in.',
    tags: TAGS,
    security: SECURITY,
    response: { 200: withExamples(PositionListSchema, POSITION_LIST_EXAMPLE) },
    problems: errorResponses(WALLET_AUTH_PROBLEMS),
  },
  handler: async ({ ctx }, request) => {
    const positions = await listPositionsOfProvider(ctx.db, walletPartyOf(request));
    const items = [];
    for (const position of positions) {
      const pool = await getPool(ctx.db, position.poolId);
      if (pool !== null) items.push(positionView(position, pool));
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
  createWithdrawal,
  listWithdrawals,
  getWithdrawal,
  listPositions,
]);
