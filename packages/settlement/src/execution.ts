/**
 * Executing swaps (docs/spec/lifecycle.md#execution): deposit_received → forwarded → processing,
 * then the decision of core's `decideExecution` against the reserves of the moment. Queued swaps
 * execute in batches, one transaction per pool holding the pool's accounting row locked — so one
 * pool executes one batch at a time across processes. Engines list the same queued swaps; one that
 * finds another already executing a pool (`claimPoolExecution`) leaves that pool to it instead of
 * waiting for its whole batch, and goes on to the next pool; the pool is looked at again next
 * round, should the holder not have taken every swap. Each batch is read → decide → write:
 *
 * - read, before the transaction: the pools and the ledger's prices once per round, the swap
 *   party's holdings once per pool, so no ledger call runs while the pool is locked; then under
 *   the lock: the books, which of the intents are still queued, and the guard's figures;
 * - decide, in memory (execution-plan.ts): the swaps one after the other, each against the books
 *   as the swaps before it left them, exactly as if each had executed alone;
 * - write, set-based: every intent's state changes and events in one statement, the books in
 *   one, the fee events in one, the payout and refund commands in one.
 *
 * Success: the reserves move, a fee event is written, the payout command is recorded and the
 * intent reaches `sending_output`; the payout is submitted after the commit. Failure: the refund
 * is decided and recorded, and the intent stays in `processing` until it commits (or, with
 * nothing to refund, ends at once).
 *
 * A batch that fails (books that cannot hold a movement) is retried swap by swap, so the swaps
 * beside the one that fails still execute, as they would have without batches; a swap that keeps
 * failing alone is set aside for an operator (set-aside.ts).
 */
import {
  Amount,
  assert,
  assertPath,
  FailedAttempts,
  intentFeesOf,
  judgeItemFailure,
  SWAP_LIFECYCLE,
  type SwapState,
} from '@poolparty/core';
import type { Holding } from '@poolparty/ledger';
import type { Queryable } from '@poolparty/store';
import {
  announceEngineWork,
  claimPoolExecution,
  commandIdOf,
  depositIdsOfIntents,
  getIntentsInStatus,
  getPoolPriceReference,
  type IntentPath,
  type IntentRecord,
  insertFeeEvents,
  listPools,
  listQueuedIntents,
  moveIntentsAlong,
  type NewFeeEvent,
  type NewLedgerCommand,
  type PoolRecord,
  putPoolPriceReference,
  QUEUED_STATES,
  recordLedgerCommands,
  updatePoolAccounting,
} from '@poolparty/store';
import { AccountingError, lockPool } from './accounting.js';
import { Effects, type EngineContext } from './context.js';
import { readGuardFigures } from './execution-guard-inputs.js';
import {
  instrumentsOf,
  type PoolBatchPlan,
  planPoolBatch,
  type SwapPlan,
} from './execution-plan.js';
import type { TransferPayload } from './legs.js';
import { creditLpFees } from './lp-fees.js';
import { referenceSeedOf } from './pool-reference.js';
import { type PriceBook, readPriceBook, usdValue } from './prices.js';
import { isItemFailure, setSwapAside } from './set-aside.js';

/**
 * Executes queued intents, oldest first, in one batch per pool; returns how many it looked at.
 * The intents of a pool left to another engine are not counted: a round that only found pools
 * busy made no progress, so the work loop waits before listing them again rather than spinning.
 */
export async function executeQueued(
  ctx: EngineContext,
  failedSwaps: FailedAttempts<string> = new FailedAttempts(),
): Promise<number> {
  const queued = await listQueuedIntents(ctx.db, ctx.settings.executionBatchMax);
  if (queued.length === 0) return 0;
  const pools = await listPools(ctx.db);
  // The ledger's reads of every pool of the round at once: each is a round trip to the ledger.
  const [prices, holdings] = await Promise.all([
    readPriceBook(ctx.ledger, pools, ctx.clock.now()),
    holdingsOf(ctx, queued),
  ]);
  let lookedAt = 0;
  for (const [poolId, intents] of byPool(queued)) {
    const pool = pools.find((p) => p.poolId === poolId);
    assert(pool !== undefined, `intents name unknown pool ${poolId}`);
    const read = { prices, holdings: holdings.get(pool.swapParty) ?? [] };
    if ((await executeBatch(ctx, pool, intents, read, failedSwaps)) !== 'left_to_another') {
      lookedAt += intents.length;
    }
  }
  return lookedAt;
}

/** What became of a pool's batch: executed, found moved on, or left to the engine executing it. */
type BatchOutcome = 'executed' | 'moved_on' | 'left_to_another';

function byPool(intents: readonly IntentRecord[]): Map<string, IntentRecord[]> {
  const groups = new Map<string, IntentRecord[]>();
  for (const intent of intents) {
    const group = groups.get(intent.poolId);
    if (group === undefined) groups.set(intent.poolId, [intent]);
    else group.push(intent);
  }
  return groups;
}

/** What a pool's batch is decided against of the ledger, read before its transaction. */
interface LedgerReading {
  readonly prices: PriceBook;
  /** The pool's swap party's holdings. */
  readonly holdings: readonly Holding[];
}

async function executeBatch(
  ctx: EngineContext,
  pool: PoolRecord,
  intents: readonly IntentRecord[],
  read: LedgerReading,
  failedSwaps: FailedAttempts<string>,
): Promise<BatchOutcome> {
  if (intents.length > 1) {
    try {
      return await executePoolBatch(ctx, pool, intents, read);
    } catch (error) {
      if (!isItemFailure(error)) throw error;
      ctx.log.warn('an execution batch failed; executing its swaps one by one', {
        poolId: pool.poolId,
        swaps: intents.length,
        error: String(error),
      });
    }
  }
  let outcome: BatchOutcome = 'moved_on';
  for (const intent of intents) {
    const alone = await executeAlone(ctx, pool, intent, read, failedSwaps);
    if (alone !== 'moved_on') outcome = alone;
  }
  return outcome;
}

/**
 * Executes one swap. A failure of its own is counted and the swap is tried again next round,
 * the pool's other swaps going on meanwhile, until `itemAttemptsMax` failures; then it is set
 * aside with an operator flag (docs/operations.md#items-set-aside).
 */
async function executeAlone(
  ctx: EngineContext,
  pool: PoolRecord,
  intent: IntentRecord,
  read: LedgerReading,
  failedSwaps: FailedAttempts<string>,
): Promise<BatchOutcome> {
  try {
    const outcome = await executePoolBatch(ctx, pool, [intent], read);
    failedSwaps.settled(intent.intentId);
    return outcome;
  } catch (error) {
    if (!isItemFailure(error)) throw error;
    const attempts = failedSwaps.failed(intent.intentId);
    const details = { intentId: intent.intentId, attempts, error: String(error) };
    if (judgeItemFailure(attempts, ctx.settings.itemAttemptsMax) === 'retry') {
      ctx.log.warn('a swap failed to execute; it is tried again next round', details);
      return 'moved_on';
    }
    await setSwapAside(ctx, intent, { error, attempts });
    failedSwaps.settled(intent.intentId);
    ctx.log.error(
      'a swap kept failing to execute and was set aside with an operator flag',
      details,
    );
    return 'executed';
  }
}

async function executePoolBatch(
  ctx: EngineContext,
  pool: PoolRecord,
  intents: readonly IntentRecord[],
  { prices, holdings }: LedgerReading,
): Promise<BatchOutcome> {
  const effects = new Effects();
  const outcome = await ctx.db.transaction(async (tx): Promise<BatchOutcome> => {
    for (const intent of intents) ctx.faults?.executing?.(intent.intentId);
    // Another engine is executing this pool: waiting for its batch would mostly find these swaps
    // moved on, and any it did not list are looked at again next round.
    if (!(await claimPoolExecution(tx, pool.poolId))) return 'left_to_another';
    const accounting = await lockPool(tx, pool.poolId);
    const ids = intents.map((intent) => intent.intentId);
    const stillQueued = await getIntentsInStatus(tx, ids, QUEUED_STATES);
    if (stillQueued.length === 0) return 'moved_on';
    const current = new Map(stillQueued.map((intent) => [intent.intentId, intent]));
    const ordered = ids.flatMap((id) => current.get(id) ?? []);
    const now = ctx.clock.now();
    const since = new Date(now.getTime() - ctx.settings.velocityWindowMs);
    const reference = await getPoolPriceReference(tx, pool.poolId);
    const plan = planPoolBatch({
      pool,
      balances: accounting,
      intents: ordered,
      prices,
      holdings,
      guard: await readGuardFigures(tx, pool.poolId, since),
      reference,
      referenceSeed: reference === null ? await referenceSeedOf(tx, pool.poolId, now) : null,
      now,
      maxPriceImpact: ctx.settings.maxPriceImpact,
      guardThresholds: ctx.settings.guardThresholds,
    });
    await writePlan(tx, { pool, plan, prices, now, version: accounting.version });
    // Kept when the spot moved, or for a pool's first execution: a batch of refunds moves nothing.
    const traded = plan.swaps.some((swap) => swap.decision.kind === 'execute');
    if (plan.reference !== null && (traded || reference === null)) {
      await putPoolPriceReference(tx, pool.poolId, plan.reference);
    }
    if (traded) effects.poolsRepriced.add(pool.poolId);
    return 'executed';
  });
  if (outcome !== 'executed') return outcome;
  effects.apply(ctx);
  ctx.step('execution_committed');
  return outcome;
}

/** Swap parties whose holdings are read at once: a round may span many pools. */
export const HOLDINGS_READS_AT_ONCE = 8;

/** The holdings of the parties the intents deposited with (the pools' swap parties). */
async function holdingsOf(
  ctx: EngineContext,
  intents: readonly IntentRecord[],
): Promise<Map<string, readonly Holding[]>> {
  const parties = [...new Set(intents.map((intent) => intent.depositAddress))];
  const holdings = new Map<string, readonly Holding[]>();
  for (let i = 0; i < parties.length; i += HOLDINGS_READS_AT_ONCE) {
    const some = parties.slice(i, i + HOLDINGS_READS_AT_ONCE);
    const read = await Promise.all(some.map((party) => ctx.ledger.getHoldings(party)));
    for (const [j, party] of some.entries()) holdings.set(party, read[j] ?? []);
  }
  return holdings;
}

interface Writing {
  readonly pool: PoolRecord;
  readonly plan: PoolBatchPlan;
  readonly prices: PriceBook;
  readonly now: Date;
  readonly version: number;
}

async function writePlan(tx: Queryable, writing: Writing): Promise<void> {
  const { pool, plan, now } = writing;
  const paths = plan.swaps.map(pathOf);
  const moved = await moveIntentsAlong(tx, paths, now);
  assert(
    moved.length === paths.length,
    `intents of pool ${pool.poolId} left the queue under the pool lock`,
    { moved: moved.length, planned: paths.length },
  );
  const updated = await updatePoolAccounting(tx, pool.poolId, writing.version, plan.balances, now);
  if (updated === null) throw new AccountingError(`pool ${pool.poolId} changed under its lock`);
  const trades = plan.swaps.filter((swap) => swap.decision.kind === 'execute');
  // The LP fees joined the reserves in the write above: the positions are credited with them now.
  await creditLpFees(
    tx,
    pool.poolId,
    trades.map((swap) => ({ side: swap.inputSide, lpFee: intentFeesOf(swap.intent).lpFeeAmount })),
    now,
  );
  await insertFeeEvents(
    tx,
    trades.map((swap) => feeEventOf(swap, writing.prices, now)),
  );
  const refunds = plan.swaps.filter(
    (swap) => swap.decision.kind === 'refund' && swap.decision.refund.isPositive(),
  );
  const deposits = refunds.length > 0 ? await depositIdsOf(tx, refunds) : new Map();
  const commands = [
    ...trades.map((swap) => payoutOf(swap, pool, now)),
    ...refunds.map((swap) => refundOf(swap, deposits.get(swap.intent.intentId) ?? null, now)),
  ];
  await recordLedgerCommands(tx, commands);
  // Every worker sends due commands: told at the commit, the others take their share at once
  // instead of at their next idle round.
  if (commands.length > 0) await announceEngineWork(tx);
}

/** Every state the intent passes through in its execution, as the store's state writer checks them. */
function pathOf(swap: SwapPlan): IntentPath {
  const { intent, decision } = swap;
  const from = intent.status;
  const through: SwapState[] = from === 'deposit_received' ? ['forwarded'] : [];
  through.push('processing');
  if (decision.kind === 'execute') through.push('sending_output');
  else if (!decision.refund.isPositive()) through.push(decision.outcome);
  // Every edge is one of core's lifecycle: an unlisted one is a bug and throws before the books move.
  assertPath(SWAP_LIFECYCLE, from, through);
  if (decision.kind === 'execute') {
    return { intentId: intent.intentId, from, through, actualOutput: decision.output };
  }
  if (decision.refund.isPositive()) return { intentId: intent.intentId, from, through };
  return {
    intentId: intent.intentId,
    from,
    through,
    failureReason: decision.failureReason,
    refund: { amount: Amount.ZERO, networkFeeAmount: decision.kept, updateId: null },
  };
}

function feeEventOf(swap: SwapPlan, prices: PriceBook, now: Date): NewFeeEvent {
  const { intent, decision, deposit } = swap;
  assert(decision.kind === 'execute', 'a fee event is an executed swap’s', {
    intentId: intent.intentId,
  });
  const fees = intentFeesOf(intent);
  const price = prices.usdPrice(instrumentsOf(intent).input);
  const charged = fees.lpFeeAmount.add(fees.platformFeeAmount).add(fees.networkFeeAmount);
  return {
    poolId: intent.poolId,
    intentId: intent.intentId,
    apiKeyId: intent.apiKeyId,
    inputSide: swap.inputSide,
    inputAmount: deposit,
    outputAmount: decision.output,
    lpFeeAmount: fees.lpFeeAmount,
    platformFeeAmount: fees.platformFeeAmount,
    networkFeeAmount: fees.networkFeeAmount,
    // Half of the charged platform fee is the developer's; the half unit stays.
    developerEarnings: fees.platformFeeAmount.mulDiv(1n, 2n, 'down'),
    volumeUsd: usdValue(deposit, price) ?? null,
    feesUsd: usdValue(charged, price) ?? null,
    lpFeesUsd: usdValue(fees.lpFeeAmount, price) ?? null,
    at: now,
  };
}

function payoutOf(swap: SwapPlan, pool: PoolRecord, now: Date): NewLedgerCommand {
  const { intent, decision } = swap;
  assert(decision.kind === 'execute', 'a payout is an executed swap’s', {
    intentId: intent.intentId,
  });
  const payload: TransferPayload = {
    kind: 'transfer',
    poolId: pool.poolId,
    side: swap.outputSide,
    sender: pool.swapParty,
    receiver: intent.outputAddress,
    instrument: instrumentsOf(intent).output,
    amount: decision.output.toString(),
    reason: `payout:${intent.intentId}`,
  };
  return command({ intentId: intent.intentId, depositId: null }, 'payout', payload, now);
}

/** As `refundIntent` records it: the intent waits in `processing` until the refund commits. */
function refundOf(swap: SwapPlan, depositId: string | null, now: Date): NewLedgerCommand {
  const { intent, decision } = swap;
  assert(decision.kind === 'refund', 'a refund is a refused swap’s', {
    intentId: intent.intentId,
  });
  const payload: TransferPayload = {
    kind: 'transfer',
    poolId: intent.poolId,
    side: swap.inputSide,
    sender: intent.depositAddress,
    receiver: intent.walletParty,
    instrument: instrumentsOf(intent).input,
    amount: decision.refund.toString(),
    reason: `refund:${intent.intentId}`,
    settle: {
      from: 'processing',
      to: decision.outcome,
      failureReason: decision.failureReason,
      networkFeeAmount: decision.kept.toString(),
    },
  };
  return command({ intentId: intent.intentId, depositId }, 'refund', payload, now);
}

function command(
  subject: { readonly intentId: string; readonly depositId: string | null },
  leg: 'payout' | 'refund',
  payload: TransferPayload,
  now: Date,
): NewLedgerCommand {
  return {
    commandId: commandIdOf(subject.intentId, leg, 0),
    intentId: subject.intentId,
    depositId: subject.depositId,
    leg,
    attempt: 0,
    payload,
    createdAt: now,
  };
}

async function depositIdsOf(
  tx: Queryable,
  swaps: readonly SwapPlan[],
): Promise<Map<string, string>> {
  return depositIdsOfIntents(
    tx,
    swaps.map((swap) => swap.intent.intentId),
  );
}
