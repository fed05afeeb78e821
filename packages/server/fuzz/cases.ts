/**
 * The requests the fuzzer sends, generated from the service's OpenAPI document: every operation
 * with valid and invalid parameters and bodies, attacks on paths and headers that no schema
 * describes, raw bytes that are not well-formed HTTP at all, and header floods. What slow
 * clients send (requests that never finish) is in slow-cases.ts.
 */
import fc from 'fast-check';
import {
  hugeString,
  invalidObject,
  type JsonSchema,
  type KnownValues,
  oddString,
  validObject,
  validValue,
  wrongType,
} from './schema-values.js';

/** A request sent with an HTTP client. `path` goes on the wire as it is: no URL normalising. */
export interface HttpCase {
  readonly kind: 'http';
  readonly label: string;
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** Bytes written straight to a socket. */
export interface RawCase {
  readonly kind: 'raw';
  readonly label: string;
  readonly bytes: string;
}

export type FuzzCase = HttpCase | RawCase;

interface Parameter {
  readonly in: 'path' | 'query' | 'header' | 'cookie';
  readonly name: string;
  readonly required?: boolean;
  readonly schema?: JsonSchema;
}

export interface Operation {
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: { readonly content?: Record<string, { readonly schema?: JsonSchema }> };
  readonly security?: readonly Record<string, unknown>[];
}

export interface OpenApiDocument {
  readonly paths: Readonly<Record<string, Readonly<Record<string, Operation>>>>;
}

/** Credentials the fuzzer holds: API keys to rotate through, a wallet token, a session. */
export interface Credentials {
  readonly apiKeys: readonly string[];
  readonly walletToken: string | null;
  readonly sessionToken: string | null;
}

/**
 * Operations sent invalid requests only. Valid fault settings would make the devnet ledger fail
 * on purpose, and the 503s that follow would be the service telling the truth, not a finding.
 */
const INVALID_ONLY = new Set(['post /devnet/faults']);

/**
 * Percent-encodes the UTF-8 bytes of `value`; unlike `encodeURIComponent` it takes lone
 * surrogates too (as U+FFFD), which odd strings are full of.
 */
const enc = (value: string) =>
  [...Buffer.from(value, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');

function queryString(entries: readonly (readonly [string, unknown])[]): string {
  const parts = entries
    .filter(([, value]) => value !== undefined)
    .map(
      ([name, value]) =>
        `${enc(name)}=${enc(typeof value === 'string' ? value : JSON.stringify(value))}`,
    );
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

/** Headers of an authenticated call: the operation's security, satisfied when we can. */
function authHeaders(
  operation: Operation,
  credentials: Credentials,
): fc.Arbitrary<Record<string, string>> {
  const schemes = new Set((operation.security ?? []).flatMap((s) => Object.keys(s)));
  const keys = credentials.apiKeys;
  const apiKey: fc.Arbitrary<string | undefined> =
    keys.length > 0
      ? fc.oneof(
          { weight: 8, arbitrary: fc.constantFrom(...keys) },
          { weight: 1, arbitrary: fc.constantFrom(undefined, 'pp_test_nope', 'x'.repeat(300)) },
        )
      : fc.constantFrom(undefined, 'pp_test_nope');
  const bearer = (token: string | null) =>
    fc.oneof(
      { weight: 6, arbitrary: fc.constant(token ?? undefined) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(undefined, 'Bearer', 'Bearer a.b.c', 'Basic Zm9vOmJhcg=='),
      },
    );
  return fc
    .tuple(
      schemes.has('apiKey') ? apiKey : fc.constant(undefined),
      schemes.has('walletToken')
        ? bearer(credentials.walletToken)
        : schemes.has('developerSession')
          ? bearer(credentials.sessionToken)
          : fc.constant(undefined),
    )
    .map(([key, token]) => {
      const headers: Record<string, string> = {};
      if (key !== undefined) headers['x-api-key'] = key;
      if (token !== undefined)
        headers.authorization =
          token.startsWith('Bearer') || token.startsWith('Basic') ? token : `Bearer ${token}`;
      return headers;
    });
}

function parameterValues(
  parameters: readonly Parameter[],
  known: KnownValues,
): fc.Arbitrary<Record<string, unknown>> {
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const p of parameters) record[p.name] = validValue(p.schema ?? {}, known, p.name);
  const required = parameters
    .filter((p) => p.required === true || p.in === 'path')
    .map((p) => p.name);
  return fc.record(record, { requiredKeys: required }) as fc.Arbitrary<Record<string, unknown>>;
}

/** One operation's requests, valid by its schema or broken in one place. */
function operationCases(
  method: string,
  template: string,
  operation: Operation,
  known: KnownValues,
  credentials: Credentials,
): fc.Arbitrary<HttpCase> {
  const parameters = operation.parameters ?? [];
  const pathParams = parameters.filter((p) => p.in === 'path');
  const queryParams = parameters.filter((p) => p.in === 'query');
  const headerParams = parameters.filter((p) => p.in === 'header');
  const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
  const label = `${method.toUpperCase()} ${template}`;

  const build = (
    kind: string,
    path: Record<string, unknown>,
    query: Record<string, unknown>,
    headers: Record<string, string>,
    body: string | undefined,
    contentType = 'application/json',
  ): HttpCase => {
    let url = template;
    for (const p of pathParams) {
      const value = path[p.name];
      url = url.replace(
        `{${p.name}}`,
        typeof value === 'string' ? value : enc(JSON.stringify(value)),
      );
    }
    const allHeaders = { ...headers };
    if (body !== undefined) allHeaders['content-type'] = contentType;
    return {
      kind: 'http',
      label: `${label} ${kind}`,
      method: method.toUpperCase(),
      path: url + queryString(Object.entries(query)),
      headers: allHeaders,
      ...(body !== undefined && { body }),
    };
  };
  const encodePath = (values: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(values).map(([k, v]) => [
        k,
        enc(typeof v === 'string' ? v : JSON.stringify(v)),
      ]),
    );

  const validPath = parameterValues(pathParams, known).map(encodePath);
  const validQuery = parameterValues(queryParams, known);
  const validHeaders = fc
    .tuple(authHeaders(operation, credentials), parameterValues(headerParams, known))
    .map(([auth, extra]) => ({
      ...auth,
      ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, asciiHeader(v)])),
    }));
  const validBody: fc.Arbitrary<string | undefined> =
    bodySchema === undefined
      ? fc.constant(undefined)
      : validObject(bodySchema, known).map((b) => JSON.stringify(b));
  const invalidOnly = INVALID_ONLY.has(`${method} ${template}`);

  const cases: fc.Arbitrary<HttpCase>[] = [];
  if (!invalidOnly) {
    cases.push(
      fc
        .tuple(validPath, validQuery, validHeaders, validBody)
        .map(([p, q, h, b]) => build('valid', p, q, h, b)),
    );
  }
  if (bodySchema !== undefined) {
    const badBody = fc.oneof(
      invalidObject(bodySchema, known).map((b) => JSON.stringify(b)),
      fc.constantFrom(
        '{',
        '{"a":',
        '[1,2',
        'null',
        '"',
        '{"__proto__":{"x":1}}',
        '\u0000',
        '',
        '{}'.repeat(1000),
      ),
      hugeString().map((s) => JSON.stringify({ s })),
    );
    cases.push(
      fc
        .tuple(validPath, validQuery, validHeaders, badBody)
        .map(([p, q, h, b]) => build('invalid body', p, q, h, b)),
      fc
        .tuple(
          validPath,
          validHeaders,
          validBody,
          fc.constantFrom(
            'text/plain',
            'application/x-www-form-urlencoded',
            'multipart/form-data; boundary=x',
            'application/json; charset=utf-16',
            'application/problem+json',
            '',
          ),
        )
        .map(([p, h, b, type]) => build('wrong content type', p, {}, h, b ?? '{}', type)),
    );
  }
  if (queryParams.length > 0) {
    const badQuery = fc
      .tuple(validQuery, fc.constantFrom(...queryParams))
      .chain(([query, p]) =>
        fc
          .oneof(wrongType(p.schema ?? {}), oddString(), hugeString(), fc.constant(undefined))
          .map((value) => ({ ...query, [p.name]: value })),
      );
    cases.push(
      fc
        .tuple(validPath, badQuery, validHeaders, validBody)
        .map(([p, q, h, b]) => build('invalid query', p, q, h, b)),
      fc
        .tuple(validPath, validQuery, validHeaders, validBody)
        .map(([p, q, h, b]) =>
          build('unknown query member', p, { ...q, notAParameter: 'x' }, h, b),
        ),
    );
  }
  if (pathParams.length > 0) {
    const badSegment = fc.oneof(
      oddString().map(enc),
      fc.constantFrom(
        '%',
        '%E0%A4%A',
        '%zz',
        '%00',
        '..',
        '%2e%2e',
        '..%2f..%2f..%2fetc%2fpasswd',
        '%C0%AE%C0%AE',
        'a%2Fb',
        '%u002e',
      ),
      fc.constantFrom(101, 1000, 9000).map((n) => 'a'.repeat(n)),
    );
    cases.push(
      fc
        .tuple(
          validPath,
          fc.constantFrom(...pathParams),
          badSegment,
          validQuery,
          validHeaders,
          validBody,
        )
        .map(([p, param, segment, q, h, b]) =>
          build('invalid path', { ...p, [param.name]: segment }, q, h, b),
        ),
    );
  }
  cases.push(
    fc
      .tuple(validPath, validQuery, validHeaders, validBody, oddHeaders())
      .map(([p, q, h, b, odd]) => build('odd headers', p, q, { ...h, ...odd }, b)),
  );
  return fc.oneof(...cases);
}

/** A header value the HTTP client can send: odd values travel percent-encoded or in raw cases. */
function asciiHeader(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return /^[\x20-\x7e]*$/.test(text) ? text : enc(text);
}

/** Headers no schema describes: odd request ids, origins, keys, sizes. */
function oddHeaders(): fc.Arbitrary<Record<string, string>> {
  return fc.oneof(
    fc
      .constantFrom('short', 'x'.repeat(129), '../../etc', '<script>', 'a b c d e f g h', '\x7f')
      .map((id) => ({ 'x-request-id': asciiHeader(id) })),
    fc
      .constantFrom('null', 'https://evil.example', 'file://', 'https://app.example')
      .map((origin) => ({ origin })),
    fc
      .constantFrom('', 'x'.repeat(300), '../../', '"quoted"')
      .map((key) => ({ 'idempotency-key': key })),
    fc
      .constantFrom('https', 'http', 'https, http', 'gopher')
      .map((proto) => ({ 'x-forwarded-proto': proto })),
    fc.constantFrom(8_000, 15_000, 20_000, 40_000).map((n) => ({ 'x-padding': 'p'.repeat(n) })),
    fc
      .constantFrom('bytes=0-0', 'bytes=999999999-', 'bytes=-1,-2,-3', 'chars=1-2')
      .map((range) => ({ range })),
    fc
      .constantFrom('gzip', 'br, gzip, deflate', '*;q=0', 'x'.repeat(200))
      .map((e) => ({ 'accept-encoding': e })),
    fc
      .constantFrom('application/xml', 'text/html', '*/*', 'application/problem+json')
      .map((accept) => ({ accept })),
  );
}

/** Paths no operation declares: traversal, odd encodings, other methods. */
function pathAttacks(): fc.Arbitrary<HttpCase> {
  const prefix = fc.constantFrom(
    '/',
    '/docs/',
    '/docs/static/',
    '/v1/',
    '/api/sdk/',
    '/devnet/',
    '/openapi.json/',
    '/v1/pools/',
  );
  const traversal = fc.constantFrom(
    '../../../../etc/passwd',
    '..%2f..%2f..%2fetc%2fpasswd',
    '%2e%2e/%2e%2e/package.json',
    '%2e%2e%2f%2e%2e%2fpackage.json',
    '..\\..\\..\\windows\\win.ini',
    '..%5c..%5cpackage.json',
    '%252e%252e%252fetc%252fpasswd',
    '.%2e/.%2e/etc/passwd',
    '/index.html',
    '//index.html',
    './index.html',
    'a/../index.html',
    'a/./../../index.html',
    '.env',
    '.git/config',
    '%00index.html',
    'index.html%00.js',
    'INDEX.HTML',
    'swagger-ui.css/',
    '%C0%AE%C0%AE/%C0%AE%C0%AE/etc/passwd',
    '....//....//etc/passwd',
    '~root',
    'static/../static/index.css',
    '%E0%A4%A',
    '%',
  );
  const method = fc.constantFrom(
    'GET',
    'HEAD',
    'POST',
    'PUT',
    'PATCH',
    'DELETE',
    'OPTIONS',
    'TRACE',
    'PROPFIND',
    'SEARCH',
  );
  return fc.tuple(prefix, traversal, method, oddHeaders()).map(([p, t, m, headers]) => ({
    kind: 'http',
    label: `${m} path attack`,
    method: m,
    path: p + t,
    headers,
  }));
}

/** Preflights, proper and broken. */
function preflights(): fc.Arbitrary<HttpCase> {
  return fc
    .tuple(
      fc.constantFrom(
        '/v1/pools',
        '/v1/swaps',
        '/devnet/transfers',
        '/v1/swaps/x/events',
        '/healthz',
      ),
      fc.option(fc.constantFrom('https://app.example', 'https://evil.example', 'null', ''), {
        nil: undefined,
      }),
      fc.option(fc.constantFrom('GET', 'POST', 'DELETE', 'BREW', ''), { nil: undefined }),
      fc.option(fc.constantFrom('x-api-key', 'content-type,x-party-signature', 'x-evil', ''), {
        nil: undefined,
      }),
    )
    .map(([path, origin, requestMethod, requestHeaders]) => {
      const headers: Record<string, string> = {};
      if (origin !== undefined) headers.origin = origin;
      if (requestMethod !== undefined) headers['access-control-request-method'] = requestMethod;
      if (requestHeaders !== undefined) headers['access-control-request-headers'] = requestHeaders;
      return { kind: 'http', label: 'OPTIONS preflight', method: 'OPTIONS', path, headers };
    });
}

/** Bytes that are not (quite) HTTP/1.1. Each ends its message, so nothing waits for more. */
function rawCases(): fc.Arbitrary<RawCase> {
  const crlf = '\r\n';
  const fixed = fc.constantFrom(
    ['garbage', 'HELLO WORLD\r\n\r\n'],
    ['binary', '\u0000\u0001\u0002\u00ff\r\n\r\n'],
    ['bad version', 'GET / HTTP/9.9\r\nHost: x\r\n\r\n'],
    ['HTTP/0.9', 'GET /\r\n\r\n'],
    ['no host', 'GET /healthz HTTP/1.1\r\n\r\n'],
    ['space in path', 'GET /a b HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['LF only', 'GET /healthz HTTP/1.1\nHost: x\n\n'],
    ['header without colon', 'GET / HTTP/1.1\r\nHost: x\r\nBroken\r\n\r\n'],
    ['obs-fold', 'GET / HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n'],
    [
      'two content-lengths',
      'POST /v1/swaps HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
    ],
    [
      'CL and TE',
      'POST /v1/swaps HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ],
    [
      'bad chunk size',
      'POST /v1/swaps HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
    ],
    ['negative length', 'POST /v1/swaps HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n'],
    ['TE gzip', 'POST /v1/swaps HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n'],
    ['absolute URI', 'GET http://evil.example/healthz HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['asterisk', 'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['CONNECT', 'CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n'],
    ['NUL in header', 'GET / HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n'],
    ['bare CR', 'GET / HTTP/1.1\rHost: x\r\n\r\n'],
    ['lowercase method', 'get /healthz HTTP/1.1\r\nHost: x\r\n\r\n'],
  );
  const oversized = fc
    .constantFrom(17_000, 40_000, 100_000)
    .map((n) => [
      'oversized headers',
      `GET /healthz HTTP/1.1${crlf}Host: x${crlf}X-Big: ${'a'.repeat(n)}${crlf}${crlf}`,
    ]);
  const longLine = fc
    .constantFrom(17_000, 70_000)
    .map((n) => [
      'oversized request line',
      `GET /${'a'.repeat(n)} HTTP/1.1${crlf}Host: x${crlf}${crlf}`,
    ]);
  const random = fc
    .string({ unit: 'binary-ascii', minLength: 1, maxLength: 200 })
    .map((s) => ['random bytes', `${s}${crlf}${crlf}`]);
  const unicodeHeader = oddString().map((s) => [
    'odd header bytes',
    `GET /healthz HTTP/1.1${crlf}Host: x${crlf}X-Odd: ${s}${crlf}${crlf}`,
  ]);
  return fc
    .oneof(fixed, oversized, longLine, random, unicodeHeader)
    .map(([label, bytes]) => ({ kind: 'raw', label: `raw ${label}`, bytes: bytes as string }));
}

/** How many headers (or cookies) a flood sends: below Node's 2 000 headers, at it, far past it. */
export const FLOOD_COUNTS: readonly number[] = [100, 500, 1_000, 2_000, 5_000];

/** Lengths of one long header value: under the 16 KiB header limit, at its edge, past it. */
export const LONG_VALUE_LENGTHS: readonly number[] = [4_000, 16_000, 16_300, 60_000];

/** The header lines of a flood, by kind. */
function floodLines(): fc.Arbitrary<readonly [string, string[]]> {
  const count = fc.constantFrom(...FLOOD_COUNTS);
  const many = count.map((n): [string, string[]] => [
    `${n} headers`,
    Array.from({ length: n }, (_, i) => `X-Flood-${i}: ${i}`),
  ]);
  const repeated = fc
    .tuple(
      count,
      fc.constantFrom(
        'X-Same: a',
        'X-Request-Id: fuzz',
        'X-Api-Key: pp_test_nope',
        'Authorization: Bearer a.b.c',
        'Content-Type: application/json',
        'Accept: */*',
        'Origin: https://app.example',
        'Host: fuzz',
      ),
    )
    .map(([n, line]): [string, string[]] => [`${line.split(':')[0]} ×${n}`, Array(n).fill(line)]);
  const long = fc
    .tuple(
      fc.constantFrom(...LONG_VALUE_LENGTHS),
      fc.constantFrom('X-Long', 'Cookie', 'Authorization', 'X-Api-Key', 'User-Agent'),
    )
    .map(([n, name]): [string, string[]] => [
      `${name} of ${n} bytes`,
      [`${name}: ${'v'.repeat(n)}`],
    ]);
  const cookies = fc.tuple(count, fc.boolean()).map(([n, separate]): [string, string[]] => {
    const pairs = Array.from({ length: n }, (_, i) => `c${i}=v${i}`);
    return separate
      ? [`${n} Cookie headers`, pairs.map((p) => `Cookie: ${p}`)]
      : [`${n} cookies`, [`Cookie: ${pairs.join('; ')}`]];
  });
  return fc.oneof(many, repeated, long, cookies);
}

/**
 * Header floods: hundreds to thousands of small headers, one header many times, one very long
 * value, many cookies. Each is a whole request (a short body on POST), so nothing waits for more.
 */
export function headerFloods(credentials: Credentials): fc.Arbitrary<RawCase> {
  const [key] = credentials.apiKeys;
  const target = fc.constantFrom(
    ['GET', '/healthz', []],
    ['GET', '/v1/pools', key === undefined ? [] : [`X-Api-Key: ${key}`]],
    ['GET', '/api/sdk/keys', []],
    ['POST', '/devnet/clock', ['Content-Type: application/json', 'Content-Length: 2']],
  ) as fc.Arbitrary<readonly [string, string, readonly string[]]>;
  return fc.tuple(target, floodLines()).map(([[method, path, extra], [kind, lines]]) => ({
    kind: 'raw',
    label: `raw header flood (${kind}) ${method} ${path}`,
    bytes: [
      `${method} ${path} HTTP/1.1`,
      'Host: fuzz',
      ...extra,
      ...lines,
      '',
      method === 'POST' ? '{}' : '',
    ].join('\r\n'),
  }));
}

/** Every request kind, weighted towards the operations. */
export function fuzzCases(
  document: OpenApiDocument,
  known: KnownValues,
  credentials: Credentials,
): fc.Arbitrary<FuzzCase> {
  const operations: fc.Arbitrary<HttpCase>[] = [];
  for (const [template, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      operations.push(operationCases(method, template, operation, known, credentials));
    }
  }
  return fc.oneof(
    { weight: 14, arbitrary: fc.oneof(...operations) },
    { weight: 2, arbitrary: pathAttacks() },
    { weight: 1, arbitrary: preflights() },
    { weight: 1, arbitrary: rawCases() },
    { weight: 1, arbitrary: headerFloods(credentials) },
  );
}
