/**
 * The error catalogue: every `code` the HTTP API can answer, with its status, its problem title and
 * the SDK class a client raises for it (docs/spec/protocol.md#errors). The server, the OpenAPI
 * document and the SDK all read this table, so a code cannot mean different things in different
 * places.
 *
 * Choices made here:
 * - `price_impact_exceeded` at create time is a `ValidationError`: no swap exists yet, and a smaller
 *   amount makes the same request succeed. `PriceImpactError` is the outcome of an executed swap
 *   and carries its final status.
 * - `pool_paused` is 409: the request is sound but the pool's current state forbids it. A 503 would
 *   make clients retry with backoff against a pause that may last hours.
 * - `idempotency_key_reused` is 422 and a `ConflictError`: the body is valid on its own;
 *   it conflicts with the request first stored under that key. `idempotency_key_in_use` (409)
 *   answers a retry that arrives while the first request with that key is still running.
 * - `gone` and `devnet_only` are `NotFoundError`s: there is nothing at that path for this client.
 * - The HTTP layer's own refusals have codes of their own (`malformed_request`, `forbidden`,
 *   `request_timeout`, `precondition_failed`, `uri_too_long`, `range_not_satisfiable`,
 *   `headers_too_large`), so every error the service answers, framework or route, has a code.
 */
import type { SettlementSafety } from './settlement-safety.js';
import type { TerminalState } from './swap-state.js';

/** The SDK's error classes (docs/spec/sdk.md#errors), base first. */
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

export type SdkErrorClass = (typeof SDK_ERROR_CLASSES)[number];

export type SwapOutcomeErrorClass =
  | 'SlippageError'
  | 'PriceImpactError'
  | 'InsufficientAmountError'
  | 'InsufficientLiquidityError'
  | 'OutputFailedError'
  | 'NoOutputHoldingsError'
  | 'SwapFailedError'
  | 'RefundFailedError'
  | 'ExpiredError'
  | 'CancelledError';

/** The class each SDK error class extends; `null` only for the base. */
export const SDK_ERROR_PARENT: Readonly<Record<SdkErrorClass, SdkErrorClass | null>> =
  Object.freeze({
    PoolPartyError: null,
    ValidationError: 'PoolPartyError',
    AuthenticationError: 'PoolPartyError',
    NotFoundError: 'PoolPartyError',
    ConflictError: 'PoolPartyError',
    AmbiguousPoolPairError: 'ConflictError',
    SettlementSafetyError: 'PoolPartyError',
    RateLimitError: 'PoolPartyError',
    ServerError: 'PoolPartyError',
    NetworkError: 'PoolPartyError',
    TimeoutError: 'PoolPartyError',
    SwapOutcomeError: 'PoolPartyError',
    SlippageError: 'SwapOutcomeError',
    PriceImpactError: 'SwapOutcomeError',
    InsufficientAmountError: 'SwapOutcomeError',
    InsufficientLiquidityError: 'SwapOutcomeError',
    OutputFailedError: 'SwapOutcomeError',
    NoOutputHoldingsError: 'SwapOutcomeError',
    SwapFailedError: 'SwapOutcomeError',
    RefundFailedError: 'SwapOutcomeError',
    ExpiredError: 'SwapOutcomeError',
    CancelledError: 'SwapOutcomeError',
    DepositRefusedError: 'ConflictError',
    WaitTimeoutError: 'TimeoutError',
    WebhookSignatureError: 'PoolPartyError',
  });

/** The error `swap.wait()` rejects with at each terminal state but `completed`. */
export const OUTCOME_ERROR_CLASS: Readonly<
  Record<Exclude<TerminalState, 'completed'>, SwapOutcomeErrorClass>
> = Object.freeze({
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
});

export interface ErrorEntry {
  readonly status: number;
  /** Stable per code (RFC 9457 §3.1.4); what went wrong this time goes in `detail`. */
  readonly title: string;
  readonly sdkClass: SdkErrorClass;
}

const catalogue = {
  validation_error: { status: 400, title: 'Invalid request', sdkClass: 'ValidationError' },
  malformed_request: {
    status: 400,
    title: 'Malformed HTTP request',
    sdkClass: 'ValidationError',
  },
  // Atomic swaps' input holdings (docs/spec/atomic-swaps.md#input-holdings): what the request
  // names cannot be the trader's input as named. A new request naming them rightly passes.
  input_holdings_mismatch: {
    status: 400,
    title: 'inputHoldingIds and inputHoldings name different holdings',
    sdkClass: 'ValidationError',
  },
  input_holdings_unknown: {
    status: 400,
    title: "An input holding is unknown to the pool's participant",
    sdkClass: 'ValidationError',
  },
  invalid_input_holdings: {
    status: 400,
    title: 'A disclosed input holding is not the contract its id names',
    sdkClass: 'ValidationError',
  },
  // Webhook endpoints (docs/spec/webhooks.md): what a registration or a change is refused for.
  webhook_url_invalid: { status: 400, title: 'Invalid webhook URL', sdkClass: 'ValidationError' },
  webhook_url_not_allowed: {
    status: 400,
    title: 'Webhook URL not allowed',
    sdkClass: 'ValidationError',
  },
  webhook_event_unknown: {
    status: 400,
    title: 'Unknown webhook event type',
    sdkClass: 'ValidationError',
  },
  webhook_api_key_unknown: {
    status: 400,
    title: 'Not one of your API keys',
    sdkClass: 'ValidationError',
  },
  webhook_endpoint_limit: {
    status: 400,
    title: 'Webhook endpoint limit reached',
    sdkClass: 'ValidationError',
  },
  amount_below_minimum: {
    status: 400,
    title: 'Amount does not cover the network fee',
    sdkClass: 'ValidationError',
  },
  price_impact_exceeded: {
    status: 400,
    title: 'Price impact above the cap',
    sdkClass: 'ValidationError',
  },
  // Liquidity (docs/spec/liquidity.md#intents): an amount the request implies (the other side at
  // the pool's ratio, the units, the pool after the mint) would pass the 28 integer digits of
  // Daml `Numeric 10`; and a first deposit too small to mint past the units locked forever.
  amount_out_of_range: {
    status: 400,
    title: 'Amount beyond what an amount can hold',
    sdkClass: 'ValidationError',
  },
  first_deposit_too_small: {
    status: 400,
    title: "A pool's first deposit below the minimum",
    sdkClass: 'ValidationError',
  },
  settlement_safety: {
    status: 400,
    title: 'Blocked by the settlement safety guard',
    sdkClass: 'SettlementSafetyError',
  },
  missing_api_key: { status: 401, title: 'API key missing', sdkClass: 'AuthenticationError' },
  invalid_api_key: { status: 401, title: 'API key invalid', sdkClass: 'AuthenticationError' },
  api_key_revoked: { status: 401, title: 'API key revoked', sdkClass: 'AuthenticationError' },
  wrong_environment: {
    status: 401,
    title: 'API key of another environment',
    sdkClass: 'AuthenticationError',
  },
  missing_wallet_token: {
    status: 401,
    title: 'Wallet token missing',
    sdkClass: 'AuthenticationError',
  },
  invalid_wallet_token: {
    status: 401,
    title: 'Wallet token invalid or expired',
    sdkClass: 'AuthenticationError',
  },
  invalid_signature: {
    status: 401,
    title: 'Signature does not prove control of the party',
    sdkClass: 'AuthenticationError',
  },
  invalid_nonce: {
    status: 401,
    title: 'Challenge nonce unknown, expired or used',
    sdkClass: 'AuthenticationError',
  },
  invalid_party_signature: {
    status: 401,
    title: 'Party signature invalid',
    sdkClass: 'AuthenticationError',
  },
  missing_session: {
    status: 401,
    title: 'Developer session missing',
    sdkClass: 'AuthenticationError',
  },
  invalid_session: {
    status: 401,
    title: 'Developer session invalid or expired',
    sdkClass: 'AuthenticationError',
  },
  wallet_party_mismatch: {
    status: 403,
    title: "Party differs from the wallet token's party",
    sdkClass: 'AuthenticationError',
  },
  // Devnet boundaries (docs/spec/ledger.md#devnet-signatures): replay-bounded party signatures and
  // control endpoints.
  signature_expired: {
    status: 401,
    title: 'Party signature expired',
    sdkClass: 'AuthenticationError',
  },
  // Atomic swaps (docs/spec/atomic-swaps.md#codes): a signature that does not sign the prepared
  // transaction's hash with the trader's key. Nothing was submitted; the swap stays prepared.
  invalid_transaction_signature: {
    status: 401,
    title: 'Signature does not sign the prepared transaction',
    sdkClass: 'AuthenticationError',
  },
  origin_not_allowed: {
    status: 403,
    title: 'Origin not allowed for this endpoint',
    sdkClass: 'AuthenticationError',
  },
  forbidden: { status: 403, title: 'Forbidden', sdkClass: 'AuthenticationError' },
  not_found: { status: 404, title: 'Not found', sdkClass: 'NotFoundError' },
  pool_not_found: { status: 404, title: 'Pool not found', sdkClass: 'NotFoundError' },
  position_not_found: {
    status: 404,
    title: 'No liquidity position in this pool',
    sdkClass: 'NotFoundError',
  },
  token_not_found: { status: 404, title: 'Token not found', sdkClass: 'NotFoundError' },
  devnet_only: {
    status: 404,
    title: 'Available on devnet only',
    sdkClass: 'NotFoundError',
  },
  // The client's own request was too slow: not the SDK's TimeoutError, which is a wait that
  // ran out on the client's side.
  request_timeout: {
    status: 408,
    title: 'Request not received in time',
    sdkClass: 'ValidationError',
  },
  active_intent_exists: {
    status: 409,
    title: 'A pending intent already exists',
    sdkClass: 'ConflictError',
  },
  ambiguous_pool_pair: {
    status: 409,
    title: 'Token pair matches more than one pool',
    sdkClass: 'AmbiguousPoolPairError',
  },
  intent_not_cancellable: {
    status: 409,
    title: 'Intent is no longer pending',
    sdkClass: 'ConflictError',
  },
  pool_paused: { status: 409, title: 'Pool is paused', sdkClass: 'ConflictError' },
  // Atomic swaps (docs/spec/atomic-swaps.md#codes): the request is sound, the swap's moment has
  // passed. Nothing moved in either case; a new prepare (a new quote, a new signature) may pass.
  price_moved: {
    status: 409,
    title: "The pool's price moved past the signed output",
    sdkClass: 'ConflictError',
  },
  atomic_swap_expired: {
    status: 409,
    title: 'Atomic swap expired before it was signed',
    sdkClass: 'ConflictError',
  },
  // Every holding of the output instrument is named by a prepared swap already: the pool has no
  // free holding to reserve until one of them ends (at its `expiresAt` at the latest).
  pool_holdings_busy: {
    status: 409,
    title: "The pool's holdings are all reserved by prepared swaps",
    sdkClass: 'ConflictError',
  },
  // Developer collections (portal): nothing left, or the pool's set-aside fees cannot pay it now.
  nothing_to_collect: {
    status: 409,
    title: 'No accrued earnings left to collect',
    sdkClass: 'ConflictError',
  },
  collection_unavailable: {
    status: 409,
    title: 'Earnings cannot be collected from this pool now',
    sdkClass: 'ConflictError',
  },
  // Liquidity (docs/spec/liquidity.md): one open intent per provider and pool; a withdrawal
  // burns nothing when it cannot be paid as asked.
  active_liquidity_intent_exists: {
    status: 409,
    title: 'An open liquidity intent already exists',
    sdkClass: 'ConflictError',
  },
  liquidity_intent_not_cancellable: {
    status: 409,
    title: 'Liquidity intent is no longer pending',
    sdkClass: 'ConflictError',
  },
  pool_has_no_price: {
    status: 409,
    title: 'The pool has no liquidity to take a price from',
    sdkClass: 'ConflictError',
  },
  insufficient_units: {
    status: 409,
    title: 'The position holds fewer units',
    sdkClass: 'ConflictError',
  },
  withdrawal_minimum_not_met: {
    status: 409,
    title: 'The units redeem for less than the minimums',
    sdkClass: 'ConflictError',
  },
  nothing_to_withdraw: {
    status: 409,
    title: 'The units redeem for nothing',
    sdkClass: 'ConflictError',
  },
  // Devnet transfers (docs/spec/ledger.md#devnet-endpoints): the sender's holdings of the token
  // do not cover the amount. The request is sound; the party's balance forbids it, as
  // `insufficient_units` does for a withdrawal.
  insufficient_funds: {
    status: 409,
    title: 'The party holds too little of the token',
    sdkClass: 'ConflictError',
  },
  // Developer portal: a developer holds a bounded number of working API keys.
  api_key_limit_reached: {
    status: 409,
    title: 'API key limit reached',
    sdkClass: 'ConflictError',
  },
  idempotency_key_in_use: {
    status: 409,
    title: 'A request with this idempotency key is in progress',
    sdkClass: 'ConflictError',
  },
  gone: { status: 410, title: 'Gone', sdkClass: 'NotFoundError' },
  precondition_failed: { status: 412, title: 'Precondition failed', sdkClass: 'ValidationError' },
  payload_too_large: { status: 413, title: 'Request body too large', sdkClass: 'ValidationError' },
  uri_too_long: { status: 414, title: 'Request URL too long', sdkClass: 'ValidationError' },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    sdkClass: 'ValidationError',
  },
  range_not_satisfiable: {
    status: 416,
    title: 'Range not satisfiable',
    sdkClass: 'ValidationError',
  },
  idempotency_key_reused: {
    status: 422,
    title: 'Idempotency key reused with a different request',
    sdkClass: 'ConflictError',
  },
  rate_limited: { status: 429, title: 'Rate limit exceeded', sdkClass: 'RateLimitError' },
  headers_too_large: {
    status: 431,
    title: 'Request headers too large',
    sdkClass: 'ValidationError',
  },
  internal_error: { status: 500, title: 'Internal error', sdkClass: 'ServerError' },
  not_implemented: { status: 501, title: 'Not implemented', sdkClass: 'ServerError' },
  // The service's ledger cannot prepare a transaction for the trader to sign (a ledger without
  // interactive submission; the canton adapter and the embedded ledger both have it): the
  // deposit flow (`POST /v1/swaps`) still works.
  atomic_swaps_unavailable: {
    status: 501,
    title: 'Atomic swaps are not available on this ledger',
    sdkClass: 'ServerError',
  },
  ledger_unavailable: { status: 503, title: 'Ledger unavailable', sdkClass: 'ServerError' },
  // The store's connection was lost (a failover, a restarted pooler): retry after `Retry-After`.
  store_unavailable: { status: 503, title: 'Store unavailable', sdkClass: 'ServerError' },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof catalogue;

export const ERROR_CATALOGUE: Readonly<Record<ErrorCode, ErrorEntry>> = Object.freeze(catalogue);

export const ERROR_CODES = Object.freeze(Object.keys(catalogue) as ErrorCode[]);

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(catalogue, value);
}

export function problemType(code: ErrorCode): `urn:poolparty:error:${ErrorCode}` {
  return `urn:poolparty:error:${code}`;
}

export function statusOf(code: ErrorCode): number {
  return ERROR_CATALOGUE[code].status;
}

/** The codes of the HTTP layer's own refusals, by the status they are known by. */
const CODE_OF_CLIENT_STATUS: Readonly<Partial<Record<number, ErrorCode>>> = {
  400: 'validation_error',
  403: 'forbidden',
  404: 'not_found',
  408: 'request_timeout',
  412: 'precondition_failed',
  413: 'payload_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  416: 'range_not_satisfiable',
  431: 'headers_too_large',
};

/**
 * The code of a client error known only by its 4xx status (a framework's or a plugin's refusal
 * with no code of its own); a status with none of its own reads as the 400 it is closest to.
 */
export function codeOfClientStatus(status: number): ErrorCode {
  return CODE_OF_CLIENT_STATUS[status] ?? 'validation_error';
}

/** A pool an ambiguous pair could mean, with what the caller passes to pick it. */
export interface PoolCandidate {
  readonly poolId: string;
  readonly fromAdmin: string;
  readonly toAdmin: string;
}

/** Members a problem of these codes must carry, so a client can act without parsing `detail`. */
export interface RequiredProblemExtensions {
  readonly amount_below_minimum: { readonly minimumAmount: string };
  readonly active_intent_exists: { readonly intentId: string };
  readonly ambiguous_pool_pair: { readonly candidates: readonly PoolCandidate[] };
  /** The body's `code` is `settlement_safety`; the guard's own code travels in here. */
  readonly settlement_safety: { readonly settlementSafety: SettlementSafety };
}

type OpenExtensions = Readonly<Record<string, unknown>>;

export type ProblemExtensions<C extends ErrorCode> = C extends keyof RequiredProblemExtensions
  ? RequiredProblemExtensions[C] & OpenExtensions
  : OpenExtensions;

/** An RFC 9457 problem body; the server adds `requestId`. */
export interface ProblemBody<C extends ErrorCode = ErrorCode> {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly code: C;
  readonly [extension: string]: unknown;
}

/**
 * Builds the problem body for `code`. Extensions follow the standard members, which they cannot
 * override: a stray `status` in an extension must not change what the client is told.
 */
export function problemFor<C extends ErrorCode>(
  code: C,
  detail: string,
  ...[extensions]: C extends keyof RequiredProblemExtensions
    ? [extensions: ProblemExtensions<C>]
    : [extensions?: OpenExtensions]
): ProblemBody<C> {
  const { status, title } = ERROR_CATALOGUE[code];
  const standard = { type: problemType(code), title, status, detail, code };
  return { ...standard, ...extensions, ...standard };
}

/**
 * The class for a status whose code a client does not know (a newer server): by status class,
 * falling back to the base class where no narrower one is honest.
 */
export function sdkClassForStatus(status: number): SdkErrorClass {
  if (status === 401 || status === 403) return 'AuthenticationError';
  if (status === 404 || status === 410) return 'NotFoundError';
  if (status === 409) return 'ConflictError';
  if (status === 429) return 'RateLimitError';
  if (status === 408) return 'TimeoutError';
  if ([400, 412, 413, 414, 415, 416, 422, 431].includes(status)) return 'ValidationError';
  if (status >= 500 && status <= 599) return 'ServerError';
  return 'PoolPartyError';
}

/** The class a client raises for a problem body: the catalogue's when it knows the code. */
export function sdkClassFor(code: string, status: number): SdkErrorClass {
  return isErrorCode(code) ? ERROR_CATALOGUE[code].sdkClass : sdkClassForStatus(status);
}
