/**
 * `POST /v1/swaps` (docs/spec/lifecycle.md#intents): the request's own checks, its quote, then
 * settlement's `openSwapIntent`, which refuses an unsafe trade and writes the intent and its first
 * event in one statement — with the answer stored under the request's `Idempotency-Key` in the
 * same transaction when it has one, so that the intent exists exactly when its answer is kept. A
 * retry under the key never gets here: the HTTP layer replays the first response
 * (docs/spec/protocol.md#idempotency).
 */

import type { CreateSwapBody, SwapIntent } from '@poolparty/core';
import { type OpeningAnswer, openSwapIntent } from '@poolparty/settlement';
import type { ApiKeyRecord } from '@poolparty/store';
import type { ServiceContext } from '../context.js';
import { quoteRequestOf, requireOwnWallet, resolveSlippage } from './create-intent.js';
import { swapIntentView } from './intent-view.js';

export interface CreateSwapRequest {
  readonly body: CreateSwapBody;
  readonly walletParty: string;
  readonly apiKey: Pick<ApiKeyRecord, 'keyId' | 'developerParty'>;
}

export interface SwapCreationDeps {
  readonly ctx: Pick<ServiceContext, 'db' | 'quoter' | 'clock'>;
}

/** Stores the answer under the request's idempotency key, inside the intent's transaction. */
export type CreationAnswer = OpeningAnswer;

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
  const { quoter, db, clock } = deps.ctx;
  const { apiKey, walletParty } = request;
  const priced = await quoter.quote(quoteRequestOf(request.body), {
    apiKeyId: apiKey.keyId,
    walletParty,
  });
  const origin = {
    apiKeyId: apiKey.keyId,
    developerParty: apiKey.developerParty,
    walletParty,
    slippageTolerance,
    now: clock.now(),
  };
  return openSwapIntent(db, { priced, origin }, { view: swapIntentView, answer });
}
