/**
 * Withdrawals (docs/spec/liquidity.md#withdrawals): units of the wallet token's party burned for
 * two payouts, each withdrawal followed by reading it or through its event stream, under the API
 * key like swaps. Another party's withdrawal answers 404.
 */
import {
  Amount,
  type BurnRequest,
  burnRequestOf,
  CreateWithdrawalBodySchema,
  DomainError,
  LIQUIDITY_LIST_LIMIT_DEFAULT,
  LiquidityListQuerySchema,
  WITHDRAWAL_STATES,
  WithdrawalIdParamsSchema,
  WithdrawalListSchema,
  WithdrawalSchema,
} from '@poolparty/core';
import { recordWithdrawal } from '@poolparty/settlement';
import { getWithdrawalForParty, listWithdrawalsForParty, payoutOffersOf } from '@poolparty/store';
import type { ServiceContext } from '../../context.js';
import { withdrawalView } from '../../views/liquidity.js';
import { WITHDRAWAL_OUTBOX } from '../../views/withdrawal-outbox.js';
import { apiKeyOf, walletPartyOf } from '../authenticate.js';
import { WALLET_IDEMPOTENCY } from '../idempotent-routes.js';
import { intentRoutesOf, strictBody, walletTokenOnly } from '../intent-routes.js';
import {
  CREATE_WITHDRAWAL_EXAMPLE,
  WITHDRAWAL_COMPLETED_EXAMPLE,
  WITHDRAWAL_EVENTS_EXAMPLE,
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
  'A `text/event-stream` of the withdrawal (docs/spec/liquidity.md#withdrawals), as the liquidity ' +
  'intent event stream: the current state first (and the payout moves since it), then one event ' +
  'per change, ending after `completed` or `flagged`. A change of status has `event:` = the ' +
  'status (' +
  WITHDRAWAL_STATES.map((name) => `\`${name}\``).join(', ') +
  '); a payout that moved while the status stood has `event:` `payout_offered`, `payout_paid`, ' +
  '`payout_flagged` or `payout_pending` (sent again). `id:` is its sequence number and `data:` ' +
  'the Withdrawal JSON as of that event. Resume with `Last-Event-ID` (or the `lastEventId` query ' +
  'parameter where headers cannot be set): only later events follow, none twice. A ' +
  '`: heartbeat` comment arrives every 15 s. When the process has no stream left, or the wallet ' +
  'party or the API key already holds as many streams as it may (swap, liquidity and withdrawal ' +
  'streams count alike), it answers 429 `rate_limited`; poll ' +
  '`GET /v1/liquidity/withdrawals/{withdrawalId}`.';

/** What the withdrawal routes use of the service. */
type WithdrawalRouteContext = Pick<ServiceContext, 'db' | 'clock' | 'walletTokens'>;

function noSuchWithdrawal(id: string): DomainError {
  return new DomainError('not_found', `No withdrawal ${id} of this wallet party.`);
}

const WITHDRAWALS = intentRoutesOf<WithdrawalRouteContext>()({
  noun: 'withdrawal',
  path: '/liquidity/withdrawals/:withdrawalId',
  params: WithdrawalIdParamsSchema,
  tag: TAG.liquidity,
  outbox: WITHDRAWAL_OUTBOX,
  findOwn: getWithdrawalForParty,
  notFound: noSuchWithdrawal,
});

const { tags: TAGS, security: SECURITY, route: withdrawalRoute } = WITHDRAWALS;

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

const createWithdrawal = withdrawalRoute({
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

const getWithdrawal = withdrawalRoute({
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
  handler: async ({ ctx, ownIntent }, request) => {
    const { withdrawalId } = request.params;
    const found = await ownIntent(request, withdrawalId);
    return withdrawalView(found, await payoutOffersOf(ctx.db, withdrawalId));
  },
});

const listWithdrawals = withdrawalRoute({
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

const streamWithdrawalEvents = WITHDRAWALS.events({
  operationId: 'streamWithdrawalEvents',
  description: EVENTS_DESCRIPTION,
  data: 'Withdrawal',
  example: WITHDRAWAL_EVENTS_EXAMPLE,
  notFoundNote: "no such withdrawal of the wallet token's party",
});

/** The withdrawal routes, a plugin registered with their context, their hub and the caps. */
export const withdrawalRoutes = WITHDRAWALS.plugin([
  createWithdrawal,
  listWithdrawals,
  getWithdrawal,
  streamWithdrawalEvents,
]);
