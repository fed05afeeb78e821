/**
 * Executing swaps (SPEC §7.1): deposit_received → forwarded → processing, then the decision of
 * core's `decideExecution` against the reserves of the moment, all in one transaction that holds
 * the pool's accounting row locked — so one pool executes one swap at a time across processes,
 * and a second executor that waited for the lock finds the intent moved on and does nothing.
 *
 * Success: the reserves move, a fee event is written, the payout command is recorded and the
 * intent reaches `sending_output`; the payout is submitted after the commit. Failure: the refund
 * is decided and recorded, and the intent stays in `processing` until it commits.
 *
 * Ledger facts the decision needs (the swap party's holdings, the open mining round) are read
 * before the transaction, so no ledger call runs while the pool is locked.
 */
import {
  Amount,
  decideExecution,
  type ExecutionDecision,
  type Instrument,
  priceImpactCapRatio,
} from '@poolparty/core';
import type { Queryable } from '../store/database.js';
import { insertFeeEvent } from '../store/fee-events.js';
import { getIntent, type IntentRecord, listIntentsInStatus } from '../store/intents.js';
import { listPools, type PoolAccounting, type PoolRecord } from '../store/pools.js';
import { credit, debit, lockPool, moveBalances, type Side } from './accounting.js';
import { Effects, type EngineContext } from './context.js';
import { guardSnapshot, poolThresholds } from './guard-inputs.js';
import { intentFees, recordTransfer, refundIntent, sideOf } from './legs.js';
import { moveIntent } from './moves.js';
import { networkChargeBps, type PriceBook, readPriceBook, usdValue } from './prices.js';

const QUEUED = ['deposit_received', 'forwarded'] as const;

/** Executes queued intents, oldest first; returns how many it looked at. */
export async function executeQueued(ctx: EngineContext): Promise<number> {
  const queued = await listIntentsInStatus(ctx.db, QUEUED, ctx.settings.executionBatchMax);
  for (const intent of queued) await executeIntent(ctx, intent.intentId);
  return queued.length;
}

interface LedgerFacts {
  readonly pools: readonly PoolRecord[];
  readonly prices: PriceBook;
  readonly outputHoldings: Amount;
}

async function readLedgerFacts(ctx: EngineContext, intent: IntentRecord): Promise<LedgerFacts> {
  const pools = await listPools(ctx.db);
  const prices = await readPriceBook(ctx.ledger, pools);
  const holdings = await ctx.ledger.getHoldings(intent.depositAddress);
  const usable = holdings.filter(
    (h) =>
      h.lock === null &&
      h.instrument.id === intent.outputToken &&
      h.instrument.admin === intent.outputTokenAdmin,
  );
  return { pools, prices, outputHoldings: Amount.sum(usable.map((h) => h.amount)) };
}

export async function executeIntent(ctx: EngineContext, intentId: string): Promise<void> {
  const intent = await getIntent(ctx.db, intentId);
  if (intent === null || !isQueued(intent)) return;
  const facts = await readLedgerFacts(ctx, intent);
  const effects = new Effects();
  const executed = await ctx.db.transaction(async (tx) => {
    const accounting = await lockPool(tx, intent.poolId);
    const current = await getIntent(tx, intentId);
    if (current === null || !isQueued(current)) return false;
    const now = ctx.clock.now();
    await enterProcessing(tx, current, now);
    const pool = facts.pools.find((p) => p.poolId === current.poolId);
    if (pool === undefined)
      throw new Error(`intent ${intentId} names unknown pool ${current.poolId}`);
    const scope = { tx, ctx, intent: current, pool, accounting, facts, now, effects };
    const decision = await decide(scope);
    if (decision.kind === 'execute') await applyTrade(scope, decision);
    else await applyRefund(scope, decision);
    return true;
  });
  if (!executed) return;
  effects.apply(ctx);
  ctx.step('execution_committed');
}

function isQueued(intent: IntentRecord): boolean {
  return (QUEUED as readonly string[]).includes(intent.status);
}

async function enterProcessing(tx: Queryable, intent: IntentRecord, now: Date): Promise<void> {
  if (intent.status === 'deposit_received') {
    await moveIntent(tx, {
      intentId: intent.intentId,
      from: 'deposit_received',
      to: 'forwarded',
      at: now,
    });
  }
  const processing = await moveIntent(tx, {
    intentId: intent.intentId,
    from: 'forwarded',
    to: 'processing',
    at: now,
  });
  if (processing === null)
    throw new Error(`intent ${intent.intentId} left the queue under the pool lock`);
}

interface ExecutionScope {
  readonly tx: Queryable;
  readonly ctx: EngineContext;
  readonly intent: IntentRecord;
  readonly pool: PoolRecord;
  readonly accounting: PoolAccounting;
  readonly facts: LedgerFacts;
  readonly now: Date;
  readonly effects: Effects;
}

function instruments(intent: IntentRecord): { input: Instrument; output: Instrument } {
  return {
    input: { id: intent.inputToken, admin: intent.inputTokenAdmin },
    output: { id: intent.outputToken, admin: intent.outputTokenAdmin },
  };
}

function sides(scope: ExecutionScope): { inputSide: Side; outputSide: Side } {
  const inputSide = sideOf(scope.pool, instruments(scope.intent).input);
  return { inputSide, outputSide: inputSide === 'a' ? 'b' : 'a' };
}

function depositOf(intent: IntentRecord): Amount {
  if (intent.deposit === null) throw new Error(`intent ${intent.intentId} has no deposit facts`);
  return Amount.parse(intent.deposit.amount);
}

async function decide(scope: ExecutionScope): Promise<ExecutionDecision> {
  const { tx, ctx, intent, pool, accounting, facts, now } = scope;
  const { input, output } = instruments(intent);
  const { inputSide, outputSide } = sides(scope);
  const reserveOf = (side: Side) =>
    Amount.parse(side === 'a' ? accounting.reserveA : accounting.reserveB);
  const reserves = { input: reserveOf(inputSide), output: reserveOf(outputSide) };
  const fees = intentFees(intent);
  const snapshot = await guardSnapshot(tx, {
    poolId: pool.poolId,
    outputSide,
    reserves,
    input,
    output,
    prices: facts.prices,
    now,
    windowMs: ctx.settings.velocityWindowMs,
  });
  const feeNow = facts.prices.networkFee(input, networkChargeBps(intent.networkFeePolicy));
  return decideExecution({
    deposit: depositOf(intent),
    fees,
    networkFeeAtExecution: feeNow ?? fees.networkFeeAmount,
    minOutput: Amount.parse(intent.minOutput),
    reserves,
    maxPriceImpact: priceImpactCapRatio(pool.priceImpactCap ?? ctx.settings.maxPriceImpact),
    outputHoldings: facts.outputHoldings,
    poolActive: pool.status === 'active',
    guard: { snapshot, thresholds: poolThresholds(ctx.settings.guardThresholds, pool.guard) },
  });
}

async function applyTrade(
  scope: ExecutionScope,
  decision: Extract<ExecutionDecision, { kind: 'execute' }>,
): Promise<void> {
  const { tx, intent, pool, now, effects } = scope;
  const { inputSide, outputSide } = sides(scope);
  const deposit = depositOf(intent);
  await moveBalances(
    tx,
    pool.poolId,
    [
      debit(inputSide, 'inflight', deposit),
      credit(inputSide, 'reserve', decision.inputReserveAdded),
      credit(inputSide, 'fees', decision.feesCollected),
      debit(outputSide, 'reserve', decision.output),
      credit(outputSide, 'outgoing', decision.output),
    ],
    now,
  );
  await writeFeeEvent(scope, inputSide, decision.output);
  await recordTransfer(
    tx,
    { intentId: intent.intentId, depositId: null },
    'payout',
    {
      kind: 'transfer',
      poolId: pool.poolId,
      side: outputSide,
      sender: pool.swapParty,
      receiver: intent.outputAddress,
      instrument: instruments(intent).output,
      amount: decision.output.toString(),
      reason: `payout:${intent.intentId}`,
    },
    now,
  );
  await moveIntent(tx, {
    intentId: intent.intentId,
    from: 'processing',
    to: 'sending_output',
    at: now,
    actualOutput: decision.output.toString(),
  });
  effects.poolsRepriced.add(pool.poolId);
}

async function writeFeeEvent(
  scope: ExecutionScope,
  inputSide: Side,
  output: Amount,
): Promise<void> {
  const { intent, facts, now } = scope;
  const fees = intentFees(intent);
  const price = facts.prices.usdPrice(instruments(intent).input);
  const deposit = depositOf(intent);
  const charged = fees.lpFeeAmount.add(fees.platformFeeAmount).add(fees.networkFeeAmount);
  await insertFeeEvent(scope.tx, {
    poolId: intent.poolId,
    intentId: intent.intentId,
    apiKeyId: intent.apiKeyId,
    inputSide,
    inputAmount: deposit.toString(),
    outputAmount: output.toString(),
    lpFeeAmount: fees.lpFeeAmount.toString(),
    platformFeeAmount: fees.platformFeeAmount.toString(),
    networkFeeAmount: fees.networkFeeAmount.toString(),
    // Half of the charged platform fee is the developer's (SPEC §5.3); the half unit stays.
    developerEarnings: fees.platformFeeAmount.mulDiv(1n, 2n, 'down').toString(),
    volumeUsd: usdValue(deposit, price)?.toString() ?? null,
    feesUsd: usdValue(charged, price)?.toString() ?? null,
    lpFeesUsd: usdValue(fees.lpFeeAmount, price)?.toString() ?? null,
    at: now,
  });
}

async function applyRefund(
  scope: ExecutionScope,
  decision: Extract<ExecutionDecision, { kind: 'refund' }>,
): Promise<void> {
  const { tx, intent, pool, now } = scope;
  const { inputSide } = sides(scope);
  await moveBalances(
    tx,
    pool.poolId,
    [
      debit(inputSide, 'inflight', depositOf(intent)),
      credit(inputSide, 'outgoing', decision.refund),
      credit(inputSide, 'fees', decision.kept),
    ],
    now,
  );
  await refundIntent(tx, {
    intent,
    side: inputSide,
    settle: {
      from: 'processing',
      to: decision.outcome,
      failureReason: decision.failureReason,
      networkFeeAmount: decision.kept.toString(),
    },
    refund: decision.refund,
    now,
  });
}
