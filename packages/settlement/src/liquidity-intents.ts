/**
 * Opening a liquidity intent (docs/spec/liquidity.md#intents): read the pool and its books, plan
 * the terms with core's `planLiquidityIntent`, write the intent on the skeleton every kind of
 * intent opens on. Refusals are domain errors.
 */
import {
  Amount,
  DomainError,
  LIQUIDITY_SLIPPAGE_BPS_DEFAULT,
  liquidityOf,
  planLiquidityIntent,
} from '@poolparty/core';
import {
  ActiveLiquidityIntentExistsError,
  type Database,
  getPool,
  insertLiquidityIntent,
  type LiquidityIntentRecord,
} from '@poolparty/store';
import { newLiquidityIntentId } from './identifiers.js';
import { type IntentOpening, openIntent } from './intent-opening.js';

/** A liquidity intent is valid for 24 hours, as a swap intent is. */
export const LIQUIDITY_INTENT_VALIDITY_MS = 24 * 60 * 60 * 1000;

/** The unique constraints a fresh liquidity intent id or deposit reference can collide with. */
export const LIQUIDITY_IDENTIFIER_CONSTRAINTS = [
  'liquidity_intents_pkey',
  'liquidity_intents_deposit_reference_key',
];

export interface LiquidityIntentRequest {
  /** Drawn fresh when absent, as the service does; given by tests that name their intents. */
  readonly liquidityIntentId?: string;
  readonly depositReference?: string;
  readonly poolId: string;
  readonly amountA?: string;
  readonly amountB?: string;
  readonly slippageBps?: number;
  readonly providerParty: string;
  readonly apiKeyId: string;
  readonly developerParty: string;
  readonly now: Date;
}

export async function openLiquidityIntent(
  db: Database,
  request: LiquidityIntentRequest,
): Promise<LiquidityIntentRecord> {
  const pool = await getPool(db, request.poolId);
  if (pool === null) {
    throw new DomainError('pool_not_found', `No pool ${request.poolId}.`);
  }
  if (pool.status !== 'active') {
    throw new DomainError('pool_paused', `Pool ${pool.poolId} is paused; it takes no liquidity.`);
  }
  const slippageBps = request.slippageBps ?? LIQUIDITY_SLIPPAGE_BPS_DEFAULT;
  const terms = planLiquidityIntent(
    liquidityOf(pool.accounting, pool.lpSupply),
    {
      ...(request.amountA !== undefined && { a: Amount.parse(request.amountA) }),
      ...(request.amountB !== undefined && { b: Amount.parse(request.amountB) }),
    },
    slippageBps,
  );
  if (terms.kind === 'refused') throw new DomainError(terms.code, terms.message);
  const { now } = request;
  const opening: IntentOpening<LiquidityIntentRecord, LiquidityIntentRecord> = {
    identifierConstraints: LIQUIDITY_IDENTIFIER_CONSTRAINTS,
    newIntentId: () => request.liquidityIntentId ?? newLiquidityIntentId(),
    insert: (q, ids) =>
      insertLiquidityIntent(q, {
        liquidityIntentId: ids.intentId,
        poolId: pool.poolId,
        apiKeyId: request.apiKeyId,
        developerParty: request.developerParty,
        providerParty: request.providerParty,
        depositAddress: pool.lpParty,
        depositReference: request.depositReference ?? ids.depositReference,
        expectedA: terms.expected.a,
        expectedB: terms.expected.b,
        expectedUnits: terms.expectedUnits,
        minimumUnits: terms.minimumUnits,
        slippageBps,
        createdAt: now,
        expiresAt: new Date(now.getTime() + LIQUIDITY_INTENT_VALIDITY_MS),
      }),
    view: (record) => record,
    refusal: (error) => activeLiquidityIntentRefusal(error, pool.poolId),
  };
  return openIntent(db, opening);
}

function activeLiquidityIntentRefusal(error: unknown, poolId: string): DomainError | null {
  if (!(error instanceof ActiveLiquidityIntentExistsError)) return null;
  return new DomainError(
    'active_liquidity_intent_exists',
    `Liquidity intent ${error.liquidityIntentId} for pool ${poolId} is still open; finish or cancel it first.`,
    { liquidityIntentId: error.liquidityIntentId },
  );
}
