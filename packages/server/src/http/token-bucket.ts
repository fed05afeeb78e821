/**
 * Token-bucket rate limiting (docs/spec/protocol.md#rate-limits): a bucket holds up to `limit`
 * tokens and refills at `limit` per window, so a client may burst to its limit and then proceeds at
 * the steady rate. The decision is a pure function of the bucket, the time and the limit; the
 * caller keeps the buckets.
 *
 * `RateLimit-Reset` is the seconds until the quota grows again: until the next whole token, so
 * `RateLimit-Remaining` goes up by one (0 when the bucket is full). A bucket refills a token at a
 * time, never all at once, so this is when a client waiting on its quota can send again; on a
 * refusal it is exactly `Retry-After`.
 */
import { keepRecent } from '@poolparty/core';

export interface Bucket {
  readonly tokens: number;
  readonly updatedAtMs: number;
}

export interface RateDecision {
  readonly allowed: boolean;
  readonly bucket: Bucket;
  /** The limit per window, for `RateLimit-Limit`. */
  readonly limit: number;
  /** Whole tokens left after this request, for `RateLimit-Remaining`. */
  readonly remaining: number;
  /**
   * Seconds until the next whole token, for `RateLimit-Reset`; 0 when the bucket is full. Equals
   * `retryAfterSeconds` when refused.
   */
  readonly resetSeconds: number;
  /** Seconds until one token is available; set when refused, for `Retry-After`. */
  readonly retryAfterSeconds: number;
}

const MS_PER_SECOND = 1000;

/** The tokens a bucket holds `elapsedMs` after it held `tokens`, before the cap at the limit. */
function refilled(tokens: number, elapsedMs: number, limit: number, windowMs: number): number {
  return tokens + (elapsedMs * limit) / windowMs;
}

/**
 * The fewest whole seconds, at least one, after which `tokens` has refilled to `target`, by the
 * same arithmetic `takeToken` refills with: a client that waits this long is never refused for
 * a rounding error, and never told to wait a second longer than it must. Runs on every request
 * a key makes, so it allocates nothing: the estimate is nearly always right, and the loops only
 * correct a rounding at its edge.
 */
function secondsUntil(target: number, tokens: number, limit: number, windowMs: number): number {
  let seconds = Math.max(1, Math.ceil(((target - tokens) * windowMs) / limit / MS_PER_SECOND));
  for (let step = 0; step < ROUNDING_STEPS_MAX; step += 1) {
    if (refilled(tokens, seconds * MS_PER_SECOND, limit, windowMs) >= target) break;
    seconds += 1;
  }
  for (let step = 0; step < ROUNDING_STEPS_MAX && seconds > 1; step += 1) {
    if (refilled(tokens, (seconds - 1) * MS_PER_SECOND, limit, windowMs) < target) break;
    seconds -= 1;
  }
  return seconds;
}

/** Seconds a rounding at the edge of the estimate can be off by; one is all it ever takes. */
const ROUNDING_STEPS_MAX = 4;

export function takeToken(
  bucket: Bucket | undefined,
  nowMs: number,
  limit: number,
  windowMs: number,
): RateDecision {
  const previous = bucket ?? { tokens: limit, updatedAtMs: nowMs };
  const elapsedMs = Math.max(0, nowMs - previous.updatedAtMs);
  const available = Math.min(limit, refilled(previous.tokens, elapsedMs, limit, windowMs));
  const allowed = available >= 1;
  const tokens = allowed ? available - 1 : available;
  const next = { tokens, updatedAtMs: nowMs };
  const remaining = Math.floor(tokens);
  const resetSeconds =
    remaining >= limit ? 0 : secondsUntil(remaining + 1, tokens, limit, windowMs);
  return {
    allowed,
    bucket: next,
    limit,
    remaining,
    resetSeconds,
    // Refused means fewer than one token, so the next whole token is the first one.
    retryAfterSeconds: allowed ? 0 : resetSeconds,
  };
}

/**
 * Buckets by key with a bound on how many are kept: the least recently used are dropped first
 * (a dropped bucket starts full again, which only errs towards letting a request through).
 */
export class BucketStore {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly bucketsMax = 100_000) {}

  take(key: string, nowMs: number, limit: number, windowMs: number): RateDecision {
    const decision = takeToken(this.buckets.get(key), nowMs, limit, windowMs);
    keepRecent(this.buckets, key, decision.bucket, this.bucketsMax);
    return decision;
  }
}
