/**
 * The client side of the SSE bench (sse.ts), run in a worker thread of its own: a thousand
 * streams' reading would otherwise share the service's one event loop and count against it, as
 * autocannon's load would in quotes.ts. Each round creates a swap, opens N streams of
 * `GET /v1/swaps/{id}/events`, sends the cancel and times each stream's `cancelled` event from
 * the moment the cancel was sent, on this thread's clock.
 */
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';

const EVENT_WAIT_MS = 30_000;

setFlagsFromString('--expose-gc');
/**
 * This thread's garbage collector, run just before each cancel is sent: opening and closing a
 * thousand streams per round leaves garbage, and a collection of it landing between the cancel
 * and the last event would be counted as the service's delay.
 */
const collectGarbage = runInNewContext('gc') as () => void;

/** What the bench hands the worker. */
export interface SseClientsJob {
  readonly url: string;
  readonly apiKey: string;
  readonly walletToken: string;
  readonly counts: readonly number[];
  readonly rounds: number;
  /** Unmeasured rounds per size first: the service's and the client's code paths warm. */
  readonly warmUpRounds: number;
}

/** Per size, every stream's latency of every measured round, in ms. */
export type SseClientsResult = { readonly streams: number; readonly latencies: number[] }[];

interface Client {
  readonly url: string;
  readonly apiKey: string;
  readonly walletToken: string;
}

async function call<T>(client: Client, method: string, path: string, body?: unknown): Promise<T> {
  const answer = await fetch(`${client.url}${path}`, {
    method,
    headers: {
      'x-api-key': client.apiKey,
      authorization: `Bearer ${client.walletToken}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  if (!answer.ok)
    throw new Error(`${method} ${path} answered ${answer.status}: ${await answer.text()}`);
  return (await answer.json()) as T;
}

interface OpenStream {
  /** Resolves with the time (performance.now) the `cancelled` event arrived. */
  readonly cancelledAt: Promise<number>;
  close(): void;
}

/** The line that starts the awaited event; SSE puts every field at the start of a line. */
const CANCELLED_LINE = Buffer.from('\nevent: cancelled\n');
/** The end of the first block (`retry:`), which the server sends as soon as the stream opens. */
const BLOCK_END = Buffer.from('\n\n');
const STATUS_OK = Buffer.from('HTTP/1.1 200 ');
const STATUS_BUSY = Buffer.from('HTTP/1.1 429 ');

/**
 * One buffer every socket reads into: each read is searched before the next one lands in it,
 * so nothing is allocated per read.
 */
const READ_BUFFER = Buffer.alloc(64 * 1024);

/**
 * Opens one event stream; resolves once its first block (the `retry:` line) has arrived.
 *
 * A thousand of these share one thread, and that thread's time per stream is added to the
 * latency of every stream it reads after it, a cost real clients (one per browser) never pay
 * for each other. So each stream is a plain TCP socket that sends the request bytes itself and
 * reads with `onread` (no HTTP parser, no response stream, no buffer per read), never decodes
 * what comes back, and searches each read once for the `cancelled` line (with the end of the
 * previous read, in case the line was split). Chunked transfer framing puts `\r\n` before each
 * event, so the line's leading `\n` is there whichever read the event
 * arrives in. The status line is checked before anything else.
 */
function openStream(client: Client, intentId: string): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const target = new URL(`${client.url}/v1/swaps/${intentId}/events`);
    /** `retrying`: answered 429; this socket is closed and a new stream is opened in its place. */
    let status: 'unknown' | 'ok' | 'retrying' | 'done' = 'unknown';
    let opened = false;
    let tail: Buffer = Buffer.alloc(0);
    let arrived: (at: number) => void = () => {};
    let failed: (error: Error) => void = () => {};
    const cancelledAt = new Promise<number>((resolveAt, rejectAt) => {
      arrived = resolveAt;
      failed = rejectAt;
    });
    cancelledAt.catch(() => {});
    const onRead = (length: number, buffer: Uint8Array): boolean => {
      if (status === 'done' || status === 'retrying') return true;
      const at = performance.now();
      const read = Buffer.from(buffer.buffer, buffer.byteOffset, length);
      const seen = tail.length === 0 ? read : Buffer.concat([tail, read]);
      if (status === 'unknown') {
        if (seen.length < STATUS_OK.length) {
          tail = Buffer.from(seen);
          return true;
        }
        // The previous round's streams may still be counted while the server notices they closed.
        if (seen.subarray(0, STATUS_BUSY.length).equals(STATUS_BUSY)) {
          status = 'retrying';
          socket.destroy();
          void sleep(50).then(() => openStream(client, intentId).then(resolve, reject));
          return true;
        }
        if (!seen.subarray(0, STATUS_OK.length).equals(STATUS_OK)) {
          status = 'done';
          socket.destroy();
          reject(new Error(`event stream answered ${seen.subarray(0, 40).toString()}`));
          return true;
        }
        status = 'ok';
      }
      if (seen.includes(CANCELLED_LINE)) {
        status = 'done';
        arrived(at);
        return true;
      }
      if (!opened && seen.includes(BLOCK_END)) {
        opened = true;
        resolve(stream);
      }
      // Enough to find the line across this read's end and the next read's start; copied, as
      // the next read overwrites the shared buffer.
      tail = Buffer.from(seen.subarray(Math.max(0, seen.length - CANCELLED_LINE.length + 1)));
      // Returning false would pause the socket.
      return true;
    };
    const socket = connect({
      host: target.hostname,
      port: Number(target.port),
      noDelay: true,
      onread: { buffer: READ_BUFFER, callback: onRead },
    });
    const stream = { cancelledAt, close: () => socket.destroy() };
    socket.on('error', (error) => {
      if (!opened) reject(error);
      failed(error);
    });
    socket.on('close', () => {
      // The stream opened in its place settles this promise.
      if (status === 'retrying') return;
      const error = new Error('event stream closed without a cancelled event');
      if (!opened) reject(error);
      failed(error);
    });
    socket.write(
      `GET ${target.pathname} HTTP/1.1\r\nhost: ${target.host}\r\nx-api-key: ${client.apiKey}\r\n` +
        `authorization: Bearer ${client.walletToken}\r\naccept: text/event-stream\r\n\r\n`,
    );
  });
}

async function measureRound(client: Client, streams: number): Promise<number[]> {
  const swap = await call<{ intentId: string }>(client, 'POST', '/v1/swaps', {
    fromToken: 'Amulet',
    toToken: 'USDCx',
    amount: '100',
    poolId: 'amulet-usdcx',
  });
  const open: OpenStream[] = [];
  try {
    for (let i = 0; i < streams; i += 50) {
      const batch = Math.min(50, streams - i);
      open.push(
        ...(await Promise.all(
          Array.from({ length: batch }, () => openStream(client, swap.intentId)),
        )),
      );
    }
    collectGarbage();
    const sentAt = performance.now();
    await call(client, 'POST', `/v1/swaps/${swap.intentId}/cancel`);
    const timeout = sleep(EVENT_WAIT_MS).then(() => {
      throw new Error(`no cancelled event within ${EVENT_WAIT_MS} ms`);
    });
    const arrived = await Promise.race([Promise.all(open.map((s) => s.cancelledAt)), timeout]);
    return arrived.map((at) => at - sentAt);
  } finally {
    for (const stream of open) stream.close();
  }
}

async function run(job: SseClientsJob): Promise<SseClientsResult> {
  const client: Client = job;
  const result: SseClientsResult = [];
  for (const streams of job.counts) {
    for (let r = 0; r < job.warmUpRounds; r++) await measureRound(client, streams);
    const latencies: number[] = [];
    for (let r = 0; r < job.rounds; r++) latencies.push(...(await measureRound(client, streams)));
    result.push({ streams, latencies });
  }
  return result;
}

if (parentPort !== null) {
  const port = parentPort;
  run(workerData as SseClientsJob).then(
    (result) => port.postMessage({ result }),
    (error: unknown) =>
      port.postMessage({ error: String(error instanceof Error ? error.stack : error) }),
  );
}
