/**
 * Connection caps: one client address cannot hold more than its share of connections, the
 * process holds no more than its total, a connection beyond either is closed at once without
 * an answer, and closing a connection makes room for a new one. Each loopback source address
 * (127.0.0.1, .2, .3) plays a client of its own.
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  connectTo,
  LOOPBACK_SOURCES,
  statusOf,
  type WatchedSocket,
  within,
} from './support/raw-http.js';
import { sharedTestService } from './support/service.js';

const PER_ADDRESS_MAX = 4;
const CONNECTIONS_MAX = 6;
/** Long enough that no connection of the test is closed for idling while it runs. */
const HELD_TIMEOUT_MS = 120_000;
/** Guards against a hang, not timing assertions: answers and refusals come at once. */
const ANSWER_WAIT_MS = 5_000;
const REFUSAL_WAIT_MS = 5_000;
/** How long a freed slot may take to be seen: the server notices a close a moment later. */
const FREED_WAIT_MS = 10_000;
const RETRY_INTERVAL_MS = 50;
const HEALTH_REQUEST = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';

const [FIRST, SECOND, THIRD] = LOOPBACK_SOURCES;

/** A kept-alive connection from `source` that got its 200: the server counts it from now on. */
async function held(url: string, source: string): Promise<WatchedSocket> {
  const watched = await connectTo(url, source);
  watched.socket.write(HEALTH_REQUEST);
  const answered = await within(
    (async () => {
      while (statusOf(watched.received()) === null) {
        if (watched.socket.destroyed) return 'closed';
        await new Promise((resolve) => setTimeout(resolve, RETRY_INTERVAL_MS));
      }
      return statusOf(watched.received());
    })(),
    ANSWER_WAIT_MS,
  );
  if (answered !== 200) throw new Error(`a connection from ${source} was answered ${answered}`);
  return watched;
}

/** A connection from `source` is closed without an answer, though it sent a whole request. */
async function expectConnectionRefused(url: string, source: string): Promise<void> {
  const watched = await connectTo(url, source).catch(() => null);
  // Refused before the connection was even complete: as refused as it gets.
  if (watched === null) return;
  watched.socket.write(HEALTH_REQUEST);
  expect(await within(watched.closed, REFUSAL_WAIT_MS)).not.toBe('timed out');
  expect(watched.received()).toBe('');
}

/** A connection from `source` is served once the server has seen a freed slot. */
async function heldOnceFreed(url: string, source: string): Promise<WatchedSocket> {
  const deadline = performance.now() + FREED_WAIT_MS;
  for (;;) {
    try {
      return await held(url, source);
    } catch (error) {
      if (performance.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, RETRY_INTERVAL_MS));
    }
  }
}

describe('connection caps', () => {
  const t = sharedTestService({
    POOLPARTY_CONNECTIONS_PER_ADDRESS_MAX: String(PER_ADDRESS_MAX),
    POOLPARTY_CONNECTIONS_MAX: String(CONNECTIONS_MAX),
    POOLPARTY_HEADERS_TIMEOUT_MS: String(HELD_TIMEOUT_MS),
    POOLPARTY_REQUEST_TIMEOUT_MS: String(HELD_TIMEOUT_MS),
    POOLPARTY_KEEP_ALIVE_TIMEOUT_MS: String(HELD_TIMEOUT_MS),
  });
  const open: WatchedSocket[] = [];

  // Runs before the shared service closes (after-hooks run last registered first).
  afterAll(() => {
    for (const watched of open) watched.socket.destroy();
  });

  it('refuses connections beyond the per-address cap while another address still connects', async () => {
    for (let i = 0; i < PER_ADDRESS_MAX; i++) open.push(await held(t.url, FIRST));
    await expectConnectionRefused(t.url, FIRST);
    open.push(await held(t.url, SECOND));
    // Closing one of the first address's connections makes room for a new one of its own.
    open.shift()?.socket.destroy();
    open.push(await heldOnceFreed(t.url, FIRST));
    await expectConnectionRefused(t.url, FIRST);
  });

  it("refuses connections beyond the process's total from any address, until one closes", async () => {
    // Four from the first address and one from the second are open; one more reaches the total.
    expect(open).toHaveLength(PER_ADDRESS_MAX + 1);
    open.push(await held(t.url, SECOND));
    await expectConnectionRefused(t.url, THIRD);
    await expectConnectionRefused(t.url, SECOND);
    open.pop()?.socket.destroy();
    open.push(await heldOnceFreed(t.url, THIRD));
    await expectConnectionRefused(t.url, THIRD);
  });
});
