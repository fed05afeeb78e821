/**
 * Creating a swap intent (docs/spec/lifecycle.md#intents): checks, quote, guard, then the intent
 * and its first event in one statement — with the answer stored under the request's
 * `Idempotency-Key` in the same transaction when it has one, so that the intent exists exactly
 * when its answer is kept. A retry under the key never gets here: the HTTP layer replays the
 * first response (docs/spec/protocol.md#idempotency).
 */

import type { CreateSwapBody, SwapIntent } from '@poolparty/core';
import { DomainError } from '@poolparty/core';
import type { ApiKeyRecord, Queryable } from '@poolparty/store';
import { ActiveIntentExistsError, insertIntent, isUniqueViolation } from '@poolparty/store';
import type { ServiceContext } from '../context.js';
import {
  newIntentFrom,
  quoteRequestOf,
  refuseUnsafeTrade,
  requireOwnWallet,
  resolveSlippage,
} from './create-intent.js';
import { newDepositReference, newIntentId } from './identifiers.js';
import { swapIntentView } from './intent-view.js';

/** Inserts tried with fresh identifiers before a collision is reported as a failure. */
export const IDENTIFIER_ATTEMPTS_MAX = 3;
/** The unique constraints a fresh random identifier can (astronomically rarely) collide with. */
const IDENTIFIER_CONSTRAINTS = ['intents_pkey', 'intents_deposit_reference_key'] as const;

export interface CreateSwapRequest {
  readonly body: CreateSwapBody;
  readonly walletParty: string;
  readonly apiKey: Pick<ApiKeyRecord, 'keyId' | 'developerParty'>;
}

export interface SwapCreationDeps {
  readonly ctx: Pick<ServiceContext, 'db' | 'quoter' | 'clock'>;
}

/** Stores the answer under the request's idempotency key, inside the intent's transaction. */
export type CreationAnswer = (
  tx: Queryable,
  response: { readonly status: number; readonly body: unknown },
) => Promise<void>;

/** The body as creation reads it: the default slippage tolerance filled in. */
export function understoodSwap(body: CreateSwapBody): CreateSwapBody {
  return { ...body, slippageTolerance: resolveSlippage(body.slippageTolerance) };
}

export async function createSwap(
  deps: SwapCreationDeps,
  request: CreateSwapRequest,
  answer: CreationAnswer | null = null,
): Promise<SwapIntent> {
  const slippageTolerance = resolveSlippage(request.body.slippageTolerance);
  requireOwnWallet(request.body.walletAddress, request.walletParty);
  try {
    return await createIntent(deps, request, slippageTolerance, answer);
  } catch (error) {
    if (!(error instanceof ActiveIntentExistsError)) throw error;
    throw new DomainError(
      'active_intent_exists',
      `Intent ${error.intentId} of this party, pool and input token is still pending; fund or cancel it first.`,
      { intentId: error.intentId },
    );
  }
}

async function createIntent(
  deps: SwapCreationDeps,
  request: CreateSwapRequest,
  slippageTolerance: number,
  answer: CreationAnswer | null,
): Promise<SwapIntent> {
  const { quoter, db, clock } = deps.ctx;
  const { apiKey, walletParty } = request;
  const priced = await quoter.quote(quoteRequestOf(request.body), {
    apiKeyId: apiKey.keyId,
    walletParty,
  });
  refuseUnsafeTrade(priced);
  return retryingCollisions(async () => {
    const intent = newIntentFrom(priced, {
      intentId: newIntentId(),
      depositReference: newDepositReference(),
      apiKeyId: apiKey.keyId,
      developerParty: apiKey.developerParty,
      walletParty,
      slippageTolerance,
      now: clock.now(),
    });
    // The intent and its first event are one statement; its answer, when kept, joins it.
    if (answer === null) return swapIntentView(await insertIntent(db, intent));
    return db.transaction(async (tx) => {
      const view = swapIntentView(await insertIntent(tx, intent));
      await answer(tx, { status: 201, body: view });
      return view;
    });
  });
}

export function isIdentifierCollision(error: unknown): boolean {
  return IDENTIFIER_CONSTRAINTS.some((constraint) => isUniqueViolation(error, constraint));
}

/**
 * Runs `attempt` again, with whatever fresh identifiers it draws, while it collides with an
 * existing intent id or deposit reference; at most `IDENTIFIER_ATTEMPTS_MAX` times.
 */
export async function retryingCollisions<T>(attempt: () => Promise<T>): Promise<T> {
  for (let attemptNo = 1; ; attemptNo++) {
    try {
      return await attempt();
    } catch (error) {
      if (attemptNo >= IDENTIFIER_ATTEMPTS_MAX || !isIdentifierCollision(error)) throw error;
    }
  }
}
