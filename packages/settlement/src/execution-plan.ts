/**
 * Deciding a batch of queued swaps of one pool, in memory and without I/O: each swap is priced
 * with core's `decideExecution` against the books as the swaps before it in the batch left them
 * (reserves, guard figures, the swap party's usable holdings), so each ends exactly as it would
 * have had it executed alone at that point. What to write follows from the plan (execution.ts).
 *
 * - A trade moves: inflight −= deposit; input reserve += priced input + LP fee; input fees +=
 *   platform + network fee; output reserve −= output; output outgoing += output.
 * - A refund moves: inflight −= deposit; outgoing += refund; fees += what is kept.
 * - The payout of an earlier trade in the batch has not left the swap party yet, but will: it is
 *   taken off the usable holdings a later swap of the batch is checked against.
 * - The pool's reference price (docs/spec/guard.md#reference) judges each swap at the spot the
 *   swaps before it left; a trade moves the spot from then on, a refund does not.
 */
import {
  Amount,
  assert,
  decideExecution,
  type ExecutionDecision,
  executionMovements,
  type GuardThresholds,
  type Instrument,
  instrumentKey,
  intentFeesOf,
  observeSpot,
  type PoolPriceReference,
  perUnitOfInput,
  priceImpactCapRatio,
  type Ratio,
  referenceAtExecution,
  referencePriceAt,
  reservePriceLimitOf,
  sideOf,
  spotOfReserves,
} from '@poolparty/core';
import type { Holding } from '@poolparty/ledger';
import type { IntentRecord, PoolBalances, PoolRecord } from '@poolparty/store';
import { applyMovements, type Side } from './accounting.js';
import {
  type GuardFigures,
  guardSnapshotFrom,
  poolThresholds,
  withSwap,
} from './execution-guard-inputs.js';
import { networkChargeBps, type PriceBook } from './prices.js';

export interface SwapPlan {
  readonly intent: IntentRecord;
  readonly inputSide: Side;
  readonly outputSide: Side;
  readonly deposit: Amount;
  readonly decision: ExecutionDecision;
}

export interface PoolBatchPlan {
  readonly swaps: readonly SwapPlan[];
  /** The books once every swap of the batch moved them. */
  readonly balances: PoolBalances;
  /** The pool's reference once every swap of the batch moved the spot; null without a price. */
  readonly reference: PoolPriceReference | null;
}

export interface PoolBatchInput {
  readonly pool: PoolRecord;
  /** The pool's books under its lock, before the batch. */
  readonly balances: PoolBalances;
  /** The queued intents, in the order they execute. */
  readonly intents: readonly IntentRecord[];
  readonly prices: PriceBook;
  /** The swap party's holdings as the ledger reported them before the batch. */
  readonly holdings: readonly Holding[];
  readonly guard: GuardFigures;
  /** The pool's reference as its latest execution left it; null before the first. */
  readonly reference: PoolPriceReference | null;
  /** Where a pool without a reference starts it: its recent snapshots' mean spot, if any. */
  readonly referenceSeed: Ratio | null;
  readonly now: Date;
  readonly maxPriceImpact: number;
  readonly guardThresholds: Partial<GuardThresholds>;
}

export function instrumentsOf(intent: IntentRecord): { input: Instrument; output: Instrument } {
  return {
    input: { id: intent.inputToken, admin: intent.inputTokenAdmin },
    output: { id: intent.outputToken, admin: intent.outputTokenAdmin },
  };
}

export function depositOf(intent: IntentRecord): Amount {
  assert(intent.deposit !== null, `intent ${intent.intentId} has no deposit facts`);
  return intent.deposit.amount;
}

/**
 * The unlocked holdings summed per instrument (`instrumentKey`), in one pass over them. Once per
 * batch: a swap party holds one holding per deposit it took in, so filtering them again for every
 * swap of a batch made planning grow with holdings × swaps.
 */
function usableByInstrument(holdings: readonly Holding[]): Map<string, Amount> {
  const usable = new Map<string, Amount>();
  for (const holding of holdings) {
    if (holding.lock !== null) continue;
    const key = instrumentKey(holding.instrument);
    usable.set(key, (usable.get(key) ?? Amount.ZERO).add(holding.amount));
  }
  return usable;
}

const RESERVE: Record<Side, keyof PoolBalances> = { a: 'reserveA', b: 'reserveB' };

/** The pool's reference when the batch starts: the stored one followed to the spot under the lock. */
function referenceAtStart(input: PoolBatchInput, limit: Ratio): PoolPriceReference | null {
  const spot = spotOfReserves(input.balances.reserveA, input.balances.reserveB);
  if (spot === null) return input.reference;
  const nowMs = input.now.getTime();
  return referenceAtExecution(input.reference, spot, input.referenceSeed, nowMs, limit);
}

/** The reference once a trade left the books at `balances`: the spot moved, the price did not. */
function referenceAfterTrade(
  reference: PoolPriceReference | null,
  balances: PoolBalances,
  nowMs: number,
  limit: Ratio,
): PoolPriceReference | null {
  const spot = spotOfReserves(balances.reserveA, balances.reserveB);
  return reference === null || spot === null
    ? reference
    : observeSpot(reference, spot, nowMs, limit);
}

/** Decides every swap of the batch in order; throws (AccountingError) when the books cannot hold. */
export function planPoolBatch(input: PoolBatchInput): PoolBatchPlan {
  const { pool, prices, now } = input;
  const thresholds = poolThresholds(input.guardThresholds, pool.guard);
  const limit = reservePriceLimitOf(thresholds);
  let balances = input.balances;
  let guard = input.guard;
  let reference = referenceAtStart(input, limit);
  /** Output already promised to earlier payouts of the batch, per instrument. */
  const promised = new Map<string, Amount>();
  const usable = usableByInstrument(input.holdings);
  const swaps: SwapPlan[] = [];
  for (const intent of input.intents) {
    const { input: inputInstrument, output } = instrumentsOf(intent);
    const inputSide = sideOf(pool, inputInstrument);
    const outputSide: Side = inputSide === 'a' ? 'b' : 'a';
    const reserves = {
      input: balances[RESERVE[inputSide]],
      output: balances[RESERVE[outputSide]],
    };
    const fees = intentFeesOf(intent);
    const outputKey = instrumentKey(output);
    const held = usable.get(outputKey) ?? Amount.ZERO;
    const promisedNow = promised.get(outputKey) ?? Amount.ZERO;
    const outputHoldings = held.gt(promisedNow) ? held.sub(promisedNow) : Amount.ZERO;
    const poolReference =
      reference === null
        ? null
        : perUnitOfInput(referencePriceAt(reference, now.getTime()), inputSide === 'a');
    const snapshot = guardSnapshotFrom(guard, {
      outputSide,
      reserves,
      input: inputInstrument,
      output,
      prices,
      poolReference,
      now,
    });
    const feeNow = prices.networkFee(inputInstrument, networkChargeBps(intent.networkFeePolicy));
    const deposit = depositOf(intent);
    const decision = decideExecution({
      deposit,
      fees,
      networkFeeAtExecution: feeNow ?? fees.networkFeeAmount,
      minOutput: intent.minOutput,
      reserves,
      maxPriceImpact: priceImpactCapRatio(pool.priceImpactCap ?? input.maxPriceImpact),
      outputHoldings,
      poolActive: pool.status === 'active',
      guard: { snapshot, thresholds },
    });
    const swap: SwapPlan = { intent, inputSide, outputSide, deposit, decision };
    balances = applyMovements(balances, executionMovements(swap));
    if (decision.kind === 'execute') {
      promised.set(outputKey, promisedNow.add(decision.output));
      guard = withSwap(guard, {
        inputSide,
        reserveAdded: deposit.sub(fees.networkFeeAmount).sub(fees.platformFeeAmount),
        output: decision.output,
      });
      reference = referenceAfterTrade(reference, balances, now.getTime(), limit);
    }
    swaps.push(swap);
  }
  return { swaps, balances, reference };
}
