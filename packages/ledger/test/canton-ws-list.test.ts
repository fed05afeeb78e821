import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { tokenSource } from '../src/canton/auth.js';
import { JsonHttpClient } from '../src/canton/http.js';
import { ParticipantClient } from '../src/canton/participant.js';
import { HOLDING_INTERFACE_ID } from '../src/canton/wire/index.js';
import { LedgerError } from '../src/port.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

type Channel = 'items' | 'error' | 'abort';

/**
 * A participant whose HTTP active-contracts list is always too large (413), and whose WebSocket
 * channel answers per `channel`, recording the subprotocols and request it got.
 */
async function participant(channel: Channel) {
  const seen: { protocols: string[]; request: unknown }[] = [];
  const server: Server = createServer((_request, response) => {
    response.writeHead(413, { 'content-type': 'text/plain' });
    response.end('Content Too Large');
  });
  const wss = new WebSocketServer({
    server,
    handleProtocols: (protocols) => (protocols.has('daml.ws.auth') ? 'daml.ws.auth' : false),
  });
  wss.on('connection', (socket, request) => {
    socket.once('message', (data) => {
      seen.push({
        protocols: String(request.headers['sec-websocket-protocol']).split(/,\s*/),
        request: JSON.parse(data.toString()),
      });
      if (channel === 'error') {
        socket.send(
          JSON.stringify({ code: 'PERMISSION_DENIED', cause: 'no', context: {}, errorCategory: 7 }),
        );
        socket.close(1011);
      } else if (channel === 'abort') {
        socket.terminate();
      } else {
        for (const id of ['c1', 'c2', 'c3']) {
          socket.send(
            JSON.stringify({
              contractEntry: {
                JsActiveContract: {
                  createdEvent: { contractId: id },
                  synchronizerId: 's',
                  reassignmentCounter: 0,
                },
              },
            }),
          );
        }
        socket.close(1000);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    for (const client of wss.clients) client.terminate();
    await new Promise((resolve) => wss.close(resolve));
    await new Promise((resolve) => server.close(resolve));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new ParticipantClient(
    new JsonHttpClient(tokenSource({ kind: 'static', token: 'tok' }, 'u')),
    url,
    'u',
  );
  return { client, seen };
}

const scope = { kind: 'parties', parties: ['alice::1'] } as const;

describe('active contracts beyond the HTTP list limit', () => {
  it('are read over the WebSocket channel, with the token as subprotocol', async () => {
    const { client, seen } = await participant('items');
    const events = await client.activeContracts(5, scope, HOLDING_INTERFACE_ID);
    expect(events.map((event) => event.contractId)).toEqual(['c1', 'c2', 'c3']);
    expect(seen[0]?.protocols).toEqual(['jwt.token.tok', 'daml.ws.auth']);
    expect(seen[0]?.request).toMatchObject({ activeAtOffset: 5 });
  });

  it('a refusal on the channel is the port error of its JsCantonError', async () => {
    const { client } = await participant('error');
    const error = await client.activeContracts(5, scope, HOLDING_INTERFACE_ID).catch((e) => e);
    expect(error).toBeInstanceOf(LedgerError);
    expect((error as LedgerError).code).toBe('not_authorized');
  });

  it('a channel that breaks off is a refused read, not a short list', async () => {
    const { client } = await participant('abort');
    const error = await client.activeContracts(5, scope, HOLDING_INTERFACE_ID).catch((e) => e);
    expect(error).toBeInstanceOf(LedgerError);
    expect((error as LedgerError).code).toBe('rejected');
  });
});
