/**
 * Token-bucket rate limiting (SPEC §2): a bucket holds up to `limit` tokens and refills at
 * `limit` per window, so a client may burst to its limit and then proceeds at the steady rate.
 * The decision is a pure function of the bucket, the time and the limit; the caller keeps the
 * buckets.
 */

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
  /** Seconds until the bucket is full again, for `RateLimit-Reset`. */
  readonly resetSeconds: number;
  /** Seconds until one token is available; set when refused, for `Retry-After`. */
  readonly retryAfterSeconds: number;
}

export function takeToken(
  bucket: Bucket | undefined,
  nowMs: number,
  limit: number,
  windowMs: number,
): RateDecision {
  const refillPerMs = limit / windowMs;
  const previous = bucket ?? { tokens: limit, updatedAtMs: nowMs };
  const elapsedMs = Math.max(0, nowMs - previous.updatedAtMs);
  const available = Math.min(limit, previous.tokens + elapsedMs * refillPerMs);
  const allowed = available >= 1;
  const tokens = allowed ? available - 1 : available;
  const next = { tokens, updatedAtMs: nowMs };
  return {
    allowed,
    bucket: next,
    limit,
    remaining: Math.floor(tokens),
    resetSeconds: Math.ceil((limit - tokens) / refillPerMs / 1000),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / refillPerMs / 1000)),
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
    this.buckets.delete(key);
    this.buckets.set(key, decision.bucket);
    if (this.buckets.size > this.bucketsMax) {
      const oldest = this.buckets.keys().next().value;
      if (oldest !== undefined) this.buckets.delete(oldest);
    }
    return decision;
  }
}
