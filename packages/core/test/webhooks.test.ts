import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addressAllowed,
  checkEventPatterns,
  checkWebhookUrl,
  classifyAddress,
  type DestinationPolicy,
  endpointHealthAfter,
  endpointHealthAfterAll,
  endpointWants,
  eventMatches,
  nextWebhookAttempt,
  parseWebhookSignatureHeader,
  retryAfterMs,
  signWebhookPayload,
  WEBHOOK_ATTEMPTS_MAX,
  WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_PATTERNS_MAX,
  WEBHOOK_RETRY_AFTER_MAX_MS,
  WEBHOOK_RETRY_BASE_MS,
  WEBHOOK_RETRY_DELAY_MAX_MS,
  WEBHOOK_RETRY_JITTER,
  WEBHOOK_RETRY_WINDOW_MS,
  webhookBackoffMs,
  webhookSignatureHeader,
  webhookSlotsFree,
} from '../src/index.js';

describe('webhook signatures', () => {
  it('is the HMAC-SHA256 of "<t>.<body>" keyed by the secret, as node:crypto computes it', () => {
    fc.assert(
      fc.property(fc.string(), fc.nat(), fc.string(), (secret, t, body) => {
        const expected = createHmac('sha256', Buffer.from(secret, 'utf8'))
          .update(`${t}.${body}`, 'utf8')
          .digest('hex');
        expect(signWebhookPayload(secret, t, body)).toBe(expected);
      }),
    );
  });

  it('matches the worked example of the spec', () => {
    const header = webhookSignatureHeader(['whsec_example'], 1_767_225_600, '{"id":"evt_swap_1"}');
    expect(header).toBe(
      `t=1767225600,v1=${createHmac('sha256', 'whsec_example').update('1767225600.{"id":"evt_swap_1"}').digest('hex')}`,
    );
  });

  it('carries one v1 per secret and reads back what it wrote', () => {
    const header = webhookSignatureHeader(['whsec_new', 'whsec_old'], 42, 'body');
    expect(parseWebhookSignatureHeader(header)).toEqual({
      timestamp: 42,
      signatures: [
        signWebhookPayload('whsec_new', 42, 'body'),
        signWebhookPayload('whsec_old', 42, 'body'),
      ],
    });
    expect(() => webhookSignatureHeader([], 42, 'body')).toThrow(RangeError);
  });

  it('refuses headers without a timestamp, with two, or with a malformed v1; skips other versions', () => {
    const v1 = signWebhookPayload('s', 1, 'b');
    expect(parseWebhookSignatureHeader(`v1=${v1}`)).toBeNull();
    expect(parseWebhookSignatureHeader(`t=1,t=2,v1=${v1}`)).toBeNull();
    expect(parseWebhookSignatureHeader('t=1,v1=abc')).toBeNull();
    expect(parseWebhookSignatureHeader('t=1')).toBeNull();
    expect(parseWebhookSignatureHeader(`t=1,v0=zz,v1=${v1}`)?.signatures).toEqual([v1]);
  });
});

describe('the retry schedule', () => {
  const start = new Date('2026-01-01T00:00:00Z');
  const failure = fc.record({
    attempts: fc.integer({ min: 1, max: WEBHOOK_ATTEMPTS_MAX + 5 }),
    elapsedMs: fc.integer({ min: 0, max: WEBHOOK_RETRY_WINDOW_MS + 1 }),
    retryAfterMs: fc.option(fc.integer({ min: 0, max: 10 * WEBHOOK_RETRY_AFTER_MAX_MS })),
    random: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
  });

  it('waits the backoff within its jitter, or Retry-After up to its cap, and never past the window', () => {
    fc.assert(
      fc.property(failure, ({ attempts, elapsedMs, retryAfterMs: asked, random }) => {
        const now = new Date(start.getTime() + elapsedMs);
        const next = nextWebhookAttempt({
          attempts,
          firstAttemptAt: start,
          now,
          retryAfterMs: asked,
          random,
        });
        if (!next.retry) return;
        const wait = next.at.getTime() - now.getTime();
        const backoff = webhookBackoffMs(attempts);
        const low = Math.max(
          Math.floor(backoff * (1 - WEBHOOK_RETRY_JITTER)),
          Math.min(asked ?? 0, WEBHOOK_RETRY_AFTER_MAX_MS),
        );
        expect(wait).toBeGreaterThanOrEqual(low);
        expect(wait).toBeLessThanOrEqual(
          Math.max(Math.ceil(backoff * (1 + WEBHOOK_RETRY_JITTER)), WEBHOOK_RETRY_AFTER_MAX_MS),
        );
        expect(next.at.getTime()).toBeLessThanOrEqual(start.getTime() + WEBHOOK_RETRY_WINDOW_MS);
        expect(attempts).toBeLessThan(WEBHOOK_ATTEMPTS_MAX);
      }),
    );
  });

  it('grows, doubling from the base up to the cap', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), (n) => {
        expect(webhookBackoffMs(n + 1)).toBeGreaterThanOrEqual(webhookBackoffMs(n));
        expect(webhookBackoffMs(n)).toBeLessThanOrEqual(WEBHOOK_RETRY_DELAY_MAX_MS);
      }),
    );
    expect([1, 2, 3, 4].map(webhookBackoffMs)).toEqual(
      [1, 2, 4, 8].map((m) => m * WEBHOOK_RETRY_BASE_MS),
    );
  });

  it('gives a dead endpoint up within three days, after a bounded number of attempts', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), {
          minLength: WEBHOOK_ATTEMPTS_MAX,
          maxLength: WEBHOOK_ATTEMPTS_MAX,
        }),
        (draws) => {
          let now = start;
          let attempts = 1;
          for (;;) {
            const next = nextWebhookAttempt({
              attempts,
              firstAttemptAt: start,
              now,
              retryAfterMs: null,
              random: draws[attempts - 1] ?? 0,
            });
            if (!next.retry) break;
            now = next.at;
            attempts += 1;
          }
          expect(attempts).toBeLessThanOrEqual(WEBHOOK_ATTEMPTS_MAX);
          expect(now.getTime() - start.getTime()).toBeLessThanOrEqual(WEBHOOK_RETRY_WINDOW_MS);
          // Three days at the capped wait leaves room for at least a dozen attempts.
          expect(attempts).toBeGreaterThan(12);
        },
      ),
    );
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60_000);
    expect(retryAfterMs('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeNull();
    expect(retryAfterMs(null, now)).toBeNull();
  });
});

describe('turning a failing endpoint off', () => {
  const now = new Date('2026-01-01T00:00:00Z');

  it(`turns it off after ${WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES} deliveries given up in a row, and a delivery resets the run`, () => {
    let health = { failedInRow: 0, failingSince: null as Date | null };
    for (let n = 1; n < WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES; n += 1) {
      const after = endpointHealthAfter(health, 'given_up', now);
      expect(after.disable).toBe(false);
      health = after;
    }
    expect(health.failingSince).toEqual(now);
    expect(endpointHealthAfter(health, 'attempt_failed', now).disable).toBe(false);
    expect(endpointHealthAfter(health, 'given_up', now).disable).toBe(true);
    expect(endpointHealthAfter(health, 'delivered', now)).toEqual({
      failedInRow: 0,
      failingSince: null,
      disable: false,
    });
  });
});

describe("an endpoint's health after a batch of outcomes", () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const outcomes = fc.array(fc.constantFrom('delivered', 'attempt_failed', 'given_up' as const), {
    maxLength: 12,
  });
  const healths = fc.record({
    failedInRow: fc.nat({ max: WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES - 1 }),
    failingSince: fc.option(fc.date({ noInvalidDate: true }), { nil: null }),
  });

  it('is the outcomes one after the other, turned off when any of them turned it off', () => {
    fc.assert(
      fc.property(healths, outcomes, (health, batch) => {
        let current = { ...health, disable: false };
        let disabled = false;
        for (const outcome of batch) {
          current = endpointHealthAfter(current, outcome, now);
          disabled ||= current.disable;
        }
        const after = endpointHealthAfterAll(health, batch, now);
        const unchanged =
          current.failedInRow === health.failedInRow &&
          current.failingSince?.getTime() === health.failingSince?.getTime() &&
          !disabled;
        expect(after).toEqual(unchanged ? null : { ...current, disable: disabled });
      }),
    );
  });

  it('needs no write when an answering endpoint delivers', () => {
    const healthy = { failedInRow: 0, failingSince: null };
    expect(endpointHealthAfterAll(healthy, ['delivered', 'delivered'], now)).toBeNull();
    expect(endpointHealthAfterAll(healthy, ['delivered', 'attempt_failed'], now)).toEqual({
      failedInRow: 0,
      failingSince: now,
      disable: false,
    });
  });
});

describe('the slots a leasing statement is offered', () => {
  const limits = { concurrency: 5, perEndpoint: 2 };

  it('offers each endpoint named what its bound leaves, within the total', () => {
    const inFlight = new Map([
      ['a', 2],
      ['b', 1],
    ]);
    expect(webhookSlotsFree(limits, inFlight, ['a', 'b', 'c', 'c'])).toEqual({
      total: 2,
      perEndpoint: { b: 1, c: 2 },
    });
  });

  it('offers nothing when the total is reached', () => {
    const inFlight = new Map([
      ['a', 2],
      ['b', 2],
      ['c', 1],
    ]);
    expect(webhookSlotsFree(limits, inFlight, ['d'])).toEqual({ total: 0, perEndpoint: {} });
  });

  it('never offers more than the bounds leave', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.integer({ min: 0, max: 2 })),
        fc.array(fc.constantFrom('a', 'b', 'c', 'd')),
        (counts, named) => {
          const inFlight = new Map(Object.entries(counts));
          const busy = [...inFlight.values()].reduce((sum, n) => sum + n, 0);
          const free = webhookSlotsFree(limits, inFlight, named);
          expect(free.total).toBe(Math.max(0, limits.concurrency - busy));
          for (const [endpoint, n] of Object.entries(free.perEndpoint)) {
            expect(named).toContain(endpoint);
            expect(n + (inFlight.get(endpoint) ?? 0)).toBeLessThanOrEqual(limits.perEndpoint);
            expect(n).toBeLessThanOrEqual(free.total);
          }
        },
      ),
    );
  });
});

describe('event patterns', () => {
  const types = Object.values(WEBHOOK_EVENT_TYPES)
    .flat()
    .filter((t) => t !== 'webhook.test');
  // The kinds are the types' own prefixes: a kind pattern for each kind a type can have.
  const kinds = [...new Set(types.map((t) => t.split('.')[0]))];
  const pattern = fc.oneof(
    fc.constantFrom(...types),
    fc.constantFrom(...kinds).map((k) => `${k}.*`),
  );

  it('matches a type exactly when one pattern names it or its kind', () => {
    fc.assert(
      fc.property(
        fc.array(pattern, { maxLength: 6 }),
        fc.constantFrom(...types),
        (patterns, type) => {
          const kind = type.split('.')[0];
          const expected =
            patterns.length === 0 || patterns.includes(type) || patterns.includes(`${kind}.*`);
          expect(eventMatches(patterns, type)).toBe(expected);
          const checked = checkEventPatterns(patterns);
          expect(checked.ok).toBe(true);
          if (checked.ok) expect(eventMatches(checked.patterns, type)).toBe(expected);
        },
      ),
    );
  });

  it('refuses unknown types and kinds, bare stars and the test event', () => {
    for (const bad of ['swap.done', 'swaps.*', '*', 'swap.**', 'webhook.test', 'webhook.*', '']) {
      expect(checkEventPatterns(['swap.*', bad])).toEqual({
        ok: false,
        code: 'webhook_event_unknown',
        pattern: bad,
      });
    }
    expect(checkEventPatterns(['swap.completed', 'swap.*', 'swap.completed'])).toEqual({
      ok: true,
      patterns: ['swap.*', 'swap.completed'],
    });
  });

  it("takes an atomic swap's states as its own kind, apart from the deposit flow's", () => {
    expect(WEBHOOK_EVENT_TYPES.atomic_swap).toEqual([
      'atomic_swap.prepared',
      'atomic_swap.executing',
      'atomic_swap.completed',
      'atomic_swap.price_moved',
      'atomic_swap.rejected',
      'atomic_swap.expired',
      'atomic_swap.cancelled',
    ]);
    expect(checkEventPatterns(['atomic_swap.price_moved', 'atomic_swap.*'])).toEqual({
      ok: true,
      patterns: ['atomic_swap.*', 'atomic_swap.price_moved'],
    });
    for (const bad of ['atomic_swap.pending', 'atomic_swap.sending_output', 'atomic.*']) {
      expect(checkEventPatterns([bad])).toMatchObject({ ok: false, pattern: bad });
    }
    // A kind's star is that kind's only: `swap.*` is not the atomic swaps', nor the reverse.
    expect(eventMatches(['swap.*'], 'atomic_swap.completed')).toBe(false);
    expect(eventMatches(['atomic_swap.*'], 'swap.completed')).toBe(false);
    expect(eventMatches(['atomic_swap.completed'], 'atomic_swap.completed')).toBe(true);
  });

  it('lets one endpoint name every exact type there is', () => {
    expect(checkEventPatterns(types)).toMatchObject({ ok: true });
    expect(types.length).toBeLessThanOrEqual(WEBHOOK_PATTERNS_MAX);
  });

  it('narrows intents by key, never the developer’s own events', () => {
    const endpoint = { enabled: true, events: [], apiKeyIds: ['key_a'] };
    expect(endpointWants(endpoint, { type: 'swap.completed', apiKeyId: 'key_a' })).toBe(true);
    expect(endpointWants(endpoint, { type: 'swap.completed', apiKeyId: 'key_b' })).toBe(false);
    expect(endpointWants(endpoint, { type: 'collection.paid', apiKeyId: null })).toBe(true);
    expect(
      endpointWants({ ...endpoint, enabled: false }, { type: 'collection.paid', apiKeyId: null }),
    ).toBe(false);
  });
});

describe('address classification', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link_local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['100.128.0.1', 'public'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link_local'],
    ['fd12:3456::1', 'unique_local'],
    ['fc00::1', 'unique_local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['2606:4700:4700::1111', 'public'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::192.168.0.1', 'private'],
    ['::127.0.0.1', 'loopback'],
    ['1:2:3:4:5:6:7:8', 'public'],
    ['01.2.3.4', 'not_an_address'],
    ['1.2.3', 'not_an_address'],
    ['1:2:3:4:5:6:7:8:9', 'not_an_address'],
    ['1::2::3', 'not_an_address'],
    ['fe80::1%eth0', 'not_an_address'],
    ['example.com', 'not_an_address'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it('allows only public addresses on mainnet, unless private ones are allowed', () => {
    const mainnet = { mode: 'mainnet', allowPrivate: false } as const;
    expect(addressAllowed('8.8.8.8', mainnet)).toBe(true);
    expect(addressAllowed('::ffff:192.168.0.1', mainnet)).toBe(false);
    expect(addressAllowed('192.168.0.1', { ...mainnet, allowPrivate: true })).toBe(true);
    expect(addressAllowed('10.0.0.1', { mode: 'devnet', allowPrivate: false })).toBe(true);
  });
});

describe('the URL policy', () => {
  const devnet: DestinationPolicy = { mode: 'devnet', allowPrivate: false };
  const mainnet: DestinationPolicy = { mode: 'mainnet', allowPrivate: false };
  const codeOf = (url: string, policy: DestinationPolicy) => {
    const checked = checkWebhookUrl(url, policy);
    return checked.ok ? 'ok' : checked.code;
  };

  it('takes https anywhere public, and plain http only to loopback on devnet', () => {
    expect(codeOf('https://hooks.example.com/pp', mainnet)).toBe('ok');
    expect(codeOf('http://127.0.0.1:8080/hook', devnet)).toBe('ok');
    expect(codeOf('http://localhost:8080/hook', devnet)).toBe('ok');
    expect(codeOf('http://[::1]:8080/hook', devnet)).toBe('ok');
    expect(codeOf('http://hooks.example.com/pp', devnet)).toBe('webhook_url_not_allowed');
    expect(codeOf('http://127.0.0.1:8080/hook', mainnet)).toBe('webhook_url_not_allowed');
  });

  it('refuses private address literals and localhost on mainnet', () => {
    expect(codeOf('https://10.0.0.5/hook', mainnet)).toBe('webhook_url_not_allowed');
    expect(codeOf('https://[::ffff:169.254.169.254]/hook', mainnet)).toBe(
      'webhook_url_not_allowed',
    );
    expect(codeOf('https://localhost/hook', mainnet)).toBe('webhook_url_not_allowed');
    expect(codeOf('https://10.0.0.5/hook', { ...mainnet, allowPrivate: true })).toBe('ok');
  });

  it('refuses what is no URL to send to', () => {
    for (const url of [
      'not a url',
      'ftp://example.com/x',
      'https://user:pw@example.com/',
      'https://example.com/#frag',
      `https://example.com/${'a'.repeat(2100)}`,
    ]) {
      expect(codeOf(url, mainnet)).toBe('webhook_url_invalid');
    }
  });
});
