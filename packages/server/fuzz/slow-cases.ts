/**
 * What slow or hostile clients send, over a socket the fuzzer never ends (send.ts `sendSlow`):
 * bodies shorter than their Content-Length, bodies and headers dribbled a byte at a time, chunk
 * sizes no body ever reaches. A server without request timeouts holds each of these open for
 * good; one with them answers 408 or closes the connection once the timeout has passed.
 */
import fc from 'fast-check';
import type { Credentials, OpenApiDocument, Operation } from './cases.js';

/** Bytes written to a socket in pieces, `pauseMs` apart; after the last, silence. */
export interface SlowCase {
  readonly kind: 'slow';
  readonly label: string;
  readonly pieces: readonly string[];
  readonly pauseMs: number;
}

const CRLF = '\r\n';

/**
 * Pauses between dribbled bytes. The shortest gets a small request through well inside a
 * 2 s headers timeout; the longer ones make even a short request outlast any timeout.
 */
export const DRIBBLE_PAUSES_MS: readonly number[] = [50, 250, 1_000];

/**
 * Content-Lengths that are never met. 65 536 is the service's body limit, which a body may
 * reach and so is waited for; past the limit a server may refuse on the header alone (413).
 */
export const UNFINISHED_LENGTHS: readonly number[] = [2, 1_000, 65_536, 10_000_000];

/** Most body bytes an unfinished case sends: past the body limit, so that size check runs too. */
export const UNFINISHED_SENT_MAX = 70_000;

/** Header lines a slowloris sends one per pause; more than any timeout lets it send. */
export const SLOWLORIS_LINES = 100;

/**
 * Chunk-size lines: sizes a body never reaches, past 64 bits (refused, not wrapped round),
 * leading zeros, extensions (one longer than a header may be), and signs and prefixes.
 */
export const CHUNK_SIZE_LINES: readonly string[] = [
  'FFFFFFFFFFFF',
  'fffffffffff',
  '7FFFFFFFFFFFFFFF',
  'FFFFFFFFFFFFFFFF',
  '10000000000000000',
  'FFFFFFFFFFFFFFFFFFFF',
  '0000000000000000000000000000000000000002',
  '0000000000000000000000000000000000FFFFFFFF',
  '2;ext=1',
  '2;a=b;c="d e";f',
  `2;${'x'.repeat(20_000)}`,
  `FFFFFFFFFFFF;${'e;'.repeat(1_000)}`,
  '-1',
  '+2',
  '0x2',
];

/** What follows the chunk-size line: nothing, a short chunk, a short chunk and the last chunk. */
export const AFTER_CHUNK_SIZE: readonly string[] = [
  '',
  `${CRLF}{}`,
  `${CRLF}{}${CRLF}0${CRLF}${CRLF}`,
];

/** Small JSON bodies to dribble: each byte a pause apart. */
const DRIBBLED_BODIES: readonly string[] = [
  '{}',
  '{"advanceMs":1000}',
  '{"partyHint":"slowloris"}',
  `{"a":"${'b'.repeat(30)}"}`,
];

/** A path that reads a body, and the header lines that get a request past its authentication. */
interface BodyTarget {
  readonly path: string;
  readonly auth: readonly string[];
}

/** Lines satisfying an operation's security with what the fuzzer holds, when it can. */
function authLines(operation: Operation, credentials: Credentials): string[] {
  const schemes = new Set((operation.security ?? []).flatMap((s) => Object.keys(s)));
  const lines: string[] = [];
  const [key] = credentials.apiKeys;
  if (schemes.has('apiKey') && key !== undefined) lines.push(`X-Api-Key: ${key}`);
  const token = schemes.has('walletToken')
    ? credentials.walletToken
    : schemes.has('developerSession')
      ? credentials.sessionToken
      : null;
  if (token !== null) lines.push(`Authorization: Bearer ${token}`);
  return lines;
}

/** Every POST that takes a JSON body, path parameters filled with a placeholder. */
export function bodyTargets(document: OpenApiDocument, credentials: Credentials): BodyTarget[] {
  const targets: BodyTarget[] = [];
  for (const [template, methods] of Object.entries(document.paths)) {
    const operation = methods.post;
    if (operation?.requestBody?.content?.['application/json'] === undefined) continue;
    targets.push({
      path: template.replace(/\{[^}]+\}/g, 'x'),
      auth: authLines(operation, credentials),
    });
  }
  // A document with no body at all still gets its slow bodies sent somewhere.
  return targets.length > 0 ? targets : [{ path: '/', auth: [] }];
}

/** A request head, ended by its blank line unless `open`. */
export function requestHead(method: string, path: string, lines: readonly string[], open = false) {
  const head = [`${method} ${path} HTTP/1.1`, 'Host: fuzz', ...lines].join(CRLF);
  return open ? `${head}${CRLF}` : `${head}${CRLF}${CRLF}`;
}

/** The target, with or without its authentication (without, a server may answer 401 at once). */
function target(targets: readonly BodyTarget[]): fc.Arbitrary<BodyTarget> {
  return fc
    .tuple(fc.constantFrom(...targets), fc.boolean())
    .map(([t, authenticated]) => (authenticated ? t : { ...t, auth: [] }));
}

/** A Content-Length larger than what is sent, then silence. */
function unfinishedBodies(targets: readonly BodyTarget[]): fc.Arbitrary<SlowCase> {
  const sent = fc.constantFrom('none', 'one byte', 'all but one byte');
  return fc
    .tuple(target(targets), fc.constantFrom(...UNFINISHED_LENGTHS), sent)
    .map(([t, length, part]) => {
      const count =
        part === 'none' ? 0 : part === 'one byte' ? 1 : Math.min(length - 1, UNFINISHED_SENT_MAX);
      const body = `{"pad":"${'p'.repeat(count)}`.slice(0, count);
      const lines = [...t.auth, 'Content-Type: application/json', `Content-Length: ${length}`];
      return {
        kind: 'slow',
        label: `slow unfinished body (${count} of ${length} bytes) POST ${t.path}`,
        pieces: [requestHead('POST', t.path, lines) + body],
        pauseMs: 0,
      };
    });
}

/** A whole body, by Content-Length or in one-byte chunks, a byte per pause. */
function slowBodies(targets: readonly BodyTarget[]): fc.Arbitrary<SlowCase> {
  return fc
    .tuple(
      target(targets),
      fc.constantFrom(...DRIBBLED_BODIES),
      fc.boolean(),
      fc.constantFrom(...DRIBBLE_PAUSES_MS),
    )
    .map(([t, body, chunked, pauseMs]) => {
      const framing = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${body.length}`;
      const head = requestHead('POST', t.path, [
        ...t.auth,
        'Content-Type: application/json',
        framing,
      ]);
      const bytes = [...body].map((b) => (chunked ? `1${CRLF}${b}${CRLF}` : b));
      return {
        kind: 'slow',
        label: `slow ${chunked ? 'chunked ' : ''}body (${pauseMs} ms a byte) POST ${t.path}`,
        pieces: [head, ...bytes, ...(chunked ? [`0${CRLF}${CRLF}`] : [])],
        pauseMs,
      };
    });
}

/**
 * Slowloris: a whole request a byte per pause; header lines one per pause, never ended; a head
 * cut off before its blank line, then silence.
 */
function slowHeaders(): fc.Arbitrary<SlowCase> {
  const path = fc.constantFrom('/healthz', '/v1/pools', '/openapi.json');
  const pause = fc.constantFrom(...DRIBBLE_PAUSES_MS);
  const whole = fc.tuple(path, pause).map(([p, pauseMs]) => ({
    label: `slow headers (${pauseMs} ms a byte) GET ${p}`,
    pieces: [...requestHead('GET', p, [])],
    pauseMs,
  }));
  const lines = fc.tuple(path, pause).map(([p, pauseMs]) => ({
    label: `slowloris (a header line each ${pauseMs} ms) GET ${p}`,
    pieces: [
      requestHead('GET', p, [], true),
      ...Array.from({ length: SLOWLORIS_LINES }, (_, i) => `X-Slow-${i}: ${i}${CRLF}`),
    ],
    pauseMs,
  }));
  const cut = path.map((p) => ({
    label: `unfinished headers GET ${p}`,
    pieces: [`${requestHead('GET', p, ['Accept: */*'], true)}X-Cut: a`],
    pauseMs: 0,
  }));
  return fc.oneof(whole, lines, cut).map((c) => ({ kind: 'slow' as const, ...c }));
}

/** `Transfer-Encoding: chunked` with a chunk-size line from CHUNK_SIZE_LINES, then silence. */
function oversizedChunks(targets: readonly BodyTarget[]): fc.Arbitrary<SlowCase> {
  return fc
    .tuple(
      target(targets),
      fc.constantFrom(...CHUNK_SIZE_LINES),
      fc.constantFrom(...AFTER_CHUNK_SIZE),
    )
    .map(([t, size, after]) => {
      const lines = [...t.auth, 'Content-Type: application/json', 'Transfer-Encoding: chunked'];
      const shown = size.length > 40 ? `${size.slice(0, 40)}…` : size;
      return {
        kind: 'slow',
        label: `slow chunk size ${shown} POST ${t.path}`,
        pieces: [`${requestHead('POST', t.path, lines)}${size}${after}`],
        pauseMs: 0,
      };
    });
}

/** Every slow kind, evenly. */
export function slowCases(
  document: OpenApiDocument,
  credentials: Credentials,
): fc.Arbitrary<SlowCase> {
  const targets = bodyTargets(document, credentials);
  return fc.oneof(
    unfinishedBodies(targets),
    slowBodies(targets),
    slowHeaders(),
    oversizedChunks(targets),
  );
}
