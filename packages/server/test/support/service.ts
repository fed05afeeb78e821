/**
 * Starts a real PoolParty service for HTTP tests: embedded PGlite store (or a fresh schema of the
 * PostgreSQL test server) and devnet ledger in a fresh temporary data folder, listening on a free
 * loopback port, seeded as on first start.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Amount, devnetSigningMessage, encodeBase64, sign } from '@poolparty/core';
import { createSchema, dropSchema, POSTGRES_URL } from '@poolparty/store/testing';
import { afterAll, beforeAll, expect } from 'vitest';
import { readSettings, type Settings } from '../../src/config.js';
import type { DevnetParty } from '../../src/devnet-bootstrap.js';
import { type RunningService, type StartOptions, startService } from '../../src/service.js';

export interface TestService {
  readonly service: RunningService;
  readonly url: string;
  /** The seeded developer's `pp_test_` key. */
  readonly apiKey: string;
  readonly users: readonly DevnetParty[];
  readonly settings: Settings;
  /** A JSON request to the service with the seeded developer's key (unless `options` says). */
  call(method: string, path: string, options?: RequestOptions): Promise<JsonResponse<Body>>;
  close(): Promise<void>;
}

export async function startTestService(
  env: Readonly<Record<string, string>> = {},
  options: Pick<StartOptions, 'webAppDist' | 'schema'> = {},
): Promise<TestService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'poolparty-test-'));
  const result = readSettings({
    PORT: '0',
    LOG_LEVEL: 'silent',
    POOLPARTY_DATA_DIR: dataDir,
    ...env,
  });
  if (!result.ok) throw new Error(result.errors.join('\n'));
  const service = await startService(result.settings, options);
  if (service.url === null || service.devnet === null)
    throw new Error('test service not listening');
  const { url } = service;
  const apiKey = service.devnet.apiKey;
  return {
    service,
    url,
    apiKey,
    users: service.devnet.users,
    settings: result.settings,
    call: (method, path, options = {}) => request<Body>(url, method, path, { apiKey, ...options }),
    close: async () => {
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The service the tests of a file (or of a suite, called in its body) share: started before the
 * first of them, closed after the last. It is read once it has started, in a hook or a test,
 * never in the suite's body, which runs before any hook; a suite's own `beforeAll` after this
 * call runs once it has started.
 */
export function sharedTestService(
  env: Readonly<Record<string, string>> = {},
  options: Pick<StartOptions, 'webAppDist' | 'schema'> = {},
): TestService {
  let started: TestService | undefined;
  beforeAll(async () => {
    started = await startTestService(env, options);
  }, SERVICE_START_TIMEOUT_MS);
  afterAll(() => started?.close());
  return new Proxy({} as TestService, {
    get(_, member) {
      if (started === undefined) throw new Error('the shared service is read before it started');
      return Reflect.get(started, member);
    },
  });
}

/** The seed's user at `index` (alice, bob, …); a seed with fewer users fails the suite. */
export function seededUser(t: TestService, index: number): DevnetParty {
  const user = t.users[index];
  if (user === undefined) throw new Error(`the devnet seed has no user ${index}`);
  return user;
}

/**
 * What `party` holds of one instrument (`token` of `admin`) as the devnet's holdings route shows
 * it, zero when it holds none: the balance a swap's tests read before and after it settles.
 */
export async function devnetHolding(
  server: { readonly url: string },
  party: string,
  token: string,
  admin: string,
): Promise<Amount> {
  const answer = await request<{ holdings: { token: string; admin: string; amount: string }[] }>(
    server.url,
    'GET',
    `/devnet/parties/${encodeURIComponent(party)}/holdings`,
  );
  const found = answer.body.holdings.find((h) => h.token === token && h.admin === admin);
  return Amount.parse(found?.amount ?? '0');
}

/** A test service on a fresh schema of the PostgreSQL test server, dropped when it closes. */
export async function startPostgresTestService(
  prefix: string,
): Promise<TestService & { readonly schema: string }> {
  const schema = await createSchema(prefix);
  let t: TestService;
  try {
    t = await startTestService({ DATABASE_URL: POSTGRES_URL }, { schema });
  } catch (error) {
    await dropSchema(schema);
    throw error;
  }
  return {
    ...t,
    schema,
    close: async () => {
      await t.close();
      await dropSchema(schema);
    },
  };
}

export interface JsonResponse<T = Record<string, unknown>> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

export interface RequestOptions {
  readonly apiKey?: string | null;
  readonly walletToken?: string;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

/** A small JSON client for tests: sends the API key unless told otherwise. */
export async function request<T = Record<string, unknown>>(
  base: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<JsonResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey) headers['x-api-key'] = options.apiKey;
  if (options.walletToken) headers.authorization = `Bearer ${options.walletToken}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    ...(options.body !== undefined
      ? { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }
      : {}),
  });
  const text = await response.text();
  const body = (
    text.length > 0 && /json/.test(response.headers.get('content-type') ?? '')
      ? JSON.parse(text)
      : text
  ) as T;
  return { status: response.status, headers: response.headers, body };
}

/** Signs a wallet challenge message with a devnet party's key, as a wallet's `signMessage` would. */
export function signChallenge(
  message: string,
  party: DevnetParty,
): { signature: string; publicKey: string } {
  const privateKey = Uint8Array.from(Buffer.from(party.privateKey, 'hex'));
  return {
    signature: encodeBase64(sign(message, privateKey)),
    publicKey: encodeBase64(Uint8Array.from(Buffer.from(party.publicKey, 'hex'))),
  };
}

/** Starting the store and ledger takes a few seconds, more on a busy machine. */
export const STARTUP_TIMEOUT_MS = 30_000;
/** Migrating a fresh store and seeding the devnet ledger takes seconds on a busy machine. */
export const SERVICE_START_TIMEOUT_MS = 60_000;

/** A response body as route tests read it: checked field by field. */
// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field.
export type Body = any;

/** The answer is the problem document (RFC 9457) of `code`, tied to its request id. */
export function expectProblem(answer: JsonResponse<object>, status: number, code: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(answer.body).toMatchObject({ code, status, type: `urn:poolparty:error:${code}` });
  expect(answer.body).toHaveProperty('requestId', answer.headers.get('x-request-id'));
}

/** A developer portal login: the challenge for `party`, then its answer signed by `signer`. */
export async function portalLogin<T = { token: string }>(
  base: string,
  party: DevnetParty,
  signer: DevnetParty = party,
): Promise<{ readonly started: JsonResponse<Challenge>; readonly login: JsonResponse<T> }> {
  const started = await request<Challenge>(base, 'POST', '/api/sdk/wallet-login', {
    body: { partyId: party.partyId },
  });
  const login = await request<T>(base, 'POST', '/api/sdk/wallet-login', {
    body: {
      partyId: party.partyId,
      nonce: started.body.nonce,
      ...signChallenge(started.body.message, signer),
    },
  });
  return { started, login };
}

/**
 * How many times a sign-in step waits out a 429 before the test fails: a suite signing in more
 * wallets a minute than one client address may (30) waits for the bucket, as a wallet would.
 */
const RATE_LIMITED_RETRIES = 5;

async function admittedRequest<T>(send: () => Promise<JsonResponse<T>>): Promise<JsonResponse<T>> {
  for (let attempt = 0; ; attempt += 1) {
    const answer = await send();
    if (answer.status !== 429 || attempt === RATE_LIMITED_RETRIES) return answer;
    const seconds = Number(answer.headers.get('retry-after') ?? '1');
    await new Promise((resolve) => setTimeout(resolve, Math.max(1, seconds) * 1000));
  }
}

/**
 * A wallet token through the `/v1/wallet-auth` challenge, as a wallet gets one, waiting out the
 * per-address sign-in limit when a suite signs in many wallets at once.
 */
export async function walletTokenFor(
  server: { readonly url: string; readonly apiKey: string },
  party: DevnetParty,
): Promise<string> {
  const call = <T>(path: string, body: unknown) =>
    admittedRequest(() =>
      request<T>(server.url, 'POST', `/v1/wallet-auth/${path}`, { apiKey: server.apiKey, body }),
    );
  const challenge = await call<Challenge>('challenge', { partyId: party.partyId });
  if (challenge.status !== 200) throw new Error(`wallet challenge answered ${challenge.status}`);
  const verified = await call<{ token: string }>('verify', {
    partyId: party.partyId,
    nonce: challenge.body.nonce,
    ...signChallenge(challenge.body.message, party),
  });
  if (verified.status !== 200) throw new Error(`wallet verify answered ${verified.status}`);
  return verified.body.token;
}

/**
 * A party of its own from `POST /devnet/parties`, with its wallet token. With `preapproval:
 * false` it pre-approves nothing, so payouts and refunds to it are offers it must accept.
 */
export async function newDevnetParty(
  server: { readonly url: string; readonly apiKey: string },
  hint: string,
  options: { readonly preapproval?: boolean } = {},
): Promise<{ party: DevnetParty; token: string }> {
  const created = await request<{ partyId: string; publicKey: string; privateKey: string }>(
    server.url,
    'POST',
    '/devnet/parties',
    {
      body: {
        partyHint: hint,
        ...(options.preapproval !== undefined && { preapproval: options.preapproval }),
      },
    },
  );
  expect(created.status).toBe(201);
  const hex = (base64: string) => Buffer.from(base64, 'base64').toString('hex');
  const party: DevnetParty = {
    partyId: created.body.partyId,
    publicKey: hex(created.body.publicKey),
    privateKey: hex(created.body.privateKey),
  };
  return { party, token: await walletTokenFor(server, party) };
}

interface Challenge {
  readonly nonce: string;
  readonly message: string;
}

/** Ten minutes after the ledger clock as the service reports it: a signed request's `validUntil`. */
export async function devnetValidUntil(server: { readonly url: string }): Promise<string> {
  const answer = await request<{ now: string }>(server.url, 'GET', '/devnet/clock');
  if (answer.status !== 200) throw new Error(`GET /devnet/clock answered ${answer.status}`);
  return new Date(Date.parse(answer.body.now) + 10 * 60 * 1000).toISOString();
}

/**
 * A `POST path` body signed by the party's key, as `X-Party-Signature` carries it
 * (docs/spec/ledger.md#devnet-signatures):
 * over method, path and the exact body, which gets a `validUntil` from the ledger clock.
 */
export async function signedDevnetPost(
  server: { readonly url: string },
  party: DevnetParty,
  path: string,
  body: Record<string, unknown>,
): Promise<{ body: string; headers: Record<string, string> }> {
  const raw = JSON.stringify({ ...body, validUntil: await devnetValidUntil(server) });
  const privateKey = Uint8Array.from(Buffer.from(party.privateKey, 'hex'));
  const signature = sign(devnetSigningMessage('POST', path, raw), privateKey);
  return { body: raw, headers: { 'x-party-signature': encodeBase64(signature) } };
}

/** Funds `party` through the devnet faucet. */
export async function fundDevnetParty(
  server: { readonly url: string },
  party: DevnetParty,
  token: string,
  amount: string,
): Promise<void> {
  const funded = await request(server.url, 'POST', '/devnet/faucet', {
    body: { partyId: party.partyId, token, amount },
  });
  if (funded.status !== 200) throw new Error(`faucet answered ${funded.status}`);
}

/** What a swap intent tells its wallet to send, as `POST /v1/swaps` answers it. */
export interface DepositAsked {
  readonly depositAddress: string;
  readonly inputToken: string;
  readonly inputTokenAdmin: string;
  readonly expectedAmount: string;
  readonly depositReference: string;
}

/**
 * The request body of the devnet transfer that funds `intent`, signed by `party` as its wallet
 * would sign it, under `commandId` (a retry under the same id is the same transfer).
 */
export function signedDeposit(
  server: { readonly url: string },
  party: DevnetParty,
  intent: DepositAsked,
  commandId: string,
) {
  return signedDevnetPost(server, party, '/devnet/transfers', {
    sender: party.partyId,
    receiver: intent.depositAddress,
    token: intent.inputToken,
    admin: intent.inputTokenAdmin,
    amount: intent.expectedAmount,
    reason: intent.depositReference,
    commandId,
  });
}

/** Sends the intent's deposit from `party`, as its wallet would, through `POST /devnet/transfers`. */
export async function depositFor(
  server: { readonly url: string },
  party: DevnetParty,
  intent: DepositAsked & { readonly intentId: string },
): Promise<void> {
  const signed = await signedDeposit(server, party, intent, `deposit-${intent.intentId}`);
  const answer = await request(server.url, 'POST', '/devnet/transfers', signed);
  if (answer.status !== 200) throw new Error(`deposit answered ${answer.status}`);
}

/** Accepts or rejects an offer to `party`, as its wallet would (`POST /devnet/offers/{id}/…`). */
export async function answerDevnetOffer(
  server: { readonly url: string },
  party: DevnetParty,
  offerId: string,
  action: 'accept' | 'reject',
): Promise<void> {
  const path = `/devnet/offers/${encodeURIComponent(offerId)}/${action}`;
  const signed = await signedDevnetPost(server, party, path, { partyId: party.partyId });
  const answer = await request(server.url, 'POST', path, signed);
  if (answer.status !== 200) throw new Error(`${action} answered ${answer.status}`);
}
