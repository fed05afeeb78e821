/**
 * The settlement engine (docs/spec/lifecycle.md): deposits in, outputs or refunds out, exactly
 * once.
 *
 * ledger update → ingest (checkpointed offset) → attribution → intent state change (+ event, one
 * transaction) → execution against the locked pool row → ledger command (recorded before
 * submission) → confirmation from the update stream → terminal state.
 */
import type { LedgerPort } from '@poolparty/ledger';
import type { Database } from '@poolparty/store';
import { type StreamLeadership, soleLeadership } from '@poolparty/store';
import type { ServiceClock } from './clock.js';
import type { QuoteInvalidator } from './context.js';
import { type Engine, SettlementEngine } from './engine.js';
import {
  DEFAULT_ENGINE_SETTINGS,
  type EngineFaults,
  type EngineLog,
  type EngineSettings,
  SILENT_LOG,
} from './settings.js';

export { cancelAtomicSwap, expireAtomicSwaps } from './atomic-swap-endings.js';
export {
  type AtomicExecutionDeps,
  atomicSwapPortOf,
  EXECUTION_GRACE_MS,
  executeAtomicSwap,
  resolveExecutingSwaps,
  type TraderSignature,
} from './atomic-swap-execution.js';
export {
  type AtomicSwapDeps,
  type AtomicSwapOrigin,
  atomicSwapCommandId,
  newAtomicSwapId,
  prepareAtomicSwap,
} from './atomic-swap-prepare.js';
export { LedgerClock, type LedgerClockOptions, type ServiceClock } from './clock.js';
export { CollectionRefused, recordCollection } from './collections.js';
export type { EngineContext, PoolChange, QuoteInvalidator } from './context.js';
export type { Engine } from './engine.js';
export * from './identifiers.js';
export {
  IDENTIFIER_ATTEMPTS_MAX,
  type IntentIdentifiers,
  type IntentOpening,
  isIdentifierCollision,
  type OpeningAnswer,
  openIntent,
  retryingCollisions,
} from './intent-opening.js';
export { cancelLiquidityIntent, type LiquidityCancel } from './liquidity-cancel.js';
export {
  LIQUIDITY_IDENTIFIER_CONSTRAINTS,
  LIQUIDITY_INTENT_VALIDITY_MS,
  type LiquidityIntentRequest,
  openLiquidityIntent,
} from './liquidity-intents.js';
export { creditLpFees, type LpFeeTaken, settledPositionFees } from './lp-fees.js';
export {
  listRefundCases,
  REFUND_CASES_MAX,
  type RefundCase,
  RefundRefused,
  type RetriedRefund,
  resolveRefund,
  retryRefund,
} from './operator-refunds.js';
export {
  HOLDINGS_POOLS_PER_ROUND_MAX,
  type HoldingsKeeping,
  type HoldingsRound,
  keepPool,
  keepPoolHoldings,
  type SideKept,
  sideHoldings,
  splitCommandId,
} from './pool-holdings.js';
export {
  judgePool,
  RECONCILIATION_MISMATCH,
  type ReconciliationReport,
  reconcile,
  type SideComparison,
} from './reconciler.js';
export { RESEND_ACTION, ResendRefused, type ResentCommand, resendFlagged } from './resend.js';
export {
  DEFAULT_ENGINE_SETTINGS,
  ENGINE_STEPS,
  type EngineFaults,
  type EngineLog,
  type EngineSettings,
  type EngineStep,
} from './settings.js';
export {
  INTENT_VALIDITY_MS,
  type IntentOrigin,
  newIntentFrom,
  openSwapIntent,
  type PricedSwap,
  refuseUnsafeTrade,
  SWAP_IDENTIFIER_CONSTRAINTS,
} from './swap-intents.js';
export {
  type SideSweep,
  type SweepRefusal,
  SweepRefused,
  type SweepSchedule,
  sweepableNow,
  sweepDueSides,
  sweepPoolNow,
  sweepReason,
  type TreasuryTarget,
} from './treasury.js';
export { recordWithdrawal, type WithdrawalRequest } from './withdrawals.js';

export interface EngineDeps {
  readonly db: Database;
  readonly ledger: LedgerPort;
  readonly clock: ServiceClock;
  /** Told which pool's reserves changed, so quotes are recomputed. */
  readonly quoter: QuoteInvalidator;
  readonly log?: EngineLog;
  readonly faults?: EngineFaults;
  readonly settings?: Partial<EngineSettings>;
  /**
   * Who ingests the stream when several workers share the store; default: this process alone
   * (PGlite, or a single worker).
   */
  readonly leadership?: StreamLeadership;
}

/**
 * Recovers unconfirmed commands (looked up on the ledger; resubmitted under their own ids when
 * they never committed), then starts ingesting and settling. Resolves once recovery is done.
 */
export async function startEngine(deps: EngineDeps): Promise<Engine> {
  const settings = { ...DEFAULT_ENGINE_SETTINGS, ...deps.settings };
  const engine = new SettlementEngine(
    { db: deps.db, ledger: deps.ledger, clock: deps.clock, quoter: deps.quoter },
    settings,
    deps.log ?? SILENT_LOG,
    deps.faults ?? {},
    deps.leadership ?? soleLeadership,
  );
  await engine.start();
  return engine;
}
