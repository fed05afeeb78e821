/**
 * `POST /v1/liquidity/intents`: the intent's identifiers are drawn here, as a swap intent's are;
 * settlement's `openLiquidityIntent` plans and writes it.
 */
import type { CreateLiquidityIntentBody } from '@poolparty/core';
import { openLiquidityIntent } from '@poolparty/settlement';
import type { ApiKeyWithDeveloper, LiquidityIntentRecord } from '@poolparty/store';
import type { ServiceContext } from '../context.js';
import { newDepositReference, randomCrockford } from '../swaps/identifiers.js';

const LIQUIDITY_INTENT_ID_SYMBOLS = 26;

function newLiquidityIntentId(): string {
  return `liq_${randomCrockford(LIQUIDITY_INTENT_ID_SYMBOLS)}`;
}

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
    liquidityIntentId: newLiquidityIntentId(),
    depositReference: newDepositReference(),
    providerParty: input.providerParty,
    apiKeyId: input.apiKey.keyId,
    developerParty: input.apiKey.developer.partyId,
    now: ctx.clock.now(),
  });
}
