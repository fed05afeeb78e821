/**
 * When a failed attempt is tried again, and after how long. Pure functions, so the
 * policy is read and tested in one place.
 */

/** How an attempt failed. */
export type AttemptFailure =
  | { readonly kind: 'network' }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'status'; readonly status: number; readonly code: string | null };

/** Everything `shouldRetry` decides on. */
export interface RetryQuestion {
  /** The request may be sent twice: a GET, or a POST that carries its `Idempotency-Key`. */
  readonly retrySafe: boolean;
  /** Retries already made for this call. */
  readonly retriesMade: number;
  readonly retriesMax: number;
  readonly failure: AttemptFailure;
  /** What the service asked for with `Retry-After`, if anything. */
  readonly retryAfterMs: number | null;
}

/** First backoff step; each retry doubles it. */
export const RETRY_DELAY_BASE_MS = 500;
/** Backoff never waits longer than this between attempts. */
export const RETRY_DELAY_MAX_MS = 8_000;
/** A `Retry-After` longer than this is not waited out: the caller gets the `RateLimitError`. */
export const RETRY_AFTER_MAX_MS = 60_000;

/** Statuses worth another attempt of a safe request: the next one may well succeed. */
function isTransientStatus(status: number, code: string | null): boolean {
  if (status === 408 || status === 429) return true;
  // The first request under this idempotency key is still running; the retry replays its answer.
  if (status === 409) return code === 'idempotency_key_in_use';
  // 501 stays 501 however often it is asked.
  return status >= 500 && status <= 599 && status !== 501;
}

/** Whether to send a failed request again. */
export function shouldRetry(question: RetryQuestion): boolean {
  if (!question.retrySafe || question.retriesMade >= question.retriesMax) return false;
  if (question.retryAfterMs !== null && question.retryAfterMs > RETRY_AFTER_MAX_MS) return false;
  const { failure } = question;
  if (failure.kind !== 'status') return true;
  return isTransientStatus(failure.status, failure.code);
}

/**
 * The wait before the next attempt: what `Retry-After` asked for, otherwise exponential backoff
 * with jitter (half fixed, half random), so that clients that failed together do not retry
 * together.
 */
export function retryDelayMs(
  retriesMade: number,
  retryAfterMs: number | null,
  random: () => number,
): number {
  if (retryAfterMs !== null) return Math.max(0, retryAfterMs);
  const step = Math.min(RETRY_DELAY_MAX_MS, RETRY_DELAY_BASE_MS * 2 ** retriesMade);
  return Math.round(step / 2 + (random() * step) / 2);
}

/** `Retry-After` as milliseconds: delay-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfterMs(header: string | null, nowMs: number): number | null {
  if (header === null) return null;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - nowMs);
}
