/**
 * A client that hangs up mid-request, against a service whose store is healthy: the service says
 * so, at info, and never that its store connection was lost, nor counts it among the answers of
 * a lost store (503). A lost store connection itself still answers 503 `store_unavailable`
 * (store-connection-loss.test.ts).
 */
import { waitFor } from '@poolparty/settlement/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientHangUpCode } from '../src/http/client-hang-up.js';
import { connectTo } from './support/raw-http.js';
import {
  request,
  STARTUP_TIMEOUT_MS,
  startTestService,
  type TestService,
} from './support/service.js';

/** pino's level numbers. */
const INFO = 30;
const WARN = 40;

interface LogLine {
  readonly level: number;
  readonly reqId?: string;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/**
 * The service's log lines from now on, parsed, instead of on stdout: the destination pino writes
 * to is shared by every child logger (each request's), so replacing its `write` sees them all.
 */
function captureLog(logger: object): LogLine[] {
  const lines: LogLine[] = [];
  for (let level: object | null = logger; level !== null; level = Object.getPrototypeOf(level)) {
    const symbol = Object.getOwnPropertySymbols(level).find(
      (candidate) => candidate.description === 'pino.stream',
    );
    if (symbol === undefined) continue;
    const destination = (level as Record<symbol, { write(text: string): unknown }>)[symbol];
    if (destination === undefined) break;
    destination.write = (text: string) => {
      for (const line of text.split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line));
      return true;
    };
    return lines;
  }
  throw new Error("no pino destination on the service's logger");
}

/** The answers counted with status 503, over every route. */
async function storeLossAnswers(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('poolparty_http_requests_total{') && line.includes('status="503"')) {
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return total;
}

describe('which socket errors are a client hanging up', () => {
  const reset = Object.assign(new Error('aborted'), { code: 'ECONNRESET' });

  it("is one of the client's own closed connection", () => {
    expect(clientHangUpCode(reset, true)).toBe('ECONNRESET');
    expect(clientHangUpCode(new Error('reply failed', { cause: reset }), true)).toBe('ECONNRESET');
    const premature = Object.assign(new Error('Premature close'), {
      code: 'ERR_STREAM_PREMATURE_CLOSE',
    });
    expect(clientHangUpCode(premature, true)).toBe('ERR_STREAM_PREMATURE_CLOSE');
  });

  it('is not while the connection is open, nor for errors of no socket', () => {
    expect(clientHangUpCode(reset, false)).toBeNull();
    expect(clientHangUpCode(new Error('boom'), true)).toBeNull();
  });
});

describe('a client hanging up mid-request, with the store healthy', () => {
  let t: TestService;
  let lines: LogLine[];
  let serial = 0;

  beforeAll(async () => {
    t = await startTestService({ LOG_LEVEL: 'info' });
    lines = captureLog(t.service.app.log);
    // The key's look-up is cached from here on, so the request reaches its body without I/O.
    expect((await request(t.url, 'GET', '/v1/pools', { apiKey: t.apiKey })).status).toBe(200);
  }, STARTUP_TIMEOUT_MS);
  afterAll(async () => t?.close());

  /**
   * Sends `head` and `partialBody` of a POST, waits until the service has begun the request, then
   * destroys the connection; answers the service's lines about the request once it has judged it.
   */
  async function hangUp(head: string, partialBody: string): Promise<LogLine[]> {
    serial += 1;
    const requestId = `hang-up-${serial}`;
    const ofRequest = () => lines.filter((line) => line.reqId === requestId);
    const client = await connectTo(t.url);
    client.socket.write(
      `POST /v1/wallet-auth/challenge HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: ${requestId}\r\n` +
        `X-API-Key: ${t.apiKey}\r\nContent-Type: application/json\r\n${head}\r\n${partialBody}`,
    );
    await waitFor(async () => ofRequest().length > 0, 'the service to begin the request');
    client.socket.destroy();
    await client.closed;
    await waitFor(
      async () => ofRequest().some((line) => line.msg !== 'incoming request'),
      "the service's verdict on the request",
    );
    return ofRequest();
  }

  const expectHangUpSaid = (said: LogLine[]) => {
    const verdicts = said.filter((line) => line.msg !== 'incoming request');
    expect(verdicts.map((line) => line.msg)).toEqual(['client closed its connection mid-request']);
    expect(verdicts[0]?.level).toBe(INFO);
    expect(said.filter((line) => line.level >= WARN)).toEqual([]);
    expect(said.filter((line) => /store/i.test(line.msg))).toEqual([]);
  };

  it('a body shorter than its Content-Length, then the connection closed', async () => {
    const before = await storeLossAnswers(t.url);
    expectHangUpSaid(await hangUp('Content-Length: 200\r\n', '{"partyId":"'));
    expect(await storeLossAnswers(t.url)).toBe(before);
  });

  it('a chunked body whose stream is destroyed mid-chunk', async () => {
    const before = await storeLossAnswers(t.url);
    expectHangUpSaid(await hangUp('Transfer-Encoding: chunked\r\n', '40\r\n{"partyId":'));
    expect(await storeLossAnswers(t.url)).toBe(before);
  });

  it('leaves the service answering as before', async () => {
    expect((await request(t.url, 'GET', '/v1/pools', { apiKey: t.apiKey })).status).toBe(200);
  });
});
