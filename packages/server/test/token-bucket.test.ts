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
    expect(refused.resetSeconds).toBe(60);
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

  it('forgets the least recently used buckets beyond its bound', () => {
    const store = new BucketStore(2);
    store.take('a', 0, 1, MINUTE_MS);
    store.take('b', 0, 1, MINUTE_MS);
    store.take('c', 0, 1, MINUTE_MS);
    expect(store.take('a', 0, 1, MINUTE_MS).allowed).toBe(true);
    expect(store.take('c', 0, 1, MINUTE_MS).allowed).toBe(false);
  });
});
