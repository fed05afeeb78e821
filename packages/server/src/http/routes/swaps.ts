/**
 * Swap intents (docs/spec/lifecycle.md): create, status, cancel, events and the party's list.
 * Every route needs the API key (the `/v1` scope) and a wallet token, and concerns the token's
 * party only: another party's intent answers 404, so ids cannot be probed.
 *
 * Choices made here:
 * - `track` lists the intents created through the calling API key's developer, including keys of
 *   that developer since rotated; status and cancel serve the party's intent whichever integration
 *   created it.
 * - `track`, the status and the progress serve atomic swaps too (an `atm_` id, `kind: atomic`):
 *   a party's swaps are one list whichever way each settled.
 * - Cancelling an intent that is no longer pending — including one already cancelled — is 409
 *   `intent_not_cancellable` with its current state in `intentStatus` (the problem's own
 *   `status` is the HTTP status).
 */
import {
  AtomicSwapProgressSchema,
  AtomicSwapStatusSchema,
  CancelResultSchema,
  type CreateSwapBody,
  CreateSwapBodySchema,
  IntentIdParamsSchema,
  isAtomicSwapId,
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
  listIntentHistories,
  listSwapsForParty,
} from '@poolparty/store';
import { Type } from '@sinclair/typebox';
import type { ServiceContext } from '../../context.js';
import { createSwap, understoodSwap } from '../../swaps/create-swap.js';
import { atomicSwapProgressView } from '../../views/atomic-swap.js';
import { SWAP_OUTBOX } from '../../views/swap-outbox.js';
import { swapProgressView, swapStatusView } from '../../views/swap-status.js';
import { atomicSwapStatusOf, statusesOf } from '../../views/swap-statuses.js';
import { apiKeyOf, walletPartyOf } from '../authenticate.js';
import { WALLET_IDEMPOTENCY } from '../idempotent-routes.js';
import { intentRoutesOf, strictBody, walletTokenOnly } from '../intent-routes.js';
import {
  ATOMIC_SWAP_PROGRESS_EXAMPLE,
  ATOMIC_SWAP_STATUS_EXAMPLE,
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
  INTENT_PROBLEMS,
  SECURITY as SECURITY_OF,
  TAG,
  WALLET_AUTH_PROBLEMS,
  withExamples,
} from '../route-docs.js';

const CREATE_PROBLEMS = [
  ...WALLET_AUTH_PROBLEMS,
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

/** What the swap routes use of the service: what every intent route does, and the quoter. */
type SwapRouteContext = Pick<ServiceContext, 'db' | 'clock' | 'walletTokens' | 'quoter'>;

function noSuchIntent(intentId: string): ApiError {
  return new ApiError('not_found', `No swap intent ${intentId}.`);
}

const SWAPS = intentRoutesOf<SwapRouteContext>()({
  noun: 'swap',
  path: '/swaps/:intentId',
  params: IntentIdParamsSchema,
  tag: TAG.swaps,
  outbox: SWAP_OUTBOX,
  findOwn: getIntentForParty,
  notFound: noSuchIntent,
});

const { tags: TAGS, security: SECURITY, route: swapRoute } = SWAPS;

const createSwapRoute = swapRoute({
  method: 'POST',
  url: '/swaps',
  // Exact JSON types: an amount is a string and the slippage tolerance a number, no coercion.
  hooks: strictBody,
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
    description:
      'The intent with the facts of each stage and its state history. The id of an atomic ' +
      'swap (`atm_…`) answers its AtomicSwapStatus (`kind: atomic`, its own states), as ' +
      '`track` lists it.',
    tags: TAGS,
    security: SECURITY,
    params: IntentIdParamsSchema,
    response: {
      200: withExamples(
        Type.Union([SwapStatusSchema, AtomicSwapStatusSchema], {
          description:
            'A SwapStatus, or for an atomic swap an AtomicSwapStatus: `kind` says which.',
        }),
        SWAP_STATUS_PAYOUT_OFFERED_EXAMPLE,
        ATOMIC_SWAP_STATUS_EXAMPLE,
      ),
    },
    problems: errorResponses(INTENT_PROBLEMS, {
      not_found: "no intent with this id for the wallet token's party",
    }),
  },
  handler: async ({ ctx }, request) => {
    const { intentId } = request.params;
    if (isAtomicSwapId(intentId)) {
      const atomic = await atomicSwapStatusOf(ctx.db, intentId, walletPartyOf(request));
      if (atomic === null) throw noSuchIntent(intentId);
      return atomic;
    }
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
      'reference; intent ids carry 130 random bits, so they are not guessed. An atomic ' +
      "swap's id answers its AtomicSwapProgress (without the trader).",
    tags: TAGS,
    security: SECURITY_OF.apiKey,
    params: IntentIdParamsSchema,
    response: {
      200: withExamples(
        Type.Union([SwapProgressSchema, AtomicSwapProgressSchema], {
          description: 'A SwapProgress, or for an atomic swap an AtomicSwapProgress (`kind`).',
        }),
        SWAP_PROGRESS_EXAMPLE,
        ATOMIC_SWAP_PROGRESS_EXAMPLE,
      ),
    },
    problems: errorResponses([...API_KEY_PROBLEMS, 'validation_error', 'not_found'], {
      not_found: 'no intent with this id',
    }),
  },
  handler: async ({ ctx }, request) => {
    const { intentId } = request.params;
    if (isAtomicSwapId(intentId)) {
      const atomic = await atomicSwapStatusOf(ctx.db, intentId);
      if (atomic === null) throw new ApiError('not_found', `No swap ${intentId}.`);
      return atomicSwapProgressView(atomic);
    }
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
  handler: async ({ ctx, ownIntent }, request) => {
    const intent = await ownIntent(request, request.params.intentId);
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

const streamSwapEvents = SWAPS.events({
  operationId: 'streamSwapEvents',
  description: EVENTS_DESCRIPTION,
  data: 'SwapStatus',
  example: SWAP_EVENTS_EXAMPLE,
  notFoundNote: "no intent with this id for the wallet token's party",
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
      "first: the deposit flow's (SwapStatus, `kind: deposit`) and atomic swaps " +
      '(AtomicSwapStatus, `kind: atomic`) in one list; `kind` keeps one of them. `partyId` must ' +
      "be the wallet token's party. Pass `nextCursor` as `cursor` for the next page.",
    tags: TAGS,
    security: SECURITY,
    params: PartyIdParamsSchema,
    querystring: TrackQuerySchema,
    response: {
      200: withExamples(TrackResultSchema, TRACK_RESULT_EXAMPLE),
    },
    problems: errorResponses(
      [...WALLET_AUTH_PROBLEMS, 'validation_error', 'wallet_party_mismatch'],
      {
        validation_error: 'a query parameter is malformed, or `cursor` is not one we issued',
        wallet_party_mismatch: "`partyId` is not the wallet token's party",
      },
    ),
  },
  handler: async ({ ctx }, request) => {
    const { partyId } = request.params;
    if (partyId !== walletPartyOf(request)) {
      throw new ApiError(
        'wallet_party_mismatch',
        "partyId must be the wallet token's party; a wallet sees its own swaps only.",
      );
    }
    const { status, kind, limit, cursor } = request.query;
    const page = await listSwapsForParty(ctx.db, {
      walletParty: partyId,
      developerParty: apiKeyOf(request).developerParty,
      ...(status !== undefined && { statuses: [status] }),
      ...(kind !== undefined && { kinds: [kind] }),
      limit: limit ?? TRACK_LIMIT_DEFAULT,
      cursor: cursor === undefined ? null : cursorOf(cursor),
    });
    return {
      partyId,
      swaps: await statusesOf(ctx.db, page.swaps),
      nextCursor: page.nextCursor === null ? null : encodeIntentCursor(page.nextCursor),
    };
  },
});

/** The swap routes, a plugin registered with `SwapRouteContext`, the swaps' hub and the caps. */
export const swapRoutes = SWAPS.plugin([
  createSwapRoute,
  getSwapStatus,
  getSwapProgress,
  cancelSwap,
  streamSwapEvents,
  listPartySwaps,
]);

function cursorOf(text: string) {
  const cursor = decodeIntentCursor(text);
  if (cursor === null) {
    throw new ApiError('validation_error', 'cursor is not a nextCursor this service issued.', {
      errors: [{ path: '/cursor', message: 'not a cursor of this listing' }],
    });
  }
  return cursor;
}
