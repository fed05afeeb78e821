import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BucketStore, takeToken } from '../src/http/token-bucket.js';

const MINUTE_MS = 60_000;

describe('takeToken', () => {
  it('lets a new client burst to its limit, then refuses with Retry-After', () => {
    const store = new BucketStore();
    for (let i = 0; i < 60; i++) expect(store.take('k', 0, 60, MINUTE_MS).allowed).toBe(true);
    const refused = store.take('k', 0, 60, MINUTE_MS);
    expect(refused.allowed).toBe(false);
    expect(refused.remaining).toBe(0);
    expect(refused.retryAfterSeconds).toBe(1);
    // When the quota grows again, as Retry-After says: not when the bucket is full (60 s).
    expect(refused.resetSeconds).toBe(1);
  });

  it('refills at the steady rate', () => {
    const store = new BucketStore();
    for (let i = 0; i < 60; i++) store.take('k', 0, 60, MINUTE_MS);
    expect(store.take('k', 999, 60, MINUTE_MS).allowed).toBe(false);
    expect(store.take('k', 2_000, 60, MINUTE_MS).allowed).toBe(true);
  });

  it('keeps clients apart', () => {
    const store = new BucketStore();
    store.take('a', 0, 1, MINUTE_MS);
    expect(store.take('a', 0, 1, MINUTE_MS).allowed).toBe(false);
    expect(store.take('b', 0, 1, MINUTE_MS).allowed).toBe(true);
  });

  it('never allows more than limit + elapsed refill over any run of requests', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100 }),
        fc.array(fc.integer({ min: 0, max: 5_000 }), { maxLength: 300 }),
        (limit, gaps) => {
          let bucket: ReturnType<typeof takeToken>['bucket'] | undefined;
          let now = 0;
          let allowed = 0;
          for (const gap of gaps) {
            now += gap;
            const decision = takeToken(bucket, now, limit, MINUTE_MS);
            bucket = decision.bucket;
            if (decision.allowed) allowed++;
            expect(decision.remaining).toBeGreaterThanOrEqual(0);
            expect(decision.remaining).toBeLessThanOrEqual(limit);
          }
          return allowed <= limit + Math.floor((now * limit) / MINUTE_MS);
        },
      ),
    );
  });

  /** A limit, a window, and a run of requests as gaps in ms between them. */
  const runs = fc.record({
    limit: fc.integer({ min: 1, max: 2_000 }),
    windowMs: fc.constantFrom(1_000, MINUTE_MS, 60 * MINUTE_MS),
    gaps: fc.array(fc.integer({ min: 0, max: 5_000 }), { maxLength: 200 }),
  });

  /** Every decision of the run, with the bucket it left and its time. */
  function decisionsOf(limit: number, windowMs: number, gaps: readonly number[]) {
    let bucket: ReturnType<typeof takeToken>['bucket'] | undefined;
    let now = 0;
    return gaps.map((gap) => {
      now += gap;
      const decision = takeToken(bucket, now, limit, windowMs);
      bucket = decision.bucket;
      return { decision, now };
    });
  }

  it('answers a refusal with RateLimit-Reset equal to Retry-After, and keeps that promise', () => {
    fc.assert(
      fc.property(runs, ({ limit, windowMs, gaps }) => {
        for (const { decision, now } of decisionsOf(limit, windowMs, gaps)) {
          if (decision.allowed) continue;
          expect(decision.remaining).toBe(0);
          expect(decision.retryAfterSeconds).toBeGreaterThanOrEqual(1);
          expect(decision.resetSeconds).toBe(decision.retryAfterSeconds);
          const later = now + decision.retryAfterSeconds * 1000;
          expect(takeToken(decision.bucket, later, limit, windowMs).allowed).toBe(true);
        }
      }),
    );
  });

  it('says in RateLimit-Reset when the quota grows by one, never later than one token takes', () => {
    fc.assert(
      fc.property(runs, ({ limit, windowMs, gaps }) => {
        const tokenSeconds = Math.max(1, Math.ceil(windowMs / limit / 1000));
        for (const { decision, now } of decisionsOf(limit, windowMs, gaps)) {
          expect(decision.resetSeconds).toBeGreaterThanOrEqual(0);
          expect(decision.resetSeconds).toBeLessThanOrEqual(tokenSeconds);
          expect(decision.resetSeconds === 0).toBe(decision.remaining >= limit);
          if (decision.resetSeconds === 0) continue;
          // One more request than RateLimit-Remaining said: the one taken here leaves as many.
          const later = takeToken(
            decision.bucket,
            now + decision.resetSeconds * 1000,
            limit,
            windowMs,
          );
          expect(later.allowed).toBe(true);
          expect(later.remaining).toBeGreaterThanOrEqual(decision.remaining);
        }
      }),
    );
  });

  it('forgets the least recently used buckets beyond its bound', () => {
    const store = new BucketStore(2);
    store.take('a', 0, 1, MINUTE_MS);
    store.take('b', 0, 1, MINUTE_MS);
    store.take('c', 0, 1, MINUTE_MS);
    expect(store.take('a', 0, 1, MINUTE_MS).allowed).toBe(true);
    expect(store.take('c', 0, 1, MINUTE_MS).allowed).toBe(false);
  });
});
