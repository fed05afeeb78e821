/**
 * The SwapIntent a create answers (docs/spec/lifecycle.md#intents): the quoted intent and what the
 * wallet must send to fund it. Every key is always present.
 */
import type { SwapInstructions, SwapIntent } from '@poolparty/core';
import { REASON_META_KEY } from '@poolparty/ledger';
import type { IntentRecord } from '@poolparty/store';

/** What the wallet must do to fund the intent, for programs and for people. */
function instructionsFor(intent: IntentRecord): SwapInstructions {
  const expiresAt = intent.expiresAt.toISOString();
  const token = `${intent.inputToken} (admin ${intent.inputTokenAdmin})`;
  return {
    transferTo: intent.depositAddress,
    amount: intent.expectedAmount.toString(),
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
    expectedAmount: intent.expectedAmount.toString(),
    quotedSwapAmount: intent.quotedSwapAmount.toString(),
    totalInputAmount: intent.expectedAmount.toString(),
    poolFeeAmount: intent.poolFeeAmount.toString(),
    lpFeeAmount: intent.lpFeeAmount.toString(),
    platformFeeAmount: intent.platformFeeAmount.toString(),
    inputAmountAfterPoolFee: intent.inputAmountAfterPoolFee.toString(),
    networkFeeAmount: intent.networkFeeAmount.toString(),
    trafficFeeInInput: intent.networkFeeAmount.toString(),
    expectedOutput: intent.expectedOutput.toString(),
    minOutput: intent.minOutput.toString(),
    slippageTolerance: intent.slippageTolerance,
    outputAddress: intent.outputAddress,
    createdAt: intent.createdAt.toISOString(),
    expiresAt: intent.expiresAt.toISOString(),
    instructions: instructionsFor(intent),
  };
}
