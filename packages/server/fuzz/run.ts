/**
 * `npm run fuzz`: sends generated requests at a PoolParty service and fails on any answer a
 * client's mistake must not get (see verdict.ts), on a hang over 5 s, or when the service dies.
 *
 *   npm run fuzz -- [--url http://host:port] [--requests 100000] [--seed 1] [--concurrency 16]
 *                   [--slow-requests N] [--slow-concurrency 32] [--request-timeout-ms T]
 *                   [--api-key pp_test_…]
 *
 * Slow cases (slow-cases.ts: unfinished and dribbled bodies and headers, chunk sizes never met)
 * are part of `--requests`, by default 1 in 200, and run in a lane of their own with
 * `--slow-concurrency` at once so that their waits do not hold up the rest. Each must be answered
 * (408 `request_timeout`, another 4xx problem, or any answer that is no finding) or closed by the
 * service within the request timeout plus a margin; held open past that is a finding.
 * `--request-timeout-ms` is the service's request timeout: 30 000 (the service's default) with
 * `--url`; without it, the fuzzer's own service is started with this timeout, 3 000 by default,
 * and a headers timeout of 2 000, so that slow cases end in seconds.
 *
 * Without `--url` it starts its own service (`poolparty serve`, devnet) on a free port and a
 * temporary data folder, as a process of its own so that a crash is seen as one. On devnet it
 * signs in like an integrator (a party of its own, portal keys, a wallet token) so that requests
 * get past authentication; the keys are many so that rate limits leave room for the rest.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { encodeBase64, sign } from '@poolparty/core';
import fc from 'fast-check';
import { type Credentials, type FuzzCase, fuzzCases, type OpenApiDocument } from './cases.js';
import type { KnownValues } from './schema-values.js';
import { HANG_MS, type Outcome, sendHttp, sendRaw, sendSlow } from './send.js';
import { type SlowCase, slowCases } from './slow-cases.js';
import { findingOf, slowFindingOf, slowOutcomeLabel } from './verdict.js';

export interface FuzzOptions {
  readonly url: string;
  readonly requests: number;
  readonly seed: number;
  readonly concurrency: number;
  readonly apiKeys?: readonly string[];
  /** Called now and then with a progress line. */
  readonly progress?: (line: string) => void;
  /** True once the service under test is known to have died. */
  readonly serviceDied?: () => boolean;
  /** How many of `requests` are slow cases (slow-cases.ts); none unless asked for. */
  readonly slowRequests?: number;
  /** Slow cases in flight at once, beside `concurrency` normal ones. */
  readonly slowConcurrency?: number;
  /** The service's request timeout, which slow cases must be ended within (plus a margin). */
  readonly requestTimeoutMs?: number;
}

export interface Finding {
  readonly label: string;
  readonly request: string;
  readonly what: string;
}

export interface FuzzReport {
  /** Every request sent, slow ones included. */
  readonly requests: number;
  readonly slowRequests: number;
  readonly durationMs: number;
  /**
   * Answers by status, plus `hang`, `closed` and `unsendable`; slow cases apart, by
   * `slowOutcomeLabel` (`timeout-408`, `slow-<status>`, `closed-by-server`, `held-open`).
   */
  readonly byOutcome: Readonly<Record<string, number>>;
  readonly findings: readonly Finding[];
  readonly findingCount: number;
  readonly serviceDied: boolean;
}

const KEYS_TO_CREATE = 20;
/** The least width of the outcome column in the report. */
const OUTCOME_WIDTH = 10;
const BATCH = 500;
/** Findings listed in full; the rest are counted only. */
const FINDINGS_KEPT = 50;
/** Progress lines over a run. */
const PROGRESS_LINES = 20;
/** A service's request timeout when not told otherwise: the service's own default. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/**
 * Slow cases at once. Each mostly waits on a timer, so many cost the fuzzer little, and the
 * service allows far more connections per address (2 500 by default) than this and the normal
 * lane together.
 */
export const DEFAULT_SLOW_CONCURRENCY = 32;
/**
 * Slow cases per request of `--requests` by default. Each can take the whole request timeout, so
 * they are few: at 100 000 requests, 500 slow ones 32 at a time are some 16 rounds of at most
 * 3 s (the own service's timeout) plus the time to answer.
 */
export const DEFAULT_SLOW_SHARE = 1 / 200;
/**
 * Timeouts given to the fuzzer's own service: short, so that slow cases end in seconds, and
 * within the service's bounds (at least 1 s; the headers' no longer than the request's).
 */
export const OWN_HEADERS_TIMEOUT_MS = 2_000;
export const OWN_REQUEST_TIMEOUT_MS = 3_000;

async function json<T>(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text.length > 0 ? JSON.parse(text) : null) as T };
}

interface Challenge {
  readonly nonce: string;
  readonly message: string;
}

/** Signs in as a devnet party of our own: portal keys and a wallet token. Devnet only. */
async function devnetCredentials(base: string): Promise<Credentials | null> {
  const party = await json<{ partyId: string; publicKey: string; privateKey: string }>(
    base,
    'POST',
    '/devnet/parties',
    { partyHint: 'fuzzer' },
  );
  if (party.status !== 201) return null;
  const { partyId, publicKey } = party.body;
  const privateKey = Uint8Array.from(Buffer.from(party.body.privateKey, 'base64'));
  const answer = (challenge: Challenge) => ({
    partyId,
    nonce: challenge.nonce,
    publicKey,
    signature: encodeBase64(sign(challenge.message, privateKey)),
  });
  const started = await json<Challenge>(base, 'POST', '/api/sdk/wallet-login', { partyId });
  const login = await json<{ token: string }>(
    base,
    'POST',
    '/api/sdk/wallet-login',
    answer(started.body),
  );
  if (login.status !== 200) return null;
  const session = { authorization: `Bearer ${login.body.token}` };
  const apiKeys: string[] = [];
  for (let i = 0; i < KEYS_TO_CREATE; i += 1) {
    const created = await json<{ key: string }>(
      base,
      'POST',
      '/api/sdk/keys',
      { name: `fuzz ${i}` },
      session,
    );
    if (created.status !== 201 && created.status !== 200) break;
    apiKeys.push(created.body.key);
  }
  const [apiKey] = apiKeys;
  if (apiKey === undefined) return null;
  const withKey = { 'x-api-key': apiKey };
  const challenge = await json<Challenge>(
    base,
    'POST',
    '/v1/wallet-auth/challenge',
    { partyId },
    withKey,
  );
  const verified = await json<{ token: string }>(
    base,
    'POST',
    '/v1/wallet-auth/verify',
    answer(challenge.body),
    withKey,
  );
  return {
    apiKeys,
    walletToken: verified.status === 200 ? verified.body.token : null,
    sessionToken: login.body.token,
  };
}

/** Real pool ids, token symbols and parties, so that valid requests reach real records. */
async function knownValues(base: string, credentials: Credentials): Promise<KnownValues> {
  const found = new Map<string, Set<string>>();
  const note = (name: string, value: string) => {
    const set = found.get(name) ?? new Set<string>();
    set.add(value);
    found.set(name, set);
  };
  const walk = (value: unknown) => {
    if (Array.isArray(value)) for (const item of value) walk(item);
    else if (value !== null && typeof value === 'object') {
      for (const [name, member] of Object.entries(value)) {
        if (typeof member === 'string' && member.length <= 255) note(name, member);
        else walk(member);
      }
    }
  };
  const key = credentials.apiKeys[0];
  if (key !== undefined) {
    for (const path of ['/v1/pools', '/v1/tokens']) {
      const answer = await json(base, 'GET', path, undefined, { 'x-api-key': key });
      if (answer.status === 200) walk(answer.body);
    }
  }
  const values = (...names: string[]) => [
    ...new Set(names.flatMap((n) => [...(found.get(n) ?? [])])),
  ];
  const tokens = values('symbol');
  const parties = values('partyId', 'admin', 'fromAdmin', 'toAdmin', 'instrumentAdmin');
  return {
    poolId: values('poolId'),
    from: tokens,
    to: tokens,
    fromToken: tokens,
    toToken: tokens,
    symbol: tokens,
    fromAdmin: parties,
    toAdmin: parties,
    partyId: parties,
    receiverParty: parties,
    walletAddress: parties,
  };
}

/** Characters of raw bytes shown in a finding. */
const SHOWN_BYTES = 200;

function shownBytes(bytes: string): string {
  return JSON.stringify(bytes.length > SHOWN_BYTES ? `${bytes.slice(0, SHOWN_BYTES)}…` : bytes);
}

function describe(c: FuzzCase | SlowCase): string {
  if (c.kind === 'raw') return shownBytes(c.bytes);
  if (c.kind === 'slow') {
    const pieces =
      c.pieces.length === 1 ? '' : ` in ${c.pieces.length} pieces ${c.pauseMs} ms apart`;
    return `${shownBytes(c.pieces.join(''))}${pieces}, then silence`;
  }
  const path = c.path.length > 200 ? `${c.path.slice(0, 200)}…` : c.path;
  const body = c.body === undefined ? '' : ` ${JSON.stringify(c.body.slice(0, 160))}`;
  return `${c.method} ${path}${body}`;
}

/** Counts of outcomes and the findings among them, shared by both lanes of a run. */
class Tally {
  readonly byOutcome: Record<string, number> = {};
  readonly findings: Finding[] = [];
  findingCount = 0;
  died = false;
  sent = 0;
  slowSent = 0;

  note(label: string, c: FuzzCase | SlowCase, what: string | null): void {
    this.byOutcome[label] = (this.byOutcome[label] ?? 0) + 1;
    if (what === null) return;
    this.findingCount += 1;
    if (this.findings.length < FINDINGS_KEPT) {
      this.findings.push({ label: c.label, request: describe(c), what });
    }
  }
}

function outcomeLabel(outcome: Outcome): string {
  return outcome.kind === 'answer' ? String(outcome.answer.status) : outcome.kind;
}

/** Why a normal case's outcome is a finding, or `null`. */
function normalFinding(c: FuzzCase, outcome: Outcome): string | null {
  if (outcome.kind === 'answer')
    return findingOf(outcome.answer, c.kind === 'http' ? c : undefined);
  if (outcome.kind === 'hang') return `no answer within ${HANG_MS / 1000} s`;
  if (outcome.kind === 'refused') return 'connection refused: the service is down';
  if (outcome.kind === 'closed' && c.kind === 'http') return `connection closed: ${outcome.reason}`;
  return null;
}

/**
 * Samples `count` cases from `cases` in seeded batches and hands them to `concurrency` workers;
 * stops early once `stopped()` says so.
 */
async function runLane<C>(
  cases: fc.Arbitrary<C>,
  count: number,
  seed: number,
  concurrency: number,
  send: (c: C) => Promise<void>,
  stopped: () => boolean,
): Promise<void> {
  for (let batch = 0, done = 0; done < count && !stopped(); batch += 1) {
    const generated = fc.sample(cases, {
      seed: seed + batch,
      numRuns: Math.min(BATCH, count - done),
    });
    done += generated.length;
    let next = 0;
    const worker = async () => {
      while (next < generated.length && !stopped()) await send(generated[next++] as C);
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  }
}

/** The service's document, credentials and known values: what cases are generated from. */
async function prepare(options: FuzzOptions) {
  const origin = new URL(options.url).origin;
  const documentAnswer = await json<OpenApiDocument>(origin, 'GET', '/openapi.json');
  if (documentAnswer.status !== 200)
    throw new Error(`GET /openapi.json answered ${documentAnswer.status}`);
  const credentials = (await devnetCredentials(origin).catch(() => null)) ?? {
    apiKeys: options.apiKeys ?? [],
    walletToken: null,
    sessionToken: null,
  };
  const known = await knownValues(origin, credentials);
  return { document: documentAnswer.body, credentials, known };
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const base = new URL(options.url);
  const { document, credentials, known } = await prepare(options);
  const slowCount = Math.min(options.slowRequests ?? 0, options.requests);
  const normalCount = options.requests - slowCount;
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const tally = new Tally();
  const started = Date.now();
  const every = Math.max(1, Math.floor(normalCount / PROGRESS_LINES));
  const slowEvery = Math.max(1, Math.floor(slowCount / PROGRESS_LINES));
  const stopped = () => {
    if (options.serviceDied?.() === true) tally.died = true;
    return tally.died;
  };
  const progress = () => {
    const rate = tally.sent / ((Date.now() - started) / 1000);
    const slow = slowCount > 0 ? `, ${tally.slowSent}/${slowCount} slow` : '';
    options.progress?.(
      `${tally.sent}/${normalCount} requests, ${rate.toFixed(0)}/s${slow}, ${tally.findingCount} findings`,
    );
  };
  const normal = runLane(
    fuzzCases(document, known, credentials),
    normalCount,
    options.seed,
    options.concurrency,
    async (c) => {
      const outcome = c.kind === 'raw' ? await sendRaw(base, c) : await sendHttp(base, agent, c);
      if (outcome.kind === 'refused') tally.died = true;
      tally.note(outcomeLabel(outcome), c, normalFinding(c, outcome));
      tally.sent += 1;
      if (tally.sent % every === 0) progress();
    },
    stopped,
  );
  const slow = runLane(
    slowCases(document, credentials),
    slowCount,
    options.seed,
    options.slowConcurrency ?? DEFAULT_SLOW_CONCURRENCY,
    async (c) => {
      const outcome = await sendSlow(base, c, requestTimeoutMs);
      if (outcome.kind === 'refused') tally.died = true;
      tally.note(slowOutcomeLabel(outcome), c, slowFindingOf(outcome, requestTimeoutMs));
      tally.slowSent += 1;
      if (tally.slowSent % slowEvery === 0) progress();
    },
    stopped,
  );
  await Promise.all([normal, slow]);
  agent.destroy();
  return {
    requests: tally.sent + tally.slowSent,
    slowRequests: tally.slowSent,
    durationMs: Date.now() - started,
    byOutcome: tally.byOutcome,
    findings: tally.findings,
    findingCount: tally.findingCount,
    serviceDied: tally.died || options.serviceDied?.() === true,
  };
}

/** A port nothing listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

interface OwnService {
  readonly url: string;
  readonly log: string;
  died(): boolean;
  stop(): Promise<void>;
}

/**
 * `poolparty serve` on devnet, a free port and a fresh data folder, as its own process, with a
 * request timeout of `requestTimeoutMs` (the headers' at most OWN_HEADERS_TIMEOUT_MS).
 */
async function startOwnService(requestTimeoutMs: number): Promise<OwnService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'poolparty-fuzz-'));
  const port = await freePort();
  const log = join(dataDir, 'service.log');
  const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', cli, 'serve'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      POOLPARTY_DATA_DIR: join(dataDir, 'data'),
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      POOLPARTY_CORS_ORIGINS: 'https://app.example',
      POOLPARTY_HEADERS_TIMEOUT_MS: String(Math.min(OWN_HEADERS_TIMEOUT_MS, requestTimeoutMs)),
      POOLPARTY_REQUEST_TIMEOUT_MS: String(requestTimeoutMs),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = createWriteStream(log);
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (exited) throw new Error(`the service exited while starting; see ${log}`);
    if (Date.now() > deadline) throw new Error(`the service did not become ready; see ${log}`);
    const ready = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return {
    url,
    log,
    died: () => exited,
    stop: async () => {
      if (!exited) {
        const gone = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await gone;
      }
      rmSync(join(dataDir, 'data'), { recursive: true, force: true });
    },
  };
}

interface Flags {
  readonly url: string | undefined;
  readonly requests: number;
  readonly seed: number;
  readonly concurrency: number;
  readonly slowRequests: number;
  readonly slowConcurrency: number;
  readonly requestTimeoutMs: number;
  readonly apiKeys: string[] | undefined;
}

/** The command line, or a line saying what is wrong with it. */
function readFlags(): Flags | string {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      requests: { type: 'string', default: '100000' },
      seed: { type: 'string', default: '1' },
      concurrency: { type: 'string', default: '16' },
      'slow-requests': { type: 'string' },
      'slow-concurrency': { type: 'string', default: String(DEFAULT_SLOW_CONCURRENCY) },
      'request-timeout-ms': { type: 'string' },
      'api-key': { type: 'string', multiple: true },
    },
  });
  const requests = Number(values.requests);
  const seed = Number(values.seed);
  const concurrency = Number(values.concurrency);
  const slowRequests = Number(values['slow-requests'] ?? Math.ceil(requests * DEFAULT_SLOW_SHARE));
  const slowConcurrency = Number(values['slow-concurrency']);
  const defaultTimeout =
    values.url === undefined ? OWN_REQUEST_TIMEOUT_MS : DEFAULT_REQUEST_TIMEOUT_MS;
  const requestTimeoutMs = Number(values['request-timeout-ms'] ?? defaultTimeout);
  const numbers = [requests, seed, concurrency, slowRequests, slowConcurrency, requestTimeoutMs];
  if (!numbers.every(Number.isSafeInteger)) {
    return '--requests, --seed, --concurrency, --slow-requests, --slow-concurrency and --request-timeout-ms take whole numbers';
  }
  if (requests < 1 || concurrency < 1 || slowConcurrency < 1 || requestTimeoutMs < 1) {
    return '--requests, --concurrency, --slow-concurrency and --request-timeout-ms are at least 1';
  }
  if (slowRequests < 0 || slowRequests > requests) {
    return '--slow-requests is from 0 to --requests';
  }
  return {
    url: values.url,
    requests,
    seed,
    concurrency,
    slowRequests,
    slowConcurrency,
    requestTimeoutMs,
    apiKeys: values['api-key'],
  };
}

function printReport(report: FuzzReport, own: OwnService | null): boolean {
  const seconds = report.durationMs / 1000;
  console.log(
    `\n${report.requests} requests (${report.slowRequests} slow) in ${seconds.toFixed(1)} s (${(report.requests / seconds).toFixed(0)}/s)`,
  );
  console.log('outcomes:');
  const outcomes = Object.entries(report.byOutcome).sort();
  const width = Math.max(OUTCOME_WIDTH, ...outcomes.map(([outcome]) => outcome.length));
  for (const [outcome, count] of outcomes) {
    console.log(`  ${outcome.padEnd(width)} ${count}`);
  }
  for (const finding of report.findings) {
    console.log(`FINDING ${finding.what}: ${finding.label}: ${finding.request}`);
  }
  if (report.serviceDied) console.log(`FINDING the service died${own ? `; see ${own.log}` : ''}`);
  const failed = report.findingCount > 0 || report.serviceDied;
  console.log(failed ? `\nFAILED: ${report.findingCount} findings` : '\nOK: no findings');
  return failed;
}

async function main(): Promise<number> {
  const flags = readFlags();
  if (typeof flags === 'string') {
    console.error(flags);
    return 2;
  }
  const own = flags.url === undefined ? await startOwnService(flags.requestTimeoutMs) : null;
  const url = flags.url ?? own?.url ?? '';
  console.log(
    `fuzzing ${url} with ${flags.requests} requests, ${flags.slowRequests} of them slow (seed ${flags.seed}, concurrency ${flags.concurrency}, slow concurrency ${flags.slowConcurrency}, request timeout ${flags.requestTimeoutMs / 1000} s)`,
  );
  try {
    const report = await runFuzz({
      url,
      requests: flags.requests,
      seed: flags.seed,
      concurrency: flags.concurrency,
      slowRequests: flags.slowRequests,
      slowConcurrency: flags.slowConcurrency,
      requestTimeoutMs: flags.requestTimeoutMs,
      ...(flags.apiKeys !== undefined && { apiKeys: flags.apiKeys }),
      progress: (line) => console.log(line),
      ...(own !== null && { serviceDied: () => own.died() }),
    });
    return printReport(report, own) ? 1 : 0;
  } finally {
    await own?.stop();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main();
}
