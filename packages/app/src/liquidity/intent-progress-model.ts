/**
 * Where a liquidity intent is, in words (docs/spec/liquidity.md#intents): the steps from
 * created to units credited, the outcome of one that ended otherwise, the sides whose deposit
 * has not arrived, and the deposit the wallet sends for a side.
 */
import type { Side } from '@poolparty/core';
import type { LiquidityIntent } from '@poolparty/sdk/liquidity';
import type { DepositTerms } from '../wallets/wallet.js';

export type IntentStatus = LiquidityIntent['status'];

/** The way to `completed`, in order. */
const PATH: readonly IntentStatus[] = ['pending', 'partial', 'joining', 'completed'];

export interface IntentStep {
  readonly status: IntentStatus;
  readonly label: string;
  readonly reached: boolean;
  readonly current: boolean;
}

const STEP_LABEL: Readonly<Record<IntentStatus, string>> = {
  pending: 'Waiting for your two deposits',
  partial: 'One side arrived; waiting for the other',
  joining: 'Both sides arrived; joining the pool',
  completed: 'Units credited to your position',
  refunding: 'Returning what arrived',
  refunded: 'Returned to you',
  expired: 'Expired: nothing arrived in 24 hours',
  cancelled: 'Cancelled',
  refund_failed: 'The return failed: an operator returns it',
};

export function stepsOf(status: IntentStatus): IntentStep[] {
  const at = PATH.indexOf(status);
  const onPath = at >= 0;
  const steps = PATH.map((step, index) => ({
    status: step,
    label: STEP_LABEL[step],
    reached: onPath ? index <= at : false,
    current: step === status,
  }));
  if (onPath) return steps;
  // An intent that left the path: what it reached before, then where it ended.
  return [
    { ...(steps[0] as IntentStep), reached: true },
    { status, label: STEP_LABEL[status], reached: true, current: true },
  ];
}

export function isEnded(status: IntentStatus): boolean {
  return ['completed', 'refunded', 'expired', 'cancelled', 'refund_failed'].includes(status);
}

export function isGood(status: IntentStatus): boolean {
  return status === 'completed';
}

/** The sides whose deposit the service has not seen, while deposits are still taken. */
export function missingSides(intent: LiquidityIntent): Side[] {
  if (intent.status !== 'pending' && intent.status !== 'partial') return [];
  const arrived = new Set(intent.deposits.map((deposit) => deposit.side));
  return (['a', 'b'] as const).filter((side) => !arrived.has(side));
}

/**
 * The deposit of one side, as the wallet sends a swap's: to the LP party with the reference as
 * the reason. Each side has its own id, so a Canton wallet deduplicates a repeat of one side
 * without refusing the other.
 */
export function depositOf(intent: LiquidityIntent, side: Side): DepositTerms {
  return {
    intentId: `${intent.liquidityIntentId}-${side}`,
    depositAddress: intent.depositAddress,
    depositReference: intent.depositReference,
    expectedAmount: side === 'a' ? intent.expected.a : intent.expected.b,
    inputToken: side === 'a' ? intent.tokenA : intent.tokenB,
    inputTokenAdmin: side === 'a' ? intent.tokenAAdmin : intent.tokenBAdmin,
    expiresAt: intent.expiresAt,
  };
}

/** The intent still open for a pool among the party's, newest first; null when none. */
export function openIntentOf(
  intents: readonly LiquidityIntent[],
  poolId: string,
): LiquidityIntent | null {
  return intents.find((intent) => intent.poolId === poolId && !isEnded(intent.status)) ?? null;
}
