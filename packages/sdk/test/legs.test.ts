/**
 * Pending legs in the SDK (docs/spec/lifecycle.md#payout-and-refund-legs): a payout or refund the
 * user must accept fires `payout_offered` / `refund_offered` with the offer in the status, then how
 * the offer ended, each once and in lifecycle order whether statuses come from the stream or from
 * polling. And `swaps.get(intentId)` rebuilds a live swap object that does not fire again what an
 * earlier object saw.
 */
import { describe, expect, it } from 'vitest';
import type { Leg, SwapState, SwapStatus } from '../src/index.js';
import * as sdk from '../src/index.js';
import {
  advance,
  INITIAL_PROGRESS,
  type Progress,
  seenBefore,
  seenThrough,
} from '../src/swap/progress.js';
import {
  eventStream,
  fakeFetch,
  json,
  problem,
  type RecordedRequest,
} from './support/fake-fetch.js';
import { at, intentFixture, statusAfter } from './support/statuses.js';
import { CREATE, TO_SENDING, testClient } from './support/test-client.js';

function offer(state: Leg['state'], offerId: string | null = 'offer-1'): Leg {
  return {
    amount: '13.1',
    state,
    updateId: `u-${state}`,
    offerId,
    expiresAt: offerId === null ? null : at(48 * 60),
  };
}

/** The status after `path` with the payout as given. */
function withPayout(path: SwapState[], payout: Leg | null): SwapStatus {
  return { ...statusAfter(path), payout };
}

/** Each status a two-step payout goes through, as the stream sends them, with its event name. */
const OFFERED_PAYOUT: [string, SwapStatus][] = [
  ...TO_SENDING.map(
    (state, index) => [state, statusAfter(TO_SENDING.slice(0, index + 1))] as [string, SwapStatus],
  ),
  ['payout_offered', withPayout(TO_SENDING, offer('offered'))],
  ['payout_accepted', withPayout(TO_SENDING, offer('committed'))],
  ['completed', withPayout([...TO_SENDING, 'completed'], offer('committed'))],
];

const EXPECTED = [...TO_SENDING, 'payout_offered', 'payout_accepted', 'completed'];

function frame([name, status]: [string, SwapStatus], id: number): string {
  return `event: ${name}\nid: ${id}\ndata: ${JSON.stringify(status)}\n\n`;
}

type Route = (request: RecordedRequest) => Response | Error | Promise<Response | Error>;

function service(routes: { events?: Route; status?: Route }) {
  const fake = fakeFetch((request) => {
    const path = new URL(request.url).pathname;
    if (path === '/v1/swaps') return json(intentFixture(), 201);
    if (path.endsWith('/events')) return routes.events?.(request) ?? problem('not_found', 501);
    return routes.status?.(request) ?? problem('not_found', 404);
  });
  return { client: () => testClient(fake.fetch), requests: fake.requests };
}

function recordAll(swap: sdk.SwapHandle): string[] {
  const fired: string[] = [];
  for (const name of [...sdk.SWAP_EVENT_NAMES, ...sdk.LEG_EVENT_NAMES]) {
    swap.on(name, () => fired.push(name));
  }
  return fired;
}

describe('leg events from statuses', () => {
  function run(statuses: SwapStatus[], from: Progress = INITIAL_PROGRESS): string[] {
    let progress = from;
    const fired: string[] = [];
    for (const status of statuses) {
      const step = advance(progress, status);
      progress = step.progress;
      fired.push(...step.events.map((event) => event.name));
    }
    return fired;
  }

  it('fires the offer and its outcome once each, between the states, as the stream sends them', () => {
    expect(run(OFFERED_PAYOUT.map(([, status]) => status))).toEqual(EXPECTED);
    // Repeats change nothing.
    const statuses = OFFERED_PAYOUT.flatMap(([, status]) => [status, status]);
    expect(run(statuses)).toEqual(EXPECTED);
  });

  it('derives what a poll skipped: the offer before its acceptance, both before completed', () => {
    const completed = OFFERED_PAYOUT.at(-1)?.[1] as SwapStatus;
    expect(run([completed])).toEqual(EXPECTED);
    expect(run([statusAfter(['matched']), completed])).toEqual(EXPECTED);
  });

  it('fires nothing for a leg that arrived directly', () => {
    const direct = withPayout([...TO_SENDING, 'completed'], offer('committed', null));
    expect(run([direct])).toEqual([...TO_SENDING, 'completed']);
  });

  it('tells a rejected payout, then the refund offer, before output_failed', () => {
    const refund = { ...offer('committed', 'offer-2'), networkFeeAmount: '8.3' };
    const ended: SwapStatus = {
      ...statusAfter([...TO_SENDING, 'output_failed']),
      payout: offer('rejected'),
      refund,
    };
    expect(run([ended]).slice(TO_SENDING.length)).toEqual([
      'payout_offered',
      'payout_rejected',
      'refund_offered',
      'refund_accepted',
      'output_failed',
    ]);
  });

  it('takes everything a status shows as seen, or everything before its latest event', () => {
    const waiting = withPayout(TO_SENDING, offer('offered'));
    expect(run([waiting], seenThrough(waiting))).toEqual([]);
    expect(run([waiting], seenBefore(waiting))).toEqual(['payout_offered']);
    const sending = statusAfter(TO_SENDING);
    expect(run([sending, waiting], seenBefore(sending))).toEqual([
      'sending_output',
      'payout_offered',
    ]);
  });
});

describe('swap.on for leg events', () => {
  it('hands the offer to payout_offered, and wait() resolves after the user accepted', async () => {
    const { client } = service({
      events: () => eventStream(OFFERED_PAYOUT.map((entry, index) => frame(entry, index + 1))),
    });
    const swap = await client().swaps.create(CREATE);
    const offers: (Leg | null)[] = [];
    swap.on('payout_offered', (status) => offers.push(status.payout));
    const fired = recordAll(swap);
    const result = await swap.wait();
    expect(fired).toEqual(EXPECTED);
    expect(offers).toEqual([offer('offered')]);
    expect(result.payout).toEqual(offer('committed'));
    expect(swap.payout).toEqual(offer('committed'));
    expect(swap.lastEventId).toBe(String(OFFERED_PAYOUT.length));
  });

  it('fires leg events from polling when the stream is unavailable', async () => {
    const polls = OFFERED_PAYOUT.map(([, status]) => status);
    const { client } = service({
      events: () => problem('not_implemented', 501),
      status: () => json(polls.length > 1 ? polls.shift() : polls[0]),
    });
    const swap = await client().swaps.create(CREATE);
    const fired = recordAll(swap);
    await swap.wait();
    expect(fired).toEqual(EXPECTED);
  });

  it('refuses an event name it does not know', async () => {
    const { client } = service({});
    const swap = await client().swaps.create(CREATE);
    expect(() => swap.on('payout_withdrawn' as never, () => {})).toThrow(sdk.ValidationError);
  });
});

describe('swaps.get', () => {
  /** A stream that sends the events after the request's Last-Event-ID, as the service does. */
  function resumingStream(request: RecordedRequest): Response {
    const after = Number(request.headers['last-event-id'] ?? '0');
    const frames = OFFERED_PAYOUT.map((entry, index) => frame(entry, index + 1));
    // Without a position the service sends the current state and the leg events since.
    return eventStream(after === 0 ? frames.slice(4, 6) : frames.slice(after));
  }

  it('resumes after a stored event id: fires only what the dropped object had not seen', async () => {
    const { client, requests } = service({
      events: resumingStream,
      status: () => json(OFFERED_PAYOUT[5]?.[1]),
    });
    // The first object saw events up to payout_offered (id 6), then the page reloaded.
    const swap = await client().swaps.get('int_1', { lastEventId: '6' });
    expect(swap.intentId).toBe('int_1');
    expect(swap.payout).toEqual(offer('offered'));
    const fired = recordAll(swap);
    const result = await swap.wait();
    expect(fired).toEqual(['payout_accepted', 'completed']);
    expect(result.status).toBe('completed');
    const stream = requests.find((request) => request.url.endsWith('/events'));
    expect(stream?.headers['last-event-id']).toBe('6');
  });

  it('without an event id, takes the current status as seen and fires only what follows', async () => {
    const { client, requests } = service({
      events: (request) =>
        request.headers['last-event-id'] === undefined
          ? eventStream([
              ...OFFERED_PAYOUT.slice(4, 6).map((entry, index) => frame(entry, index + 5)),
              ...OFFERED_PAYOUT.slice(6).map((entry, index) => frame(entry, index + 7)),
            ])
          : problem('bad_request', 400),
      status: () => json(OFFERED_PAYOUT[5]?.[1]),
    });
    const swap = await client().swaps.get('int_1');
    const fired = recordAll(swap);
    await swap.wait();
    expect(fired).toEqual(['payout_accepted', 'completed']);
    expect(requests.filter((request) => request.url.endsWith('/events'))).toHaveLength(1);
  });

  it('settles at once for an ended swap, resumed after its last event', async () => {
    const done = OFFERED_PAYOUT.at(-1)?.[1] as SwapStatus;
    const { client } = service({ events: () => eventStream([]), status: () => json(done) });
    const swap = await client().swaps.get('int_1', { lastEventId: '8' });
    const fired = recordAll(swap);
    await expect(swap.wait()).resolves.toMatchObject({ status: 'completed' });
    expect(fired).toEqual([]);
  });

  it('answers NotFoundError for an unknown intent and refuses an event id that is none', async () => {
    const { client } = service({});
    await expect(client().swaps.get('int_missing')).rejects.toBeInstanceOf(sdk.NotFoundError);
    await expect(client().swaps.get('int_1', { lastEventId: 'abc' })).rejects.toBeInstanceOf(
      sdk.ValidationError,
    );
  });
});
