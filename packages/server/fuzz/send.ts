/**
 * Sending a fuzz case and reading what comes back, with a deadline. `node:http` sends the path
 * exactly as generated (no URL normalising, unlike `fetch`); raw and slow cases go straight to a
 * socket, and the answer's head is read, with its body when a Content-Length gives its size.
 */
import http from 'node:http';
import net from 'node:net';
import type { HttpCase, RawCase } from './cases.js';
import type { SlowCase } from './slow-cases.js';
import type { Answer, SlowOutcome } from './verdict.js';

export type Outcome =
  | { readonly kind: 'answer'; readonly answer: Answer }
  | { readonly kind: 'hang' }
  /** The connection ended without an answer. */
  | { readonly kind: 'closed'; readonly reason: string }
  /** Nothing listens any more. */
  | { readonly kind: 'refused' }
  /** Our own HTTP client refused to send the case (a header it will not write). */
  | { readonly kind: 'unsendable'; readonly reason: string };

export const HANG_MS = 5_000;

export function sendHttp(base: URL, agent: http.Agent, c: HttpCase): Promise<Outcome> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    let request: http.ClientRequest;
    try {
      request = http.request({
        host: base.hostname,
        port: base.port,
        method: c.method,
        path: c.path,
        headers: c.headers,
        agent,
      });
    } catch (error) {
      resolve({ kind: 'unsendable', reason: (error as Error).message });
      return;
    }
    const timer = setTimeout(() => {
      settle({ kind: 'hang' });
      request.destroy();
    }, HANG_MS);
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const stream = String(response.headers['content-type'] ?? '').startsWith('text/event-stream');
      if (c.method === 'HEAD' || stream) {
        // An event stream stays open by design: its head is the answer.
        settle({ kind: 'answer', answer: { status, headers: response.headers, body: null } });
        response.destroy();
        if (stream) request.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        settle({
          kind: 'answer',
          answer: {
            status,
            headers: response.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          },
        }),
      );
      response.on('error', (error) => settle({ kind: 'closed', reason: error.message }));
    });
    request.on('error', (error: NodeJS.ErrnoException) =>
      settle(
        error.code === 'ECONNREFUSED'
          ? { kind: 'refused' }
          : { kind: 'closed', reason: error.message },
      ),
    );
    request.end(c.body);
  });
}

/** The status and headers of the first response in `text`, once its head is complete. */
export function parseHead(
  text: string,
): { status: number; headers: Record<string, string> } | null {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0)
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status, headers };
}

/**
 * The first response in `received` once it is whole: its head, and its body when a
 * Content-Length says how long it is (`null` body otherwise). `null` while more is to come.
 */
export function readAnswer(received: Buffer): Answer | null {
  const text = received.toString('latin1');
  const head = parseHead(text);
  if (head === null) return null;
  const length = Number(head.headers['content-length'] ?? Number.NaN);
  const bodyStart = text.indexOf('\r\n\r\n') + 4;
  const body = Number.isFinite(length) ? received.subarray(bodyStart, bodyStart + length) : null;
  if (body !== null && body.length < length) return null;
  return { status: head.status, headers: head.headers, body: body?.toString('utf8') ?? null };
}

export function sendRaw(base: URL, c: RawCase): Promise<Outcome> {
  return new Promise((resolve) => {
    let settled = false;
    let received = Buffer.alloc(0);
    const socket = net.connect(Number(base.port), base.hostname);
    const settle = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => settle({ kind: 'hang' }), HANG_MS);
    const judge = () => {
      const answer = readAnswer(received);
      if (answer !== null) settle({ kind: 'answer', answer });
      return answer !== null;
    };
    socket.on('connect', () => {
      socket.write(Buffer.from(c.bytes, 'latin1'));
      // The case is all there is: a server waiting for more would wait for nothing.
      socket.end();
    });
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      judge();
    });
    socket.on('close', () => {
      if (!judge()) settle({ kind: 'closed', reason: 'closed without an answer' });
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED') settle({ kind: 'refused' });
      else if (!judge()) settle({ kind: 'closed', reason: error.message });
    });
  });
}

/**
 * How long past the request timeout a slow case may stay open before it is a finding: as long as
 * any answer may take (HANG_MS). A server checks for late requests only now and then (Node every
 * `connectionsCheckingInterval`), and the fuzzer's own load delays it too.
 */
export const TIMEOUT_MARGIN_MS = HANG_MS;

/**
 * Writes a slow case's pieces `pauseMs` apart and never ends its side of the connection, as a
 * stalled client does not: only the server can end the exchange, with an answer or by closing.
 * Gives up at the request timeout plus `marginMs` after connecting.
 */
export function sendSlow(
  base: URL,
  c: SlowCase,
  requestTimeoutMs: number,
  marginMs = TIMEOUT_MARGIN_MS,
): Promise<SlowOutcome> {
  return new Promise((resolve) => {
    let settled = false;
    let received = Buffer.alloc(0);
    let next = 0;
    let pause: NodeJS.Timeout | undefined;
    const started = Date.now();
    const socket = net.connect(Number(base.port), base.hostname);
    const settle = (outcome: SlowOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      clearTimeout(pause);
      socket.destroy();
      resolve(outcome);
    };
    const deadline = setTimeout(
      () => settle({ kind: 'held-open', ms: Date.now() - started }),
      requestTimeoutMs + marginMs,
    );
    const writeNext = () => {
      const piece = c.pieces[next];
      if (settled || piece === undefined || socket.destroyed) return;
      next += 1;
      socket.write(Buffer.from(piece, 'latin1'));
      if (next < c.pieces.length) pause = setTimeout(writeNext, c.pauseMs);
    };
    const judge = () => {
      const answer = readAnswer(received);
      if (answer !== null) settle({ kind: 'answer', answer, ms: Date.now() - started });
      return answer !== null;
    };
    const closed = (reason: string) => {
      if (!judge()) settle({ kind: 'closed', reason, ms: Date.now() - started });
    };
    socket.on('connect', writeNext);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      judge();
    });
    socket.on('close', () => closed('closed without an answer'));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED') settle({ kind: 'refused' });
      else closed(error.message);
    });
  });
}
