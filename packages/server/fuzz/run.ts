/**
 * `npm run fuzz`: sends generated requests at a PoolParty service and fails on any answer a
 * client's mistake must not get (see verdict.ts), on a hang over 5 s, or when the service dies.
 *
 *   npm run fuzz -- [--url http://host:port] [--requests 100000] [--seed 1] [--concurrency 16]
 *                   [--api-key pp_test_…]
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
import { HANG_MS, type Outcome, sendHttp, sendRaw } from './send.js';
import { findingOf } from './verdict.js';

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
}

export interface Finding {
  readonly label: string;
  readonly request: string;
  readonly what: string;
}

export interface FuzzReport {
  readonly requests: number;
  readonly durationMs: number;
  /** Answers by status, plus `hang`, `closed` and `unsendable`. */
  readonly byOutcome: Readonly<Record<string, number>>;
  readonly findings: readonly Finding[];
  readonly findingCount: number;
  readonly serviceDied: boolean;
}

const KEYS_TO_CREATE = 20;
const BATCH = 500;

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

function describe(c: FuzzCase): string {
  if (c.kind === 'raw')
    return JSON.stringify(c.bytes.length > 200 ? `${c.bytes.slice(0, 200)}…` : c.bytes);
  const path = c.path.length > 200 ? `${c.path.slice(0, 200)}…` : c.path;
  const body = c.body === undefined ? '' : ` ${JSON.stringify(c.body.slice(0, 160))}`;
  return `${c.method} ${path}${body}`;
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const base = new URL(options.url);
  const origin = base.origin;
  const documentAnswer = await json<OpenApiDocument>(origin, 'GET', '/openapi.json');
  if (documentAnswer.status !== 200)
    throw new Error(`GET /openapi.json answered ${documentAnswer.status}`);
  const credentials = (await devnetCredentials(origin).catch(() => null)) ?? {
    apiKeys: options.apiKeys ?? [],
    walletToken: null,
    sessionToken: null,
  };
  const known = await knownValues(origin, credentials);
  const cases = fuzzCases(documentAnswer.body, known, credentials);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });

  const byOutcome: Record<string, number> = {};
  const findings: Finding[] = [];
  let findingCount = 0;
  let died = false;
  let sent = 0;
  const started = Date.now();
  const every = Math.max(1, Math.floor(options.requests / 20));

  const record = (c: FuzzCase, outcome: Outcome) => {
    const key = outcome.kind === 'answer' ? String(outcome.answer.status) : outcome.kind;
    byOutcome[key] = (byOutcome[key] ?? 0) + 1;
    let what: string | null = null;
    if (outcome.kind === 'answer') what = findingOf(outcome.answer);
    else if (outcome.kind === 'hang') what = `no answer within ${HANG_MS / 1000} s`;
    else if (outcome.kind === 'refused') {
      what = 'connection refused: the service is down';
      died = true;
    } else if (outcome.kind === 'closed' && c.kind === 'http')
      what = `connection closed: ${outcome.reason}`;
    if (what !== null) {
      findingCount += 1;
      if (findings.length < 50) findings.push({ label: c.label, request: describe(c), what });
    }
  };

  for (let batch = 0; sent < options.requests && !died; batch += 1) {
    const size = Math.min(BATCH, options.requests - sent);
    const generated = fc.sample(cases, { seed: options.seed + batch, numRuns: size });
    let next = 0;
    const worker = async () => {
      while (next < generated.length && !died) {
        const c = generated[next++] as FuzzCase;
        const outcome = c.kind === 'raw' ? await sendRaw(base, c) : await sendHttp(base, agent, c);
        record(c, outcome);
        sent += 1;
        if (options.serviceDied?.() === true) died = true;
        if (sent % every === 0) {
          const seconds = (Date.now() - started) / 1000;
          options.progress?.(
            `${sent}/${options.requests} requests, ${(sent / seconds).toFixed(0)}/s, ${findingCount} findings`,
          );
        }
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, worker));
  }
  agent.destroy();
  return {
    requests: sent,
    durationMs: Date.now() - started,
    byOutcome,
    findings,
    findingCount,
    serviceDied: died || options.serviceDied?.() === true,
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

/** `poolparty serve` on devnet, a free port and a fresh data folder, as its own process. */
async function startOwnService(): Promise<OwnService> {
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

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      requests: { type: 'string', default: '100000' },
      seed: { type: 'string', default: '1' },
      concurrency: { type: 'string', default: '16' },
      'api-key': { type: 'string', multiple: true },
    },
  });
  const requests = Number(values.requests);
  const seed = Number(values.seed);
  const concurrency = Number(values.concurrency);
  if (
    ![requests, seed, concurrency].every(Number.isSafeInteger) ||
    requests < 1 ||
    concurrency < 1
  ) {
    console.error(
      '--requests, --seed and --concurrency take whole numbers (requests, concurrency ≥ 1)',
    );
    return 2;
  }
  const own = values.url === undefined ? await startOwnService() : null;
  const url = values.url ?? own?.url ?? '';
  console.log(
    `fuzzing ${url} with ${requests} requests (seed ${seed}, concurrency ${concurrency})`,
  );
  try {
    const report = await runFuzz({
      url,
      requests,
      seed,
      concurrency,
      ...(values['api-key'] !== undefined && { apiKeys: values['api-key'] }),
      progress: (line) => console.log(line),
      ...(own !== null && { serviceDied: () => own.died() }),
    });
    const seconds = report.durationMs / 1000;
    console.log(
      `\n${report.requests} requests in ${seconds.toFixed(1)} s (${(report.requests / seconds).toFixed(0)}/s)`,
    );
    console.log('outcomes:');
    for (const [outcome, count] of Object.entries(report.byOutcome).sort()) {
      console.log(`  ${outcome.padEnd(10)} ${count}`);
    }
    for (const finding of report.findings) {
      console.log(`FINDING ${finding.what}: ${finding.label}: ${finding.request}`);
    }
    if (report.serviceDied) console.log(`FINDING the service died${own ? `; see ${own.log}` : ''}`);
    const failed = report.findingCount > 0 || report.serviceDied;
    console.log(failed ? `\nFAILED: ${report.findingCount} findings` : '\nOK: no findings');
    return failed ? 1 : 0;
  } finally {
    await own?.stop();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main();
}
