/**
 * A swap intent as the store's tests and migration tests write one: 100 Amulet for USDCx with the
 * devnet pool's fees, due a day after it was made. The ids, parties and times are the caller's.
 */

import { Amount, IN_PROGRESS_STATES } from '@poolparty/core';
import type { NewAtomicSwap, NewFeeEvent, NewIntent } from '../src/index.js';

export const TEST_AMULET = { id: 'Amulet', admin: 'DSO::1220aa' } as const;
export const TEST_USDCX = { id: 'USDCx', admin: 'circle::1220bb' } as const;
const DAY_MS = 24 * 60 * 60_000;

export type TestIntentFields = Pick<
  NewIntent,
  'intentId' | 'poolId' | 'apiKeyId' | 'developerParty' | 'walletParty' | 'depositAddress'
> &
  Partial<NewIntent> & { readonly depositReference: string; readonly createdAt: Date };

export function testIntent(fields: TestIntentFields): NewIntent {
  return {
    inputToken: TEST_AMULET.id,
    inputTokenAdmin: TEST_AMULET.admin,
    outputToken: TEST_USDCX.id,
    outputTokenAdmin: TEST_USDCX.admin,
    expectedAmount: Amount.parse('100'),
    quotedSwapAmount: Amount.parse('100'),
    networkFeeAmount: Amount.parse('1'),
    poolFeeAmount: Amount.parse('0.297'),
    lpFeeAmount: Amount.parse('0.22275'),
    platformFeeAmount: Amount.parse('0.07425'),
    inputAmountAfterPoolFee: Amount.parse('98.703'),
    expectedOutput: Amount.parse('14.3'),
    minOutput: Amount.parse('13.585'),
    slippageTolerance: 0.05,
    networkFeePolicy: null,
    platformFeePolicy: null,
    outputAddress: fields.walletParty,
    expiresAt: new Date(fields.createdAt.getTime() + DAY_MS),
    ...fields,
  };
}

/**
 * An atomic swap as the store's tests write one: `testIntent`'s amounts and fees, prepared on
 * `pool-1` by `key_1` for `alice::1220`, its output leg naming `holding-<id>`, signable for a
 * minute. The id and the creation time are the caller's.
 */
export function testAtomicSwap(
  fields: Pick<NewAtomicSwap, 'atomicSwapId' | 'createdAt'> & Partial<NewAtomicSwap>,
): NewAtomicSwap {
  const intent = testIntent({
    intentId: fields.atomicSwapId,
    poolId: 'pool-1',
    apiKeyId: 'key_1',
    developerParty: 'dev::1220',
    walletParty: 'alice::1220',
    depositAddress: 'swap::1220cc',
    depositReference: fields.atomicSwapId,
    createdAt: fields.createdAt,
  });
  return {
    poolId: intent.poolId,
    apiKeyId: intent.apiKeyId,
    developerParty: intent.developerParty,
    traderParty: intent.walletParty,
    keyFingerprint: `1220${'ab'.repeat(32)}`,
    inputToken: intent.inputToken,
    inputTokenAdmin: intent.inputTokenAdmin,
    outputToken: intent.outputToken,
    outputTokenAdmin: intent.outputTokenAdmin,
    inputAmount: intent.expectedAmount,
    outputAmount: intent.minOutput,
    quotedOutput: intent.expectedOutput,
    slippageTolerance: intent.slippageTolerance,
    networkFeeAmount: intent.networkFeeAmount,
    poolFeeAmount: intent.poolFeeAmount,
    lpFeeAmount: intent.lpFeeAmount,
    platformFeeAmount: intent.platformFeeAmount,
    inputAmountAfterPoolFee: intent.inputAmountAfterPoolFee,
    networkFeePolicy: null,
    platformFeePolicy: null,
    preparation: {
      commandId: `atomic-${fields.atomicSwapId}-1`,
      inputHoldingIds: [`trader-holding-${fields.atomicSwapId}`],
      outputHoldingIds: [`holding-${fields.atomicSwapId}`],
      preparedTransaction: 'cHJlcGFyZWQ=',
      preparedTransactionHash: 'aGFzaA==',
      hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
      expiresAt: new Date(fields.createdAt.getTime() + 60_000),
    },
    ...fields,
  };
}

/** The fee event of a `testIntent` swap that executed at `at`. */
export function testFeeEvent(
  intent: Pick<NewIntent, 'intentId' | 'poolId' | 'apiKeyId'>,
  at: Date,
): NewFeeEvent {
  return {
    poolId: intent.poolId,
    intentId: intent.intentId,
    apiKeyId: intent.apiKeyId,
    inputSide: 'a',
    inputAmount: Amount.parse('100'),
    outputAmount: Amount.parse('14.3'),
    lpFeeAmount: Amount.parse('0.2'),
    platformFeeAmount: Amount.parse('0.07'),
    networkFeeAmount: Amount.parse('1'),
    developerEarnings: Amount.ZERO,
    volumeUsd: null,
    feesUsd: null,
    lpFeesUsd: null,
    at,
  };
}

/** A recorded amount a test expects to be there (an intent's output, its refund): throws if not. */
export function recordedAmount(value: Amount | null | undefined): Amount {
  if (value === null || value === undefined) throw new Error('expected a recorded amount');
  return value;
}

/**
 * The states a swap moves through after `pending` on its way to paying out, in lifecycle order
 * (docs/spec/lifecycle.md#states): what a test expects a settled swap's history to hold.
 */
export const SETTLING_STATES = IN_PROGRESS_STATES.filter((state) => state !== 'pending');

/** The state history of a swap that settled and completed, from its creation. */
export const COMPLETED_SWAP_HISTORY = [...IN_PROGRESS_STATES, 'completed'] as const;
