/**
 * `GET /v1/liquidity/intents/{id}/events` (docs/spec/liquidity.md#intents) as an SSE client sees
 * it, against the real seeded service and its settlement engine: the current state first, every
 * later state change once and in order (`pending`, `partial`, `joining`, `completed` as both
 * deposits arrive), the end after a terminal state, exact resume from `Last-Event-ID` or
 * `lastEventId`, and the refusals of an unknown id or position.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Body,
  depositFor,
  expectProblem,
  fundDevnetParty,
  newDevnetParty,
  request,
  SERVICE_START_TIMEOUT_MS,
  startTestService,
  type TestService,
} from './support/service.js';
import { sseOfResponse } from './support/sse.js';

let t: TestService;

beforeAll(async () => {
  t = await startTestService();
}, SERVICE_START_TIMEOUT_MS);

afterAll(() => t?.close());

const pool = () => {
  const found = t.service.devnet?.pools.find((p) => p.tokenA.id === 'Amulet');
  if (found === undefined) throw new Error('no Amulet pool');
  return found;
};

async function provider(hint: string) {
  const { party, token } = await newDevnetParty(t, `${hint}-${randomUUID().slice(0, 6)}`);
  await fundDevnetParty(t, party, 'Amulet', '1000');
  return { party, token };
}

async function createIntent(token: string): Promise<Body> {
  const created = await request(t.url, 'POST', '/v1/liquidity/intents', {
    apiKey: t.apiKey,
    walletToken: token,
    body: { poolId: pool().poolId, amountA: '10' },
  });
  expect(created.status).toBe(201);
  return created.body;
}

function open(id: string, token: string, headers: Record<string, string> = {}, query = '') {
  return fetch(`${t.url}/v1/liquidity/intents/${id}/events${query}`, {
    headers: {
      accept: 'text/event-stream',
      'x-api-key': t.apiKey,
      authorization: `Bearer ${token}`,
      ...headers,
    },
  });
}

describe('liquidity intent events', () => {
  it('streams pending, partial, joining and completed as the deposits arrive, then ends', async () => {
    const { party, token } = await provider('lp-sse');
    const intent = await createIntent(token);
    const response = await open(intent.liquidityIntentId, token);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const stream = sseOfResponse(response);
    const [first] = await stream.events(1);
    expect(first?.event).toBe('pending');
    expect(first?.data).toMatchObject({ liquidityIntentId: intent.liquidityIntentId });

    const side = (token: string, admin: string, amount: string) => ({
      intentId: `${intent.liquidityIntentId}-${token}`,
      depositAddress: intent.depositAddress,
      inputToken: token,
      inputTokenAdmin: admin,
      expectedAmount: amount,
      depositReference: intent.depositReference,
    });
    await depositFor(t, party, side(intent.tokenA, intent.tokenAAdmin, intent.expected.a));
    const [partial] = await stream.events(1);
    expect(partial).toMatchObject({ event: 'partial', data: { status: 'partial', minted: null } });

    const funded = await request(t.url, 'POST', '/devnet/faucet', {
      body: {
        partyId: party.partyId,
        token: intent.tokenB,
        admin: intent.tokenBAdmin,
        amount: '100',
      },
    });
    expect(funded.status).toBe(200);
    await depositFor(t, party, side(intent.tokenB, intent.tokenBAdmin, intent.expected.b));
    const rest = await stream.rest();
    expect(rest.map((event) => event.event)).toEqual(['joining', 'completed']);
    const ids = [first, partial, ...rest].map((event) => Number(event?.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(rest.at(-1)?.data.minted.units).toBe(intent.expectedUnits);

    // Resuming after the partial event sends what followed it, none twice; after the last, nothing.
    const resumed = sseOfResponse(
      await open(intent.liquidityIntentId, token, { 'last-event-id': String(partial?.id) }),
    );
    expect((await resumed.rest()).map((event) => event.event)).toEqual(['joining', 'completed']);
    const atEnd = sseOfResponse(
      await open(intent.liquidityIntentId, token, {}, `?lastEventId=${rest.at(-1)?.id}`),
    );
    expect(await atEnd.rest()).toEqual([]);
    // Without a position, the current state only: a terminal one ends the stream after it.
    const late = sseOfResponse(await open(intent.liquidityIntentId, token));
    expect((await late.rest()).map((event) => event.event)).toEqual(['completed']);
  });

  it('ends with cancelled once a pending intent is cancelled', async () => {
    const { token } = await provider('lp-cancel');
    const intent = await createIntent(token);
    const stream = sseOfResponse(await open(intent.liquidityIntentId, token));
    expect((await stream.events(1)).map((event) => event.event)).toEqual(['pending']);
    const cancelled = await request(
      t.url,
      'POST',
      `/v1/liquidity/intents/${intent.liquidityIntentId}/cancel`,
      { apiKey: t.apiKey, walletToken: token },
    );
    expect(cancelled.status).toBe(200);
    const rest = await stream.rest();
    expect(rest.map((event) => event.event)).toEqual(['cancelled']);
    expect(rest[0]?.data).toMatchObject({ status: 'cancelled', completedAt: expect.any(String) });
  });

  it("refuses another party's intent, an unknown id and a position of another intent", async () => {
    const owner = await provider('lp-owner');
    const other = await provider('lp-other');
    const intent = await createIntent(owner.token);
    const theirs = await createIntent(other.token);
    const json = async (response: Response) => ({
      status: response.status,
      headers: response.headers,
      body: (await response.json()) as Record<string, unknown>,
    });
    expectProblem(await json(await open(intent.liquidityIntentId, other.token)), 404, 'not_found');
    expectProblem(
      await json(await open('liq_0000000000000000000000000Z', owner.token)),
      404,
      'not_found',
    );
    const first = await sseOfResponse(await open(theirs.liquidityIntentId, other.token)).events(1);
    const mixed = await open(intent.liquidityIntentId, owner.token, {
      'last-event-id': String(first[0]?.id),
    });
    expectProblem(await json(mixed), 400, 'validation_error');
  });
});
