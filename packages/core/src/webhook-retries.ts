/**
 * When a webhook delivery is tried again, when it is given up, and when an endpoint that keeps
 * failing is turned off (docs/spec/webhooks.md#retries).
 *
 * After the n-th failed attempt the next waits `WEBHOOK_RETRY_BASE_MS · 2^(n-1)`, capped at
 * `WEBHOOK_RETRY_DELAY_MAX_MS`, scaled by a random factor in [1 - JITTER, 1 + JITTER) so that
 * endpoints that failed together are not retried together. A `Retry-After` the receiver sent is
 * honoured when it asks for longer, up to `WEBHOOK_RETRY_AFTER_MAX_MS`. A delivery whose next
 * attempt would come later than `WEBHOOK_RETRY_WINDOW_MS` after its first is given up (`failed`).
 */

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/** The wait after the first failed attempt. */
export const WEBHOOK_RETRY_BASE_MS = MINUTE_MS;
/** The longest wait between two attempts, before jitter. */
export const WEBHOOK_RETRY_DELAY_MAX_MS = 6 * HOUR_MS;
/** ±20 %: the spread of each wait. */
export const WEBHOOK_RETRY_JITTER = 0.2;
/** A receiver's `Retry-After` is honoured up to this. */
export const WEBHOOK_RETRY_AFTER_MAX_MS = 6 * HOUR_MS;
/** How long after its first attempt a delivery is still tried: three days. */
export const WEBHOOK_RETRY_WINDOW_MS = 72 * HOUR_MS;
/** Attempts of one delivery at most, whatever the waits: a bound beside the window. */
export const WEBHOOK_ATTEMPTS_MAX = 30;

/** The wait after `failedAttempts` failed attempts (at least 1), before jitter. */
export function webhookBackoffMs(failedAttempts: number): number {
  if (!Number.isSafeInteger(failedAttempts) || failedAttempts < 1) {
    throw new RangeError(`failed attempts must be a positive integer, got ${failedAttempts}`);
  }
  // 2^20 minutes is far beyond the cap: no overflow for any attempt count.
  const doubling = 2 ** Math.min(failedAttempts - 1, 20);
  return Math.min(WEBHOOK_RETRY_BASE_MS * doubling, WEBHOOK_RETRY_DELAY_MAX_MS);
}

export interface FailedAttempt {
  /** Attempts made so far, the one that just failed included. */
  readonly attempts: number;
  readonly firstAttemptAt: Date;
  readonly now: Date;
  /** The receiver's `Retry-After` in ms, when it sent one. */
  readonly retryAfterMs: number | null;
  /** A draw from [0, 1): the jitter. */
  readonly random: number;
}

export type RetryDecision =
  | { readonly retry: true; readonly at: Date }
  | { readonly retry: false; readonly reason: 'window_spent' | 'attempts_spent' };

/** After a failed attempt: when the next one is, or that the delivery is given up. */
export function nextWebhookAttempt(failed: FailedAttempt): RetryDecision {
  if (failed.attempts >= WEBHOOK_ATTEMPTS_MAX) return { retry: false, reason: 'attempts_spent' };
  const random = Math.min(Math.max(failed.random, 0), 1);
  const jitter = 1 - WEBHOOK_RETRY_JITTER + 2 * WEBHOOK_RETRY_JITTER * random;
  const backoff = Math.round(webhookBackoffMs(failed.attempts) * jitter);
  const asked =
    failed.retryAfterMs === null ? 0 : Math.min(failed.retryAfterMs, WEBHOOK_RETRY_AFTER_MAX_MS);
  const at = failed.now.getTime() + Math.max(backoff, asked);
  if (at > failed.firstAttemptAt.getTime() + WEBHOOK_RETRY_WINDOW_MS) {
    return { retry: false, reason: 'window_spent' };
  }
  return { retry: true, at: new Date(at) };
}

/**
 * `Retry-After` in ms: delay-seconds or an HTTP date (RFC 9110 §10.2.3); null when absent or
 * unreadable. A date in the past is 0.
 */
export function retryAfterMs(header: string | null, now: Date): number | null {
  if (header === null) return null;
  const text = header.trim();
  if (/^\d{1,9}$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  if (!/[a-z]/i.test(text) || Number.isNaN(date)) return null;
  return Math.max(0, date - now.getTime());
}

/**
 * Deliveries in a row given up (`failed`, no delivery delivered between) that turn an endpoint
 * off. Each was tried for three days, so an endpoint is turned off no sooner than three days
 * after it stopped answering, and never by one bad event.
 */
export const WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES = 5;

export interface EndpointHealth {
  /** Deliveries given up since the last one delivered. */
  readonly failedInRow: number;
  /** The first failed attempt since the last delivered one; null while it succeeds. */
  readonly failingSince: Date | null;
}

export type DeliveryOutcome = 'delivered' | 'attempt_failed' | 'given_up';

/** The endpoint's health after an attempt's outcome, and whether it is to be turned off now. */
export function endpointHealthAfter(
  health: EndpointHealth,
  outcome: DeliveryOutcome,
  now: Date,
): EndpointHealth & { readonly disable: boolean } {
  if (outcome === 'delivered') return { failedInRow: 0, failingSince: null, disable: false };
  const failingSince = health.failingSince ?? now;
  const failedInRow = health.failedInRow + (outcome === 'given_up' ? 1 : 0);
  return {
    failedInRow,
    failingSince,
    disable: failedInRow >= WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES,
  };
}

/**
 * The endpoint's health after several outcomes in the order they came (a worker records its
 * finished attempts together), and whether one of them turned it off; null when none changes
 * it, so a batch of deliveries to an endpoint that answers needs no write.
 */
export function endpointHealthAfterAll(
  health: EndpointHealth,
  outcomes: readonly DeliveryOutcome[],
  now: Date,
): (EndpointHealth & { readonly disable: boolean }) | null {
  let current: EndpointHealth = health;
  let disable = false;
  for (const outcome of outcomes) {
    const next = endpointHealthAfter(current, outcome, now);
    disable ||= next.disable;
    current = next;
  }
  const same =
    current.failedInRow === health.failedInRow &&
    current.failingSince?.getTime() === health.failingSince?.getTime();
  return same && !disable ? null : { ...current, disable };
}

/** Whether an answer delivered the event: any 2xx. A 3xx is not followed, so it fails. */
export function webhookDelivered(statusCode: number | null): boolean {
  return statusCode !== null && statusCode >= 200 && statusCode < 300;
}

export type DeliveryAfterAttempt =
  | { readonly state: 'delivered'; readonly outcome: 'delivered' }
  | { readonly state: 'retrying'; readonly outcome: 'attempt_failed'; readonly at: Date }
  | { readonly state: 'failed'; readonly outcome: 'given_up' };

/** A delivery's state after an attempt answered `statusCode` (null: no answer). */
export function deliveryAfterAttempt(
  statusCode: number | null,
  failed: FailedAttempt,
): DeliveryAfterAttempt {
  if (webhookDelivered(statusCode)) return { state: 'delivered', outcome: 'delivered' };
  const next = nextWebhookAttempt(failed);
  return next.retry
    ? { state: 'retrying', outcome: 'attempt_failed', at: next.at }
    : { state: 'failed', outcome: 'given_up' };
}
