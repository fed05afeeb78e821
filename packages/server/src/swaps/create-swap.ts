/**
 * Creating a swap intent (docs/spec/lifecycle.md#intents): checks, quote, guard, then the intent,
 * its first event and — under an `Idempotency-Key` — the stored response, all in one transaction.
 */

import type { CreateSwapBody, SwapIntent } from '@poolparty/core';
import { DomainError } from '@poolparty/core';
import type { ApiKeyRecord } from '@poolparty/store';
import {
  ActiveIntentExistsError,
  getIdempotencyRecord,
  insertIntent,
  isUniqueViolation,
  type NewIntent,
  putIdempotencyRecord,
  type Queryable,
} from '@poolparty/store';
import type { ServiceContext } from '../context.js';
import {
  newIntentFrom,
  quoteRequestOf,
  refuseUnsafeTrade,
  requireOwnWallet,
  resolveSlippage,
} from './create-intent.js';
import { type InFlightKeys, type Replay, replayOf, requestHash } from './idempotency.js';
import { newDepositReference, newIntentId } from './identifiers.js';
import { swapIntentView } from './intent-view.js';

/** Inserts tried with fresh identifiers before a collision is reported as a failure. */
export const IDENTIFIER_ATTEMPTS_MAX = 3;
/** The unique constraints a fresh random identifier can (astronomically rarely) collide with. */
const IDENTIFIER_CONSTRAINTS = ['intents_pkey', 'intents_deposit_reference_key'] as const;

const CREATED = 201;

export interface CreateSwapRequest {
  readonly body: CreateSwapBody;
  readonly walletParty: string;
  readonly apiKey: Pick<ApiKeyRecord, 'keyId' | 'developerParty'>;
  readonly idempotencyKey?: string | undefined;
}

export interface CreateSwapAnswer extends Replay {
  /** True when this is the stored response of an earlier request with the same key. */
  readonly replayed: boolean;
}

export interface SwapCreationDeps {
  readonly ctx: Pick<ServiceContext, 'db' | 'quoter' | 'clock'>;
  readonly inFlight: InFlightKeys;
}

interface IdempotencyClaim {
  readonly apiKeyId: string;
  readonly key: string;
  readonly requestHash: string;
}

/** Another process stored a response under the key first; this transaction must not commit. */
class IdempotencyRaceLost extends Error {
  override readonly name = 'IdempotencyRaceLost';
}

export async function createSwap(
  deps: SwapCreationDeps,
  request: CreateSwapRequest,
): Promise<CreateSwapAnswer> {
  try {
    return await createOrReplay(deps, request);
  } catch (error) {
    if (!(error instanceof ActiveIntentExistsError)) throw error;
    throw new DomainError(
      'active_intent_exists',
      `Intent ${error.intentId} of this party, pool and input token is still pending; fund or cancel it first.`,
      { intentId: error.intentId },
    );
  }
}

async function createOrReplay(
  deps: SwapCreationDeps,
  request: CreateSwapRequest,
): Promise<CreateSwapAnswer> {
  const slippageTolerance = resolveSlippage(request.body.slippageTolerance);
  requireOwnWallet(request.body.walletAddress, request.walletParty);
  const key = request.idempotencyKey;
  if (key === undefined) {
    return created(await createIntent(deps, request, slippageTolerance, null));
  }
  const understood = { ...request.body, slippageTolerance };
  const claim: IdempotencyClaim = {
    apiKeyId: request.apiKey.keyId,
    key,
    requestHash: requestHash(understood, request.walletParty),
  };
  const release = deps.inFlight.claim(claim.apiKeyId, key);
  try {
    const stored = await storedReplay(deps, claim);
    if (stored !== null) return stored;
    try {
      return created(await createIntent(deps, request, slippageTolerance, claim));
    } catch (error) {
      // A duplicate in another process may have committed meanwhile: answer as it was answered.
      if (error instanceof ActiveIntentExistsError || error instanceof IdempotencyRaceLost) {
        const winner = await storedReplay(deps, claim);
        if (winner !== null) return winner;
      }
      throw error;
    }
  } finally {
    release();
  }
}

function created(intent: SwapIntent): CreateSwapAnswer {
  return { status: CREATED, body: intent, replayed: false };
}

async function storedReplay(
  deps: SwapCreationDeps,
  claim: IdempotencyClaim,
): Promise<CreateSwapAnswer | null> {
  const { db, clock } = deps.ctx;
  const record = await getIdempotencyRecord(db, claim.apiKeyId, claim.key, clock.now());
  return record === null ? null : { ...replayOf(record, claim.requestHash), replayed: true };
}

async function createIntent(
  deps: SwapCreationDeps,
  request: CreateSwapRequest,
  slippageTolerance: number,
  claim: IdempotencyClaim | null,
): Promise<SwapIntent> {
  const { quoter, db, clock } = deps.ctx;
  const { apiKey, walletParty } = request;
  const priced = await quoter.quote(quoteRequestOf(request.body), {
    apiKeyId: apiKey.keyId,
    walletParty,
  });
  refuseUnsafeTrade(priced);
  return retryingCollisions(() => {
    const intent = newIntentFrom(priced, {
      intentId: newIntentId(),
      depositReference: newDepositReference(),
      apiKeyId: apiKey.keyId,
      developerParty: apiKey.developerParty,
      walletParty,
      slippageTolerance,
      now: clock.now(),
    });
    return db.transaction((tx) => insertWithResponse(tx, intent, claim));
  });
}

/** The intent and its first event (one statement), then the response kept for retries. */
async function insertWithResponse(
  tx: Queryable,
  intent: NewIntent,
  claim: IdempotencyClaim | null,
): Promise<SwapIntent> {
  const view = swapIntentView(await insertIntent(tx, intent));
  if (claim === null) return view;
  const kept = await putIdempotencyRecord(tx, {
    ...claim,
    responseStatus: CREATED,
    responseBody: view,
    createdAt: intent.createdAt,
  });
  const keptIntentId = (kept.responseBody as { intentId?: unknown } | null)?.intentId;
  if (keptIntentId !== view.intentId) throw new IdempotencyRaceLost();
  return view;
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
