/**
 * Intents as the client sees them: the SwapIntent of a create (seed §2.7) and the SwapStatus of
 * a status query or track listing (SPEC §7.5). Every key is always present; facts of a stage
 * that has not happened are `null`.
 *
 * A refund appears once its transfer committed (it has an update id); while it is owed the
 * intent is still in progress and says so through its status.
 */
import {
  isTerminal,
  type SwapInstructions,
  type SwapIntent,
  type SwapState,
  type SwapStatus,
} from '@poolparty/core';
import { REASON_META_KEY } from '@poolparty/ledger';
import type { IntentRecord } from '../store/intents.js';

/** One state change, as the store's events and histories both carry it. */
export interface StateChange {
  readonly status: SwapState;
  readonly at: Date;
}

/** What the wallet must do to fund the intent, for programs and for people. */
export function instructionsFor(intent: IntentRecord): SwapInstructions {
  const expiresAt = intent.expiresAt.toISOString();
  const token = `${intent.inputToken} (admin ${intent.inputTokenAdmin})`;
  return {
    transferTo: intent.depositAddress,
    amount: intent.expectedAmount,
    token: intent.inputToken,
    tokenAdmin: intent.inputTokenAdmin,
    reason: intent.depositReference,
    expiresAt,
    note:
      `Send exactly ${intent.expectedAmount} ${token} from ${intent.walletParty} to ` +
      `${intent.depositAddress} before ${expiresAt}. If the wallet supports transfer reasons, ` +
      `set ${intent.depositReference} as the reason (metadata ${REASON_META_KEY}); without it ` +
      'the deposit is matched by sender, pool and token. Any other amount or sender is refunded ' +
      'minus the network fee.',
  };
}

export function swapIntentView(intent: IntentRecord): SwapIntent {
  return {
    intentId: intent.intentId,
    poolId: intent.poolId,
    status: intent.status,
    depositAddress: intent.depositAddress,
    swapAddress: intent.depositAddress,
    depositReference: intent.depositReference,
    inputToken: intent.inputToken,
    inputTokenAdmin: intent.inputTokenAdmin,
    outputToken: intent.outputToken,
    outputTokenAdmin: intent.outputTokenAdmin,
    expectedAmount: intent.expectedAmount,
    quotedSwapAmount: intent.quotedSwapAmount,
    totalInputAmount: intent.expectedAmount,
    poolFeeAmount: intent.poolFeeAmount,
    lpFeeAmount: intent.lpFeeAmount,
    platformFeeAmount: intent.platformFeeAmount,
    inputAmountAfterPoolFee: intent.inputAmountAfterPoolFee,
    networkFeeAmount: intent.networkFeeAmount,
    trafficFeeInInput: intent.networkFeeAmount,
    expectedOutput: intent.expectedOutput,
    minOutput: intent.minOutput,
    slippageTolerance: intent.slippageTolerance,
    outputAddress: intent.outputAddress,
    createdAt: intent.createdAt.toISOString(),
    expiresAt: intent.expiresAt.toISOString(),
    instructions: instructionsFor(intent),
  };
}

/** `history` is the intent's own state changes, oldest first, as the store lists them. */
export function swapStatusView(intent: IntentRecord, history: readonly StateChange[]): SwapStatus {
  const { deposit, payout, refund } = intent;
  return {
    intentId: intent.intentId,
    poolId: intent.poolId,
    status: intent.status,
    terminal: isTerminal(intent.status),
    inputToken: intent.inputToken,
    inputTokenAdmin: intent.inputTokenAdmin,
    outputToken: intent.outputToken,
    outputTokenAdmin: intent.outputTokenAdmin,
    expectedAmount: intent.expectedAmount,
    expectedOutput: intent.expectedOutput,
    minOutput: intent.minOutput,
    actualOutput: intent.actualOutput,
    slippageTolerance: intent.slippageTolerance,
    depositAddress: intent.depositAddress,
    depositReference: intent.depositReference,
    outputAddress: intent.outputAddress,
    createdAt: intent.createdAt.toISOString(),
    matchedAt: intent.matchedAt?.toISOString() ?? null,
    completedAt: intent.status === 'completed' ? (intent.completedAt?.toISOString() ?? null) : null,
    expiresAt: intent.expiresAt.toISOString(),
    failureReason: intent.failureReason,
    deposit: deposit && { ...deposit, receivedAt: deposit.receivedAt.toISOString() },
    payout,
    refund:
      refund?.updateId == null
        ? null
        : {
            amount: refund.amount,
            networkFeeAmount: refund.networkFeeAmount,
            updateId: refund.updateId,
          },
    history: history.map((change) => ({ status: change.status, at: change.at.toISOString() })),
  };
}
