/**
 * @poolparty/sdk: token swaps for Canton Network apps, in browsers and Node ≥ 20, without
 * dependencies.
 *
 * @example
 * const pp = new PoolParty({ apiKey, environment: 'devnet', baseUrl, walletToken: () => token });
 * const quote = await pp.quotes.get({ from: 'Amulet', to: 'USDCx', amount: '100', poolId });
 * const swap = await pp.swaps.create({ fromToken: 'Amulet', toToken: 'USDCx', amount: '100', poolId });
 * // the wallet sends swap.expectedAmount to swap.depositAddress
 * const { actualOutput } = await swap.wait();
 *
 * Liquidity provision (`pp.liquidity`) is the `@poolparty/sdk/liquidity` entry's `withLiquidity`;
 * atomic swaps (`pp.atomicSwaps`) are the `@poolparty/sdk/atomic` entry's `withAtomicSwaps`.
 */

export {
  DEFAULT_MAX_RETRIES,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_TIMEOUT_MS,
  PoolParty,
  type PoolPartyOptions,
} from './client.js';
export { DEFAULT_BASE_URLS, type Environment } from './environments.js';
export { errorClassFor, errorClassForStatus, outcomeErrorFor } from './error-mapping.js';
// Every error class and its options type: the module is the SDK's error catalogue
// (docs/spec/sdk.md#errors).
export * from './errors.js';
export type { Sleep } from './http/abort.js';
export type {
  CallOptions,
  FetchLike,
  WalletTokenSource,
  WriteOptions,
} from './http/request-sender.js';
export { type AttemptFailure, type RetryQuestion, shouldRetry } from './http/retry.js';
export {
  type CollectParams,
  DeveloperPortal,
  type DeveloperPortalOptions,
  type PortalCollections,
  type PortalKeys,
  type PortalReportParams,
} from './portal.js';
export type * from './portal-types.js';
export type { PoolStatsParams, Pools } from './resources/pools.js';
export type { QuoteParams, Quotes } from './resources/quotes.js';
export type { CreateSwapParams, GetSwapOptions, Swaps } from './resources/swaps.js';
export type { Tokens } from './resources/tokens.js';
export type { TrackList, TrackParams } from './resources/track.js';
export type { VerifyChallengeParams, WalletAuth } from './resources/wallet-auth.js';
export {
  IN_PROGRESS_STATES,
  isTerminal,
  LEG_EVENT_NAMES,
  LEG_STATES,
  SWAP_EVENT_NAMES,
  SWAP_STATES,
  TERMINAL_STATES,
} from './states.js';
export type {
  DepositAllowed,
  DepositCheck,
  DepositFigures,
  DepositRefusal,
  DepositRefusalReason,
} from './swap/deposit-check.js';
export type { ProgressEvent as SwapEvent, SwapObjectEventName } from './swap/progress.js';
export {
  DEFAULT_WAIT_TIMEOUT_MS,
  type Swap,
  type SwapErrorHandler,
  type SwapEventHandler,
  type SwapHandle,
  type SwapResult,
  type SwapResume,
  type WaitOptions,
} from './swap/swap.js';
export type * from './types.js';
export {
  AMOUNT_PATTERN,
  SLIPPAGE_TOLERANCE_DEFAULT,
  SLIPPAGE_TOLERANCE_MAX,
  SLIPPAGE_TOLERANCE_MIN,
} from './validation.js';
