/**
 * The client the unit tests drive: a wallet-signed-in `PoolParty` over a scripted `fetch`, its
 * sleeps recorded rather than slept and its jitter fixed at the middle, so retries are exact.
 */
import { PoolParty, type PoolPartyOptions, type SwapState } from '../../src/index.js';
import { recordingSleep } from './fake-fetch.js';

export const BASE = 'https://api.test.example';

/** A swap request the service doubles answer with the intent fixture. */
export const CREATE = {
  fromToken: 'Amulet',
  toToken: 'USDCx',
  amount: '100',
  poolId: 'amulet-usdcx',
} as const;

/** The states a swap passes through after `pending` up to its payout being sent. */
export const TO_SENDING: SwapState[] = [
  'matched',
  'deposit_received',
  'forwarded',
  'processing',
  'sending_output',
];

/** The whole path of a successful swap after `pending`. */
export const TO_COMPLETED: SwapState[] = [...TO_SENDING, 'completed'];

export function testClient(
  fetch: NonNullable<PoolPartyOptions['fetch']>,
  options: Partial<PoolPartyOptions> = {},
): PoolParty {
  return new PoolParty({
    apiKey: 'pp_test_key',
    baseUrl: BASE,
    walletToken: 'wallet-token',
    fetch,
    sleep: recordingSleep().sleep,
    random: () => 0.5,
    ...options,
  });
}
