/**
 * `POST /v1/liquidity/intents`: settlement's `openLiquidityIntent` draws the intent's identifiers,
 * plans and writes it, as settlement's `openSwapIntent` does a swap intent.
 */
import type { CreateLiquidityIntentBody } from '@poolparty/core';
import { openLiquidityIntent } from '@poolparty/settlement';
import type { ApiKeyWithDeveloper, LiquidityIntentRecord } from '@poolparty/store';
import type { ServiceContext } from '../context.js';

export function createLiquidityIntent(
  ctx: Pick<ServiceContext, 'db' | 'clock'>,
  input: {
    readonly body: CreateLiquidityIntentBody;
    readonly providerParty: string;
    readonly apiKey: ApiKeyWithDeveloper;
  },
): Promise<LiquidityIntentRecord> {
  return openLiquidityIntent(ctx.db, {
    ...input.body,
    providerParty: input.providerParty,
    apiKeyId: input.apiKey.keyId,
    developerParty: input.apiKey.developer.partyId,
    now: ctx.clock.now(),
  });
}
