/**
 * The SDK's errors: one base class with the service's error `code`, the HTTP `status`,
 * the `requestId` and the problem `body`, plus a `shortMessage`, optional `details` and the
 * `cause`, as viem's errors have.
 *
 * `instanceof` works across bundles: an application that ends up with two copies of the SDK (an
 * ESM and a CJS build, or two versions) still recognises either copy's errors, because every class
 * answers `instanceof` from a brand (`Symbol.for('poolparty.error.<Class>')`) that instances carry
 * for their class and each ancestor, not from the prototype chain of one copy.
 */
import type { SDK_ERROR_CLASSES } from './catalogue.js';
import type { DepositRefusal } from './swap/deposit-check.js';
import type { AmbiguousCandidate, SettlementSafety, SwapStatus, TerminalState } from './types.js';

/** The name of one of the SDK's error classes. */
export type SdkErrorClassName = (typeof SDK_ERROR_CLASSES)[number];

/** What every SDK error may carry besides its short message. */
export interface PoolPartyErrorOptions {
  /** The service's error code (`validation_error`, …) or one of the SDK's own. */
  readonly code?: string;
  /** The HTTP status; null when no response was received or none applies. */
  readonly status?: number | null;
  /** The service's request id (`X-Request-Id`), for support requests. */
  readonly requestId?: string | null;
  /** The parsed response body (an RFC 9457 problem), when there was one. */
  readonly body?: unknown;
  /** More about what went wrong, for people. */
  readonly details?: string;
  /** The error that led to this one. */
  readonly cause?: unknown;
}

const BRAND_PREFIX = 'poolparty.error.';

function brandOf(name: string): symbol {
  return Symbol.for(`${BRAND_PREFIX}${name}`);
}

/** Marks `error` with the brand of its class and of every SDK class it extends. */
function brandInstance(error: object, target: object): void {
  for (let ctor: unknown = target; typeof ctor === 'function'; ctor = Object.getPrototypeOf(ctor)) {
    if (!Object.hasOwn(ctor, 'errorName')) continue;
    const name = (ctor as unknown as { errorName: string }).errorName;
    Object.defineProperty(error, brandOf(name), { value: true });
  }
}

function composeMessage(shortMessage: string, details: string | undefined): string {
  return details ? `${shortMessage}\n\nDetails: ${details}` : shortMessage;
}

/** Base of every error the SDK throws. */
export class PoolPartyError extends Error {
  /** The class's name, stable under minification; also the brand's name. */
  static readonly errorName: SdkErrorClassName = 'PoolPartyError';

  /** True for an error of this class from any copy of the SDK. */
  static override [Symbol.hasInstance](
    this: { readonly errorName: string },
    value: unknown,
  ): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass `instanceof` asks about.
    return typeof value === 'object' && value !== null && brandOf(this.errorName) in value;
  }

  /** The service's error code, or the SDK's own (`network_error`, `timeout`, …). */
  readonly code: string;
  /** The HTTP status; null when no response was received or none applies. */
  readonly status: number | null;
  /** The service's request id, when a response was received. */
  readonly requestId: string | null;
  /** The parsed response body, when there was one. */
  readonly body: unknown;
  /** The message without details. */
  readonly shortMessage: string;
  /** More about what went wrong, when known. */
  readonly details: string | undefined;

  /**
   * @param shortMessage - One line saying what went wrong.
   * @param options - Code, status, request id, body, details and cause.
   */
  constructor(shortMessage: string, options: PoolPartyErrorOptions = {}) {
    super(
      composeMessage(shortMessage, options.details),
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    brandInstance(this, new.target);
    this.name = (new.target as unknown as { errorName: string }).errorName;
    this.code = options.code ?? 'unknown_error';
    this.status = options.status ?? null;
    this.requestId = options.requestId ?? null;
    this.body = options.body;
    this.shortMessage = shortMessage;
    this.details = options.details;
  }

  /**
   * Follows the chain of causes from this error: returns the first one `predicate` accepts, or,
   * without a predicate, the deepest cause.
   */
  walk(predicate?: (error: unknown) => boolean): unknown {
    let current: unknown = this;
    for (let depth = 0; depth < CAUSE_DEPTH_MAX; depth += 1) {
      if (predicate?.(current)) return current;
      const next = (current as { cause?: unknown } | null)?.cause;
      if (next === undefined || next === null) return predicate ? null : current;
      current = next;
    }
    return predicate ? null : current;
  }
}

/** Bounds `walk` on a cycle of causes. */
const CAUSE_DEPTH_MAX = 32;

/** The request is invalid: caught before sending, or refused by the service with 400/413/415/422. */
export class ValidationError extends PoolPartyError {
  static override readonly errorName: SdkErrorClassName = 'ValidationError';
}

/** The API key or wallet token is missing, invalid, expired, or for another party. */
export class AuthenticationError extends PoolPartyError {
  static override readonly errorName: SdkErrorClassName = 'AuthenticationError';
}

/** The pool, token, intent or path does not exist (for this party). */
export class NotFoundError extends PoolPartyError {
  static override readonly errorName: SdkErrorClassName = 'NotFoundError';
}

/** The request is sound but conflicts with the current state (a pending intent exists, …). */
export class ConflictError extends PoolPartyError {
  static override readonly errorName: SdkErrorClassName = 'ConflictError';
}

/** A token symbol exists under several admins: pass one candidate's `poolId` or admins. */
export class AmbiguousPoolPairError extends ConflictError {
  static override readonly errorName: SdkErrorClassName = 'AmbiguousPoolPairError';
  /** The pools the pair could mean. */
  readonly candidates: readonly AmbiguousCandidate[];

  /**
   * @param shortMessage - One line saying what went wrong.
   * @param options - As for every error, plus the candidate pools.
   */
  constructor(
    shortMessage: string,
    options: PoolPartyErrorOptions & { readonly candidates: readonly AmbiguousCandidate[] },
  ) {
    super(shortMessage, options);
    this.candidates = options.candidates;
  }
}

/**
 * `swaps.create` was blocked by the settlement safety guard (HTTP 400): no intent was created.
 * `code`, `reason` and `message` are the guard's; the problem body's own code is
 * `settlement_safety`.
 */
export class SettlementSafetyError extends PoolPartyError {
  static override readonly errorName: SdkErrorClassName = 'SettlementSafetyError';
  /** The guard's machine-readable detail, e.g. `share=0.1432 limit=0.1`. */
  readonly reason: string;
  /** The guard's verdict as a whole. */
  readonly settlementSafety: SettlementSafety;

  /**
   * @param settlementSafety - The guard's verdict from the problem body.
   * @param options - Status, request id and body of the response.
   */
  constructor(settlementSafety: SettlementSafety, options: PoolPartyErrorOptions = {}) {
    // `message` is the guard's own sentence (docs/spec/guard.md#verdict); the problem's detail
    // stays in `body`.
    super(settlementSafety.message, {
      ...options,
      details: undefined,
      code: settlementSafety.code,
    });
    this.reason = settlementSafety.reason;
    this.settlementSafety = settlementSafety;
  }
}

/** Too many requests (429); retried automatically within `maxRetries`. */
export class RateLimitError extends PoolPartyError {
  static override readonly errorName: SdkErrorClassName = 'RateLimitError';
  /** Seconds the service asked to wait (`Retry-After`); null when it did not say. */
  readonly retryAfter: number | null;

  /**
   * @param shortMessage - One line saying what went wrong.
   * @param options - As for every error, plus the `Retry-After` seconds.
   */
  constructor(
    shortMessage: string,
    options: PoolPartyErrorOptions & { retryAfter?: number | null },
  ) {
    super(shortMessage, options);
    this.retryAfter = options.retryAfter ?? null;
  }
}

/** The service failed (5xx); retried automatically within `maxRetries` where safe. */
export class ServerError extends PoolPartyError {
  static override readonly errorName: SdkErrorClassName = 'ServerError';
}

/** No response: the network failed or the service is unreachable (`cause` says why). */
export class NetworkError extends PoolPartyError {
  static override readonly errorName: SdkErrorClassName = 'NetworkError';
}

/** A request, or `swap.wait()`, took longer than its timeout. */
export class TimeoutError extends PoolPartyError {
  static override readonly errorName: SdkErrorClassName = 'TimeoutError';
}

/**
 * `swap.wait()` ran out of time (`code: 'wait_timeout'`) before the swap ended. The swap goes
 * on: wait again, or read its status with `refresh()`.
 */
export class WaitTimeoutError extends TimeoutError {
  static override readonly errorName: SdkErrorClassName = 'WaitTimeoutError';
  /** The swap that was waited for. */
  readonly intentId: string;
  /** How long `wait()` waited, in milliseconds. */
  readonly timeoutMs: number;
  /** The swap's status as last observed; null when none was read yet. */
  readonly latestStatus: SwapStatus | null;

  /**
   * @param intentId - The swap waited for.
   * @param timeoutMs - How long it was waited for.
   * @param latestStatus - Its status as last observed.
   */
  constructor(intentId: string, timeoutMs: number, latestStatus: SwapStatus | null) {
    const state = latestStatus === null ? '' : ` (last seen ${latestStatus.status})`;
    super(`Swap ${intentId} did not end within ${timeoutMs} ms${state}`, {
      code: 'wait_timeout',
      details: 'The swap goes on; call wait() again or read its status with refresh().',
    });
    this.intentId = intentId;
    this.timeoutMs = timeoutMs;
    this.latestStatus = latestStatus;
  }
}

/**
 * A deposit was not sent (`code: 'deposit_refused'`): sent now, it could not complete the swap —
 * the price moved under the intent's `minOutput`, the intent no longer takes deposits, … .
 * `check` is `swap.canDeposit()`'s answer, with the figures. Nothing left the wallet.
 */
export class DepositRefusedError extends ConflictError {
  static override readonly errorName: SdkErrorClassName = 'DepositRefusedError';
  /** Why, with the fresh output and the minimum where a quote was made. */
  readonly check: DepositRefusal;

  /** @param check - The refusal `swap.canDeposit()` answered. */
  constructor(check: DepositRefusal) {
    super(`Deposit for swap ${check.intentId} not sent: ${check.reason}`, {
      code: 'deposit_refused',
      details: check.message,
    });
    this.check = check;
  }
}

/**
 * A swap ended in a terminal state other than `completed`. `swapStatus` is the final
 * status: its `refund` says what was returned, its `failureReason` why.
 */
export class SwapOutcomeError extends PoolPartyError {
  static override readonly errorName: SdkErrorClassName = 'SwapOutcomeError';
  /** The swap's final status. */
  readonly swapStatus: SwapStatus;

  /**
   * @param swapStatus - The final status; its state becomes the error's `code`.
   * @param options - Details or cause, if any.
   */
  constructor(swapStatus: SwapStatus, options: PoolPartyErrorOptions = {}) {
    super(outcomeMessage(swapStatus), { ...options, code: swapStatus.status });
    this.swapStatus = swapStatus;
  }

  /** The intent that ended. */
  get intentId(): string {
    return this.swapStatus.intentId;
  }

  /**
   * The terminal state the swap ended in.
   *
   * @deprecated Read `swapStatus.status`, the field every swap status names it by (`code` holds
   * it too). Kept for code written against earlier versions.
   */
  get state(): TerminalState {
    return this.swapStatus.status as TerminalState;
  }
}

function outcomeMessage(status: SwapStatus): string {
  const reason = status.failureReason ? `: ${status.failureReason.message}` : '';
  return `Swap ${status.intentId} ended ${status.status}${reason}`;
}

/** Refunded: the output at execution was below `minOutput`. */
export class SlippageError extends SwapOutcomeError {
  static override readonly errorName: SdkErrorClassName = 'SlippageError';
}

/** Refunded: the price impact at execution exceeded the service's cap. */
export class PriceImpactError extends SwapOutcomeError {
  static override readonly errorName: SdkErrorClassName = 'PriceImpactError';
}

/** Refunded where possible: the deposit did not cover the network cost. */
export class InsufficientAmountError extends SwapOutcomeError {
  static override readonly errorName: SdkErrorClassName = 'InsufficientAmountError';
}

/** Refunded: the pool could not cover the output. */
export class InsufficientLiquidityError extends SwapOutcomeError {
  static override readonly errorName: SdkErrorClassName = 'InsufficientLiquidityError';
}

/** Refunded: the output transfer failed and the trade was reversed. */
export class OutputFailedError extends SwapOutcomeError {
  static override readonly errorName: SdkErrorClassName = 'OutputFailedError';
}

/** Refunded: the swap party held no usable holdings of the output token. */
export class NoOutputHoldingsError extends SwapOutcomeError {
  static override readonly errorName: SdkErrorClassName = 'NoOutputHoldingsError';
}

/** Any other failure (including a guard block before payout); `failureReason` says which. */
export class SwapFailedError extends SwapOutcomeError {
  static override readonly errorName: SdkErrorClassName = 'SwapFailedError';
}

/** The refund could not be committed: funds are parked for an operator to return. */
export class RefundFailedError extends SwapOutcomeError {
  static override readonly errorName: SdkErrorClassName = 'RefundFailedError';
}

/** No deposit arrived before `expiresAt`. */
export class ExpiredError extends SwapOutcomeError {
  static override readonly errorName: SdkErrorClassName = 'ExpiredError';
}

/** The intent was cancelled before a deposit. */
export class CancelledError extends SwapOutcomeError {
  static override readonly errorName: SdkErrorClassName = 'CancelledError';
}
