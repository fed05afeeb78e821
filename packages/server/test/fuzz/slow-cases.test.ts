/**
 * The fuzzer's slow clients and header floods: what the generators send, how the outcomes of
 * requests that never finish are judged, and the slow sender against tiny local servers.
 */
import net from 'node:net';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type Credentials,
  FLOOD_COUNTS,
  headerFloods,
  LONG_VALUE_LENGTHS,
  type OpenApiDocument,
} from '../../fuzz/cases.js';
import { sendSlow } from '../../fuzz/send.js';
import {
  bodyTargets,
  CHUNK_SIZE_LINES,
  DRIBBLE_PAUSES_MS,
  type SlowCase,
  slowCases,
  UNFINISHED_SENT_MAX,
} from '../../fuzz/slow-cases.js';
import {
  type Answer,
  type SlowOutcome,
  slowFindingOf,
  slowOutcomeLabel,
} from '../../fuzz/verdict.js';

const json = { content: { 'application/json': { schema: { type: 'object' } } } };
const DOCUMENT: OpenApiDocument = {
  paths: {
    '/healthz': { get: {} },
    '/v1/swaps': { post: { requestBody: json, security: [{ apiKey: [], walletToken: [] }] } },
    '/api/sdk/keys': { post: { requestBody: json, security: [{ developerSession: [] }] } },
    '/devnet/offers/{offerId}/accept': { post: { requestBody: json } },
  },
};
const CREDENTIALS: Credentials = {
  apiKeys: ['pp_test_key'],
  walletToken: 'wallet.token',
  sessionToken: 'session.token',
};
const SAMPLES = 2_000;
const cases = fc.sample(slowCases(DOCUMENT, CREDENTIALS), { seed: 7, numRuns: SAMPLES });
const ofKind = (prefix: string) => cases.filter((c) => c.label.startsWith(prefix));
const bytesOf = (c: SlowCase) => c.pieces.join('');
const headEnd = (bytes: string) => bytes.indexOf('\r\n\r\n');
const header = (bytes: string, name: string) =>
  new RegExp(`\r\n${name}: ([^\r]*)`, 'i').exec(bytes.slice(0, headEnd(bytes)))?.[1];

describe('slow cases', () => {
  it('reads bodies from every POST with a JSON body, authenticated as its security asks', () => {
    expect(bodyTargets(DOCUMENT, CREDENTIALS)).toEqual([
      { path: '/v1/swaps', auth: ['X-Api-Key: pp_test_key', 'Authorization: Bearer wallet.token'] },
      { path: '/api/sdk/keys', auth: ['Authorization: Bearer session.token'] },
      { path: '/devnet/offers/x/accept', auth: [] },
    ]);
    expect(bodyTargets({ paths: {} }, CREDENTIALS)).toEqual([{ path: '/', auth: [] }]);
  });

  it('sends less body than the Content-Length says, and nothing after it', () => {
    const unfinished = ofKind('slow unfinished body');
    expect(unfinished.length).toBeGreaterThan(SAMPLES / 20);
    for (const c of unfinished) {
      expect(c.pieces).toHaveLength(1);
      const bytes = bytesOf(c);
      const sent = bytes.length - headEnd(bytes) - 4;
      expect(sent).toBeLessThan(Number(header(bytes, 'content-length')));
      expect(sent).toBeLessThanOrEqual(UNFINISHED_SENT_MAX);
    }
    const sizes = new Set(unfinished.map((c) => c.label.replace(/.*\((\d+) of.*/, '$1')));
    expect(sizes).toContain('0');
    expect(sizes).toContain('1');
    expect(sizes).toContain('999');
  });

  it('dribbles whole bodies a byte per pause, by length or in one-byte chunks', () => {
    const dribbled = [...ofKind('slow body'), ...ofKind('slow chunked body')];
    expect(ofKind('slow chunked body').length).toBeGreaterThan(0);
    for (const c of dribbled) {
      expect(DRIBBLE_PAUSES_MS).toContain(c.pauseMs);
      const bytes = bytesOf(c);
      const body = bytes.slice(headEnd(bytes) + 4);
      if (c.label.includes('chunked')) {
        expect(body.endsWith('\r\n0\r\n\r\n')).toBe(true);
        expect(c.pieces.slice(1, -1).every((p) => /^1\r\n.\r\n$/s.test(p))).toBe(true);
      } else {
        expect(body.length).toBe(Number(header(bytes, 'content-length')));
        expect(c.pieces.slice(1).every((p) => p.length === 1)).toBe(true);
      }
    }
  });

  it('sends headers slowly: whole a byte at a time, or never ended', () => {
    for (const c of ofKind('slow headers')) {
      expect(c.pieces.every((p) => p.length === 1)).toBe(true);
      expect(bytesOf(c).endsWith('\r\n\r\n')).toBe(true);
    }
    const neverEnded = [...ofKind('slowloris'), ...ofKind('unfinished headers')];
    expect(ofKind('slowloris').length).toBeGreaterThan(0);
    expect(ofKind('unfinished headers').length).toBeGreaterThan(0);
    for (const c of neverEnded) expect(headEnd(bytesOf(c))).toBe(-1);
  });

  it('sends every oversized, overflowing, zero-led and extended chunk size', () => {
    const chunked = ofKind('slow chunk size');
    const sizes = new Set(
      chunked.map((c) => {
        const bytes = bytesOf(c);
        expect(header(bytes, 'transfer-encoding')).toBe('chunked');
        return bytes.slice(headEnd(bytes) + 4).split('\r\n')[0];
      }),
    );
    expect([...sizes].sort()).toEqual([...CHUNK_SIZE_LINES].sort());
    expect(sizes).toContain('FFFFFFFFFFFFFFFFFFFF');
  });
});

describe('header floods', () => {
  const floods = fc.sample(headerFloods(CREDENTIALS), { seed: 11, numRuns: 500 });
  const lines = (bytes: string) => bytes.slice(0, headEnd(bytes)).split('\r\n').slice(1);

  it('are whole requests with hundreds to thousands of headers, repeats, long values, cookies', () => {
    for (const c of floods) {
      expect(headEnd(c.bytes)).toBeGreaterThan(0);
      if (c.label.includes('POST')) expect(c.bytes.endsWith('\r\n\r\n{}')).toBe(true);
    }
    const counts = new Set(floods.map((c) => lines(c.bytes).length));
    expect(Math.max(...counts)).toBeGreaterThan(Math.max(...FLOOD_COUNTS));
    for (const length of LONG_VALUE_LENGTHS) {
      const long = floods.find((c) => c.label.includes(` of ${length} bytes)`));
      const value = long && lines(long.bytes).find((l) => l.length > length);
      expect(value?.split(': ')[1]).toHaveLength(length);
    }
    const repeated = floods.find((c) => /\(X-Api-Key ×5000\)/.test(c.label));
    expect(repeated && lines(repeated.bytes).filter((l) => l.startsWith('X-Api-Key'))).toHaveLength(
      5_000,
    );
    expect(floods.some((c) => /\(\d+ Cookie headers\)/.test(c.label))).toBe(true);
    expect(floods.some((c) => /\(\d+ cookies\)/.test(c.label))).toBe(true);
  });
});

function problem(status: number, code: string, type = 'application/problem+json'): Answer {
  return {
    status,
    headers: { 'content-type': type, 'x-request-id': 'req-1' },
    body: JSON.stringify({ code, status, requestId: 'req-1' }),
  };
}

describe('slow verdicts', () => {
  const TIMEOUT = 3_000;
  const answer = (a: Answer): SlowOutcome => ({ kind: 'answer', answer: a, ms: 3_200 });

  it('accepts a 408 request_timeout problem, another 4xx problem, or the server closing', () => {
    const fine: [SlowOutcome, string][] = [
      [answer(problem(408, 'request_timeout')), 'timeout-408'],
      [answer(problem(413, 'payload_too_large')), 'slow-413'],
      [answer({ status: 200, headers: {}, body: '{}' }), 'slow-200'],
      [{ kind: 'closed', reason: 'closed without an answer', ms: 3_100 }, 'closed-by-server'],
    ];
    for (const [outcome, label] of fine) {
      expect(slowFindingOf(outcome, TIMEOUT)).toBeNull();
      expect(slowOutcomeLabel(outcome)).toBe(label);
    }
  });

  it('finds a 5xx, a 408 that is not a request_timeout problem, and a refused connection', () => {
    expect(slowFindingOf(answer(problem(503, 'unavailable')), TIMEOUT)).toBe('answered 503');
    expect(slowFindingOf(answer(problem(408, 'timeout')), TIMEOUT)).toBe('408 with code "timeout"');
    expect(slowFindingOf(answer(problem(408, 'request_timeout', 'text/plain')), TIMEOUT)).toBe(
      'error 408 as "text/plain"',
    );
    expect(slowFindingOf({ kind: 'refused' }, TIMEOUT)).toMatch(/refused/);
  });

  it('finds a connection held open past the request timeout, saying by how long', () => {
    const held: SlowOutcome = { kind: 'held-open', ms: 8_000 };
    expect(slowOutcomeLabel(held)).toBe('held-open');
    expect(slowFindingOf(held, TIMEOUT)).toBe('held open 5.0 s past the request timeout (3 s)');
  });
});

describe('sendSlow', () => {
  let server: net.Server | undefined;
  afterEach(() => server?.close());

  /** A local server doing `onData` with what has arrived so far; its URL. */
  async function listen(onData: (socket: net.Socket, received: string) => void): Promise<URL> {
    const listening = net.createServer((socket) => {
      let received = '';
      socket.on('data', (chunk) => {
        received += chunk.toString('latin1');
        onData(socket, received);
      });
    });
    server = listening;
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    return new URL(`http://127.0.0.1:${(listening.address() as net.AddressInfo).port}`);
  }
  const c: SlowCase = { kind: 'slow', label: 'test', pieces: ['GE', 'T ', '/'], pauseMs: 20 };

  it('writes the pieces in order, a pause apart, and reads the answer', async () => {
    const arrivals: number[] = [];
    const body = JSON.stringify({ code: 'request_timeout', status: 408, requestId: 'r' });
    const base = await listen((socket, received) => {
      arrivals.push(Date.now());
      if (received === 'GET /') {
        socket.end(
          `HTTP/1.1 408 Request Timeout\r\nContent-Type: application/problem+json\r\nX-Request-Id: r\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
        );
      }
    });
    const outcome = await sendSlow(base, c, 1_000, 1_000);
    expect(slowOutcomeLabel(outcome)).toBe('timeout-408');
    expect(slowFindingOf(outcome, 1_000)).toBeNull();
    expect(arrivals).toHaveLength(3);
    expect((arrivals[2] ?? 0) - (arrivals[0] ?? 0)).toBeGreaterThanOrEqual(2 * c.pauseMs - 5);
  });

  it('reports a server closing without an answer, and one holding the connection open', async () => {
    const closing = await listen((socket) => socket.destroy());
    expect((await sendSlow(closing, c, 1_000, 1_000)).kind).toBe('closed');
    server?.close();
    const silent = await listen(() => {});
    const held = await sendSlow(silent, c, 100, 100);
    expect(held.kind).toBe('held-open');
    expect(slowFindingOf(held, 100)).toMatch(/^held open 0\.\d s past the request timeout/);
  });
});
