/**
 * Executing a signed atomic swap (docs/spec/atomic-swaps.md#execution-check), read → plan → write:
 *
 * 1. Accepting the signature: before `expiresAt` on the ledger's clock (`signatureTiming`), by
 *    the key the swap was prepared for, over its prepared hash (`signatureProblem`). A bad one
 *    changes nothing (the swap stays `prepared`); a good one is stored with the move to
 *    `executing`, so that from then on a restart can finish what it started.
 * 2. Finishing the execution, in one transaction holding the pool's accounting lock — the lock
 *    its deposit-flow executions take, so the two kinds are serialised on the pool's books: core's
 *    `decideAtomicExecution` against the books now; on `execute` the port executes the prepared
 *    transaction under its deterministic command id, and the swap is `completed` with the books
 *    moved by exactly the signed amounts (`atomicSwapMovements`) in the same transaction.
 *    A refusal submits nothing. A ledger refusal is `ledgerRefusalOutcome`'s: a spent input is
 *    prepared again (never resubmitted); an answer that leaves the outcome open keeps the swap
 *    `executing` for `resolveExecutingSwaps`, which looks the command up first — a swap the ledger
 *    committed is recorded as committed, never checked against a curve that moved since.
 *
 * The ledger's call runs inside the pool's transaction on purpose: the next execution of the
 * pool must be decided against books that hold this one.
 */
import {
  type AtomicSwapCommitment,
  type AtomicSwapState,
  atomicSwapCommitment,
  atomicSwapMovements,
  DomainError,
  decideAtomicExecution,
  decodeBase64,
  isAtomicSwapTerminal,
  ledgerRefusalOutcome,
  type PoolPriceReference,
  priceImpactCapRatio,
  type Ratio,
  reservePriceLimitOf,
  sideOf,
  signatureProblem,
  signatureTiming,
  unresolvedExecution,
} from '@poolparty/core';
import {
  type AtomicSwapPort,
  LedgerError,
  type LedgerPort,
  type PreparedAtomicSwap,
  verifyEd25519Signature,
} from '@poolparty/ledger';
import {
  type AtomicSwapRecord,
  executingAtomicSwaps,
  getAtomicSwap,
  getAtomicSwapForParty,
  getPool,
  lockPoolReservations,
  type PoolAccounting,
  type PoolRecord,
  type Queryable,
  reprepareAtomicSwap,
  transitionAtomicSwap,
} from '@poolparty/store';
import { lockPool, moveBalances } from './accounting.js';
import {
  type AtomicSwapDeps,
  atomicSwapCommandId,
  endSetAside,
  pickFreeHoldings,
  preparationOf,
} from './atomic-swap-prepare.js';
import type { QuoteInvalidator } from './context.js';
import { guardSnapshotFrom, poolThresholds, readGuardFigures } from './execution-guard-inputs.js';
import { creditLpFees } from './lp-fees.js';
import {
  guardReferenceOf,
  keepReferenceAfterTrade,
  referenceBeforeTrade,
} from './pool-reference.js';
import { type PriceBook, readPriceBook } from './prices.js';
import type { EngineLog, EngineSettings } from './settings.js';

export interface AtomicExecutionDeps extends AtomicSwapDeps {
  readonly ledger: AtomicSwapDeps['ledger'] &
    Parameters<typeof readPriceBook>[0] &
    Pick<LedgerPort, 'lookupCommand'>;
  readonly quoter: QuoteInvalidator;
  readonly log: EngineLog;
  readonly settings: Pick<
    EngineSettings,
    'maxPriceImpact' | 'guardThresholds' | 'velocityWindowMs' | 'expiryBatchMax'
  >;
}

/** How long after its signature an `executing` swap is left to the request executing it. */
export const EXECUTION_GRACE_MS = 10_000;

/**
 * The ledger's atomic-swap port, where it has one: the canton adapter, and the embedded ledger as
 * the service opens it (`withAtomicSwapPort`).
 */
export function atomicSwapPortOf(ledger: object): AtomicSwapPort | null {
  const port = ledger as Partial<AtomicSwapPort>;
  return typeof port.prepareAtomicSwap === 'function' &&
    typeof port.executeAtomicSwap === 'function'
    ? (port as AtomicSwapPort)
    : null;
}

export interface TraderSignature {
  readonly signature: Uint8Array;
  readonly publicKey: Uint8Array;
}

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

function noSuchSwap(atomicSwapId: string): DomainError {
  return new DomainError('not_found', `No atomic swap ${atomicSwapId}.`);
}

/**
 * Executes the trader's swap with their signature; answers the swap as it ends (or `executing`,
 * when the ledger's answer left the outcome open). A swap signed before (a signature sent twice,
 * a retry after a lost answer) is answered as it is: one execution, whatever arrives again.
 */
export async function executeAtomicSwap(
  deps: AtomicExecutionDeps,
  request: {
    readonly atomicSwapId: string;
    readonly trader: string;
    readonly signed: TraderSignature;
  },
): Promise<AtomicSwapRecord> {
  const { atomicSwapId, trader, signed } = request;
  const swap = await getAtomicSwapForParty(deps.db, atomicSwapId, trader);
  if (swap === null) throw noSuchSwap(atomicSwapId);
  if (swap.status !== 'prepared') return answeredAgain(swap);
  const now = deps.clock.now();
  if (signatureTiming(now, swap.preparation.expiresAt) === 'atomic_swap_expired') {
    await transitionAtomicSwap(deps.db, {
      atomicSwapId,
      from: ['prepared'],
      to: 'expired',
      at: now,
      failure: { code: 'atomic_swap_expired', message: 'no signature before expiresAt' },
    });
    endSetAside(deps, swap);
    throw expiredError(swap);
  }
  const problem = signatureProblem(
    {
      hash: decodeBase64(swap.preparation.preparedTransactionHash) ?? new Uint8Array(),
      signature: signed.signature,
      publicKey: signed.publicKey,
      keyFingerprint: swap.keyFingerprint,
    },
    verifyEd25519Signature,
  );
  if (problem !== null) {
    throw new DomainError(
      'invalid_transaction_signature',
      `${problem}; nothing was submitted, and the swap is still prepared.`,
    );
  }
  const accepted = await transitionAtomicSwap(deps.db, {
    atomicSwapId,
    from: ['prepared'],
    to: 'executing',
    at: now,
    signature: { signature: base64(signed.signature), publicKey: base64(signed.publicKey) },
  });
  // Another request moved it first (a second signature at the same moment, a cancel, the sweep).
  if (accepted === null) return answeredAgain(await mustGet(deps.db, atomicSwapId));
  return finishExecution(deps, accepted, 'first');
}

function expiredError(swap: AtomicSwapRecord): DomainError {
  return new DomainError(
    'atomic_swap_expired',
    `The atomic swap expired at ${swap.preparation.expiresAt.toISOString()} before its signature arrived; nothing moved. Prepare it again.`,
  );
}

/** A swap no longer waiting for its signature, as a repeated execute answers it. */
function answeredAgain(swap: AtomicSwapRecord): AtomicSwapRecord {
  if (swap.status === 'expired' && swap.signature === null) throw expiredError(swap);
  return swap;
}

async function mustGet(q: Queryable, atomicSwapId: string): Promise<AtomicSwapRecord> {
  const swap = await getAtomicSwap(q, atomicSwapId);
  if (swap === null) throw noSuchSwap(atomicSwapId);
  return swap;
}

/** The port's prepared swap, as the store keeps it. */
function preparedOf(swap: AtomicSwapRecord, pool: PoolRecord): PreparedAtomicSwap {
  const p = swap.preparation;
  const input = { id: swap.inputToken, admin: swap.inputTokenAdmin };
  const output = { id: swap.outputToken, admin: swap.outputTokenAdmin };
  return {
    commandId: p.commandId,
    trader: swap.traderParty,
    pool: pool.swapParty,
    input: {
      sender: swap.traderParty,
      receiver: pool.swapParty,
      instrument: input,
      amount: swap.inputAmount,
      holdingIds: p.inputHoldingIds,
    },
    output: {
      sender: pool.swapParty,
      receiver: swap.traderParty,
      instrument: output,
      amount: swap.outputAmount,
      holdingIds: p.outputHoldingIds,
    },
    expiresAt: p.expiresAt,
    preparedTransaction: p.preparedTransaction,
    preparedTransactionHash: p.preparedTransactionHash,
    hashingSchemeVersion: p.hashingSchemeVersion,
  };
}

function signatureOf(swap: AtomicSwapRecord): TraderSignature {
  const { signature, publicKey } = swap.signature ?? { signature: '', publicKey: '' };
  return {
    signature: decodeBase64(signature) ?? new Uint8Array(),
    publicKey: decodeBase64(publicKey) ?? new Uint8Array(),
  };
}

/** `first`: the command was never submitted. `recovering`: it may have been; look it up first. */
type Attempt = 'first' | 'recovering';

/**
 * The execution of an `executing` swap, under the pool's lock: decided, submitted, recorded. The
 * ledger's reads that need no lock (the prices, the pool) come first.
 */
async function finishExecution(
  deps: AtomicExecutionDeps,
  swap: AtomicSwapRecord,
  attempt: Attempt,
): Promise<AtomicSwapRecord> {
  const pool = await getPool(deps.db, swap.poolId);
  if (pool === null) throw noSuchSwap(swap.atomicSwapId);
  const prices = await readPriceBook(deps.ledger, [pool], deps.clock.now());
  const after = await deps.db.transaction(async (tx): Promise<AtomicSwapRecord> => {
    const accounting = await lockPool(tx, pool.poolId);
    const current = await getAtomicSwap(tx, swap.atomicSwapId, { forUpdate: true });
    if (current?.status !== 'executing') return current ?? swap;
    const now = deps.clock.now();
    if (attempt === 'recovering') {
      const known = await deps.ledger.lookupCommand(current.preparation.commandId);
      if (known !== null) {
        const scope = { pool, accounting, swap: current, now };
        const found = atomicSwapCommitment(
          current.outputAmount,
          feesOf(current),
          reservesOf(scope),
        );
        return recordCommitted(tx, scope, found, known.updateId);
      }
    }
    const limit = reservePriceLimitOf(poolThresholds(deps.settings.guardThresholds, pool.guard));
    const reference = await referenceBeforeTrade(tx, pool.poolId, accounting, now, limit);
    const plan = executionPlan(
      { pool, accounting, swap: current, prices, now, reference },
      deps,
      await guardOf(tx, pool, deps, now),
    );
    if (plan.kind === 'refuse') {
      return ended(tx, current, plan.state, { code: plan.code, message: plan.message }, now);
    }
    try {
      const result = await deps.atomicSwaps.executeAtomicSwap({
        prepared: preparedOf(current, pool),
        traderSignature: signatureOf(current),
      });
      const kept = reference === null ? undefined : { reference, limit };
      const scope = { pool, accounting, swap: current, now, kept };
      return recordCommitted(tx, scope, plan, result.updateId);
    } catch (error) {
      if (!(error instanceof LedgerError)) throw error;
      return afterRefusal(tx, deps, { pool, swap: current, now }, error);
    }
  });
  if (after.status === 'completed') deps.quoter.invalidate(pool.poolId, 'reserves');
  else if (isAtomicSwapTerminal(after.status)) endSetAside(deps, after);
  return after;
}

interface Scope {
  readonly pool: PoolRecord;
  readonly accounting: PoolAccounting;
  readonly swap: AtomicSwapRecord;
  readonly now: Date;
  /** The pool's reference the execution was judged against, kept again once it traded. */
  readonly kept?: { readonly reference: PoolPriceReference; readonly limit: Ratio };
}

function guardOf(tx: Queryable, pool: PoolRecord, deps: AtomicExecutionDeps, now: Date) {
  return readGuardFigures(
    tx,
    pool.poolId,
    new Date(now.getTime() - deps.settings.velocityWindowMs),
  );
}

function sidesOf(pool: PoolRecord, swap: AtomicSwapRecord) {
  const input = { id: swap.inputToken, admin: swap.inputTokenAdmin };
  const output = { id: swap.outputToken, admin: swap.outputTokenAdmin };
  const inputSide = sideOf(pool, input);
  const outputSide = inputSide === 'a' ? 'b' : 'a';
  return { input, output, inputSide, outputSide } as const;
}

function reservesOf(scope: Pick<Scope, 'pool' | 'accounting' | 'swap'>) {
  const { inputSide } = sidesOf(scope.pool, scope.swap);
  const { reserveA, reserveB } = scope.accounting;
  return inputSide === 'a'
    ? { input: reserveA, output: reserveB }
    : { input: reserveB, output: reserveA };
}

function feesOf(swap: AtomicSwapRecord) {
  return {
    amount: swap.inputAmount,
    networkFeeAmount: swap.networkFeeAmount,
    poolFeeAmount: swap.poolFeeAmount,
    lpFeeAmount: swap.lpFeeAmount,
    platformFeeAmount: swap.platformFeeAmount,
    inputAmountAfterPoolFee: swap.inputAmountAfterPoolFee,
  };
}

/** Core's decision over the books now, the pool's cap and its guard. */
function executionPlan(
  scope: Scope & { readonly prices: PriceBook; readonly reference: PoolPriceReference | null },
  deps: AtomicExecutionDeps,
  figures: Awaited<ReturnType<typeof readGuardFigures>>,
) {
  const { pool, swap, prices, now } = scope;
  const reserves = reservesOf(scope);
  const sides = sidesOf(pool, swap);
  const snapshot = guardSnapshotFrom(figures, {
    outputSide: sides.outputSide,
    reserves,
    input: sides.input,
    output: sides.output,
    prices,
    poolReference: guardReferenceOf(scope.reference, now, sides.inputSide === 'a'),
    now,
  });
  return decideAtomicExecution({
    signed: { input: swap.inputAmount, output: swap.outputAmount },
    fees: feesOf(swap),
    reserves,
    maxPriceImpact: priceImpactCapRatio(pool.priceImpactCap ?? deps.settings.maxPriceImpact),
    poolActive: pool.status === 'active',
    guard: { snapshot, thresholds: poolThresholds(deps.settings.guardThresholds, pool.guard) },
  });
}

/**
 * The ledger committed the swap: the books move as core's commitment says (the execution's own
 * plan, or, for a swap found committed after a restart, the commitment at the books now), the
 * swap is `completed` with the reserves it was recorded against (read under the lock, before the
 * move), the curve's output from them and the excess.
 */
async function recordCommitted(
  tx: Queryable,
  scope: Scope,
  commitment: AtomicSwapCommitment,
  updateId: string,
): Promise<AtomicSwapRecord> {
  const { pool, swap, now } = scope;
  const { curveOutput, excess } = commitment;
  const inputSide = sidesOf(pool, swap).inputSide;
  const reservesBefore = reservesOf(scope);
  const after = await moveBalances(
    tx,
    pool.poolId,
    atomicSwapMovements({ inputSide, ...commitment }),
    now,
  );
  // The LP fee joined the input reserve with the books: the positions' share of it, likewise.
  const lpFee = { side: inputSide, lpFee: swap.lpFeeAmount };
  await creditLpFees(tx, pool.poolId, [lpFee], now);
  if (scope.kept !== undefined) {
    const { reference, limit } = scope.kept;
    await keepReferenceAfterTrade(tx, pool.poolId, reference, after, now, limit);
  }
  const done = await transitionAtomicSwap(tx, {
    atomicSwapId: swap.atomicSwapId,
    from: ['executing'],
    to: 'completed',
    at: now,
    execution: { updateId, curveOutput, excess, reservesBefore },
    payload: { updateId, excess: excess.toString() },
  });
  if (done === null)
    throw new Error(`atomic swap ${swap.atomicSwapId} left executing under its lock`);
  return done;
}

async function ended(
  tx: Queryable,
  swap: AtomicSwapRecord,
  state: AtomicSwapState,
  failure: { readonly code: string; readonly message: string },
  now: Date,
): Promise<AtomicSwapRecord> {
  const moved = await transitionAtomicSwap(tx, {
    atomicSwapId: swap.atomicSwapId,
    from: ['executing'],
    to: state,
    at: now,
    failure,
  });
  return moved ?? swap;
}

/** A ledger refusal: prepared again, ended with nothing moved, or left open (`executing`). */
async function afterRefusal(
  tx: Queryable,
  deps: AtomicExecutionDeps,
  scope: Omit<Scope, 'accounting'>,
  error: LedgerError,
): Promise<AtomicSwapRecord> {
  const outcome = ledgerRefusalOutcome(error.code, error.message);
  if (outcome.kind === 'unresolved') {
    deps.log.warn('an atomic swap’s execution has no outcome yet; it is looked up again', {
      atomicSwapId: scope.swap.atomicSwapId,
      error: String(error),
    });
    return scope.swap;
  }
  if (outcome.kind === 'end') {
    return ended(tx, scope.swap, outcome.state, outcome, scope.now);
  }
  return prepareAgain(tx, deps, scope);
}

/**
 * A holding the transaction names was spent: the swap is prepared again from the pool's holdings
 * now, under the next command id, for a new signature; the old transaction is never submitted
 * again. A swap that cannot be prepared again ends `rejected` with nothing moved.
 */
async function prepareAgain(
  tx: Queryable,
  deps: AtomicExecutionDeps,
  scope: Omit<Scope, 'accounting'>,
): Promise<AtomicSwapRecord> {
  const { pool, swap, now } = scope;
  const sides = sidesOf(pool, swap);
  try {
    await lockPoolReservations(tx, pool.poolId);
    const window = swap.preparation.expiresAt.getTime() - swap.createdAt.getTime();
    const pick = await pickFreeHoldings(tx, deps, {
      pool,
      output: sides.output,
      amount: swap.outputAmount,
      forMs: window,
      // The swap's own holdings are free to it: those not spent may be named again.
      own: swap.preparation.outputHoldingIds,
    });
    if (pick.kind !== 'picked') throw new LedgerError('insufficient_holdings', 'no free holdings');
    const commandId = atomicSwapCommandId(swap.atomicSwapId, swap.preparations + 1);
    const expiresAt = new Date(now.getTime() + window);
    const prepared = await deps.atomicSwaps.prepareAtomicSwap({
      commandId,
      trader: swap.traderParty,
      pool: pool.swapParty,
      input: { instrument: sides.input, amount: swap.inputAmount },
      output: { instrument: sides.output, amount: swap.outputAmount, holdingIds: pick.holdingIds },
      expiresAt,
    });
    const again = await reprepareAtomicSwap(
      tx,
      swap.atomicSwapId,
      preparationOf(prepared, commandId, expiresAt),
      now,
    );
    return again ?? swap;
  } catch (error) {
    if (!(error instanceof LedgerError)) throw error;
    return ended(
      tx,
      swap,
      'rejected',
      { code: 'ledger_rejected', message: `prepared again, refused: ${error.message}` },
      now,
    );
  }
}

/**
 * Finds out what became of `executing` swaps (a restart, a lost answer): each is looked up by its
 * command id and recorded as committed, executed again under the same command id (which the
 * ledger commits at most once), or, once `expiresAt` and the ledger-time tolerance have passed
 * without a commit, `expired`. Returns how many ended.
 */
export async function resolveExecutingSwaps(deps: AtomicExecutionDeps): Promise<number> {
  const executing = await executingAtomicSwaps(deps.db, deps.settings.expiryBatchMax);
  let resolved = 0;
  for (const swap of executing) {
    const now = deps.clock.now();
    // A swap signed a moment ago is most likely still being executed by the request that signed
    // it; it is looked at once that request has had its time.
    if ((swap.signedAt?.getTime() ?? 0) > now.getTime() - EXECUTION_GRACE_MS) continue;
    const known = await deps.ledger.lookupCommand(swap.preparation.commandId);
    if (known === null && unresolvedExecution(now, swap.preparation.expiresAt) === 'expired') {
      const moved = await transitionAtomicSwap(deps.db, {
        atomicSwapId: swap.atomicSwapId,
        from: ['executing'],
        to: 'expired',
        at: now,
        failure: {
          code: 'atomic_swap_expired',
          message: 'the ledger never committed it by expiresAt',
        },
      });
      if (moved !== null) resolved += 1;
      endSetAside(deps, swap);
      continue;
    }
    const after = await finishExecution(deps, swap, 'recovering');
    if (isAtomicSwapTerminal(after.status) || after.status === 'prepared') resolved += 1;
  }
  return resolved;
}
