/**
 * Tables shared with the service, generated from @poolparty/core by
 * scripts/generate-catalogue.mjs. Do not edit by hand; test/catalogue.test.ts checks them.
 */

/** The states a swap passes through before it ends, in lifecycle order. */
export const IN_PROGRESS_STATES = [
  'pending',
  'matched',
  'deposit_received',
  'forwarded',
  'processing',
  'sending_output',
] as const;

/** The states a swap ends in; `completed` is the only successful one. */
export const TERMINAL_STATES = [
  'completed',
  'slippage_failed',
  'price_impact_exceeded',
  'insufficient_amount',
  'insufficient_liquidity',
  'output_failed',
  'no_output_holdings',
  'failed',
  'refund_failed',
  'expired',
  'cancelled',
] as const;

/** Where a payout or refund is (`Leg.state`): `offered` waits for the user to accept it. */
export const LEG_STATES = ['offered', 'committed', 'rejected', 'expired'] as const;

/**
 * The leg events: what happened to a payout or refund offer, `<leg>_<outcome>`, payout first,
 * each offer before its outcome. They fire only for a leg that became an offer.
 */
export const LEG_EVENT_NAMES = [
  'payout_offered',
  'payout_accepted',
  'payout_rejected',
  'payout_expired',
  'refund_offered',
  'refund_accepted',
  'refund_rejected',
  'refund_expired',
] as const;

/** The leg's state after each offer outcome (`accepted` leaves it `committed`). */
export const LEG_STATE_AFTER = {
  offered: 'offered',
  accepted: 'committed',
  rejected: 'rejected',
  expired: 'expired',
} as const;

/**
 * The states of a liquidity intent: `pending` → `partial` (one side arrived) → `joining` →
 * `completed`, or `refunding` → `refunded`; `expired`, `cancelled`, `refund_failed`.
 */
export const LIQUIDITY_STATES = [
  'pending',
  'partial',
  'joining',
  'completed',
  'refunding',
  'refunded',
  'expired',
  'cancelled',
  'refund_failed',
] as const;

/** The states a liquidity intent ends in; `completed` is the only one with units. */
export const LIQUIDITY_TERMINAL_STATES = [
  'completed',
  'refunded',
  'expired',
  'cancelled',
  'refund_failed',
] as const;

/**
 * The states of an atomic swap: `prepared` (waiting for the signature) → `executing` →
 * `completed`, or ended with nothing moved: `price_moved`, `rejected`, `expired`,
 * `cancelled`.
 */
export const ATOMIC_SWAP_STATES = [
  'prepared',
  'executing',
  'completed',
  'price_moved',
  'rejected',
  'expired',
  'cancelled',
] as const;

/** The states an atomic swap ends in; in every one but `completed` nothing moved. */
export const ATOMIC_SWAP_TERMINAL_STATES = [
  'completed',
  'price_moved',
  'rejected',
  'expired',
  'cancelled',
] as const;

/** The SDK's error classes, base first. */
export const SDK_ERROR_CLASSES = [
  'PoolPartyError',
  'ValidationError',
  'AuthenticationError',
  'NotFoundError',
  'ConflictError',
  'AmbiguousPoolPairError',
  'SettlementSafetyError',
  'RateLimitError',
  'ServerError',
  'NetworkError',
  'TimeoutError',
  'SwapOutcomeError',
  'SlippageError',
  'PriceImpactError',
  'InsufficientAmountError',
  'InsufficientLiquidityError',
  'OutputFailedError',
  'NoOutputHoldingsError',
  'SwapFailedError',
  'RefundFailedError',
  'ExpiredError',
  'CancelledError',
  'DepositRefusedError',
  'WaitTimeoutError',
  'WebhookSignatureError',
] as const;

/** The error class a client raises for each error code the service answers. */
export const ERROR_CLASS_BY_CODE = {
  validation_error: 'ValidationError',
  malformed_request: 'ValidationError',
  input_holdings_mismatch: 'ValidationError',
  input_holdings_unknown: 'ValidationError',
  invalid_input_holdings: 'ValidationError',
  webhook_url_invalid: 'ValidationError',
  webhook_url_not_allowed: 'ValidationError',
  webhook_event_unknown: 'ValidationError',
  webhook_api_key_unknown: 'ValidationError',
  webhook_endpoint_limit: 'ValidationError',
  amount_below_minimum: 'ValidationError',
  price_impact_exceeded: 'ValidationError',
  amount_out_of_range: 'ValidationError',
  first_deposit_too_small: 'ValidationError',
  settlement_safety: 'SettlementSafetyError',
  missing_api_key: 'AuthenticationError',
  invalid_api_key: 'AuthenticationError',
  api_key_revoked: 'AuthenticationError',
  wrong_environment: 'AuthenticationError',
  missing_wallet_token: 'AuthenticationError',
  invalid_wallet_token: 'AuthenticationError',
  invalid_signature: 'AuthenticationError',
  invalid_nonce: 'AuthenticationError',
  invalid_party_signature: 'AuthenticationError',
  missing_session: 'AuthenticationError',
  invalid_session: 'AuthenticationError',
  wallet_party_mismatch: 'AuthenticationError',
  signature_expired: 'AuthenticationError',
  invalid_transaction_signature: 'AuthenticationError',
  origin_not_allowed: 'AuthenticationError',
  forbidden: 'AuthenticationError',
  not_found: 'NotFoundError',
  pool_not_found: 'NotFoundError',
  position_not_found: 'NotFoundError',
  token_not_found: 'NotFoundError',
  devnet_only: 'NotFoundError',
  request_timeout: 'ValidationError',
  active_intent_exists: 'ConflictError',
  ambiguous_pool_pair: 'AmbiguousPoolPairError',
  intent_not_cancellable: 'ConflictError',
  pool_paused: 'ConflictError',
  price_moved: 'ConflictError',
  atomic_swap_expired: 'ConflictError',
  pool_holdings_busy: 'ConflictError',
  nothing_to_collect: 'ConflictError',
  collection_unavailable: 'ConflictError',
  active_liquidity_intent_exists: 'ConflictError',
  liquidity_intent_not_cancellable: 'ConflictError',
  pool_has_no_price: 'ConflictError',
  insufficient_units: 'ConflictError',
  withdrawal_minimum_not_met: 'ConflictError',
  nothing_to_withdraw: 'ConflictError',
  insufficient_funds: 'ConflictError',
  api_key_limit_reached: 'ConflictError',
  idempotency_key_in_use: 'ConflictError',
  gone: 'NotFoundError',
  precondition_failed: 'ValidationError',
  payload_too_large: 'ValidationError',
  uri_too_long: 'ValidationError',
  unsupported_media_type: 'ValidationError',
  range_not_satisfiable: 'ValidationError',
  idempotency_key_reused: 'ConflictError',
  rate_limited: 'RateLimitError',
  headers_too_large: 'ValidationError',
  internal_error: 'ServerError',
  not_implemented: 'ServerError',
  atomic_swaps_unavailable: 'ServerError',
  ledger_unavailable: 'ServerError',
  store_unavailable: 'ServerError',
} as const;

/** The error `swap.wait()` rejects with at each terminal state but `completed`. */
export const OUTCOME_ERROR_CLASS = {
  slippage_failed: 'SlippageError',
  price_impact_exceeded: 'PriceImpactError',
  insufficient_amount: 'InsufficientAmountError',
  insufficient_liquidity: 'InsufficientLiquidityError',
  output_failed: 'OutputFailedError',
  no_output_holdings: 'NoOutputHoldingsError',
  failed: 'SwapFailedError',
  refund_failed: 'RefundFailedError',
  expired: 'ExpiredError',
  cancelled: 'CancelledError',
} as const;

/** The settlement-safety guard's codes: the rules that can block a swap at settlement. */
export const SETTLEMENT_SAFETY_CODES = [
  'output_reserve_share_exceeded',
  'output_velocity_exceeded',
  'reserve_price_deviation_exceeded',
  'reference_price_deviation_exceeded',
  'incomplete_completed_accounting',
  'invalid_output_reserve',
  'invalid_execution_price',
  'settlement_safety_guard_unavailable',
] as const;

/** What a fee discount policy targets. */
export const DISCOUNT_TARGET_TYPES = ['api_key', 'wallet_party', 'pool'] as const;

/** Amounts are Daml Numeric 10: at most this many integer digits… */
export const AMOUNT_INTEGER_DIGITS_MAX = 28;
/** …and this many fractional digits. */
export const AMOUNT_DECIMALS = 10;
