/**
 * Slow clients cannot hold the service's connections: a request whose body or headers never
 * finish arriving is answered 408 (or closed) once its timeout passes, two thousand of them held
 * at once leave `/healthz` answering throughout, an idle kept-alive connection is closed, and a
 * request that has fully arrived is never cut off, however long its answer streams.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { setEventHeartbeatMs } from '../src/events/outbox-event-stream.js';
import { bodyOf, connectTo, statusOf, type WatchedSocket, within } from './support/raw-http.js';
import { newDevnetParty, request, sharedTestService } from './support/service.js';

const HEADERS_TIMEOUT_MS = 1_000;
/** Three times the headers timeout, so which of the two cut a request off is plain to see. */
const REQUEST_TIMEOUT_MS = 3_000;
const KEEP_ALIVE_TIMEOUT_MS = 1_000;
/** Connections held at once, each with a body that never finishes. */
const SLOW_BODIES = 2_000;
/** Room from the test's one address for the slow bodies, the chunked one and the health checks. */
const PER_ADDRESS_MAX = 2_100;
/**
 * How long past its timeout a connection may still be open: Node looks for late requests every
 * half second, answering two thousand of them on a busy two-core machine takes a moment, and
 * Node keeps an idle socket up to a second past the keep-alive timeout it announces.
 */
const END_MARGIN_MS = 3_000;
/** Connections opened at a time, so the listen backlog never overflows into SYN retries. */
const OPEN_BATCH = 100;
const HEALTH_POLL_INTERVAL_MS = 250;
/** A guard against a hang, not a timing assertion: the health check answers at once. */
const HEALTH_WAIT_MS = 5_000;
/** A heartbeat every so often keeps the event stream's bytes flowing past the request timeout. */
const HEARTBEAT_MS = 300;
/** The bytes of a body that never completes, one of the thousand announced. */
const UNFINISHED_BODY =
  'POST /devnet/clock HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
  'Content-Length: 1000\r\n\r\n{';
/** A chunked body announcing a chunk of 2^48 − 1 bytes, of which one arrives. */
const ENDLESS_CHUNK =
  'POST /devnet/clock HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
  'Transfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFF\r\n{';

interface HeldRequest {
  readonly watched: WatchedSocket;
  /** When its bytes were written (`performance.now()`). */
  readonly sentAt: number;
}

async function holdRequest(url: string, bytes: string): Promise<HeldRequest> {
  const watched = await connectTo(url);
  watched.socket.write(bytes, 'latin1');
  return { watched, sentAt: performance.now() };
}

/** Polls `/healthz` until `stop` resolves; each answer's status, or 0 when there was none. */
async function pollHealth(url: string, stop: Promise<unknown>): Promise<number[]> {
  const statuses: number[] = [];
  let stopped = false;
  void stop.finally(() => {
    stopped = true;
  });
  while (!stopped) {
    const status = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(HEALTH_WAIT_MS) })
      .then(async (answer) => {
        await answer.arrayBuffer();
        return answer.status;
      })
      .catch(() => 0);
    statuses.push(status);
    await sleep(HEALTH_POLL_INTERVAL_MS);
  }
  return statuses;
}

/** Ended within its timeout and the margin, and answered with a 408 problem if at all. */
function expectEndedByTimeout(held: HeldRequest, closedAt: number, timeoutMs: number): void {
  expect(closedAt - held.sentAt).toBeLessThanOrEqual(timeoutMs + END_MARGIN_MS);
  const answer = held.watched.received();
  if (answer === '') return;
  expect(statusOf(answer)).toBe(408);
  expect(bodyOf(answer)).toMatchObject({ status: 408, code: 'request_timeout' });
}

describe('slow clients', () => {
  const t = sharedTestService({
    POOLPARTY_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    POOLPARTY_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    POOLPARTY_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS),
    POOLPARTY_CONNECTIONS_PER_ADDRESS_MAX: String(PER_ADDRESS_MAX),
  });

  it(`ends ${SLOW_BODIES} unfinished bodies and an endless chunk within the request timeout, /healthz answering throughout`, async () => {
    let released: () => void = () => {};
    const allEnded = new Promise<void>((resolve) => {
      released = resolve;
    });
    const health = pollHealth(t.url, allEnded);
    const held: HeldRequest[] = [await holdRequest(t.url, ENDLESS_CHUNK)];
    for (let opened = 0; opened < SLOW_BODIES; opened += OPEN_BATCH) {
      const batch = Math.min(OPEN_BATCH, SLOW_BODIES - opened);
      held.push(
        ...(await Promise.all(
          Array.from({ length: batch }, () => holdRequest(t.url, UNFINISHED_BODY)),
        )),
      );
    }
    const lastDeadline = REQUEST_TIMEOUT_MS + END_MARGIN_MS;
    const closedAt = await within(
      Promise.all(held.map((request) => request.watched.closed)),
      lastDeadline + (performance.now() - (held[0]?.sentAt ?? 0)),
    );
    released();
    if (closedAt === 'timed out') {
      const open = held.filter((request) => !request.watched.socket.destroyed).length;
      throw new Error(`${open} of ${held.length} slow requests still open`);
    }
    held.forEach((request, i) => {
      expectEndedByTimeout(request, closedAt[i] ?? Number.POSITIVE_INFINITY, REQUEST_TIMEOUT_MS);
    });
    // The chunked request was answered as the others were, not left to its chunk.
    expect(statusOf(held[0]?.watched.received() ?? '')).toBe(408);
    const statuses = await health;
    expect(statuses.length).toBeGreaterThan(1);
    expect(statuses.every((status) => status === 200)).toBe(true);
  });

  it('cuts off headers that arrive too slowly, at the headers timeout', async () => {
    const held = await holdRequest(t.url, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    // A header line now and then: the connection is never idle, the headers never complete.
    const drip = setInterval(() => {
      if (!held.watched.socket.destroyed) held.watched.socket.write('X-Drip: a\r\n');
    }, HEADERS_TIMEOUT_MS / 5);
    try {
      const closedAt = await within(held.watched.closed, HEADERS_TIMEOUT_MS + END_MARGIN_MS);
      if (closedAt === 'timed out') throw new Error('slow headers were not cut off');
      // Past the headers timeout, before the longer request timeout could have fired.
      expect(closedAt - held.sentAt).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS);
      expect(closedAt - held.sentAt).toBeLessThan(REQUEST_TIMEOUT_MS);
      expect(statusOf(held.watched.received())).toBe(408);
      expect(bodyOf(held.watched.received())).toMatchObject({ code: 'request_timeout' });
    } finally {
      clearInterval(drip);
    }
  });

  it('closes an idle kept-alive connection after the keep-alive timeout', async () => {
    const held = await holdRequest(t.url, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const closedAt = await within(held.watched.closed, KEEP_ALIVE_TIMEOUT_MS + END_MARGIN_MS);
    if (closedAt === 'timed out') throw new Error('the idle connection was kept open');
    expect(statusOf(held.watched.received())).toBe(200);
    expect(closedAt - held.sentAt).toBeGreaterThanOrEqual(KEEP_ALIVE_TIMEOUT_MS);
  });

  it('never cuts off a request that has arrived, however long its event stream lasts', async () => {
    const restoreHeartbeat = setEventHeartbeatMs(HEARTBEAT_MS);
    const { token } = await newDevnetParty(t, 'long-stream');
    const created = await request<{ intentId: string }>(t.url, 'POST', '/v1/swaps', {
      apiKey: t.apiKey,
      walletToken: token,
      body: { fromToken: 'Amulet', toToken: 'USDCx', amount: '10', poolId: 'amulet-usdcx' },
    });
    expect(created.status).toBe(201);
    const stream = httpRequest(`${t.url}/v1/swaps/${created.body.intentId}/events`, {
      agent: false,
      headers: { 'x-api-key': t.apiKey, authorization: `Bearer ${token}` },
    });
    try {
      const response = await new Promise<IncomingMessage>((resolve, reject) => {
        stream.on('response', resolve).on('error', reject).end();
      });
      expect(response.statusCode).toBe(200);
      let ended = false;
      response.once('close', () => {
        ended = true;
      });
      response.resume();
      await sleep(REQUEST_TIMEOUT_MS + END_MARGIN_MS);
      expect(ended).toBe(false);
      // Still flowing: the next heartbeat arrives.
      const next = await within(
        new Promise((resolve) => response.once('data', resolve)),
        HEARTBEAT_MS + END_MARGIN_MS,
      );
      expect(next).not.toBe('timed out');
    } finally {
      stream.destroy();
      restoreHeartbeat();
    }
  });
});
