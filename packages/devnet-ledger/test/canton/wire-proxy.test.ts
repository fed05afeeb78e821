/**
 * The wire proxy against a small real HTTP + WebSocket server: it forwards both ways unchanged,
 * reports every exchange that departs from Canton's documents, and injects each fault as told.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { assertNoWireMismatches, startWireProxy, type WireProxy } from './support/wire-proxy.js';

const SYNCHRONIZER = 'global-domain::1220aa';

/** A participant stand-in: a few /v2 answers, and a /v2/updates stream of checkpoints. */
interface EchoServer {
  readonly url: string;
  /** The requests it answered, as `METHOD path`. */
  readonly seen: string[];
  /** What `GET /v2/state/ledger-end` answers next. */
  ledgerEnd: unknown;
  close(): Promise<void>;
}

function checkpoint(offset: number): object {
  return {
    update: {
      OffsetCheckpoint: {
        value: {
          offset,
          synchronizerTimes: [{ synchronizerId: SYNCHRONIZER, recordTime: '2030-01-01T00:00:00Z' }],
        },
      },
    },
  };
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function startEchoServer(): Promise<EchoServer> {
  const seen: string[] = [];
  const state = { ledgerEnd: { offset: 5 } as unknown };
  const server: Server = createServer((req, res) => {
    void body(req).then((text) => {
      seen.push(`${req.method} ${req.url}`);
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (req.url === '/v2/state/ledger-end') return json(200, state.ledgerEnd);
      if (req.url === '/v2/commands/submit-and-wait') {
        const commands = JSON.parse(text || '{}') as { commandId?: string };
        return json(200, { updateId: `update-${commands.commandId}`, completionOffset: 6 });
      }
      if (req.url?.startsWith('/devnet/')) return json(200, { ok: true });
      json(404, { code: 'NOT_FOUND', cause: 'no such path', context: {}, errorCategory: 11 });
    });
  });
  const wss = new WebSocketServer({
    server,
    handleProtocols: (protocols) => (protocols.has('daml.ws.auth') ? 'daml.ws.auth' : false),
  });
  wss.on('connection', (socket, req) => {
    socket.on('message', (data) => {
      seen.push(`WS ${req.url}`);
      const request = JSON.parse(data.toString()) as { beginExclusive?: number };
      const from = request.beginExclusive ?? 0;
      for (let offset = from + 1; offset <= from + 5; offset++) {
        socket.send(JSON.stringify(checkpoint(offset)));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    get ledgerEnd() {
      return state.ledgerEnd;
    },
    set ledgerEnd(value: unknown) {
      state.ledgerEnd = value;
    },
    async close() {
      for (const client of wss.clients) client.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const UPDATES_REQUEST = {
  beginExclusive: 0,
  updateFormat: {
    includeTransactions: {
      eventFormat: { filtersByParty: { 'alice::1220': { cumulative: [] } } },
      transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
    },
  },
};

interface StreamRun {
  readonly offsets: number[];
  readonly closeCode: number;
  readonly protocol: string;
}

/** Opens /v2/updates through `base`, sends `request`, and collects offsets until `expected` arrive or the socket closes. */
async function readStream(base: string, request: unknown, expected: number): Promise<StreamRun> {
  const socket = new WebSocket(`${base.replace('http', 'ws')}/v2/updates`, [
    'jwt.token.test',
    'daml.ws.auth',
  ]);
  const offsets: number[] = [];
  return new Promise((resolve, reject) => {
    socket.on('error', reject);
    socket.on('open', () => socket.send(JSON.stringify(request)));
    socket.on('message', (data) => {
      const item = JSON.parse(data.toString()) as {
        update: { OffsetCheckpoint: { value: { offset: number } } };
      };
      offsets.push(item.update.OffsetCheckpoint.value.offset);
      if (offsets.length === expected) socket.close(1000);
    });
    socket.on('close', (closeCode) => resolve({ offsets, closeCode, protocol: socket.protocol }));
  });
}

let echo: EchoServer;
let proxy: WireProxy;

beforeEach(async () => {
  echo = await startEchoServer();
  proxy = await startWireProxy({ target: echo.url, uncheckedPrefixes: ['/devnet/'] });
});

afterEach(async () => {
  await proxy.close();
  await echo.close();
});

describe('HTTP through the proxy', () => {
  it('forwards a valid exchange unchanged and finds nothing', async () => {
    const answer = await fetch(`${proxy.url}/v2/state/ledger-end`);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ offset: 5 });
    expect(echo.seen).toEqual(['GET /v2/state/ledger-end']);
    expect(proxy.exchanges).toEqual([
      {
        method: 'GET',
        path: '/v2/state/ledger-end',
        status: 200,
        serverStatus: 200,
        injected: false,
      },
    ]);
    expect(() => assertNoWireMismatches(proxy)).not.toThrow();
  });

  it('reports an answer that departs from the document, and still delivers it', async () => {
    echo.ledgerEnd = { offset: '5' };
    const answer = await fetch(`${proxy.url}/v2/state/ledger-end`);
    expect(await answer.json()).toEqual({ offset: '5' });
    expect(() => assertNoWireMismatches(proxy)).toThrow(
      'GET /v2/state/ledger-end response 200: body/offset must be integer',
    );
    expect(proxy.mismatches).toEqual([]);
  });

  it('reports a request that departs from the document', async () => {
    const answer = await fetch(`${proxy.url}/v2/commands/submit-and-wait`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ commandId: 'c-1', actAs: ['alice::1220'] }),
    });
    expect(answer.status).toBe(200);
    expect(proxy.takeMismatches().map((m) => m.text)).toEqual([
      "POST /v2/commands/submit-and-wait request: body must have required member 'commands'",
    ]);
  });

  it('reports a path no document has; unchecked prefixes pass', async () => {
    await fetch(`${proxy.url}/v2/nowhere`);
    await fetch(`${proxy.url}/elsewhere`);
    await fetch(`${proxy.url}/devnet/parties`);
    expect(proxy.takeMismatches().map((m) => m.text)).toEqual([
      'GET /v2/nowhere request: body no path of the ledger-api document matches /v2/nowhere',
      'GET /v2/nowhere response 404: body no path of the ledger-api document matches /v2/nowhere',
      'GET /elsewhere request: is no path of the ledger API, registry or scan proxy documents',
    ]);
  });

  it('answers the next matching requests with a 5xx JsCantonError the server never sees', async () => {
    proxy.failRequests({ method: 'POST', path: '/v2/commands/' }, 2);
    const submit = (commandId: string) =>
      fetch(`${proxy.url}/v2/commands/submit-and-wait`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          commands: [],
          commandId,
          actAs: ['alice::1220'],
        }),
      });
    const first = await submit('c-1');
    expect(first.status).toBe(503);
    expect(await first.json()).toMatchObject({ code: 'SERVICE_NOT_RUNNING', errorCategory: 1 });
    expect((await submit('c-2')).status).toBe(503);
    expect(echo.seen).toEqual([]);
    const third = await submit('c-3');
    expect(await third.json()).toEqual({ updateId: 'update-c-3', completionOffset: 6 });
    expect(echo.seen).toEqual(['POST /v2/commands/submit-and-wait']);
    expect(proxy.exchanges.map((e) => [e.status, e.injected])).toEqual([
      [503, true],
      [503, true],
      [200, false],
    ]);
    expect(() => assertNoWireMismatches(proxy)).not.toThrow();
  });

  it('holds the answer of a delayed request after the server has answered it', async () => {
    proxy.delayAnswers({ path: '/v2/state/ledger-end' }, 600_000);
    const held = fetch(`${proxy.url}/v2/state/ledger-end`, { signal: AbortSignal.timeout(500) });
    await expect(held).rejects.toThrow(/aborted|timeout/i);
    expect(echo.seen).toEqual(['GET /v2/state/ledger-end']);
    expect(proxy.exchanges[0]?.status).toBeNull();
    expect(proxy.exchanges[0]?.serverStatus).toBe(200);
    const next = await fetch(`${proxy.url}/v2/state/ledger-end`);
    expect(await next.json()).toEqual({ offset: 5 });
    expect(() => assertNoWireMismatches(proxy)).not.toThrow();
  });
});

describe('WebSocket through the proxy', () => {
  it('forwards frames both ways, keeps the subprotocol, and checks each frame', async () => {
    const run = await readStream(proxy.url, UPDATES_REQUEST, 5);
    expect(run.offsets).toEqual([1, 2, 3, 4, 5]);
    expect(run.protocol).toBe('daml.ws.auth');
    expect(proxy.streams).toEqual([
      { path: '/v2/updates', fromClient: 1, fromServer: 5, dropped: false },
    ]);
    expect(() => assertNoWireMismatches(proxy)).not.toThrow();
  });

  it('reports a frame that departs from the channel document', async () => {
    const run = await readStream(proxy.url, { beginExclusive: 0 }, 5);
    expect(run.offsets).toHaveLength(5);
    expect(proxy.takeMismatches().map((m) => m.text)).toEqual([
      "ws /v2/updates fromClient: body must have required member 'updateFormat'",
    ]);
  });

  it('drops the next stream after N server frames, without a close frame', async () => {
    proxy.dropNextStreamAfter(2);
    const dropped = await readStream(proxy.url, UPDATES_REQUEST, 5);
    expect(dropped.offsets).toEqual([1, 2]);
    expect(dropped.closeCode).toBe(1006);
    const resumed = await readStream(proxy.url, { ...UPDATES_REQUEST, beginExclusive: 2 }, 5);
    expect(resumed.offsets).toEqual([3, 4, 5, 6, 7]);
    expect(proxy.streams.map((s) => s.dropped)).toEqual([true, false]);
    expect(() => assertNoWireMismatches(proxy)).not.toThrow();
  });

  it('delivers the chosen server frames twice', async () => {
    proxy.duplicateServerFrames(
      1,
      (message) =>
        (message as { update: { OffsetCheckpoint: { value: { offset: number } } } }).update
          .OffsetCheckpoint.value.offset === 3,
    );
    const run = await readStream(proxy.url, UPDATES_REQUEST, 6);
    expect(run.offsets).toEqual([1, 2, 3, 3, 4, 5]);
    expect(() => assertNoWireMismatches(proxy)).not.toThrow();
  });

  it('a stream whose server cannot be reached is refused with 502', async () => {
    await echo.close();
    const socket = new WebSocket(`${proxy.url.replace('http', 'ws')}/v2/updates`);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      socket.on('unexpected-response', (_req, res) => resolve(res.statusCode));
      socket.on('error', reject);
    });
    expect(status).toBe(502);
    echo = await startEchoServer();
  });
});
