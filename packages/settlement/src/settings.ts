/**
 * The engine's limits and timings, each named with its unit, and the hooks it accepts: a log and,
 * for tests, a crash injected at a step boundary.
 */
import { DEFAULT_MAX_PRICE_IMPACT, type GuardThresholds } from '@poolparty/core';
import type { LedgerUpdate } from '@poolparty/ledger';

export interface EngineSettings {
  /** Name of the update-stream checkpoint in `ledger_offsets`. */
  readonly stream: string;
  /** Where ingestion starts on a store without a checkpoint (0: the ledger's beginning). */
  readonly startOffset: number;
  /**
   * Ledger updates applied in one store transaction at most: those the stream has delivered
   * already, never waited for. Bounds the transaction's length and the pool locks it holds.
   */
  readonly ingestBatchMax: number;
  /**
   * Intents executed per round of work, in one transaction per pool. A round's costs are mostly
   * fixed (the queue listed, the prices and the swap party's holdings read, per pool the lock and
   * the guard's window figures), so under a backlog a larger batch settles more per second: 50
   * held two engines near 370 swaps/s in bench/drain.ts, 500 drained 20 000 deposits at
   * 1 250/s. A quiet service fills no batch; what this bounds is how long one transaction holds
   * a pool's accounting row (about 80 ms for a third of 500 there).
   */
  readonly executionBatchMax: number;
  /**
   * Commands claimed for submission in one statement, one batch, at most. Fewer than a round
   * executes: an execution announces its payouts at commit, and every worker then claims a share
   * and sends it. On the canton path, where each send is several requests to the ledger, one
   * worker claiming 500 at once sent them all itself (80 % of its core, the other at 15 %).
   */
  readonly submissionBatchMax: number;
  /** Submissions of one batch waiting on the ledger at once (the work loop goes on meanwhile). */
  readonly submissionConcurrencyMax: number;
  /** Unconfirmed commands looked up per page during recovery. */
  readonly recoveryBatchMax: number;
  /** Pending intents expired per sweep. */
  readonly expiryBatchMax: number;
  /** Failed submissions of a refund before the intent ends `refund_failed`. */
  readonly refundAttemptsMax: number;
  /** Failed submissions of a payout before the trade is reversed and refunded. */
  readonly payoutAttemptsMax: number;
  /** Failed submissions of an accept or reject before it is given up. */
  readonly offerActionAttemptsMax: number;
  /** First backoff after a failed submission; doubles per attempt up to `retryDelayMaxMs`. */
  readonly retryBaseDelayMs: number;
  readonly retryDelayMaxMs: number;
  /** First reconnect delay after the update stream dropped; doubles up to the max. */
  readonly streamRetryBaseDelayMs: number;
  readonly streamRetryDelayMaxMs: number;
  /** Longest idle wait between rounds of work (expiry sweeps need no other wake-up). */
  readonly idleIntervalMs: number;
  /** The price-impact cap of pools without their own. */
  readonly maxPriceImpact: number;
  /** Service-wide guard thresholds; a pool's `guard` column overrides them. */
  readonly guardThresholds: Partial<GuardThresholds>;
  /** The guard's trailing window for output velocity. */
  readonly velocityWindowMs: number;
  /**
   * How long a worker's claim on a command it is submitting keeps other workers off it. A claim
   * of a worker that died runs out after this; a slower submission risks only a duplicate
   * submission under the same id, which the ledger deduplicates.
   */
  readonly commandClaimMs: number;
  /** Wall time between reconciliation runs of the ingest leader. */
  readonly reconcileIntervalMs: number;
  /** Updates after the checkpoint a reconciliation reads back at most; more defers the run. */
  readonly reconcileWindowUpdatesMax: number;
  /** Reads of the swap parties' holdings tried until none races a commit; then the run defers. */
  readonly holdingsReadAttemptsMax: number;
  /**
   * Attempts at applying one ledger update, or executing one swap, that fail by the item's own
   * fault before it is set aside with an operator flag (docs/operations.md#items-set-aside).
   */
  readonly itemAttemptsMax: number;
}

export const DEFAULT_ENGINE_SETTINGS: EngineSettings = {
  stream: 'ledger',
  startOffset: 0,
  ingestBatchMax: 256,
  executionBatchMax: 500,
  submissionBatchMax: 128,
  submissionConcurrencyMax: 16,
  recoveryBatchMax: 200,
  expiryBatchMax: 500,
  refundAttemptsMax: 8,
  payoutAttemptsMax: 8,
  offerActionAttemptsMax: 8,
  retryBaseDelayMs: 1_000,
  retryDelayMaxMs: 5 * 60_000,
  streamRetryBaseDelayMs: 200,
  streamRetryDelayMaxMs: 30_000,
  idleIntervalMs: 1_000,
  maxPriceImpact: DEFAULT_MAX_PRICE_IMPACT,
  guardThresholds: {},
  velocityWindowMs: 60 * 60_000,
  commandClaimMs: 60_000,
  reconcileIntervalMs: 60_000,
  reconcileWindowUpdatesMax: 10_000,
  holdingsReadAttemptsMax: 5,
  itemAttemptsMax: 5,
};

/** The boundaries between the engine's steps, where a test may inject a crash. */
export const ENGINE_STEPS = [
  /** Recovery finished looking up unconfirmed commands, before ingesting anything new. */
  'recovered',
  /** A batch of updates' facts and the checkpoint committed (deposits, attribution, confirmations). */
  'update_ingested',
  /** A pool's batch of intents executed: reserves moved and payouts recorded, or refunds decided. */
  'execution_committed',
  /** Pending intents past their expiry were expired. */
  'expiry_committed',
  /** A command is recorded and about to be submitted. */
  'command_recorded',
  /** The ledger answered a submission; its confirmation has not been applied yet. */
  'command_submitted',
  /** A submission failure was recorded (a retry scheduled, or the command given up). */
  'submission_failed',
  /** A reconciliation run was recorded. */
  'reconciliation_recorded',
] as const;

export type EngineStep = (typeof ENGINE_STEPS)[number];

export interface EngineFaults {
  /** Called at every step boundary; throwing there stops the engine as a crash would. */
  readonly crashAt?: (step: EngineStep) => void;
  /**
   * Called before each update is applied, inside its transaction; throwing there fails that
   * update's application as a bug in the code applying it would (the engine goes on).
   */
  readonly applying?: (update: LedgerUpdate) => void;
  /** Called before each swap is planned for execution; throwing there fails its execution. */
  readonly executing?: (intentId: string) => void;
}

export interface EngineLog {
  warn(message: string, details?: Record<string, unknown>): void;
  error(message: string, details?: Record<string, unknown>): void;
}

export const SILENT_LOG: EngineLog = { warn: () => {}, error: () => {} };

/**
 * How soon to retry a transfer whose named inputs another transfer of the same sender spent first
 * (two workers paying out of one swap party): its holdings are read again at the next attempt, so
 * a short pause, drawn at random so the two do not meet again, is all it needs.
 */
export const CONTENDED_INPUTS_RETRY_MS = { min: 10, max: 60 } as const;

/**
 * Attempts a command may take while its refusals are contended inputs: under load two workers
 * paying out of one swap party meet often, and each meeting is a refusal that changed nothing.
 * Counted against the leg's own budget, a few busy seconds would set a payout aside; bounded by
 * this, a sender whose inputs never free up still ends in a flag.
 */
export const CONTENDED_INPUTS_ATTEMPTS_MAX = 64;

/** Whether a command refused for the `attempts`-th time (1-based) is tried again. */
export function retriesAfter(
  failureCode: string | null,
  attempts: number,
  attemptsMax: number,
): boolean {
  const budget =
    failureCode === 'invalid_inputs'
      ? Math.max(attemptsMax, CONTENDED_INPUTS_ATTEMPTS_MAX)
      : attemptsMax;
  return attempts < budget;
}

/** The pause before a command's next attempt: short for contended inputs, else backoff. */
export function retryDelayMs(
  failureCode: string | null,
  attempt: number,
  settings: { readonly retryBaseDelayMs: number; readonly retryDelayMaxMs: number },
  random: () => number = Math.random,
): number {
  if (failureCode === 'invalid_inputs') {
    const { min, max } = CONTENDED_INPUTS_RETRY_MS;
    return Math.round(min + random() * (max - min));
  }
  return backoffMs(attempt, settings.retryBaseDelayMs, settings.retryDelayMaxMs);
}

/** Exponential backoff after the `attempt`-th failure (1-based), capped. */
export function backoffMs(attempt: number, baseMs: number, maxMs: number): number {
  const exponent = Math.min(Math.max(attempt - 1, 0), 30);
  return Math.min(baseMs * 2 ** exponent, maxMs);
}
