/**
 * `@poolparty/sdk/webhooks`: a request the service signs verifies, and nothing else does — a
 * changed byte, a stale or early timestamp, another secret, a garbled header. Every header here is
 * also made by `node:crypto`'s HMAC, an implementation independent of the WebCrypto one under
 * test, so a bug shared by `sign` and `verify` cannot pass unnoticed.
 */
import { createHmac } from 'node:crypto';
import { parseWebhookSignatureHeader, webhookSignatureHeader } from '@poolparty/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PoolPartyError, ValidationError } from '../src/index.js';
import {
  WEBHOOK_TOLERANCE_SECONDS_DEFAULT,
  type WebhookEvent,
  WebhookSignatureError,
  webhooks,
} from '../src/webhooks/index.js';
import { parseSignatureHeader } from '../src/webhooks/signature-header.js';

const encoder = new TextEncoder();

/** The service's signature, by node:crypto: hex HMAC-SHA256 of "<t>.<body>" under the secret's UTF-8. */
function nodeSignature(secret: string, timestamp: number, body: string | Uint8Array): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${timestamp}.`)
    .update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body)
    .digest('hex');
}

function nodeHeader(secrets: readonly string[], timestamp: number, body: string | Uint8Array) {
  return [`t=${timestamp}`, ...secrets.map((s) => `v1=${nodeSignature(s, timestamp, body)}`)].join(
    ',',
  );
}

/** What a verification came to: the event's id, or the refusal's code. */
async function outcome(promise: Promise<WebhookEvent>): Promise<string> {
  try {
    return `ok:${(await promise).id}`;
  } catch (error) {
    if (error instanceof WebhookSignatureError) return error.code;
    throw error;
  }
}

const BASE64URL = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_';
/** A secret as the service issues them, `whsec_<base64url>`. */
const issuedSecret = fc
  .array(fc.constantFrom(...BASE64URL), { minLength: 32, maxLength: 48 })
  .map((chars) => `whsec_${chars.join('')}`);
/** Any secret string at all: its UTF-8 bytes are the key, whatever they are. */
const secret = fc.oneof(issuedSecret, fc.string({ unit: 'binary', minLength: 1, maxLength: 80 }));
const twoSecrets = fc.tuple(secret, secret).filter(([a, b]) => a !== b);
/** Whole unix seconds, from 1970 to well past 2100. */
const timestamp = fc.integer({ min: 0, max: 5_000_000_000 });
/** Milliseconds into the second `now` falls in: verification reads whole seconds. */
const millis = fc.integer({ min: 0, max: 999 });
const tolerance = fc.integer({ min: 0, max: 86_400 });

/** Text of any code points, empty included, sometimes large. */
const text = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'binary', maxLength: 300 }) },
  { weight: 1, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 20_000, maxLength: 40_000 }) },
);

/** An event body as the service sends it, with arbitrary text inside its object. */
const eventBody = fc
  .record({
    id: fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
    type: fc.constantFrom('swap.completed', 'liquidity_intent.partial', 'collection.paid'),
    mode: fc.constantFrom('devnet', 'mainnet'),
    note: text,
    indent: fc.constantFrom(undefined, 2),
  })
  .map(({ id, type, mode, note, indent }) =>
    JSON.stringify(
      { id, type, createdAt: '2026-12-02T19:00:00.000Z', mode, data: { object: { note } } },
      null,
      indent,
    ),
  );
/** Any raw body: an event as text or bytes, or any text, or any bytes. */
const payload = fc.oneof(
  eventBody,
  eventBody.map((body) => encoder.encode(body)),
  text,
  fc.uint8Array({ maxLength: 2_000 }),
);

describe('a header the service would send', () => {
  it('is what node:crypto computes, and verifies: the event, or a body that is no event', async () => {
    await fc.assert(
      fc.asyncProperty(payload, secret, timestamp, millis, async (body, key, t, ms) => {
        const header = await webhooks.sign(body, key, { timestamp: t });
        expect(header).toBe(nodeHeader([key], t, body));
        const result = await outcome(webhooks.verify(body, header, key, { now: t * 1000 + ms }));
        // The signature holds for any body; only what the body says can still refuse it.
        expect(['webhook_payload_invalid', 'ok']).toContain(result.split(':')[0]);
      }),
    );
  });

  it('resolves with the parsed event, from a string body or its bytes', async () => {
    await fc.assert(
      fc.asyncProperty(eventBody, secret, timestamp, async (body, key, t) => {
        const header = nodeHeader([key], t, body);
        const options = { now: t * 1000 };
        await expect(webhooks.verify(body, header, key, options)).resolves.toEqual(
          JSON.parse(body),
        );
        const bytes = encoder.encode(body);
        await expect(webhooks.verify(bytes, header, key, options)).resolves.toEqual(
          JSON.parse(body),
        );
      }),
    );
  });
});

describe('a request that is not the one signed', () => {
  it('fails when any byte of the body changed, or one was added', async () => {
    const change = fc.record({ at: fc.nat(), xor: fc.integer({ min: 1, max: 255 }) });
    await fc.assert(
      fc.asyncProperty(payload, secret, timestamp, change, async (body, key, t, { at, xor }) => {
        const header = nodeHeader([key], t, body);
        const original = typeof body === 'string' ? encoder.encode(body) : body;
        const changed = original.length === 0 ? Uint8Array.of(xor) : Uint8Array.from(original);
        const index = at % Math.max(original.length, 1);
        if (original.length > 0) changed[index] = (changed[index] ?? 0) ^ xor;
        const result = await outcome(webhooks.verify(changed, header, key, { now: t * 1000 }));
        expect(result).toBe('webhook_signature_mismatch');
      }),
    );
  });

  it('fails under another secret', async () => {
    await fc.assert(
      fc.asyncProperty(eventBody, twoSecrets, timestamp, async (body, [signer, other], t) => {
        const header = nodeHeader([signer], t, body);
        const result = await outcome(webhooks.verify(body, header, other, { now: t * 1000 }));
        expect(result).toBe('webhook_signature_mismatch');
      }),
    );
  });

  it('fails when the signature is of another timestamp than the header says', async () => {
    await fc.assert(
      fc.asyncProperty(eventBody, secret, timestamp, async (body, key, t) => {
        const header = `t=${t},v1=${nodeSignature(key, t + 1, body)}`;
        const result = await outcome(webhooks.verify(body, header, key, { now: t * 1000 }));
        expect(result).toBe('webhook_signature_mismatch');
      }),
    );
  });
});

describe('the timestamp', () => {
  const offset = fc.integer({ min: 1, max: 10_000_000 });

  it('is accepted within the tolerance either way, the bounds included', async () => {
    await fc.assert(
      fc.asyncProperty(
        eventBody,
        secret,
        timestamp,
        tolerance,
        millis,
        fc.double({ min: -1, max: 1, noNaN: true }),
        async (body, key, t, seconds, ms, where) => {
          const now = (t + Math.trunc(where * seconds)) * 1000 + ms;
          const header = nodeHeader([key], t, body);
          const options = { now, toleranceSeconds: seconds };
          expect(await outcome(webhooks.verify(body, header, key, options))).toMatch(/^ok:/);
        },
      ),
    );
  });

  it('fails when older than the tolerance', async () => {
    await fc.assert(
      fc.asyncProperty(
        eventBody,
        secret,
        timestamp,
        tolerance,
        offset,
        millis,
        async (body, key, t, seconds, late, ms) => {
          const now = (t + seconds + late) * 1000 + ms;
          const header = nodeHeader([key], t, body);
          const refused = webhooks.verify(body, header, key, { now, toleranceSeconds: seconds });
          await expect(refused).rejects.toMatchObject({
            code: 'webhook_timestamp_out_of_tolerance',
            timestamp: t,
          });
        },
      ),
    );
  });

  it('fails when further in the future than the tolerance', async () => {
    await fc.assert(
      fc.asyncProperty(
        eventBody,
        secret,
        timestamp,
        tolerance,
        offset,
        millis,
        async (body, key, t, seconds, early, ms) => {
          const now = (t - seconds - early) * 1000 + ms;
          const header = nodeHeader([key], t, body);
          const refused = webhooks.verify(body, header, key, { now, toleranceSeconds: seconds });
          await expect(refused).rejects.toMatchObject({
            code: 'webhook_timestamp_out_of_tolerance',
          });
        },
      ),
    );
  });

  it('allows five minutes unless told otherwise', async () => {
    const body = JSON.stringify(testEvent);
    const key = 'whsec_default_tolerance_0123456789abcdef';
    const t = 1_800_000_000;
    const header = nodeHeader([key], t, body);
    const at = (seconds: number) =>
      outcome(webhooks.verify(body, header, key, { now: seconds * 1000 }));
    expect(WEBHOOK_TOLERANCE_SECONDS_DEFAULT).toBe(300);
    expect(await at(t + 300)).toBe('ok:evt_test');
    expect(await at(t - 300)).toBe('ok:evt_test');
    expect(await at(t + 301)).toBe('webhook_timestamp_out_of_tolerance');
    expect(await at(t - 301)).toBe('webhook_timestamp_out_of_tolerance');
  });
});

describe('a rotation’s overlap', () => {
  it('signs with both secrets, and either one verifies; a third does not', async () => {
    await fc.assert(
      fc.asyncProperty(
        eventBody,
        twoSecrets,
        secret,
        timestamp,
        async (body, [old, fresh], stranger, t) => {
          fc.pre(stranger !== old && stranger !== fresh);
          const header = await webhooks.sign(body, [old, fresh], { timestamp: t });
          expect(header).toBe(nodeHeader([old, fresh], t, body));
          const options = { now: t * 1000 };
          for (const key of [old, fresh, [stranger, fresh], [old, stranger]]) {
            expect(await outcome(webhooks.verify(body, header, key, options))).toMatch(/^ok:/);
          }
          expect(await outcome(webhooks.verify(body, header, stranger, options))).toBe(
            'webhook_signature_mismatch',
          );
        },
      ),
    );
  });
});

const testEvent = {
  id: 'evt_test',
  type: 'webhook.test',
  createdAt: '2026-12-02T19:00:00.000Z',
  mode: 'devnet',
  data: { object: {} },
};

describe('the header', () => {
  const space = fc.constantFrom('', ' ', '  ', '\t');
  const unknownEntry = fc
    .tuple(fc.constantFrom('v0', 'v2', 'x', 'scheme_9'), fc.stringMatching(/^[0-9a-z]{1,70}$/))
    .map(([name, value]) => `${name}=${value}`);

  it('tolerates whitespace around entries and entries of other schemes, anywhere', async () => {
    await fc.assert(
      fc.asyncProperty(
        eventBody,
        secret,
        timestamp,
        fc.array(unknownEntry, { maxLength: 4 }),
        fc.array(fc.tuple(space, space), { minLength: 8, maxLength: 8 }),
        fc.nat(),
        async (body, key, t, unknown, spaces, shuffle) => {
          const entries = [`t=${t}`, `v1=${nodeSignature(key, t, body)}`];
          for (const [index, entry] of unknown.entries()) {
            entries.splice((shuffle + index) % (entries.length + 1), 0, entry);
          }
          const header = entries
            .map((entry, index) => {
              const [before, after] = spaces[index % spaces.length] ?? ['', ''];
              return `${before}${entry}${after}`;
            })
            .join(',');
          expect(await outcome(webhooks.verify(body, header, key, { now: t * 1000 }))).toBe(
            `ok:${JSON.parse(body).id}`,
          );
        },
      ),
    );
  });

  /** A good header made bad in one of the ways a header can be. */
  const garble = fc.constantFrom(
    (t: number, _v1: string) => `t=${t}`,
    (_t: number, v1: string) => `v1=${v1}`,
    (t: number, v1: string) => `t=${t},v1=${v1.slice(1)}`,
    (t: number, v1: string) => `t=${t},v1=${v1}0`,
    (t: number, v1: string) => `t=${t},v1=${v1.replace(/^./, 'g')}`,
    (t: number, v1: string) => `t=${t}.5,v1=${v1}`,
    (t: number, v1: string) => `t=-${t},v1=${v1}`,
    (t: number, v1: string) => `t=${t},t=${t},v1=${v1}`,
    (t: number, v1: string) => `t=${t},v1=${v1},`,
    (t: number, v1: string) => `t=${t},,v1=${v1}`,
    (t: number, v1: string) => `t=${t};v1=${v1}`,
    (t: number, v1: string) => `t=${t},v1 ${v1}`,
    (t: number, v1: string) => `t=${t},=${v1}`,
    (t: number, _v1: string) => `t=${t},v1=`,
    (t: number, v1: string) => `t ${t},v1=${v1}`,
    (t: number, v1: string) => `t=${t},v1=${v1},v1=${'0'.repeat(63)}`,
    (t: number, v1: string) => `t=${t},${'v0=0,'.repeat(16)}v1=${v1}`,
    (t: number, v1: string) => `t=${t},v1=${v1},v0=${'a'.repeat(4096)}`,
  );

  it('refuses garbage as malformed, even around a correct signature', async () => {
    await fc.assert(
      fc.asyncProperty(eventBody, secret, timestamp, garble, async (body, key, t, make) => {
        const header = make(t, nodeSignature(key, t, body));
        expect(await outcome(webhooks.verify(body, header, key, { now: t * 1000 }))).toBe(
          'webhook_signature_malformed',
        );
      }),
    );
  });

  it('refuses any random text as missing or malformed, never anything else', async () => {
    const body = JSON.stringify(testEvent);
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 200 }), async (header) => {
        expect(['webhook_signature_missing', 'webhook_signature_malformed']).toContain(
          await outcome(webhooks.verify(body, header, 'whsec_x', { now: 0 })),
        );
      }),
    );
  });

  it('round-trips through parsing: t and every v1, lowercase', () => {
    const hex = fc.stringMatching(/^[0-9a-fA-F]{64}$/);
    fc.assert(
      fc.property(timestamp, fc.array(hex, { minLength: 1, maxLength: 3 }), (t, signatures) => {
        const header = [`t=${t}`, ...signatures.map((s) => `v1=${s}`)].join(',');
        expect(parseSignatureHeader(header)).toEqual({
          timestamp: t,
          signatures: signatures.map((s) => s.toLowerCase()),
        });
      }),
    );
  });
});

describe('refusals', () => {
  const key = 'whsec_refusals_0123456789abcdefghijkl';
  const t = 1_800_000_000;
  const now = t * 1000;

  it('answer an absent or empty header as missing', async () => {
    const body = JSON.stringify(testEvent);
    for (const header of [undefined, null, '', '   ']) {
      expect(await outcome(webhooks.verify(body, header, key, { now }))).toBe(
        'webhook_signature_missing',
      );
    }
  });

  it('answer a signed body that is not JSON, not UTF-8, or not an event as invalid', async () => {
    const bodies: (string | Uint8Array)[] = [
      'not json',
      '',
      Uint8Array.of(0x7b, 0xff, 0x7d),
      '[]',
      JSON.stringify({ ...testEvent, mode: 'testnet' }),
      JSON.stringify({ ...testEvent, type: 'swap' }),
      JSON.stringify({ ...testEvent, data: {} }),
      JSON.stringify({ ...testEvent, id: '' }),
    ];
    for (const body of bodies) {
      const header = nodeHeader([key], t, body);
      expect(await outcome(webhooks.verify(body, header, key, { now })), String(body)).toBe(
        'webhook_payload_invalid',
      );
    }
  });

  it('are WebhookSignatureErrors, PoolPartyErrors with a code, the header’s t and details', async () => {
    const body = JSON.stringify(testEvent);
    const error = await webhooks
      .verify(body, nodeHeader(['whsec_other'], t, body), key, { now })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WebhookSignatureError);
    expect(error).toBeInstanceOf(PoolPartyError);
    expect(error).toMatchObject({
      name: 'WebhookSignatureError',
      code: 'webhook_signature_mismatch',
      timestamp: t,
      status: null,
    });
    expect((error as WebhookSignatureError).details).toContain('1 v1 signature(s)');
  });

  it('check the body only once the signature holds: a forged non-JSON body is a mismatch', async () => {
    const header = nodeHeader([key], t, JSON.stringify(testEvent));
    expect(await outcome(webhooks.verify('not json', header, key, { now }))).toBe(
      'webhook_signature_mismatch',
    );
  });

  it('throw ValidationError for a call that cannot be checked', async () => {
    const body = JSON.stringify(testEvent);
    const header = nodeHeader([key], t, body);
    const calls = [
      () => webhooks.verify(body, header, [], { now }),
      () => webhooks.verify(body, header, '', { now }),
      () => webhooks.verify(body, header, Array(9).fill(key), { now }),
      () => webhooks.verify(body, header, key, { now, toleranceSeconds: -1 }),
      () => webhooks.verify(body, header, key, { now, toleranceSeconds: Number.NaN }),
      () => webhooks.verify({ parsed: true } as unknown as string, header, key, { now }),
      () => webhooks.sign(body, key, { timestamp: 1.5 }),
    ];
    for (const call of calls) {
      await expect(call()).rejects.toBeInstanceOf(ValidationError);
    }
  });
});

describe("the service's signer", () => {
  it('makes the header webhooks.sign makes, and each side reads the other’s', async () => {
    await fc.assert(
      fc.asyncProperty(eventBody, twoSecrets, timestamp, async (body, secrets, t) => {
        const service = webhookSignatureHeader(secrets, t, body);
        expect(await webhooks.sign(body, secrets, { timestamp: t })).toBe(service);
        expect(parseWebhookSignatureHeader(service)).toEqual(parseSignatureHeader(service));
        for (const key of secrets) {
          expect(await outcome(webhooks.verify(body, service, key, { now: t * 1000 }))).toMatch(
            /^ok:/,
          );
        }
      }),
    );
  });
});

describe('the worked example of the webhook specification', () => {
  it('verifies, and fails a second later than the tolerance', async () => {
    const secret = 'whsec_4eC39HqLyjWDarjtT1zdp7dcQ2mVnB8x';
    const body =
      '{"id":"evt_swap_1042","type":"swap.completed","createdAt":"2026-01-01T00:00:00.000Z","mode":"devnet","data":{"object":{"intentId":"int_3f9a","status":"completed"}}}';
    const header =
      't=1767225600,v1=22b3c7cd76354af8d3e6c456d90247971b9eb66269fd0c10dc329024c6b8dd5f';
    const now = 1_767_225_600_000;
    const event = await webhooks.verify(body, header, secret, { now });
    expect(event).toMatchObject({ id: 'evt_swap_1042', type: 'swap.completed', mode: 'devnet' });
    expect(await webhooks.sign(body, secret, { timestamp: 1_767_225_600 })).toBe(header);
    expect(await outcome(webhooks.verify(body, header, secret, { now: now + 301_000 }))).toBe(
      'webhook_timestamp_out_of_tolerance',
    );
  });
});
