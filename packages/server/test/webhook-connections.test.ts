import { once } from 'node:events';
import net from 'node:net';
import { signWebhookPayload } from '@poolparty/core';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { WebhookConnections } from '../src/webhooks/connections.js';
import { signWithNodeCrypto } from '../src/webhooks/dispatcher.js';
import { sendWebhook } from '../src/webhooks/sender.js';

const DEVNET = { mode: 'devnet', allowPrivate: false } as const;
const ANSWER =
  'HTTP/1.1 204 No Content\r\nConnection: keep-alive\r\nKeep-Alive: timeout=60\r\n\r\n';

/**
 * A receiver speaking HTTP on raw sockets: it answers each connection's first request, and with
 * `closeReused` drops the connection when a second request arrives on it, as a server does that
 * closed an idle connection while the request was on its way.
 */
async function rawReceiver(closeReused: boolean) {
  let connections = 0;
  let answered = 0;
  const server = net.createServer((socket) => {
    connections += 1;
    let requests = 0;
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      // Each request here is headers and a body of '{}'.
      while (buffered.includes('\r\n\r\n{}')) {
        buffered = buffered.slice(buffered.indexOf('\r\n\r\n{}') + 6);
        requests += 1;
        if (requests > 1 && closeReused) {
          socket.destroy();
          return;
        }
        answered += 1;
        socket.write(ANSWER);
      }
    });
    socket.on('error', () => {});
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    counts: () => ({ connections, answered }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const request = (url: string) => ({
  url,
  headers: { 'content-type': 'application/json' },
  body: '{}',
});

describe('kept-alive webhook connections', () => {
  const closers: (() => unknown)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  /** Three requests one after the other through kept connections: what the receiver saw. */
  async function threeRequests(closeReused: boolean) {
    const receiver = await rawReceiver(closeReused);
    const connections = new WebhookConnections(4);
    closers.push(() => connections.close(), receiver.close);
    const options = { timeoutMs: 5_000, policy: DEVNET, connections };
    for (let n = 0; n < 3; n += 1) {
      expect(await sendWebhook(request(receiver.url), options)).toMatchObject({
        statusCode: 204,
        error: null,
      });
    }
    return receiver.counts();
  }

  it('send one request after another on one connection', async () => {
    expect(await threeRequests(false)).toEqual({ connections: 1, answered: 3 });
  });

  it('send again on a new connection a request the receiver dropped with its kept one', async () => {
    // The second and third went out on the kept connection, were dropped, and went again.
    expect(await threeRequests(true)).toEqual({ connections: 3, answered: 3 });
  });

  it('open one connection per request without them', async () => {
    const receiver = await rawReceiver(false);
    closers.push(receiver.close);
    for (let n = 0; n < 2; n += 1) {
      await sendWebhook(request(receiver.url), { timeoutMs: 5_000, policy: DEVNET });
    }
    expect(receiver.counts()).toEqual({ connections: 2, answered: 2 });
  });
});

describe("the dispatcher's signer", () => {
  it("gives core's signature for any secret, time and body", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', minLength: 1, maxLength: 80 }),
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.string({ unit: 'binary', maxLength: 2_000 }),
        (secret, timestamp, body) => {
          expect(signWithNodeCrypto(secret, timestamp, body)).toBe(
            signWebhookPayload(secret, timestamp, body),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
