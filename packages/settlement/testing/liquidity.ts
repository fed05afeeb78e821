/**
 * Liquidity intents as `POST /v1/liquidity/intents` opens them, waiting for their states, and a
 * provider's whole position withdrawn.
 */
import { randomUUID } from 'node:crypto';
import { Amount } from '@poolparty/core';
import {
  type Database,
  getLiquidityIntent,
  type LiquidityIntentRecord,
  type LiquidityStatus,
  type Queryable,
  type WithdrawalRecord,
} from '@poolparty/store';
import { openLiquidityIntent } from '../src/liquidity-intents.js';
import { recordWithdrawal } from '../src/withdrawals.js';
import { type EngineHarness, type Party, SEEDED_POOL_ID, waitFor } from './engine.js';
import { SCALE_OUT_API_KEY_ID } from './scale-out.js';

export interface TestLiquidityIntent {
  readonly poolId: string;
  readonly providerParty: string;
  readonly developerParty: string;
  readonly now: Date;
  readonly amountA?: string;
  readonly amountB?: string;
  readonly slippageBps?: number;
}

/** A liquidity intent with fresh ids, under the tests' API key (`registerApiKey`). */
export function openTestLiquidityIntent(
  db: Database,
  request: TestLiquidityIntent,
): Promise<LiquidityIntentRecord> {
  return openLiquidityIntent(db, {
    ...request,
    liquidityIntentId: `liq_${randomUUID().replaceAll('-', '').slice(0, 26).toUpperCase()}`,
    depositReference: `pp-${randomUUID().slice(0, 12)}`,
    apiKeyId: SCALE_OUT_API_KEY_ID,
  });
}

/** A liquidity intent of `party` for a seeded pool of the harness, opened as the API opens one. */
export function openHarnessLiquidityIntent(
  h: EngineHarness,
  party: Party,
  amounts: Pick<TestLiquidityIntent, 'amountA' | 'amountB' | 'slippageBps'>,
  poolId = SEEDED_POOL_ID,
): Promise<LiquidityIntentRecord> {
  return openTestLiquidityIntent(h.db, {
    ...amounts,
    poolId,
    providerParty: party.partyId,
    developerParty: h.seed.developer.partyId,
    now: h.clock.now(),
  });
}

/** Polls the store until the intent is in one of `statuses` (a safety-net timeout, not a timing). */
export function waitForLiquidity(
  q: Queryable,
  id: string,
  ...statuses: LiquidityStatus[]
): Promise<LiquidityIntentRecord> {
  return waitFor(
    async () => {
      const intent = await getLiquidityIntent(q, id);
      return intent !== null && statuses.includes(intent.status) ? intent : null;
    },
    `liquidity intent ${id} to reach ${statuses.join('|')}`,
  );
}

/** Records the withdrawal of `party`'s whole position in the pool, with no minimum on either side. */
export function withdrawWholePosition(
  h: EngineHarness,
  party: Pick<Party, 'partyId'>,
  poolId = SEEDED_POOL_ID,
): Promise<WithdrawalRecord> {
  return recordWithdrawal(h.db, {
    poolId,
    providerParty: party.partyId,
    apiKeyId: SCALE_OUT_API_KEY_ID,
    burn: { shareBps: 10_000 },
    minimum: { a: Amount.ZERO, b: Amount.ZERO },
    now: h.clock.now(),
  });
}
