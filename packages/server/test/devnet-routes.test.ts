import type { AddressInfo } from 'node:net';
import {
  DEVNET_SIGNATURE_MAX_VALIDITY_MS,
  decodeBase64,
  devnetSigningMessage,
  encodeBase64,
  fingerprint,
  generateKeyPair,
  type Instrument,
  sign,
} from '@poolparty/core';
import { PROBLEM_CONTENT_TYPE } from '@poolparty/core/problems';
import { FAULTS_OFF } from '@poolparty/devnet-ledger/devnet';
import { type LocalLedger, MINING_ROUND_MS, openLocalLedger } from '@poolparty/ledger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS } from '../src/auth/rate-limits.js';
import { createFastify } from '../src/http/fastify.js';
import { devnetRoutes } from '../src/http/routes/devnet.js';
import { BucketStore } from '../src/http/token-bucket.js';
import { expectProblem } from './support/service.js';

const admin = (name: string, digit: string) => `${name}::1220${digit.repeat(64)}`;
const AMULET: Instrument = { admin: admin('DSO', 'a'), id: 'Amulet' };
const USDCX_A: Instrument = { admin: admin('bankA', 'b'), id: 'USDCx' };
const USDCX_B: Instrument = { admin: admin('bankB', 'c'), id: 'USDCx' };
const UNKNOWN_PARTY = admin('nobody', 'd');
const DEMO_ORIGIN = 'https://demo.example';
const TEN_MINUTES = 10 * 60 * 1000;
const DAY = 24 * 60 * 60 * 1000;

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field.
  readonly body: any;
}

interface Party {
  readonly partyId: string;
  readonly publicKey: string;
  readonly privateKey: Uint8Array;
}

let ledger: LocalLedger;
let base: string;
let clockAdvances = 0;
const app = createFastify({ logLevel: 'silent' });

beforeAll(async () => {
  ledger = await openLocalLedger();
  for (const instrument of [AMULET, USDCX_A, USDCX_B]) await ledger.createInstrument(instrument);
  const deps = {
    ledger,
    controlOrigins: [DEMO_ORIGIN],
    onClockAdvanced: async () => {
      clockAdvances += 1;
    },
  };
  await app.register(async (scope) => devnetRoutes(scope, deps), { prefix: '/devnet' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await app.close();
  await ledger.close();
});

async function call(
  method: 'GET' | 'POST',
  path: string,
  rawBody?: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: rawBody === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: rawBody,
  });
  // Every answer, success or problem, names its request.
  expect(response.headers.get('x-request-id')).toMatch(/\S{8,}/);
  return { status: response.status, headers: response.headers, body: await response.json() };
}

const get = (path: string) => call('GET', path);
const post = (path: string, body: unknown) => call('POST', path, JSON.stringify(body));

/** `validUntil` `ms` after the ledger clock. */
async function ledgerTimePlus(ms: number): Promise<string> {
  return new Date((await ledger.now()).getTime() + ms).toISOString();
}

/** The signature a devnet client sends: over method, path and the exact body text. */
function signatureOf(path: string, raw: string, signer: Party, method = 'POST'): string {
  return encodeBase64(sign(devnetSigningMessage(method, path, raw), signer.privateKey));
}

/**
 * Posts `body` signed by `signer`, the way a devnet client does: over the exact bytes sent, with
 * `validUntil` ten minutes ahead of the ledger clock unless the body sets it.
 */
async function signedPost(
  path: string,
  body: Record<string, unknown>,
  signer: Party,
  extra: Record<string, string> = {},
) {
  const raw = JSON.stringify({ validUntil: await ledgerTimePlus(TEN_MINUTES), ...body });
  return call('POST', path, raw, { 'x-party-signature': signatureOf(path, raw, signer), ...extra });
}

async function createParty(partyHint: string, preapproval?: boolean): Promise<Party> {
  const answer = await post('/devnet/parties', { partyHint, preapproval });
  expect(answer.status).toBe(201);
  const privateKey = decodeBase64(answer.body.privateKey);
  if (!privateKey) throw new Error('privateKey is not base64');
  return { ...answer.body, privateKey };
}

async function fund(party: Party, token: Instrument, amount: string): Promise<void> {
  const answer = await post('/devnet/faucet', {
    partyId: party.partyId,
    token: token.id,
    admin: token.admin,
    amount,
  });
  expect(answer.status).toBe(200);
}

async function balance(
  party: Party,
  token: Instrument,
): Promise<{ amount: string; locked: string }> {
  const answer = await get(`/devnet/parties/${party.partyId}/holdings`);
  expect(answer.status).toBe(200);
  const holding = answer.body.holdings.find(
    (h: { token: string; admin: string }) => h.token === token.id && h.admin === token.admin,
  );
  return { amount: holding?.amount ?? '0', locked: holding?.locked ?? '0' };
}

function transferBody(sender: Party, receiver: Party, amount: string, commandId: string) {
  return {
    sender: sender.partyId,
    receiver: receiver.partyId,
    token: 'Amulet',
    amount,
    reason: 'for lunch',
    commandId,
  };
}

describe('POST /devnet/parties', () => {
  it('generates a key pair and names the party by its fingerprint', async () => {
    const answer = await post('/devnet/parties', { partyHint: 'alice' });
    expect(answer.status).toBe(201);
    const publicKey = decodeBase64(answer.body.publicKey) as Uint8Array;
    expect(publicKey).toHaveLength(32);
    expect(answer.body.partyId).toBe(`alice::${fingerprint(publicKey)}`);
    expect(decodeBase64(answer.body.privateKey)).toHaveLength(32);
    expect(await ledger.isSigningKeyOf(answer.body.partyId, publicKey)).toBe(true);
  });

  it('uses a given key (hex accepted), answering it in base64 and no private key', async () => {
    const { publicKey } = generateKeyPair();
    const hex = Buffer.from(publicKey).toString('hex');
    const answer = await post('/devnet/parties', { partyHint: 'bob', publicKey: hex });
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({
      partyId: `bob::${fingerprint(publicKey)}`,
      publicKey: encodeBase64(publicKey),
    });
  });

  it('answers 200 with the same body for a party that exists already, 201 only when it creates', async () => {
    const { publicKey } = generateKeyPair();
    const body = { partyHint: 'dora', publicKey: encodeBase64(publicKey) };
    const first = await post('/devnet/parties', body);
    expect(first.status).toBe(201);
    const again = await post('/devnet/parties', body);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.body).toEqual({
      partyId: `dora::${fingerprint(publicKey)}`,
      publicKey: encodeBase64(publicKey),
    });
    // Another hint with the same key is another party.
    expect((await post('/devnet/parties', { ...body, partyHint: 'dora2' })).status).toBe(201);
  });

  it('refuses a key that is not an Ed25519 key and a hint the ledger cannot use', async () => {
    const badKey = await post('/devnet/parties', { partyHint: 'carol', publicKey: 'AAAA' });
    expectProblem(badKey, 400, 'validation_error');
    const colon = await post('/devnet/parties', { partyHint: 'car:ol' });
    expectProblem(colon, 400, 'validation_error');
  });
});

describe('POST /devnet/faucet and GET holdings', () => {
  it('mints holdings that the balance sums per instrument', async () => {
    const party = await createParty('faucet-user');
    const first = await post('/devnet/faucet', {
      partyId: party.partyId,
      token: 'Amulet',
      amount: '100.50',
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ amount: '100.5', holdingId: expect.any(String) });
    await fund(party, AMULET, '0.5');
    await fund(party, USDCX_B, '7');
    const holdings = await get(`/devnet/parties/${party.partyId}/holdings`);
    expect(holdings.body.holdings).toEqual([
      { token: 'Amulet', admin: AMULET.admin, amount: '101', locked: '0' },
      { token: 'USDCx', admin: USDCX_B.admin, amount: '7', locked: '0' },
    ]);
  });

  it('asks for the admin when a symbol exists under several', async () => {
    const party = await createParty('ambiguous');
    const answer = await post('/devnet/faucet', {
      partyId: party.partyId,
      token: 'USDCx',
      amount: '1',
    });
    expectProblem(answer, 400, 'validation_error');
    expect(answer.body.admins).toEqual([USDCX_A.admin, USDCX_B.admin]);
  });

  it('answers 404 for an unknown token or party', async () => {
    const party = await createParty('lost');
    const noToken = await post('/devnet/faucet', {
      partyId: party.partyId,
      token: 'Dogecoin',
      amount: '1',
    });
    expectProblem(noToken, 404, 'token_not_found');
    const noParty = await post('/devnet/faucet', {
      partyId: UNKNOWN_PARTY,
      token: 'Amulet',
      amount: '1',
    });
    expectProblem(noParty, 404, 'not_found');
    expectProblem(await get(`/devnet/parties/${UNKNOWN_PARTY}/holdings`), 404, 'not_found');
  });
});

describe('POST /devnet/faucet rate limit', () => {
  it('limits mints per client address: 429 rate_limited with Retry-After and RateLimit headers', async () => {
    const limited = createFastify({ logLevel: 'silent' });
    const deps = { ledger, controlOrigins: [], buckets: new BucketStore() };
    await limited.register(async (scope) => devnetRoutes(scope, deps), { prefix: '/devnet' });
    await limited.listen({ port: 0, host: '127.0.0.1' });
    try {
      const url = `http://127.0.0.1:${(limited.server.address() as AddressInfo).port}`;
      const party = await createParty('faucet-limit');
      const mint = () =>
        fetch(`${url}/devnet/faucet`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ partyId: party.partyId, token: 'Amulet', amount: '1' }),
        });
      const limit = DEFAULT_RATE_LIMITS.faucetMintsPerMin;
      // The bucket refills a little while the mints run: twice the limit is sure to meet it.
      let refused: Response | undefined;
      for (let i = 0; i < 2 * limit && refused === undefined; i++) {
        const answer = await mint();
        if (answer.status === 429) refused = answer;
        else expect(answer.headers.get('ratelimit-limit')).toBe(String(limit));
      }
      if (refused === undefined) throw new Error(`${2 * limit} mints were not limited`);
      const body = await refused.json();
      expect(refused.headers.get('content-type')).toContain(PROBLEM_CONTENT_TYPE);
      expect(body).toMatchObject({ status: 429, code: 'rate_limited' });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(refused.headers.get('ratelimit-limit')).toBe(String(limit));
      expect(refused.headers.get('ratelimit-remaining')).toBe('0');
      expect(refused.headers.get('ratelimit-reset')).toBe(refused.headers.get('retry-after'));
      // Only the faucet: the other devnet calls of this address still answer.
      expect((await fetch(`${url}/devnet/clock`)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('POST /devnet/transfers', () => {
  let sender: Party;
  let receiver: Party;

  beforeAll(async () => {
    sender = await createParty('sender');
    receiver = await createParty('receiver');
    await fund(sender, AMULET, '50');
  });

  it('moves a signed transfer directly to a pre-approving receiver, once per command id', async () => {
    const body = transferBody(sender, receiver, '20', 'direct-1');
    const first = await signedPost('/devnet/transfers', body, sender);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ updateId: expect.any(String), kind: 'direct' });
    const again = await signedPost('/devnet/transfers', body, sender);
    expect(again.body).toEqual(first.body);
    expect(await balance(sender, AMULET)).toEqual({ amount: '30', locked: '0' });
    expect(await balance(receiver, AMULET)).toEqual({ amount: '20', locked: '0' });
  });

  it('verifies the bytes as sent, not a re-serialization of the JSON', async () => {
    const body = { ...transferBody(sender, receiver, '1', 'pretty') };
    const raw = JSON.stringify({ ...body, validUntil: await ledgerTimePlus(TEN_MINUTES) }, null, 2);
    const signature = signatureOf('/devnet/transfers', raw, sender);
    const answer = await call('POST', '/devnet/transfers', raw, { 'x-party-signature': signature });
    expect(answer.body.kind).toBe('direct');
    expect(await balance(sender, AMULET)).toEqual({ amount: '29', locked: '0' });
  });

  it('refuses more than the sender holds', async () => {
    const answer = await signedPost(
      '/devnet/transfers',
      transferBody(sender, receiver, '1000', 'too-much'),
      sender,
    );
    expectProblem(answer, 409, 'insufficient_funds');
    expect(answer.body.ledgerError).toBe('insufficient_holdings');
    expect(await balance(sender, AMULET)).toEqual({ amount: '29', locked: '0' });
  });

  it('refuses a missing, malformed, wrong-key or tampered signature with 401', async () => {
    const body = transferBody(sender, receiver, '1', 'unsigned');
    const raw = JSON.stringify({ ...body, validUntil: await ledgerTimePlus(TEN_MINUTES) });
    const mallory = await createParty('mallory');
    const path = '/devnet/transfers';
    const cases: Record<string, string>[] = [
      {},
      { 'x-party-signature': 'not base64!' },
      { 'x-party-signature': signatureOf(path, raw, mallory) },
      { 'x-party-signature': signatureOf(path, `${raw} `, sender) },
      // The body alone, as signatures were before they covered method and path.
      { 'x-party-signature': encodeBase64(sign(raw, sender.privateKey)) },
      { 'x-party-signature': signatureOf('/devnet/transfer', raw, sender) },
      { 'x-party-signature': signatureOf(path, raw, sender, 'PUT') },
    ];
    for (const headers of cases) {
      expectProblem(
        await call('POST', '/devnet/transfers', raw, headers),
        401,
        'invalid_party_signature',
      );
    }
    expect(await balance(sender, AMULET)).toEqual({ amount: '29', locked: '0' });
  });

  it('signs the path without its query string', async () => {
    const body = transferBody(sender, receiver, '1', 'with-query');
    const raw = JSON.stringify({ ...body, validUntil: await ledgerTimePlus(TEN_MINUTES) });
    const signature = signatureOf('/devnet/transfers', raw, sender);
    const answer = await call('POST', '/devnet/transfers?via=proxy', raw, {
      'x-party-signature': signature,
    });
    expect(answer.body.kind).toBe('direct');
    expect(await balance(sender, AMULET)).toEqual({ amount: '28', locked: '0' });
  });

  it('requires validUntil, at most 1 h ahead of the ledger clock', async () => {
    const body = transferBody(sender, receiver, '1', 'far-ahead');
    const path = '/devnet/transfers';
    const missing = JSON.stringify(body);
    expectProblem(
      await call('POST', path, missing, {
        'x-party-signature': signatureOf(path, missing, sender),
      }),
      400,
      'validation_error',
    );
    const ahead = DEVNET_SIGNATURE_MAX_VALIDITY_MS + 60_000;
    const farAhead = await signedPost(
      path,
      { ...body, validUntil: await ledgerTimePlus(ahead) },
      sender,
    );
    expectProblem(farAhead, 400, 'validation_error');
    expect(farAhead.body.detail).toMatch(/more than 1 h after the ledger clock/);
    expect(await balance(sender, AMULET)).toEqual({ amount: '28', locked: '0' });
  });

  it('checks signatures of parties created on the ledger directly against their registered keys', async () => {
    const keys = generateKeyPair();
    const { partyId } = await ledger.createParty({ hint: 'seeded', publicKey: keys.publicKey });
    const seeded: Party = {
      partyId,
      publicKey: encodeBase64(keys.publicKey),
      privateKey: keys.privateKey,
    };
    await fund(seeded, AMULET, '5');
    const answer = await signedPost(
      '/devnet/transfers',
      transferBody(seeded, receiver, '5', 'seeded-1'),
      seeded,
    );
    expect(answer.body.kind).toBe('direct');
  });
});

describe('offers', () => {
  let sender: Party;
  let wary: Party;

  beforeAll(async () => {
    sender = await createParty('offerer');
    wary = await createParty('wary', false);
    await fund(sender, AMULET, '100');
  });

  async function offer(amount: string, commandId: string): Promise<string> {
    const answer = await signedPost(
      '/devnet/transfers',
      transferBody(sender, wary, amount, commandId),
      sender,
    );
    expect(answer.body).toMatchObject({ kind: 'offer', offerId: expect.any(String) });
    return answer.body.offerId;
  }

  it('lists an offer to a receiver without pre-approval, and accepting it pays the receiver', async () => {
    const offerId = await offer('40', 'offer-accept');
    const listed = await get(`/devnet/parties/${wary.partyId}/offers`);
    expect(listed.body.offers).toEqual([
      {
        offerId,
        sender: sender.partyId,
        receiver: wary.partyId,
        token: 'Amulet',
        admin: AMULET.admin,
        amount: '40',
        reason: 'for lunch',
        expiresAt: expect.stringMatching(/Z$/),
      },
    ]);
    // Offers the sender made are not pending *to* it.
    expect((await get(`/devnet/parties/${sender.partyId}/offers`)).body.offers).toEqual([]);
    expect(await balance(sender, AMULET)).toEqual({ amount: '60', locked: '40' });

    const accepted = await signedPost(
      `/devnet/offers/${offerId}/accept`,
      { partyId: wary.partyId },
      wary,
    );
    expect(accepted.body).toEqual({ offerId, updateId: expect.any(String) });
    expect(await balance(wary, AMULET)).toEqual({ amount: '40', locked: '0' });
    expect(await balance(sender, AMULET)).toEqual({ amount: '60', locked: '0' });
    expect((await get(`/devnet/parties/${wary.partyId}/offers`)).body.offers).toEqual([]);
  });

  it('returns a rejected offer to the sender', async () => {
    const offerId = await offer('10', 'offer-reject');
    const unsigned = await post(`/devnet/offers/${offerId}/reject`, {
      partyId: wary.partyId,
      validUntil: await ledgerTimePlus(TEN_MINUTES),
    });
    expectProblem(unsigned, 401, 'invalid_party_signature');
    const bySender = await signedPost(
      `/devnet/offers/${offerId}/reject`,
      { partyId: sender.partyId },
      sender,
    );
    expectProblem(bySender, 400, 'validation_error');
    const rejected = await signedPost(
      `/devnet/offers/${offerId}/reject`,
      { partyId: wary.partyId },
      wary,
    );
    expect(rejected.status).toBe(200);
    expect(await balance(sender, AMULET)).toEqual({ amount: '60', locked: '0' });
    const late = await signedPost(
      `/devnet/offers/${offerId}/accept`,
      { partyId: wary.partyId },
      wary,
    );
    expectProblem(late, 404, 'not_found');
  });
});

describe('replay', () => {
  it('refuses a signature made for one offer on another offer of the same party', async () => {
    const sender = await createParty('replay-offerer');
    const wary = await createParty('replay-wary', false);
    await fund(sender, AMULET, '10');
    const offerIds: string[] = [];
    for (const commandId of ['replay-offer-1', 'replay-offer-2']) {
      const answer = await signedPost(
        '/devnet/transfers',
        transferBody(sender, wary, '5', commandId),
        sender,
      );
      offerIds.push(answer.body.offerId);
    }
    const [first, second] = offerIds;
    const raw = JSON.stringify({
      partyId: wary.partyId,
      validUntil: await ledgerTimePlus(TEN_MINUTES),
    });
    const signature = signatureOf(`/devnet/offers/${first}/reject`, raw, wary);
    const elsewhere = await call('POST', `/devnet/offers/${second}/reject`, raw, {
      'x-party-signature': signature,
    });
    expectProblem(elsewhere, 401, 'invalid_party_signature');
    const otherAction = await call('POST', `/devnet/offers/${first}/accept`, raw, {
      'x-party-signature': signature,
    });
    expectProblem(otherAction, 401, 'invalid_party_signature');
    expect((await get(`/devnet/parties/${wary.partyId}/offers`)).body.offers).toHaveLength(2);
    const meant = await call('POST', `/devnet/offers/${first}/reject`, raw, {
      'x-party-signature': signature,
    });
    expect(meant.status).toBe(200);
  });

  it('refuses a signed transfer after its validUntil, even once the clock is past deduplication', async () => {
    const sender = await createParty('replay-sender');
    const receiver = await createParty('replay-receiver');
    await fund(sender, AMULET, '10');
    const path = '/devnet/transfers';
    const validUntil = await ledgerTimePlus(TEN_MINUTES);
    const raw = JSON.stringify({ ...transferBody(sender, receiver, '4', 'replayed'), validUntil });
    const headers = { 'x-party-signature': signatureOf(path, raw, sender) };
    const first = await call('POST', path, raw, headers);
    expect(first.body.kind).toBe('direct');
    // Past the ledger's 24 h command deduplication: only validUntil stops a second transfer now.
    expect((await post('/devnet/clock', { advanceMs: DAY + TEN_MINUTES })).status).toBe(200);
    const replayed = await call('POST', path, raw, headers);
    expectProblem(replayed, 401, 'signature_expired');
    expect(Date.parse(replayed.body.ledgerTime)).toBeGreaterThan(Date.parse(validUntil) + DAY);
    expect(await balance(sender, AMULET)).toEqual({ amount: '6', locked: '0' });
    expect(await balance(receiver, AMULET)).toEqual({ amount: '4', locked: '0' });
  });
});

describe('control endpoints and browser origins', () => {
  const control = (path: string, body: unknown, origin?: string) =>
    call('POST', path, JSON.stringify(body), origin === undefined ? {} : { origin });

  it("refuse a browser origin other than the service's own or a configured one", async () => {
    for (const [path, body] of [
      ['/devnet/clock', { advanceMs: 0 }],
      ['/devnet/oracle', { amuletPriceUsd: '0.2' }],
      ['/devnet/faults', {}],
    ] as const) {
      const foreign = await control(path, body, 'https://evil.example');
      expectProblem(foreign, 403, 'origin_not_allowed');
      expect(foreign.body.detail).toContain('https://evil.example');
      expect((await control(path, body)).status).toBe(200);
      expect((await control(path, body, base)).status).toBe(200);
      expect((await control(path, body, DEMO_ORIGIN)).status).toBe(200);
    }
  });

  it('refuse a foreign origin before reading the body', async () => {
    const answer = await call('POST', '/devnet/clock', 'not json', { origin: 'null' });
    expectProblem(answer, 403, 'origin_not_allowed');
  });

  it('leave the party calls and reads open to browser pages', async () => {
    const before = (await ledger.now()).getTime();
    const answer = await call('GET', '/devnet/clock', undefined, {
      origin: 'https://evil.example',
    });
    const after = (await ledger.now()).getTime();
    expect(answer.status).toBe(200);
    expect(Date.parse(answer.body.now)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(answer.body.now)).toBeLessThanOrEqual(after);
  });
});

describe('POST /devnet/clock and /devnet/oracle', () => {
  it('advances the ledger clock and lets the service clock follow', async () => {
    const before = (await ledger.now()).getTime();
    const calls = clockAdvances;
    const answer = await post('/devnet/clock', { advanceMs: 3_600_000 });
    expect(answer.status).toBe(200);
    expect(Date.parse(answer.body.now)).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(clockAdvances).toBe(calls + 1);
  });

  it('sets the Amulet price carried by the next mining round', async () => {
    const answer = await post('/devnet/oracle', { amuletPriceUsd: '0.2000' });
    expect(answer.body).toEqual({ amuletPriceUsd: '0.2' });
    await post('/devnet/clock', { advanceMs: MINING_ROUND_MS });
    expect((await ledger.openMiningRound()).amuletPriceUsd.toString()).toBe('0.2');
    expectProblem(await post('/devnet/oracle', { amuletPriceUsd: '0' }), 400, 'validation_error');
  });
});

describe('POST /devnet/faults', () => {
  it('changes the named settings, answers all of them, and the ledger obeys', async () => {
    const on = await post('/devnet/faults', { rejectRate: 1 });
    expect(on.body).toEqual({ ...FAULTS_OFF, rejectRate: 1 });
    const more = await post('/devnet/faults', { dropStreamRate: 0.5 });
    expect(more.body).toEqual({ ...FAULTS_OFF, rejectRate: 1, dropStreamRate: 0.5 });

    const sender = await createParty('unlucky');
    const receiver = await createParty('unlucky-receiver');
    await fund(sender, AMULET, '1');
    const refused = await signedPost(
      '/devnet/transfers',
      transferBody(sender, receiver, '1', 'refused'),
      sender,
    );
    expectProblem(refused, 503, 'ledger_unavailable');

    const off = await post('/devnet/faults', { rejectRate: 0, dropStreamRate: 0 });
    expect(off.body).toEqual(FAULTS_OFF);
    const retried = await signedPost(
      '/devnet/transfers',
      transferBody(sender, receiver, '1', 'refused'),
      sender,
    );
    expect(retried.body.kind).toBe('direct');
  });

  it('refuses a rate outside [0, 1]', async () => {
    expectProblem(await post('/devnet/faults', { rejectRate: 2 }), 400, 'validation_error');
  });
});

describe('malformed requests', () => {
  it('answers 400 validation_error for bad JSON, missing, unknown or ill-formed fields', async () => {
    const party = await createParty('strict');
    const bodies = [
      '{"partyId": ',
      JSON.stringify({ partyId: party.partyId, token: 'Amulet' }),
      JSON.stringify({ partyId: party.partyId, token: 'Amulet', amount: '1', colour: 'red' }),
      JSON.stringify({ partyId: party.partyId, token: 'Amulet', amount: '-1' }),
      JSON.stringify({ partyId: 'not a party', token: 'Amulet', amount: '1' }),
    ];
    for (const raw of bodies) {
      expectProblem(await call('POST', '/devnet/faucet', raw), 400, 'validation_error');
    }
    expectProblem(await post('/devnet/clock', { advanceMs: -1 }), 400, 'validation_error');
    expectProblem(await get('/devnet/parties/nobody/holdings'), 400, 'validation_error');
  });
});
