/**
 * The kinds of intent the engine settles, each as the parts the shared machinery calls: which of
 * a pool's parties its deposits go to, how a deposit to that party is taken (its own attribution
 * planner in core), and how its due intents expire. The update stream, the deposit's way in and
 * the expiry rounds are written once over these; a new kind of intent is one more entry here,
 * with its planners, its schema and its routes.
 *
 * The legs each kind sends (payout and refund, accept, forward, return) are told apart by the
 * command's leg and named by `isLiquidityCommand`; they stay with their kind's module.
 */
import type { IntentKind } from '@poolparty/core';
import type { PoolRecord, Queryable } from '@poolparty/store';
import type { EngineContext } from './context.js';
import { endAtomicSwaps, expireLiquidityIntents, expireSwapIntents } from './expiry.js';
import { type IncomingDeposit, takeDeposit } from './intake.js';
import { takeLiquidityDeposit } from './liquidity-intake.js';
import type { PriceBook } from './prices.js';

/** What taking a deposit sees of the batch it arrived in. */
export interface DepositScope {
  readonly tx: Queryable;
  readonly prices: PriceBook | null;
  readonly now: Date;
}

export interface EngineIntentKind {
  readonly kind: IntentKind;
  /** The pool's party this kind's deposits are sent to. */
  readonly depositParty: (pool: PoolRecord) => string;
  /** Takes one deposit to that party: attributed, refused or sent back. */
  readonly takeDeposit: (scope: DepositScope, incoming: IncomingDeposit) => Promise<void>;
  /** Expires one bounded batch of the kind's due intents; how many expired. */
  readonly expireDue: (ctx: EngineContext) => Promise<number>;
}

const SWAPS: EngineIntentKind = {
  kind: 'swap',
  depositParty: (pool) => pool.swapParty,
  // A swap deposit is priced on intake; without prices (none read yet) it waits for the next
  // delivery of its update, as before any deposit is taken.
  takeDeposit: async (scope, incoming) => {
    if (scope.prices !== null) await takeDeposit(scope.tx, incoming, scope.prices, scope.now);
  },
  expireDue: expireSwapIntents,
};

const LIQUIDITY: EngineIntentKind = {
  kind: 'liquidity',
  depositParty: (pool) => pool.lpParty,
  takeDeposit: (scope, incoming) => takeLiquidityDeposit(scope.tx, incoming, scope.now),
  expireDue: expireLiquidityIntents,
};

export const ENGINE_INTENT_KINDS: readonly EngineIntentKind[] = [SWAPS, LIQUIDITY];

/** The kind whose deposits `party` receives, with its pool; null for any other party. */
export function kindReceiving(
  pools: readonly PoolRecord[],
  party: string,
): { readonly kind: EngineIntentKind; readonly pool: PoolRecord } | null {
  for (const kind of ENGINE_INTENT_KINDS) {
    const pool = pools.find((candidate) => kind.depositParty(candidate) === party);
    if (pool !== undefined) return { kind, pool };
  }
  return null;
}

/**
 * Expires one bounded batch of each kind's due intents, and of the prepared atomic swaps (which
 * take no deposits, so they are no engine kind), and finds out what became of atomic swaps left
 * `executing`; returns how many ended.
 */
export async function expireDue(ctx: EngineContext): Promise<number> {
  let expired = 0;
  for (const kind of ENGINE_INTENT_KINDS) expired += await kind.expireDue(ctx);
  return expired + (await endAtomicSwaps(ctx));
}
