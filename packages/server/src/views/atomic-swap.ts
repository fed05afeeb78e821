/**
 * An atomic swap as a client reads it (docs/spec/atomic-swaps.md): its two legs with the signed
 * amounts, the prepared transaction to decode and the hash to sign, `expiresAt`, its state, and
 * once executed the update both legs committed in and the excess the pool kept. Beside the deposit
 * flow's swaps (the status routes, `track`) it is an AtomicSwapStatus, in that family's words.
 */
import {
  type AtomicSwap,
  type AtomicSwapProgress,
  type AtomicSwapState,
  type AtomicSwapStatus,
  isAtomicSwapTerminal,
} from '@poolparty/core';
import type { AtomicSwapRecord, HistoryStep, PoolRecord } from '@poolparty/store';

function failureOf(swap: AtomicSwapRecord) {
  return swap.failureCode === null
    ? null
    : { code: swap.failureCode, message: swap.failureMessage ?? '' };
}

export function atomicSwapView(
  swap: AtomicSwapRecord,
  pool: Pick<PoolRecord, 'swapParty'>,
): AtomicSwap {
  const p = swap.preparation;
  return {
    atomicSwapId: swap.atomicSwapId,
    poolId: swap.poolId,
    status: swap.status,
    traderParty: swap.traderParty,
    keyFingerprint: swap.keyFingerprint,
    input: {
      sender: swap.traderParty,
      receiver: pool.swapParty,
      token: swap.inputToken,
      tokenAdmin: swap.inputTokenAdmin,
      amount: swap.inputAmount.toString(),
    },
    output: {
      sender: pool.swapParty,
      receiver: swap.traderParty,
      token: swap.outputToken,
      tokenAdmin: swap.outputTokenAdmin,
      amount: swap.outputAmount.toString(),
    },
    quotedOutput: swap.quotedOutput.toString(),
    fees: {
      networkFeeAmount: swap.networkFeeAmount.toString(),
      poolFeeAmount: swap.poolFeeAmount.toString(),
      lpFeeAmount: swap.lpFeeAmount.toString(),
      platformFeeAmount: swap.platformFeeAmount.toString(),
      inputAmountAfterPoolFee: swap.inputAmountAfterPoolFee.toString(),
    },
    preparedTransaction: p.preparedTransaction,
    preparedTransactionHash: p.preparedTransactionHash,
    hashingSchemeVersion: p.hashingSchemeVersion,
    expiresAt: p.expiresAt.toISOString(),
    failure: failureOf(swap),
    updateId: swap.execution?.updateId ?? null,
    excess: swap.execution?.excess.toString() ?? null,
    createdAt: swap.createdAt.toISOString(),
    updatedAt: swap.updatedAt.toISOString(),
  };
}

/**
 * The swap in the status family (`GET /v1/swaps/{id}`, `track`): `expectedAmount` the signed
 * input, `minOutput` the signed output, `actualOutput` that output once completed; `history` its
 * outbox's state changes, oldest first.
 */
export function atomicSwapStatusView(
  swap: AtomicSwapRecord,
  history: readonly HistoryStep<AtomicSwapState>[],
): AtomicSwapStatus {
  const completed = swap.status === 'completed';
  return {
    kind: 'atomic',
    intentId: swap.atomicSwapId,
    atomicSwapId: swap.atomicSwapId,
    poolId: swap.poolId,
    status: swap.status,
    terminal: isAtomicSwapTerminal(swap.status),
    inputToken: swap.inputToken,
    inputTokenAdmin: swap.inputTokenAdmin,
    outputToken: swap.outputToken,
    outputTokenAdmin: swap.outputTokenAdmin,
    expectedAmount: swap.inputAmount.toString(),
    expectedOutput: swap.quotedOutput.toString(),
    minOutput: swap.outputAmount.toString(),
    actualOutput: completed ? swap.outputAmount.toString() : null,
    slippageTolerance: swap.slippageTolerance,
    traderParty: swap.traderParty,
    createdAt: swap.createdAt.toISOString(),
    completedAt: completed ? (swap.completedAt?.toISOString() ?? null) : null,
    expiresAt: swap.preparation.expiresAt.toISOString(),
    failureReason: failureOf(swap),
    updateId: swap.execution?.updateId ?? null,
    excess: swap.execution?.excess.toString() ?? null,
    history: history.map((step) => ({ status: step.status, at: step.at.toISOString() })),
  };
}

/** The status as anyone holding the swap's id reads it: without the trader. */
export function atomicSwapProgressView(status: AtomicSwapStatus): AtomicSwapProgress {
  const { traderParty, ...progress } = status;
  return progress;
}
