/**
 * `/v1/atomic-swaps` as an app uses it: on a service with `LEDGER=canton` (the devnet ledger
 * server), prepare answers both legs, the prepared transaction and its hash; the wallet signs the
 * hash with its own key and execute answers `completed` with the update id; a signature again
 * executes nothing twice; another key is 401 and a cancel after signing 409. Its event stream
 * resumes after `Last-Event-ID`; the status routes and `track` answer it beside the deposit
 * flow's swaps (`kind: atomic`). The same flow on the embedded ledger:
 * atomic-swaps-embedded.test.ts.
 */
import { Amount, fingerprint, generateKeyPair, sign } from '@poolparty/core';
import { PoolParty } from '@poolparty/sdk';
import { withAtomicSwaps } from '@poolparty/sdk/atomic';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../src/service.js';
import { expectNotTakenAsDeposit, walletSignerOf } from './support/atomic-swaps.js';
import {
  type CantonService,
  issueApiKey,
  type ServedDevnet,
  startCantonService,
} from './support/devnet-ledger.js';
import { type Body, expectProblem, request, walletTokenFor } from './support/service.js';
import { openSse } from './support/sse.js';

const fromHex = (hex: string) => new Uint8Array(Buffer.from(hex, 'hex'));
const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

describe('atomic swaps on a service with LEDGER=canton', () => {
  let canton: CantonService;
  let devnet: ServedDevnet;
  let service: RunningService;
  let apiKey: string;
  let token: string;
  let trader: { partyId: string; publicKey: string; privateKey: string };
  const secondUser = () => {
    const user = devnet.seed.users[1];
    if (user === undefined) throw new Error('no second seeded user');
    return user;
  };
  const call = (method: string, path: string, body?: unknown, key?: string) =>
    request<Body>(service.url ?? '', method, path, {
      apiKey,
      headers: { authorization: `Bearer ${token}`, ...(key && { 'idempotency-key': key }) },
      ...(body !== undefined && { body }),
    });

  beforeAll(async () => {
    canton = await startCantonService();
    ({ devnet, service } = canton);
    apiKey = await issueApiKey(service.ctx.db, devnet.seed.developer.partyId, new Date());
    const [user] = devnet.seed.users;
    if (user === undefined) throw new Error('no seeded user');
    trader = user;
    token = await walletTokenFor({ url: service.url ?? '', apiKey }, user);
  }, 120_000);

  afterAll(() => canton?.close());

  async function prepared(key?: string) {
    const answer = await call(
      'POST',
      '/v1/atomic-swaps',
      {
        fromToken: 'Amulet',
        toToken: 'USDCx',
        amount: '100',
        poolId: 'amulet-usdcx',
        keyFingerprint: fingerprint(fromHex(trader.publicKey)),
      },
      key,
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    return answer.body;
  }

  function signatureOf(swap: Body, privateKey: Uint8Array = fromHex(trader.privateKey)) {
    const hash = Buffer.from(swap.preparedTransactionHash, 'base64');
    return {
      signature: base64(sign(hash, privateKey)),
      publicKey: base64(fromHex(trader.publicKey)),
    };
  }

  it('prepares both legs, executes with the wallet’s signature, and answers it again unchanged', async () => {
    const swap = await prepared();
    expect(swap).toMatchObject({
      status: 'prepared',
      traderParty: trader.partyId,
      input: { sender: trader.partyId, token: 'Amulet', amount: '100' },
      output: { receiver: trader.partyId, token: 'USDCx' },
      hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
      updateId: null,
    });
    expect(Amount.parse(swap.output.amount).lt(Amount.parse(swap.quotedOutput))).toBe(true);
    const path = `/v1/atomic-swaps/${swap.atomicSwapId}`;
    const done = await call('POST', `${path}/execute`, signatureOf(swap));
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toMatchObject({ status: 'completed', failure: null });
    expect(typeof done.body.updateId).toBe('string');
    const again = await call('POST', `${path}/execute`, signatureOf(swap));
    expect(again.body).toMatchObject({ status: 'completed', updateId: done.body.updateId });
    expect((await call('GET', path)).body).toMatchObject({ status: 'completed' });
    expectProblem(await call('POST', `${path}/cancel`), 409, 'intent_not_cancellable');
    await expectNotTakenAsDeposit(service.ctx, swap.atomicSwapId);
  });

  it('is what the SDK prepares, verifies from the real prepared transaction, and signs', async () => {
    const pp = withAtomicSwaps(
      new PoolParty({ apiKey, baseUrl: service.url ?? '', walletToken: token }),
    );
    const signer = walletSignerOf(trader);
    const swap = await pp.atomicSwaps.create({
      fromToken: 'Amulet',
      toToken: 'USDCx',
      amount: '25',
      poolId: 'amulet-usdcx',
      keyFingerprint: signer.fingerprint,
    });
    const legs = await swap.verify();
    expect(legs.input).toMatchObject({
      sender: trader.partyId,
      receiver: swap.data.input.receiver,
    });
    expect(Amount.parse(legs.input.amount).eq(Amount.parse('25'))).toBe(true);
    expect(Amount.parse(legs.output.amount).eq(Amount.parse(swap.data.output.amount))).toBe(true);
    const done = await swap.execute(signer);
    expect(done).toMatchObject({ status: 'completed' });
    expect((await pp.atomicSwaps.get(swap.atomicSwapId)).status).toBe('completed');
  });

  it('refuses another key’s signature with 401, and the swap still waits for the trader’s', async () => {
    const swap = await prepared();
    const path = `/v1/atomic-swaps/${swap.atomicSwapId}`;
    const stranger = signatureOf(swap, generateKeyPair().privateKey);
    expectProblem(
      await call('POST', `${path}/execute`, stranger),
      401,
      'invalid_transaction_signature',
    );
    expect((await call('GET', path)).body).toMatchObject({ status: 'prepared' });
    const cancelled = await call('POST', `${path}/cancel`);
    expect(cancelled.body).toMatchObject({ status: 'cancelled' });
  });

  it('streams the swap’s states as Server-Sent Events, from its current one to its end', async () => {
    const swap = await prepared();
    const path = `/v1/atomic-swaps/${swap.atomicSwapId}`;
    const stream = await openSse(service.url ?? '', `${path}/events`, {
      apiKey,
      walletToken: token,
    });
    const [first] = await stream.events(1);
    expect(first).toMatchObject({
      event: 'prepared',
      data: { status: 'prepared', updateId: null },
    });
    expect((await call('POST', `${path}/execute`, signatureOf(swap))).body.status).toBe(
      'completed',
    );
    const rest = await stream.rest();
    expect(rest.map((event) => event.event)).toEqual(['executing', 'completed']);
    expect(rest.at(-1)?.data).toMatchObject({
      status: 'completed',
      atomicSwapId: swap.atomicSwapId,
    });
  });

  it('resumes the stream after Last-Event-ID: only later events, none twice, and a foreign id is 400', async () => {
    const swap = await prepared();
    const path = `/v1/atomic-swaps/${swap.atomicSwapId}`;
    const opened = (lastEventId?: string) =>
      openSse(service.url ?? '', `${path}/events`, {
        apiKey,
        walletToken: token,
        ...(lastEventId !== undefined && { lastEventId }),
      });
    const first = await opened();
    const [prepare] = await first.events(1);
    first.close();
    expect(prepare?.event).toBe('prepared');
    expect((await call('POST', `${path}/execute`, signatureOf(swap))).body.status).toBe(
      'completed',
    );
    const resumed = await (await opened(prepare?.id)).rest();
    expect(resumed.map((event) => event.event)).toEqual(['executing', 'completed']);
    expect(resumed.map((event) => Number(event.id))).toEqual(
      [1, 2].map((n) => Number(prepare?.id) + n),
    );
    // The query parameter, for clients that cannot set headers, resumes alike.
    const byQuery = await openSse(
      service.url ?? '',
      `${path}/events?lastEventId=${resumed[0]?.id}`,
      { apiKey, walletToken: token },
    );
    expect((await byQuery.rest()).map((event) => event.event)).toEqual(['completed']);
    // After the last event of an ended swap, the stream ends at once with nothing.
    expect(await (await opened(resumed.at(-1)?.id)).rest()).toEqual([]);
    const other = await prepared();
    const foreign = await request<Body>(service.url ?? '', 'GET', `${path}/events`, {
      apiKey,
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'text/event-stream',
        'last-event-id': String(Number(resumed.at(-1)?.id) + 1),
      },
    });
    expectProblem(foreign, 400, 'validation_error');
    await call('POST', `/v1/atomic-swaps/${other.atomicSwapId}/cancel`);
  });

  it('answers its status and progress beside the deposit flow’s, in that family’s words', async () => {
    const swap = await prepared();
    const done = await call(
      'POST',
      `/v1/atomic-swaps/${swap.atomicSwapId}/execute`,
      signatureOf(swap),
    );
    const status = await call('GET', `/v1/swaps/${swap.atomicSwapId}`);
    expect(status.status, JSON.stringify(status.body)).toBe(200);
    expect(status.body).toEqual({
      kind: 'atomic',
      intentId: swap.atomicSwapId,
      atomicSwapId: swap.atomicSwapId,
      poolId: 'amulet-usdcx',
      status: 'completed',
      terminal: true,
      inputToken: 'Amulet',
      inputTokenAdmin: swap.input.tokenAdmin,
      outputToken: 'USDCx',
      outputTokenAdmin: swap.output.tokenAdmin,
      expectedAmount: swap.input.amount,
      expectedOutput: swap.quotedOutput,
      minOutput: swap.output.amount,
      actualOutput: swap.output.amount,
      slippageTolerance: 0.05,
      traderParty: trader.partyId,
      createdAt: swap.createdAt,
      completedAt: done.body.updatedAt,
      expiresAt: swap.expiresAt,
      failureReason: null,
      updateId: done.body.updateId,
      excess: done.body.excess,
      history: [
        { status: 'prepared', at: swap.createdAt },
        { status: 'executing', at: expect.any(String) },
        { status: 'completed', at: done.body.updatedAt },
      ],
    });
    // Anyone with the id and an API key sees its progress, without the trader.
    const progress = await request<Body>(
      service.url ?? '',
      'GET',
      `/v1/swaps/${swap.atomicSwapId}/progress`,
      { apiKey },
    );
    const { traderParty, ...withoutTrader } = status.body;
    expect(progress.body).toEqual(withoutTrader);
    // Another party's atomic swap is as unknown as an id never issued.
    const other = await walletTokenFor({ url: service.url ?? '', apiKey }, secondUser());
    const theirs = await request<Body>(service.url ?? '', 'GET', `/v1/swaps/${swap.atomicSwapId}`, {
      apiKey,
      walletToken: other,
    });
    expectProblem(theirs, 404, 'not_found');
    const unknown = 'atm_0000000000000000000000000A';
    expectProblem(await call('GET', `/v1/swaps/${unknown}`), 404, 'not_found');
    expectProblem(
      await request(service.url ?? '', 'GET', `/v1/swaps/${unknown}/progress`, { apiKey }),
      404,
      'not_found',
    );
  });

  it('lists its atomic swaps among its swaps, newest first, and keeps one kind when asked', async () => {
    const intent = await call('POST', '/v1/swaps', {
      fromToken: 'Amulet',
      toToken: 'USDCx',
      amount: '10',
      poolId: 'amulet-usdcx',
    });
    expect(intent.status, JSON.stringify(intent.body)).toBe(201);
    await call('POST', `/v1/swaps/${intent.body.intentId}/cancel`);
    const swap = await prepared();
    const track = (query = '') => call('GET', `/v1/track/${trader.partyId}${query}`);
    const both = await track('?limit=2');
    expect(both.status, JSON.stringify(both.body)).toBe(200);
    expect(both.body.swaps.map((s: Body) => [s.kind, s.intentId])).toEqual([
      ['atomic', swap.atomicSwapId],
      ['deposit', intent.body.intentId],
    ]);
    expect(both.body.swaps[0]).toEqual((await call('GET', `/v1/swaps/${swap.atomicSwapId}`)).body);
    const atomic = (await track('?kind=atomic&limit=100')).body.swaps as Body[];
    expect(atomic.length).toBeGreaterThan(1);
    expect(atomic.every((s) => s.kind === 'atomic')).toBe(true);
    const deposit = (await track('?kind=deposit')).body.swaps as Body[];
    expect(deposit.map((s) => s.intentId)).toEqual([intent.body.intentId]);
    const waiting = (await track('?status=prepared')).body.swaps as Body[];
    expect(waiting.map((s) => s.intentId)).toContain(swap.atomicSwapId);
    expect(waiting.every((s) => s.status === 'prepared')).toBe(true);
    expectProblem(await track('?kind=both'), 400, 'validation_error');
    // The SDK lists them alike, typed by kind, and reads one's status from the atomic entry.
    const pp = withAtomicSwaps(
      new PoolParty({ apiKey, baseUrl: service.url ?? '', walletToken: token }),
    );
    const page = await pp.track(trader.partyId, { kind: 'atomic', status: 'prepared' });
    expect(page.swaps.map((s) => s.atomicSwapId)).toContain(swap.atomicSwapId);
    expect(await pp.atomicSwaps.getStatus(swap.atomicSwapId)).toEqual(both.body.swaps[0]);
    await call('POST', `/v1/atomic-swaps/${swap.atomicSwapId}/cancel`);
  });

  it('replays a prepare retried under its idempotency key, preparing once', async () => {
    const first = await prepared('atomic-retry-1');
    const second = await prepared('atomic-retry-1');
    expect(second.atomicSwapId).toBe(first.atomicSwapId);
  });

  it('answers 404 for a swap of another party, and 400 for a body that is not one', async () => {
    const unknown = await call('GET', '/v1/atomic-swaps/atm_7KQ2M9XC4RT0W8N5PJ3HVB6D1F');
    expectProblem(unknown, 404, 'not_found');
    const bad = await call('POST', '/v1/atomic-swaps', { fromToken: 'Amulet', amount: 100 });
    expectProblem(bad, 400, 'validation_error');
  });

  it('tells its web pages that it prepares atomic swaps, so the swap card swaps atomically', async () => {
    const config = await (await fetch(`${service.url}/app-config.json`)).json();
    expect(config.atomicSwaps).toBe(true);
  });
});
