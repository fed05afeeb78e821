/**
 * A swap intent as the store's tests and migration tests write one: 100 Amulet for USDCx with the
 * devnet pool's fees, due a day after it was made. The ids, parties and times are the caller's.
 */

import { Amount } from '@poolparty/core';
import type { NewFeeEvent, NewIntent } from '../src/index.js';

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
export const SETTLING_STATES = [
  'matched',
  'deposit_received',
  'forwarded',
  'processing',
  'sending_output',
] as const;

/** The state history of a swap that settled and completed, from its creation. */
export const COMPLETED_SWAP_HISTORY = ['pending', ...SETTLING_STATES, 'completed'] as const;
