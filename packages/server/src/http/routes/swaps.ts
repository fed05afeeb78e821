/**
 * Swap intents (docs/spec/lifecycle.md): create, status, cancel, events and the party's list.
 * Every route needs the API key (the `/v1` scope) and a wallet token, and concerns the token's
 * party only: another party's intent answers 404, so ids cannot be probed.
 *
 * Choices made here:
 * - `track` lists the intents created through the calling API key's developer, including keys of
 *   that developer since rotated; status and cancel serve the party's intent whichever integration
 *   created it.
 * - Cancelling an intent that is no longer pending — including one already cancelled — is 409
 *   `intent_not_cancellable` with its current state in `intentStatus` (the problem's own
 *   `status` is the HTTP status).
 */
import {
  CancelResultSchema,
  type CreateSwapBody,
  CreateSwapBodySchema,
  IntentIdParamsSchema,
  PartyIdParamsSchema,
  SWAP_EVENT_NAMES,
  SwapIntentSchema,
  SwapProgressSchema,
  SwapStatusSchema,
  TRACK_LIMIT_DEFAULT,
  TrackQuerySchema,
  TrackResultSchema,
} from '@poolparty/core';
import {
  cancelIntent,
  decodeIntentCursor,
  encodeIntentCursor,
  getIntent,
  getIntentForParty,
  getIntentWithEventsForParty,
  type IntentRecord,
  listIntentHistories,
  listIntentsForParty,
} from '@poolparty/store';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../context.js';
import {
  type SwapEventSnapshots,
  SwapEventStream,
  swapEventSnapshots,
} from '../../events/swap-event-stream.js';
import { createSwap, understoodSwap } from '../../swaps/create-swap.js';
import { swapProgressView, swapStatusView } from '../../swaps/intent-view.js';
import { strictValidatorCompiler } from '../../swaps/strict-validation.js';
import { apiKeyOf, walletPartyOf, walletTokenHook } from '../authenticate.js';
import {
  EventsHeadersSchema,
  EventsQuerySchema,
  lastEventIdOf,
  streamSubject,
} from '../event-stream-route.js';
import type { App } from '../fastify.js';
import { WALLET_IDEMPOTENCY } from '../idempotent-routes.js';
import {
  CANCEL_RESULT_EXAMPLE,
  CREATE_SWAP_EXAMPLE,
  SWAP_EVENTS_EXAMPLE,
  SWAP_INTENT_EXAMPLE,
  SWAP_PROGRESS_EXAMPLE,
  SWAP_STATUS_PAYOUT_OFFERED_EXAMPLE,
  TRACK_RESULT_EXAMPLE,
} from '../openapi-examples.js';
import { ApiError } from '../problem.js';
import {
  API_KEY_PROBLEMS,
  BODY_PROBLEMS,
  errorResponses,
  SECURITY as SECURITY_OF,
  TAG,
  WALLET_TOKEN_PROBLEMS,
  withExamples,
} from '../route-docs.js';
import { registerRoutes, routeOf } from '../route-table.js';
import type { StreamCaps } from '../stream-caps.js';

const TAGS = [TAG.swaps];
const SECURITY = SECURITY_OF.apiKeyAndWalletToken;
/** What every route here can answer before it looks at the swap. */
const AUTH_PROBLEMS = [...API_KEY_PROBLEMS, ...WALLET_TOKEN_PROBLEMS] as const;
const INTENT_PROBLEMS = [...AUTH_PROBLEMS, 'validation_error', 'not_found'] as const;
const CREATE_PROBLEMS = [
  ...AUTH_PROBLEMS,
  ...BODY_PROBLEMS,
  'amount_below_minimum',
  'price_impact_exceeded',
  'settlement_safety',
  'wallet_party_mismatch',
  'token_not_found',
  'pool_not_found',
  'active_intent_exists',
  'ambiguous_pool_pair',
  'pool_paused',
  'ledger_unavailable',
] as const;
const EVENTS_DESCRIPTION =
  'A `text/event-stream` of the swap (docs/spec/lifecycle.md#events). It sends the current ' +
  'state first, then one event per state change in lifecycle order, and ends after a terminal ' +
  'event. Each event has ' +
  '`event:` = the state name (`pending` for the current state of an intent still awaiting its ' +
  'deposit, then ' +
  SWAP_EVENT_NAMES.map((name) => `\`${name}\``).join(', ') +
  '), `id:` = its sequence number, and `data:` = the SwapStatus JSON as of that event. Resume ' +
  'with `Last-Event-ID` (or the `lastEventId` query parameter where headers cannot be set): only ' +
  'later events follow, none twice. A `: heartbeat` comment arrives every 15 s. When the ' +
  'process has no stream left, or the wallet party or the API key already holds as many streams ' +
  'as it may, it answers 429 `rate_limited`; poll `GET /v1/swaps/{intentId}`.';

const EventStreamSchema = Type.String({
  description:
    'Server-Sent Events: `event: <state>`, `id: <sequence number>`, `data: <SwapStatus JSON>`.',
});

/** What the swap routes share. */
interface SwapDeps {
  readonly ctx: ServiceContext;
  /** Checks the wallet token of every route here. */
  readonly authenticateWallet: ReturnType<typeof walletTokenHook>;
  /** The event streams each wallet party and API key may hold. */
  readonly streamCaps: StreamCaps;
  /** One store read per intent per change, whatever the number of streams following it. */
  readonly snapshots: SwapEventSnapshots;
  /** The streams open now: they end when the service stops. */
  readonly openStreams: Set<SwapEventStream>;
}

const swapRoute = routeOf<SwapDeps>();
const walletTokenOnly = ({ authenticateWallet }: SwapDeps) => ({ preHandler: authenticateWallet });

const createSwapRoute = swapRoute({
  method: 'POST',
  url: '/swaps',
  hooks: (deps) => ({
    ...walletTokenOnly(deps),
    // Exact JSON types: an amount is a string and the slippage tolerance a number, no coercion.
    validatorCompiler: strictValidatorCompiler,
  }),
  // The body, validated against the route's schema by then, is a CreateSwapBody.
  idempotency: {
    ...WALLET_IDEMPOTENCY,
    understood: (request) => understoodSwap(request.body as CreateSwapBody),
    completesInEffect: true,
  },
  schema: {
    operationId: 'createSwap',
    summary: 'Create a swap intent',
    description:
      'Quotes the swap, checks it against the settlement-safety guard and the price-impact ' +
      'cap, and creates a pending intent: send exactly `expectedAmount` from the wallet party ' +
      'to `depositAddress` before `expiresAt`. With an `Idempotency-Key`, a retry with the ' +
      'same body for the same wallet party replays the first response (24 h, per API key); ' +
      'another request under the same key is 422, and a retry while the first is still running ' +
      'is 409 `idempotency_key_in_use`.',
    tags: TAGS,
    security: SECURITY,
    body: withExamples(CreateSwapBodySchema, CREATE_SWAP_EXAMPLE),
    response: {
      201: withExamples(SwapIntentSchema, SWAP_INTENT_EXAMPLE),
    },
    problems: errorResponses(CREATE_PROBLEMS, {
      amount_below_minimum:
        'the amount does not cover the network fee; `minimumAmount` is the smallest accepted',
      settlement_safety: 'the guard blocks this trade; `settlementSafety` says why',
      wallet_party_mismatch: "`walletAddress` is not the wallet token's party",
      active_intent_exists:
        'an intent of this party, pool and input token is still pending; `intentId` names it',
      ambiguous_pool_pair: 'the pair matches several pools; `candidates` lists them',
    }),
  },
  handler: async ({ ctx }, request, reply) => {
    const intent = await createSwap(
      { ctx },
      { body: request.body, walletParty: walletPartyOf(request), apiKey: apiKeyOf(request) },
      request.server.idempotencyKeys?.completionOf(request) ?? null,
    );
    return reply.code(201).send(intent);
  },
});

const getSwapStatus = swapRoute({
  method: 'GET',
  url: '/swaps/:intentId',
  hooks: walletTokenOnly,
  schema: {
    operationId: 'getSwapStatus',
    summary: 'Get the status of a swap',
    description: 'The intent with the facts of each stage and its state history.',
    tags: TAGS,
    security: SECURITY,
    params: IntentIdParamsSchema,
    response: {
      200: withExamples(SwapStatusSchema, SWAP_STATUS_PAYOUT_OFFERED_EXAMPLE),
    },
    problems: errorResponses(INTENT_PROBLEMS, {
      not_found: "no intent with this id for the wallet token's party",
    }),
  },
  handler: async ({ ctx }, request) => {
    const { intentId } = request.params;
    const found = await getIntentWithEventsForParty(ctx.db, intentId, walletPartyOf(request));
    if (found === null) throw noSuchIntent(intentId);
    return swapStatusView(found.intent, found.events);
  },
});

const getSwapProgress = swapRoute({
  method: 'GET',
  url: '/swaps/:intentId/progress',
  schema: {
    operationId: 'getSwapProgress',
    summary: 'Get the progress of any swap by its id',
    description:
      'The state of a swap for anyone holding its id, without a wallet token: a share link or ' +
      'a support desk follows a swap with it. It leaves out the parties and the deposit ' +
      'reference; intent ids carry 130 random bits, so they are not guessed.',
    tags: TAGS,
    security: SECURITY_OF.apiKey,
    params: IntentIdParamsSchema,
    response: {
      200: withExamples(SwapProgressSchema, SWAP_PROGRESS_EXAMPLE),
    },
    problems: errorResponses([...API_KEY_PROBLEMS, 'validation_error', 'not_found'], {
      not_found: 'no intent with this id',
    }),
  },
  handler: async ({ ctx }, request) => {
    const { intentId } = request.params;
    const intent = await getIntent(ctx.db, intentId);
    if (intent === null) throw new ApiError('not_found', `No swap ${intentId}.`);
    const histories = await listIntentHistories(ctx.db, [intentId]);
    return swapProgressView(swapStatusView(intent, histories.get(intentId) ?? []));
  },
});

const cancelSwap = swapRoute({
  method: 'POST',
  url: '/swaps/:intentId/cancel',
  hooks: walletTokenOnly,
  idempotency: WALLET_IDEMPOTENCY,
  schema: {
    operationId: 'cancelSwap',
    summary: 'Cancel a pending swap intent',
    description: 'Only a pending intent (no deposit attributed yet) can be cancelled.',
    tags: TAGS,
    security: SECURITY,
    params: IntentIdParamsSchema,
    response: {
      200: withExamples(CancelResultSchema, CANCEL_RESULT_EXAMPLE),
    },
    problems: errorResponses([...INTENT_PROBLEMS, 'intent_not_cancellable'], {
      not_found: "no intent with this id for the wallet token's party",
      intent_not_cancellable:
        'the intent is no longer pending; `intentStatus` is its current state',
    }),
  },
  handler: async ({ ctx }, request) => {
    const intent = await ownIntent(ctx, request, request.params.intentId);
    const cancelled = await cancelIntent(ctx.db, {
      intentId: intent.intentId,
      walletParty: intent.walletParty,
      now: ctx.clock.now(),
    });
    if (cancelled === null) {
      const current = await getIntentForParty(ctx.db, intent.intentId, intent.walletParty);
      const status = current?.status ?? intent.status;
      throw new ApiError(
        'intent_not_cancellable',
        `Intent ${intent.intentId} is ${status}; only a pending intent can be cancelled.`,
        { intentStatus: status },
      );
    }
    return { intentId: cancelled.intentId, status: 'cancelled' as const };
  },
});

const streamSwapEvents = swapRoute({
  method: 'GET',
  url: '/swaps/:intentId/events',
  hooks: walletTokenOnly,
  schema: {
    operationId: 'streamSwapEvents',
    summary: 'Stream the state changes of a swap (Server-Sent Events)',
    description: EVENTS_DESCRIPTION,
    tags: TAGS,
    security: SECURITY,
    params: IntentIdParamsSchema,
    headers: EventsHeadersSchema,
    querystring: EventsQuerySchema,
    response: {
      200: {
        description: 'The event stream.',
        content: {
          'text/event-stream': { schema: EventStreamSchema, example: SWAP_EVENTS_EXAMPLE },
        },
      },
    },
    problems: errorResponses(INTENT_PROBLEMS, {
      validation_error: '`Last-Event-ID` is not an event id of this swap',
      not_found: "no intent with this id for the wallet token's party",
      rate_limited:
        'the API key is over its rate limit, the wallet party or the API key holds as many ' +
        'streams as it may (`limit` names which, `max` its number), or this server has no ' +
        'event stream left (poll `GET /v1/swaps/{intentId}` meanwhile)',
    }),
  },
  handler: async (deps, request, reply) => {
    const intent = await ownIntent(deps.ctx, request, request.params.intentId);
    const { intentId } = intent;
    const after = lastEventIdOf(request.headers['last-event-id'], request.query.lastEventId);
    const subject = { noun: 'swap', pollPath: `/v1/swaps/${intentId}` };
    await streamSubject(request, reply, deps, subject, () =>
      SwapEventStream.open(
        {
          snapshots: deps.snapshots,
          onReadError: (error) => request.log.warn({ err: error }, 'swap event stream ended'),
        },
        intentId,
        after,
      ),
    );
  },
});

const listPartySwaps = swapRoute({
  method: 'GET',
  url: '/track/:partyId',
  hooks: walletTokenOnly,
  schema: {
    operationId: 'listPartySwaps',
    summary: "List the party's swaps",
    description:
      "The swaps of the wallet party created through this API key's developer, newest " +
      "first; `partyId` must be the wallet token's party. Pass `nextCursor` as `cursor` " +
      'for the next page.',
    tags: TAGS,
    security: SECURITY,
    params: PartyIdParamsSchema,
    querystring: TrackQuerySchema,
    response: {
      200: withExamples(TrackResultSchema, TRACK_RESULT_EXAMPLE),
    },
    problems: errorResponses([...AUTH_PROBLEMS, 'validation_error', 'wallet_party_mismatch'], {
      validation_error: 'a query parameter is malformed, or `cursor` is not one we issued',
      wallet_party_mismatch: "`partyId` is not the wallet token's party",
    }),
  },
  handler: async ({ ctx }, request) => {
    const { partyId } = request.params;
    if (partyId !== walletPartyOf(request)) {
      throw new ApiError(
        'wallet_party_mismatch',
        "partyId must be the wallet token's party; a wallet sees its own swaps only.",
      );
    }
    const { status, limit, cursor } = request.query;
    const page = await listIntentsForParty(ctx.db, {
      walletParty: partyId,
      developerParty: apiKeyOf(request).developerParty,
      ...(status !== undefined && { statuses: [status] }),
      limit: limit ?? TRACK_LIMIT_DEFAULT,
      cursor: cursor === undefined ? null : cursorOf(cursor),
    });
    const histories = await listIntentHistories(
      ctx.db,
      page.intents.map((intent) => intent.intentId),
    );
    return {
      partyId,
      swaps: page.intents.map((intent) =>
        swapStatusView(intent, histories.get(intent.intentId) ?? []),
      ),
      nextCursor: page.nextCursor === null ? null : encodeIntentCursor(page.nextCursor),
    };
  },
});

const SWAP_ROUTES = [
  createSwapRoute,
  getSwapStatus,
  getSwapProgress,
  cancelSwap,
  streamSwapEvents,
  listPartySwaps,
];

/** @param streamCaps - The event streams each wallet party and API key may hold. */
export async function swapRoutes(
  app: App,
  ctx: ServiceContext,
  streamCaps: StreamCaps,
): Promise<void> {
  const deps: SwapDeps = {
    ctx,
    authenticateWallet: walletTokenHook(ctx),
    streamCaps,
    snapshots: swapEventSnapshots(ctx.db, ctx.intentEvents),
    openStreams: new Set(),
  };
  // Open streams end when the service stops; otherwise closing would wait for every client.
  app.addHook('preClose', async () => {
    for (const stream of deps.openStreams) stream.end();
  });
  registerRoutes(app, deps, SWAP_ROUTES);
}

/** The wallet party's intent; anyone else's, like an unknown id, is 404. */
async function ownIntent(
  ctx: ServiceContext,
  request: FastifyRequest,
  intentId: string,
): Promise<IntentRecord> {
  const intent = await getIntentForParty(ctx.db, intentId, walletPartyOf(request));
  if (intent === null) throw noSuchIntent(intentId);
  return intent;
}

function noSuchIntent(intentId: string): ApiError {
  return new ApiError('not_found', `No swap intent ${intentId}.`);
}

function cursorOf(text: string) {
  const cursor = decodeIntentCursor(text);
  if (cursor === null) {
    throw new ApiError('validation_error', 'cursor is not a nextCursor this service issued.', {
      errors: [{ path: '/cursor', message: 'not a cursor of this listing' }],
    });
  }
  return cursor;
}
