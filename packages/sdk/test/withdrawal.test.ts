/**
 * The withdrawal object of `@poolparty/sdk/liquidity` over an injected `fetch`: it follows the
 * withdrawal's event stream (`GET /v1/liquidity/withdrawals/{id}/events`) only once `on()` or
 * `wait()` asks, tells each payout's offer and payment and the end once, resumes with
 * `Last-Event-ID` after a drop, reads the withdrawal only when the stream is refused, says which
 * of the two it followed by, and rejects `wait()` for a flagged payout.
 */
import { describe, expect, it } from 'vitest';
import { PoolPartyError, ValidationError } from '../src/index.js';
import {
  WITHDRAWAL_EVENTS,
  type Withdrawal,
  type WithdrawalObject,
  withLiquidity,
} from '../src/liquidity/index.js';
import {
  eventStream,
  fakeFetch,
  json,
  problem,
  type RecordedRequest,
} from './support/fake-fetch.js';
import { BASE, testClient } from './support/test-client.js';

const ID = 'wdr_Qm3xT8vK1pZr9cWd';
const WITHDRAW = { poolId: 'amulet-usdcx', shareBps: 5000, minimumA: '0', minimumB: '0' };

type PayoutState = Withdrawal['payoutA']['state'];

function withdrawalWith(a: PayoutState, b: PayoutState): Withdrawal {
  const payout = (state: PayoutState, side: string) => ({
    amount: '10',
    state,
    updateId: state === 'paid' ? `update-${side}` : null,
    offerId: state === 'pending' ? null : `offer-${side}`,
  });
  const flagged = a === 'flagged' || b === 'flagged';
  const done = !flagged && a === 'paid' && b === 'paid';
  return {
    withdrawalId: ID,
    poolId: 'amulet-usdcx',
    providerParty: 'alice::1',
    units: '5',
    status: flagged ? 'flagged' : done ? 'completed' : 'paying',
    payoutA: payout(a, 'a'),
    payoutB: payout(b, 'b'),
    createdAt: '2026-11-23T09:12:00.000Z',
    completedAt: done ? '2026-11-23T09:12:04.000Z' : null,
  };
}

function frame(withdrawal: Withdrawal, event: string, id: number): string {
  return `event: ${event}\nid: ${id}\ndata: ${JSON.stringify(withdrawal)}\n\n`;
}

type Route = (request: RecordedRequest) => Response | Error | Promise<Response | Error>;

/** A service double: the burn answers `paying`; the stream and the read as the test says. */
function service(routes: { events?: Route; read?: Route }) {
  const fake = fakeFetch((request) => {
    const path = new URL(request.url).pathname;
    if (path === '/v1/liquidity/withdrawals')
      return json(withdrawalWith('pending', 'pending'), 201);
    if (path.endsWith('/events')) return routes.events?.(request) ?? problem('not_found', 404);
    return routes.read?.(request) ?? problem('not_found', 404);
  });
  return { pp: withLiquidity(testClient(fake.fetch)), requests: fake.requests };
}

const OFFERED_A = withdrawalWith('offered', 'pending');
const OFFERED_BOTH = withdrawalWith('offered', 'offered');
const PAID_A = withdrawalWith('paid', 'offered');
const COMPLETED = withdrawalWith('paid', 'paid');

const FRAMES = [
  frame(withdrawalWith('pending', 'pending'), 'paying', 1),
  frame(OFFERED_A, 'payout_offered', 2),
  frame(OFFERED_BOTH, 'payout_offered', 3),
  frame(PAID_A, 'payout_paid', 4),
  frame(COMPLETED, 'completed', 5),
];

function record(withdrawal: WithdrawalObject) {
  const fired: string[] = [];
  for (const event of WITHDRAWAL_EVENTS) {
    withdrawal.on(event, (seen) =>
      fired.push(`${event}:${seen.payoutA.state}/${seen.payoutB.state}`),
    );
  }
  return fired;
}

const streamsOf = (requests: readonly RecordedRequest[]) =>
  requests.filter((request) => request.url.endsWith('/events'));
const readsOf = (requests: readonly RecordedRequest[]) =>
  requests.filter((request) => request.method === 'GET' && request.url.endsWith(ID));

describe('a withdrawal followed by its event stream', () => {
  it('opens nothing until asked, then tells each payout once and resolves at completed', async () => {
    const { pp, requests } = service({ events: () => eventStream(FRAMES) });
    const withdrawal = await pp.liquidity.withdraw(WITHDRAW);
    expect(streamsOf(requests)).toEqual([]);
    const fired = record(withdrawal);
    const done = await withdrawal.wait();
    expect(done).toEqual(COMPLETED);
    expect(fired).toEqual([
      'payout_offered:offered/pending',
      'payout_offered:offered/offered',
      'payout_paid:paid/offered',
      'payout_paid:paid/paid',
      'completed:paid/paid',
    ]);
    expect(withdrawal.latest).toEqual(COMPLETED);
    expect(withdrawal.followedBy).toBe('stream');
    const [stream] = streamsOf(requests);
    expect(stream?.url).toBe(`${BASE}/v1/liquidity/withdrawals/${ID}/events`);
    expect(stream?.headers).toMatchObject({
      accept: 'text/event-stream',
      'x-api-key': 'pp_test_key',
      authorization: 'Bearer wallet-token',
    });
    expect(readsOf(requests)).toEqual([]);
  });

  it('resumes after the last event it saw when the stream drops, and tells nothing twice', async () => {
    let opened = 0;
    const { pp, requests } = service({
      events: () => {
        opened += 1;
        // The first connection drops after the first offer; the service resumes after it.
        return eventStream(opened === 1 ? FRAMES.slice(0, 2) : FRAMES.slice(2));
      },
    });
    const withdrawal = await pp.liquidity.withdraw(WITHDRAW);
    const fired = record(withdrawal);
    await withdrawal.wait();
    expect(fired.filter((name) => name.startsWith('payout_offered'))).toHaveLength(2);
    expect(fired.at(-1)).toBe('completed:paid/paid');
    const streams = streamsOf(requests);
    expect(streams).toHaveLength(2);
    expect(streams[0]?.headers['last-event-id']).toBeUndefined();
    expect(streams[1]?.headers['last-event-id']).toBe('2');
    expect(readsOf(requests)).toEqual([]);
  });

  it('reads the withdrawal only when the stream is refused, and says so', async () => {
    const reads = [OFFERED_A, OFFERED_A, PAID_A, COMPLETED];
    const { pp, requests } = service({
      events: () => problem('rate_limited', 429, { limit: 'streams_per_party', max: 10 }),
      read: () => json(reads.length > 1 ? reads.shift() : reads[0]),
    });
    const withdrawal = await pp.liquidity.withdraw(WITHDRAW);
    const fired = record(withdrawal);
    expect(await withdrawal.wait()).toEqual(COMPLETED);
    expect(withdrawal.followedBy).toBe('poll');
    expect(fired).toEqual([
      'payout_offered:offered/pending',
      'payout_paid:paid/offered',
      'payout_offered:paid/offered',
      'payout_paid:paid/paid',
      'completed:paid/paid',
    ]);
    expect(streamsOf(requests).length).toBeGreaterThan(0);
    expect(readsOf(requests).length).toBeGreaterThan(0);
  });

  it('rejects wait() with flagged when a payout needs an operator, and stops following', async () => {
    const flagged = withdrawalWith('flagged', 'pending');
    const { pp } = service({
      events: () =>
        eventStream([FRAMES[0] as string, FRAMES[1] as string, frame(flagged, 'flagged', 3)]),
    });
    const withdrawal = await pp.liquidity.withdraw(WITHDRAW);
    const fired = record(withdrawal);
    const error = await withdrawal.wait().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PoolPartyError);
    expect(error).toMatchObject({ code: 'flagged', body: flagged });
    expect(fired).toEqual([
      'payout_offered:offered/pending',
      'payout_flagged:flagged/pending',
      'flagged:flagged/pending',
    ]);
  });

  it('drops an older observation and refuses an unknown event name', async () => {
    const { pp } = service({
      events: () => eventStream([FRAMES[3] as string, FRAMES[1] as string, FRAMES[4] as string]),
    });
    const withdrawal = await pp.liquidity.withdraw(WITHDRAW);
    expect(() => withdrawal.on('payout_withdrawn' as never, () => {})).toThrow(ValidationError);
    const fired = record(withdrawal);
    await withdrawal.wait();
    expect(fired).toEqual([
      'payout_paid:paid/offered',
      'payout_offered:paid/offered',
      'payout_paid:paid/paid',
      'completed:paid/paid',
    ]);
  });
});
