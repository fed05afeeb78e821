/**
 * The swap object over an injected `fetch`: events from the event stream and from polling, each
 * exactly once and in lifecycle order; reconnection with Last-Event-ID; `wait()` for every
 * terminal state; timeouts, aborts and failures.
 */
import { OUTCOME_ERROR_CLASS } from '@poolparty/core';
import { describe, expect, it, vi } from 'vitest';
import type { SwapState, SwapStatus, TerminalState } from '../src/index.js';
import * as sdk from '../src/index.js';
import {
  eventStream,
  fakeFetch,
  json,
  problem,
  type RecordedRequest,
} from './support/fake-fetch.js';
import { intentFixture, statusAfter } from './support/statuses.js';
import { BASE, CREATE, TO_COMPLETED as LIFECYCLE, testClient } from './support/test-client.js';

type Route = (request: RecordedRequest) => Response | Error | Promise<Response | Error>;

/** A service double: create answers the intent fixture; events and status as the test says. */
function service(routes: { events?: Route; status?: Route; cancel?: Route }) {
  const fake = fakeFetch((request) => {
    const path = new URL(request.url).pathname;
    if (path === '/v1/swaps') return json(intentFixture(), 201);
    if (path.endsWith('/events'))
      return routes.events?.(request) ?? problem('not_implemented', 501);
    if (path.endsWith('/cancel')) return routes.cancel?.(request) ?? problem('not_found', 404);
    return routes.status?.(request) ?? problem('not_found', 404);
  });
  return { pp: testClient(fake.fetch), requests: fake.requests };
}

function sseFrame(status: SwapStatus, id: number): string {
  return `event: ${status.status}\nid: ${id}\ndata: ${JSON.stringify(status)}\n\n`;
}

/** Frames for a swap walking through `path`, one per state. */
function framesFor(path: SwapState[], firstId = 1): string[] {
  return path.map((_, index) => sseFrame(statusAfter(path.slice(0, index + 1)), firstId + index));
}

/** An events route whose stream never answers, and a promise of its first request. */
function silentStream() {
  let opened: (request: RecordedRequest) => void = () => {};
  const firstRequest = new Promise<RecordedRequest>((resolve) => {
    opened = resolve;
  });
  const route: Route = (request) => {
    opened(request);
    return new Promise<Response>(() => {});
  };
  return { route, firstRequest };
}

function record(swap: sdk.Swap): string[] {
  const fired: string[] = [];
  for (const name of sdk.SWAP_EVENT_NAMES) swap.on(name, () => fired.push(name));
  return fired;
}

describe('events from the stream', () => {
  it('fires every state once, in order, with the status as payload; wait() resolves', async () => {
    const { pp, requests } = service({
      events: () => eventStream([': hello\n\n', ...framesFor(LIFECYCLE), ': heartbeat\n\n']),
    });
    const swap = await pp.swaps.create(CREATE);
    const payloads: SwapStatus[] = [];
    swap.on('completed', (status) => payloads.push(status));
    const fired = record(swap);
    const result = await swap.wait();
    expect(fired).toEqual(LIFECYCLE);
    expect(payloads.map((status) => status.actualOutput)).toEqual(['13.1']);
    expect(result).toMatchObject({
      status: 'completed',
      actualOutput: '13.1',
      outputToken: 'USDCx',
    });
    const stream = requests.find((r) => r.url.endsWith('/events'));
    expect(stream?.headers).toMatchObject({
      'x-api-key': 'pp_test_key',
      authorization: 'Bearer wallet-token',
      accept: 'text/event-stream',
    });
  });

  it('ignores repeated and stale frames, even split across chunks', async () => {
    const frames = framesFor(LIFECYCLE);
    const noisy = [
      frames[0],
      frames[0],
      frames[1],
      frames[0],
      frames[2],
      frames[3],
      frames[4],
      frames[5],
    ]
      .join('')
      .match(/[\s\S]{1,7}/g) as string[];
    const { pp } = service({ events: () => eventStream(noisy) });
    const swap = await pp.swaps.create(CREATE);
    const fired = record(swap);
    await swap.wait();
    expect(fired).toEqual(LIFECYCLE);
  });

  it('reconnects with Last-Event-ID after a drop and goes on where it stopped', async () => {
    const frames = framesFor(LIFECYCLE);
    let connections = 0;
    const { pp, requests } = service({
      events: () => {
        connections += 1;
        // The service replays from Last-Event-ID: here the second connection starts at id 3.
        return connections === 1 ? eventStream(frames.slice(0, 2)) : eventStream(frames.slice(2));
      },
    });
    const swap = await pp.swaps.create(CREATE);
    const fired = record(swap);
    await swap.wait();
    expect(fired).toEqual(LIFECYCLE);
    const streams = requests.filter((r) => r.url.endsWith('/events'));
    expect(streams.map((r) => r.headers['last-event-id'])).toEqual([undefined, '2']);
  });
});

describe('events from polling', () => {
  it('falls back to polling when streaming is not available, firing missed states from history', async () => {
    const polls: SwapState[][] = [
      [],
      ['matched'],
      ['matched', 'deposit_received', 'forwarded'],
      LIFECYCLE,
    ];
    const { pp, requests } = service({
      events: () => problem('not_implemented', 501),
      status: () => json(statusAfter(polls.shift() ?? LIFECYCLE)),
    });
    const swap = await pp.swaps.create(CREATE);
    const fired = record(swap);
    await expect(swap.wait()).resolves.toMatchObject({ actualOutput: '13.1' });
    expect(fired).toEqual(LIFECYCLE);
    expect(requests.filter((r) => r.url.endsWith('/events'))).toHaveLength(1);
    expect(requests.filter((r) => r.url.endsWith('/v1/swaps/int_1'))).toHaveLength(4);
  });

  it('falls back to polling after a network failure of the stream, and rides out a failed poll', async () => {
    const polls: (SwapState[] | Error)[] = [new TypeError('offline'), ['matched', 'cancelled']];
    const { pp } = service({
      events: () => new TypeError('offline'),
      status: () => {
        const next = polls.shift() ?? ['matched', 'cancelled'];
        return next instanceof Error ? next : json(statusAfter(next));
      },
    });
    const swap = await pp.swaps.create(CREATE);
    const fired = record(swap);
    await expect(swap.wait()).rejects.toBeInstanceOf(sdk.CancelledError);
    expect(fired).toEqual(['matched', 'cancelled']);
  });

  it('gives up on a definitive failure: wait() rejects and `error` listeners hear it', async () => {
    const { pp } = service({ status: () => problem('invalid_wallet_token', 401) });
    const swap = await pp.swaps.create(CREATE);
    const errors: unknown[] = [];
    swap.on('error', (error) => errors.push(error));
    await expect(swap.wait()).rejects.toBeInstanceOf(sdk.AuthenticationError);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(sdk.AuthenticationError);
  });
});

describe('wait()', () => {
  it.each(Object.entries(OUTCOME_ERROR_CLASS))(
    'rejects at %s with %s carrying the final status',
    async (state, className) => {
      const path: SwapState[] = ['matched', state as TerminalState];
      const { pp } = service({ events: () => eventStream(framesFor(path)) });
      const swap = await pp.swaps.create(CREATE);
      const error = await swap.wait().catch((e: unknown) => e);
      const ErrorClass = (sdk as unknown as Record<string, new () => unknown>)[className];
      expect(error).toBeInstanceOf(ErrorClass);
      expect((error as sdk.SwapOutcomeError).swapStatus.status).toBe(state);
      // Waiting again after the end answers from what is known, without a request.
      await expect(swap.wait()).rejects.toBeInstanceOf(ErrorClass);
    },
  );

  it('shares one stream between waiters and listeners', async () => {
    const { pp, requests } = service({ events: () => eventStream(framesFor(LIFECYCLE)) });
    const swap = await pp.swaps.create(CREATE);
    const fired = record(swap);
    const [first, second] = await Promise.all([swap.wait(), swap.wait()]);
    expect(first).toEqual(second);
    expect(fired).toEqual(LIFECYCLE);
    expect(requests.filter((r) => r.url.endsWith('/events'))).toHaveLength(1);
  });

  it('times out with TimeoutError, and the swap can be waited for again', async () => {
    const opened: RecordedRequest[] = [];
    const answers: (() => void)[] = [];
    let reopened: () => void = () => {};
    const secondOpen = new Promise<void>((resolve) => {
      reopened = resolve;
    });
    const { pp } = service({
      events: (request) => {
        opened.push(request);
        if (opened.length === 2) reopened();
        return new Promise<Response>((resolve) => {
          answers.push(() => resolve(eventStream(framesFor(LIFECYCLE))));
        });
      },
    });
    const swap = await pp.swaps.create(CREATE);
    const error = await swap.wait({ timeout: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(sdk.TimeoutError);
    expect((error as sdk.TimeoutError).code).toBe('wait_timeout');
    const again = swap.wait();
    await secondOpen;
    // Nobody waited any more, so the first stream request was given up.
    expect(opened[0]?.signal?.aborted).toBe(true);
    for (const answer of answers) answer();
    await expect(again).resolves.toMatchObject({ status: 'completed' });
  });

  it('waits five minutes by default, then rejects with WaitTimeoutError naming the swap', async () => {
    vi.useFakeTimers();
    try {
      // The stream stays silent and polls answer pending; waits run on the faked timers.
      const fake = fakeFetch((request) => {
        const path = new URL(request.url).pathname;
        if (path === '/v1/swaps') return json(intentFixture(), 201);
        if (path.endsWith('/events')) return new Promise<Response>(() => {});
        return json(statusAfter([]));
      });
      const pp = new sdk.PoolParty({
        apiKey: 'pp_test_key',
        baseUrl: BASE,
        walletToken: 'wallet-token',
        fetch: fake.fetch,
      });
      const swap = await pp.swaps.create(CREATE);
      await swap.refresh();
      const waiting = swap.wait().catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(sdk.DEFAULT_WAIT_TIMEOUT_MS - 1);
      let settled = false;
      void waiting.then(() => {
        settled = true;
      });
      await vi.advanceTimersByTimeAsync(0);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      const error = await waiting;
      expect(sdk.DEFAULT_WAIT_TIMEOUT_MS).toBe(5 * 60_000);
      expect(error).toBeInstanceOf(sdk.WaitTimeoutError);
      expect(error).toBeInstanceOf(sdk.TimeoutError);
      expect(error).toMatchObject({
        code: 'wait_timeout',
        intentId: 'int_1',
        timeoutMs: 5 * 60_000,
        latestStatus: { status: 'pending' },
      });
    } finally {
      vi.useRealTimers();
    }
  });

  it('rejects with the abort reason when the signal fires, and stops following', async () => {
    const stream = silentStream();
    const { pp } = service({ events: stream.route });
    const swap = await pp.swaps.create(CREATE);
    const controller = new AbortController();
    const waiting = swap.wait({ signal: controller.signal });
    const request = await stream.firstRequest;
    controller.abort(new Error('navigated away'));
    await expect(waiting).rejects.toThrow('navigated away');
    expect(request.signal?.aborted).toBe(true);
  });
});

describe('the swap object', () => {
  it('carries every SwapIntent field', async () => {
    const { pp } = service({});
    const swap = await pp.swaps.create(CREATE);
    expect({ ...swap }).toEqual(intentFixture());
    expect(JSON.parse(JSON.stringify(swap))).toEqual(intentFixture());
  });

  it('refresh() reads the status and fires what it reveals', async () => {
    const { pp } = service({
      // The stream stays silent, so what fires comes from refresh() alone.
      events: silentStream().route,
      status: () => json(statusAfter(['matched', 'deposit_received'])),
    });
    const swap = await pp.swaps.create(CREATE);
    const fired: string[] = [];
    swap.on('matched', () => fired.push('matched'));
    swap.on('deposit_received', () => fired.push('deposit_received'));
    await swap.refresh();
    await swap.refresh();
    expect(fired).toEqual(['matched', 'deposit_received']);
    expect(swap.latestStatus?.status).toBe('deposit_received');
  });

  it('cancel() cancels the intent; wait() then rejects with CancelledError', async () => {
    let cancelled = false;
    const { pp, requests } = service({
      cancel: () => {
        cancelled = true;
        return json({ intentId: 'int_1', status: 'cancelled' });
      },
      status: () => json(statusAfter(cancelled ? ['cancelled'] : [])),
    });
    const swap = await pp.swaps.create(CREATE);
    await expect(swap.cancel()).resolves.toEqual({ intentId: 'int_1', status: 'cancelled' });
    await expect(swap.wait()).rejects.toBeInstanceOf(sdk.CancelledError);
    expect(
      requests.some((r) => r.method === 'POST' && r.url.endsWith('/v1/swaps/int_1/cancel')),
    ).toBe(true);
  });

  it('refuses to listen for an event that does not exist', async () => {
    const { pp } = service({});
    const swap = await pp.swaps.create(CREATE);
    expect(() => swap.on('complete' as 'completed', () => {})).toThrow(sdk.ValidationError);
  });

  it('stops following when the last listener is removed', async () => {
    const stream = silentStream();
    const { pp } = service({ events: stream.route });
    const swap = await pp.swaps.create(CREATE);
    const handler = () => {};
    swap.on('matched', handler);
    const request = await stream.firstRequest;
    expect(request.signal?.aborted).toBe(false);
    swap.off('matched', handler);
    expect(request.signal?.aborted).toBe(true);
  });
});
