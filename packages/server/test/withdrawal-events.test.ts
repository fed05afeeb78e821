/**
 * `GET /v1/liquidity/withdrawals/{id}/events` (docs/spec/liquidity.md#withdrawals) as an SSE client
 * sees it, against the seeded devnet service and its settlement engine: a provider without a
 * pre-approval gets both payouts as offers, so the withdrawal waits in `paying` with a
 * `payout_offered` per side; accepting them moves it on (`payout_paid`, then `completed`) and the
 * stream ends. Resuming after `Last-Event-ID` is exact, a replay shows each event's payouts as they
 * were, and the refusals are the problems of the other streams.
 */
import { Amount } from '@poolparty/core';
import { describe, expect, it } from 'vitest';
import {
  completeLiquidityIntent,
  fundedProvider,
  sharedDevnetPools,
} from './support/pool-liquidity.js';
import { answerDevnetOffer, type Body, expectProblem, newDevnetParty } from './support/service.js';
import { type SseEvent, type SseStream, sseOfResponse } from './support/sse.js';

const devnet = sharedDevnetPools('amulet-usdcx');
const { t } = devnet;

/** A provider with units in the pool; without a pre-approval its payouts arrive as offers. */
async function providerWithUnits(hint: string, preapproval: boolean) {
  const provider = preapproval
    ? await fundedProvider(t, devnet.ledger, devnet.pool, hint)
    : await unapprovedProvider(hint);
  const { body: intent } = await t.call('POST', '/v1/liquidity/intents', {
    walletToken: provider.token,
    body: { poolId: devnet.pool.poolId, amountA: '100' },
  });
  const wallet = { partyId: provider.party.partyId, token: provider.token };
  await completeLiquidityIntent(t, devnet.ledger, devnet.pool, wallet, intent);
  return provider;
}

async function unapprovedProvider(hint: string) {
  const { party, token } = await newDevnetParty(t, hint, { preapproval: false });
  for (const [instrument, amount] of [
    [devnet.pool.tokenA, '1000'],
    [devnet.pool.tokenB, '200'],
  ] as const) {
    await devnet.ledger.mint({ owner: party.partyId, instrument, amount: Amount.parse(amount) });
  }
  return { party, token };
}

async function withdraw(token: string): Promise<Body> {
  const created = await t.call('POST', '/v1/liquidity/withdrawals', {
    walletToken: token,
    body: { poolId: devnet.pool.poolId, shareBps: 5000, minimumA: '0', minimumB: '0' },
  });
  expect(created.status).toBe(201);
  return created.body;
}

function open(id: string, token: string, headers: Record<string, string> = {}, query = '') {
  return fetch(`${t.url}/v1/liquidity/withdrawals/${id}/events${query}`, {
    headers: {
      accept: 'text/event-stream',
      'x-api-key': t.apiKey,
      authorization: `Bearer ${token}`,
      ...headers,
    },
  });
}

const names = (events: readonly SseEvent[]) => events.map((event) => event.event);

/** Events until both payouts are offers: the burn's `paying`, then one offer per side. */
async function untilBothOffered(stream: SseStream): Promise<SseEvent[]> {
  const seen: SseEvent[] = [];
  while (seen.filter((event) => event.event === 'payout_offered').length < 2) {
    const event = await stream.nextEvent();
    if (event === null) throw new Error(`the stream ended after ${names(seen)}`);
    seen.push(event);
  }
  return seen;
}

describe('withdrawal events', () => {
  it('streams paying, each payout offered, then paid and completed as the offers are taken', async () => {
    const { party, token } = await providerWithUnits('wd-offers', false);
    const withdrawal = await withdraw(token);
    const response = await open(withdrawal.withdrawalId, token);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const stream = sseOfResponse(response);
    const seen = await untilBothOffered(stream);
    expect(names(seen)).toEqual(['paying', 'payout_offered', 'payout_offered']);
    const offered = seen.at(-1) as SseEvent;
    expect(offered.data).toMatchObject({
      withdrawalId: withdrawal.withdrawalId,
      status: 'paying',
      payoutA: { state: 'offered', offerId: expect.any(String) },
      payoutB: { state: 'offered', offerId: expect.any(String) },
    });

    await answerDevnetOffer(t, party, offered.data.payoutA.offerId, 'accept');
    await answerDevnetOffer(t, party, offered.data.payoutB.offerId, 'accept');
    const rest = await stream.rest();
    expect(names(rest)).toEqual(['payout_paid', 'completed']);
    expect(rest[1]?.data).toMatchObject({
      status: 'completed',
      payoutA: { state: 'paid', updateId: expect.any(String) },
      payoutB: { state: 'paid', updateId: expect.any(String) },
      completedAt: expect.any(String),
    });
    const ids = [...seen, ...rest].map((event) => Number(event.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));

    // Resuming after the second offer sends what followed it, none twice; after the last, nothing.
    const resumed = sseOfResponse(
      await open(withdrawal.withdrawalId, token, { 'last-event-id': offered.id }),
    );
    expect(await resumed.rest()).toEqual(rest);
    const atEnd = sseOfResponse(
      await open(withdrawal.withdrawalId, token, {}, `?lastEventId=${rest.at(-1)?.id}`),
    );
    expect(await atEnd.rest()).toEqual([]);
    // Replayed from the burn, each event shows the payouts as they were then.
    const replay = await sseOfResponse(
      await open(withdrawal.withdrawalId, token, { 'last-event-id': String(seen[0]?.id) }),
    ).rest();
    expect(names(replay)).toEqual(['payout_offered', 'payout_offered', 'payout_paid', 'completed']);
    const firstOffer = replay[0]?.data;
    expect([firstOffer.payoutA.state, firstOffer.payoutB.state].sort()).toEqual([
      'offered',
      'pending',
    ]);
    expect(replay[2]?.data.status).toBe('paying');
    // Without a position, the current state only: a completed withdrawal ends after it.
    const late = sseOfResponse(await open(withdrawal.withdrawalId, token));
    expect(names(await late.rest())).toEqual(['completed']);
  });

  it('ends with completed for payouts paid in one step', async () => {
    const { token } = await providerWithUnits('wd-direct', true);
    const withdrawal = await withdraw(token);
    const events = await sseOfResponse(await open(withdrawal.withdrawalId, token)).rest();
    expect(events.at(-1)).toMatchObject({ event: 'completed', data: { status: 'completed' } });
    for (const name of names(events))
      expect(['paying', 'payout_paid', 'completed']).toContain(name);
  });

  it("refuses another party's withdrawal, an unknown id and a position of another withdrawal", async () => {
    const owner = await providerWithUnits('wd-owner', true);
    const other = await providerWithUnits('wd-other', true);
    const mine = await withdraw(owner.token);
    const theirs = await withdraw(other.token);
    const json = async (response: Response) => ({
      status: response.status,
      headers: response.headers,
      body: (await response.json()) as Record<string, unknown>,
    });
    expectProblem(await json(await open(mine.withdrawalId, other.token)), 404, 'not_found');
    expectProblem(await json(await open('wdr_0000000000000000', owner.token)), 404, 'not_found');
    const unsigned = await fetch(`${t.url}/v1/liquidity/withdrawals/${mine.withdrawalId}/events`, {
      headers: { accept: 'text/event-stream', 'x-api-key': t.apiKey },
    });
    expectProblem(await json(unsigned), 401, 'missing_wallet_token');
    const first = await sseOfResponse(await open(theirs.withdrawalId, other.token)).events(1);
    const mixed = await open(mine.withdrawalId, owner.token, {
      'last-event-id': String(first[0]?.id),
    });
    expectProblem(await json(mixed), 400, 'validation_error');
  });
});
