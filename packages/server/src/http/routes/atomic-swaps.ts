/**
 * Atomic swaps (docs/spec/atomic-swaps.md): prepare, sign (execute), status, cancel and events.
 * Every route needs the API key and a wallet token, and concerns the token's party only: another
 * party's swap answers 404, so ids cannot be probed.
 *
 * Choices made here:
 * - Execute answers 200 with the swap as it ended: `completed`, or `price_moved` / `rejected` /
 *   `expired` with nothing moved and `failure` saying why, or `prepared` again (a spent input:
 *   sign the new hash). Only a request that could not be taken is a problem: a signature that is
 *   not the prepared hash's by the swap's key (401, the swap still waits), one at or after
 *   `expiresAt` (409 `atomic_swap_expired`).
 * - A signature sent again for a swap signed already answers the swap as it is: one execution.
 */
import {
  AtomicSwapIdParamsSchema,
  AtomicSwapSchema,
  type CreateAtomicSwapBody,
  CreateAtomicSwapBodySchema,
  DomainError,
  ExecuteAtomicSwapBodySchema,
} from '@poolparty/core';
import { atomicSwapPortOf, cancelAtomicSwap } from '@poolparty/settlement';
import { getAtomicSwapForParty } from '@poolparty/store';
import {
  type AtomicSwapContext,
  createAtomicSwap,
  signAtomicSwap,
  understoodAtomicSwap,
  viewOfAtomicSwap,
} from '../../atomic-swaps/atomic-swap-requests.js';
import { ATOMIC_SWAP_OUTBOX } from '../../views/atomic-swap-outbox.js';
import { apiKeyOf, walletPartyOf } from '../authenticate.js';
import { WALLET_IDEMPOTENCY } from '../idempotent-routes.js';
import { intentRoutesOf, strictBody, walletTokenOnly } from '../intent-routes.js';
import {
  ATOMIC_SWAP_CANCELLED_EXAMPLE,
  ATOMIC_SWAP_COMPLETED_EXAMPLE,
  ATOMIC_SWAP_EVENTS_EXAMPLE,
  ATOMIC_SWAP_PREPARED_EXAMPLE,
  CREATE_ATOMIC_SWAP_DISCLOSED_EXAMPLE,
  CREATE_ATOMIC_SWAP_EXAMPLE,
  EXECUTE_ATOMIC_SWAP_EXAMPLE,
} from '../openapi-examples.js';
import {
  BODY_PROBLEMS,
  errorResponses,
  INTENT_PROBLEMS,
  TAG,
  WALLET_AUTH_PROBLEMS,
  withExamples,
} from '../route-docs.js';

function noSuchSwap(atomicSwapId: string): DomainError {
  return new DomainError('not_found', `No atomic swap ${atomicSwapId} of this wallet party.`);
}

const ATOMIC_SWAPS = intentRoutesOf<AtomicSwapContext>()({
  noun: 'atomic swap',
  path: '/atomic-swaps/:atomicSwapId',
  params: AtomicSwapIdParamsSchema,
  tag: TAG.atomicSwaps,
  outbox: ATOMIC_SWAP_OUTBOX,
  findOwn: getAtomicSwapForParty,
  notFound: noSuchSwap,
});

const { tags: TAGS, security: SECURITY, route: atomicSwapRoute } = ATOMIC_SWAPS;

const NOT_FOUND = { not_found: "no atomic swap with this id for the wallet token's party" };

const prepareRoute = atomicSwapRoute({
  method: 'POST',
  url: '/atomic-swaps',
  hooks: strictBody,
  idempotency: {
    ...WALLET_IDEMPOTENCY,
    understood: (request) => understoodAtomicSwap(request.body as CreateAtomicSwapBody),
    completesInEffect: true,
  },
  schema: {
    operationId: 'createAtomicSwap',
    summary: 'Prepare an atomic swap',
    description:
      'Quotes the swap and prepares one transaction of both legs: the input leg (the trader pays ' +
      'the pool exactly `input.amount`) and the output leg (the pool pays the trader exactly ' +
      "`output.amount`, the quote's output less the slippage tolerance). Decode " +
      '`preparedTransaction`, check that it moves nothing else, and sign ' +
      '`preparedTransactionHash` with the key of `keyFingerprint` before `expiresAt`. The ' +
      "pool's holdings the output leg names are reserved for this swap until it ends. A trader " +
      "hosted on another participant than the pool's passes its input holdings as disclosed " +
      "contracts (`inputHoldings`), which the pool's participant cannot read itself.",
    tags: TAGS,
    security: SECURITY,
    body: withExamples(
      CreateAtomicSwapBodySchema,
      CREATE_ATOMIC_SWAP_EXAMPLE,
      CREATE_ATOMIC_SWAP_DISCLOSED_EXAMPLE,
    ),
    response: { 201: withExamples(AtomicSwapSchema, ATOMIC_SWAP_PREPARED_EXAMPLE) },
    problems: errorResponses(
      [
        ...WALLET_AUTH_PROBLEMS,
        ...BODY_PROBLEMS,
        'amount_below_minimum',
        'price_impact_exceeded',
        'settlement_safety',
        'insufficient_funds',
        'token_not_found',
        'pool_not_found',
        'ambiguous_pool_pair',
        'pool_paused',
        'pool_holdings_busy',
        'input_holdings_mismatch',
        'input_holdings_unknown',
        'invalid_input_holdings',
        'atomic_swaps_unavailable',
        'ledger_unavailable',
      ],
      {
        input_holdings_mismatch: '`inputHoldingIds` and `inputHoldings` name different holdings',
        input_holdings_unknown:
          "an input holding the pool's participant cannot find: gone, or of a trader hosted elsewhere and not in `inputHoldings`",
        invalid_input_holdings: 'a disclosed input holding is not the contract its id names',
        insufficient_funds: "the trader's unlocked holdings do not cover the input",
        pool_holdings_busy: "every holding of the pool's output is reserved by a prepared swap",
        atomic_swaps_unavailable: "the service's ledger cannot prepare a transaction to sign",
      },
    ),
  },
  handler: async ({ ctx }, request, reply) => {
    const swap = await createAtomicSwap(
      ctx,
      { body: request.body, walletParty: walletPartyOf(request), apiKey: apiKeyOf(request) },
      request.server.idempotencyKeys?.completionOf(request) ?? null,
    );
    return reply.code(201).send(swap);
  },
});

const executeRoute = atomicSwapRoute({
  method: 'POST',
  url: '/atomic-swaps/:atomicSwapId/execute',
  hooks: strictBody,
  idempotency: WALLET_IDEMPOTENCY,
  schema: {
    operationId: 'executeAtomicSwap',
    summary: 'Sign (execute) an atomic swap',
    description:
      "Takes the trader's signature of `preparedTransactionHash`, checks it, and executes both " +
      "legs in one ledger transaction if the pool's curve still pays at least the signed output. " +
      'Answers the swap as it ended: `completed` with `updateId` and the `excess` the pool kept, ' +
      'or `price_moved` / `rejected` / `expired` with nothing moved, or `prepared` again when an ' +
      'input was spent meanwhile (sign the new hash). Sending the signature again executes nothing ' +
      'twice: it answers the swap as it is.',
    tags: TAGS,
    security: SECURITY,
    params: AtomicSwapIdParamsSchema,
    body: withExamples(ExecuteAtomicSwapBodySchema, EXECUTE_ATOMIC_SWAP_EXAMPLE),
    response: { 200: withExamples(AtomicSwapSchema, ATOMIC_SWAP_COMPLETED_EXAMPLE) },
    problems: errorResponses(
      [
        ...INTENT_PROBLEMS,
        ...BODY_PROBLEMS,
        'invalid_transaction_signature',
        'atomic_swap_expired',
        'atomic_swaps_unavailable',
      ],
      {
        ...NOT_FOUND,
        invalid_transaction_signature:
          'not a signature of the hash by the key the swap was prepared for; it still waits',
        atomic_swap_expired: 'the signature arrived at or after `expiresAt`; nothing moved',
        atomic_swaps_unavailable: "the service's ledger cannot execute a signed transaction",
      },
    ),
  },
  handler: async ({ ctx }, request) =>
    signAtomicSwap(ctx, {
      atomicSwapId: request.params.atomicSwapId,
      walletParty: walletPartyOf(request),
      body: request.body,
    }),
});

const getRoute = atomicSwapRoute({
  method: 'GET',
  url: '/atomic-swaps/:atomicSwapId',
  hooks: walletTokenOnly,
  schema: {
    operationId: 'getAtomicSwap',
    summary: 'Get an atomic swap',
    description: 'The swap with its legs, its state and, once executed, its update id and excess.',
    tags: TAGS,
    security: SECURITY,
    params: AtomicSwapIdParamsSchema,
    response: { 200: withExamples(AtomicSwapSchema, ATOMIC_SWAP_COMPLETED_EXAMPLE) },
    problems: errorResponses(INTENT_PROBLEMS, NOT_FOUND),
  },
  handler: async ({ ctx, ownIntent }, request) =>
    viewOfAtomicSwap(ctx, await ownIntent(request, request.params.atomicSwapId)),
});

const cancelRoute = atomicSwapRoute({
  method: 'POST',
  url: '/atomic-swaps/:atomicSwapId/cancel',
  hooks: walletTokenOnly,
  idempotency: WALLET_IDEMPOTENCY,
  schema: {
    operationId: 'cancelAtomicSwap',
    summary: 'Cancel an atomic swap before signing',
    description:
      "Only a prepared swap can be cancelled; its reservation of the pool's holdings ends. A " +
      'signed swap is the ledger’s: cancelling it is `intent_not_cancellable`.',
    tags: TAGS,
    security: SECURITY,
    params: AtomicSwapIdParamsSchema,
    response: { 200: withExamples(AtomicSwapSchema, ATOMIC_SWAP_CANCELLED_EXAMPLE) },
    problems: errorResponses([...INTENT_PROBLEMS, 'intent_not_cancellable'], {
      ...NOT_FOUND,
      intent_not_cancellable: 'the swap was signed already, or it ended; `intentStatus` says how',
    }),
  },
  handler: async ({ ctx }, request) => {
    const cancelled = await cancelAtomicSwap(
      ctx.db,
      {
        atomicSwapId: request.params.atomicSwapId,
        trader: walletPartyOf(request),
        now: ctx.clock.now(),
      },
      atomicSwapPortOf(ctx.ledger),
    );
    return viewOfAtomicSwap(ctx, cancelled);
  },
});

const streamEvents = ATOMIC_SWAPS.events({
  operationId: 'streamAtomicSwapEvents',
  description:
    'A `text/event-stream` of the atomic swap: the current state first, then one event per ' +
    'state change, ending after a terminal state. Each event has `event:` = the state name, ' +
    '`id:` = its sequence number, and `data:` = the AtomicSwap JSON as of that event. Resume ' +
    'with `Last-Event-ID` (or `lastEventId`); a `: heartbeat` comment arrives every 15 s. ' +
    'Streams count against the same caps as swap streams (429 `rate_limited`); poll ' +
    '`GET /v1/atomic-swaps/{atomicSwapId}`.',
  data: 'AtomicSwap',
  example: ATOMIC_SWAP_EVENTS_EXAMPLE,
  notFoundNote: "no atomic swap with this id for the wallet token's party",
});

/** The atomic-swap routes: a plugin registered with `AtomicSwapContext`, their hub and the caps. */
export const atomicSwapRoutes = ATOMIC_SWAPS.plugin([
  prepareRoute,
  executeRoute,
  getRoute,
  cancelRoute,
  streamEvents,
]);
