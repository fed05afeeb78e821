/**
 * A swap intent as the store's tests and migration tests write one: 100 Amulet for USDCx with the
 * devnet pool's fees, due a day after it was made. The ids, parties and times are the caller's.
 */
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
    expectedAmount: '100',
    quotedSwapAmount: '100',
    networkFeeAmount: '1',
    poolFeeAmount: '0.297',
    lpFeeAmount: '0.22275',
    platformFeeAmount: '0.07425',
    inputAmountAfterPoolFee: '98.703',
    expectedOutput: '14.3',
    minOutput: '13.585',
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
    inputAmount: '100',
    outputAmount: '14.3',
    lpFeeAmount: '0.2',
    platformFeeAmount: '0.07',
    networkFeeAmount: '1',
    developerEarnings: '0',
    volumeUsd: null,
    feesUsd: null,
    lpFeesUsd: null,
    at,
  };
}
