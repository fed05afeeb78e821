import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { tokenSource } from '../src/canton/auth.js';
import type { RequestKind } from '../src/canton/errors.js';
import { JsonHttpClient } from '../src/canton/http.js';
import { LedgerError } from '../src/port.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise((resolve) => {
          server.closeAllConnections();
          server.close(resolve);
        }),
    ),
  );
});

type Behaviour = 'drop' | 'drop-first' | 'json' | 'canton-error' | 'bad-gateway' | 'hang';

/** A server that answers every request the same way, and remembers what it received. */
async function serve(behaviour: Behaviour) {
  const received: { authorization?: string; body: string }[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push({ authorization: request.headers.authorization, body });
      const dropped = behaviour === 'drop' || (behaviour === 'drop-first' && received.length === 1);
      if (dropped) {
        request.socket.destroy();
        return;
      }
      switch (behaviour) {
        case 'hang':
          return;
        case 'json':
        case 'drop-first':
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end('{"offset":7}');
          return;
        case 'canton-error':
          response.writeHead(409, { 'content-type': 'application/json' });
          response.end(
            JSON.stringify({
              code: 'DUPLICATE_COMMAND',
              cause: 'A command with the given command id has already been successfully processed',
              context: {},
              errorCategory: 10,
            }),
          );
          return;
        case 'bad-gateway':
          response.writeHead(502, { 'content-type': 'text/html' });
          response.end('<html>bad gateway</html>');
          return;
      }
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v2/x`, received };
}

const client = new JsonHttpClient(tokenSource({ kind: 'static', token: 'tok' }, 'u'));

async function failure(url: string, kind: RequestKind, timeoutMs?: number) {
  const error = await client
    .post(url, { a: 1 }, { kind, ...(timeoutMs !== undefined && { timeoutMs }) })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(LedgerError);
  return error as LedgerError;
}

describe('the JSON HTTP client over real connections', () => {
  it('sends JSON with the bearer token and reads the JSON answer', async () => {
    const { url, received } = await serve('json');
    expect(await client.post(url, { a: 1 }, { kind: 'read' })).toEqual({ offset: 7 });
    expect(received).toEqual([{ authorization: 'Bearer tok', body: '{"a":1}' }]);
    await client.get(url, { kind: 'read', authenticated: false });
    expect(received[1]?.authorization).toBeUndefined();
  });

  it('a connection dropped after sending: a read is rejected, a submission timed out', async () => {
    const { url } = await serve('drop');
    expect((await failure(url, 'read')).code).toBe('rejected');
    expect((await failure(url, 'submit')).code).toBe('timeout');
  });

  it('a read whose connection broke is sent once more, a submission never', async () => {
    const read = await serve('drop-first');
    expect(await client.get(read.url, { kind: 'read' })).toEqual({ offset: 7 });
    expect(read.received).toHaveLength(2);
    const submission = await serve('drop-first');
    expect((await failure(submission.url, 'submit')).code).toBe('timeout');
    expect(submission.received).toHaveLength(1);
    const everyTime = await serve('drop');
    expect((await failure(everyTime.url, 'read')).code).toBe('rejected');
    expect(everyTime.received).toHaveLength(2);
  });

  it('no answer within the time limit: a submission timed out', async () => {
    const { url } = await serve('hang');
    expect((await failure(url, 'submit', 200)).code).toBe('timeout');
  });

  it('a refused connection never reached the ledger: rejected, also for a submission', async () => {
    const { url } = await serve('json');
    await new Promise((resolve) => {
      const server = servers.pop() as Server;
      server.close(resolve);
    });
    const error = await failure(url, 'submit');
    expect(error.code).toBe('rejected');
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('a 5xx without Canton’s body: unknown for a submission, refused for a read', async () => {
    const { url } = await serve('bad-gateway');
    expect((await failure(url, 'submit')).code).toBe('timeout');
    expect((await failure(url, 'read')).code).toBe('rejected');
  });

  it('a JsCantonError answer is decided by its code and category, and named in the message', async () => {
    const { url } = await serve('canton-error');
    const error = await failure(url, 'submit');
    expect(error.code).toBe('rejected');
    expect(error.message).toContain('DUPLICATE_COMMAND');
  });
});
