/**
 * An atomic swap as a client reads it (docs/spec/atomic-swaps.md): its two legs with the signed
 * amounts, the prepared transaction to decode and the hash to sign, `expiresAt`, its state, and
 * once executed the update both legs committed in and the excess the pool kept.
 */
import type { AtomicSwap } from '@poolparty/core';
import type { AtomicSwapRecord, PoolRecord } from '@poolparty/store';

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
    failure:
      swap.failureCode === null
        ? null
        : { code: swap.failureCode, message: swap.failureMessage ?? '' },
    updateId: swap.execution?.updateId ?? null,
    excess: swap.execution?.excess.toString() ?? null,
    createdAt: swap.createdAt.toISOString(),
    updatedAt: swap.updatedAt.toISOString(),
  };
}
