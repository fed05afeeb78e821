/**
 * The client side of the SSE bench (sse.ts), run in a worker thread of its own: a thousand
 * streams' reading would otherwise share the service's one event loop and count against it, as
 * autocannon's load would in quotes.ts. Each round creates a swap, opens N streams of
 * `GET /v1/swaps/{id}/events`, sends the cancel and times each stream's `cancelled` event from
 * the moment the cancel was sent, on this thread's clock.
 */
import { Agent, request as httpRequest } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { parentPort, workerData } from 'node:worker_threads';

const EVENT_WAIT_MS = 30_000;

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
  /**
   * Keeps connections open between rounds, as `fetch` and browsers do: a stream that ends leaves
   * its connection for the next one instead of closing it.
   */
  readonly agent: Agent;
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
const BLOCK_END = Buffer.from('\n\n');

/**
 * Opens one event stream; resolves once its first event (the current state) has arrived.
 *
 * A thousand of these run in the service's own process, so each costs as little as a client can:
 * plain `node:http` rather than `fetch` and web streams, bytes never decoded, and each chunk
 * searched once for the `cancelled` line (with the end of the previous chunk, in case the line
 * was split between them) rather than the whole text parsed again.
 */
function openStream(client: Client, intentId: string): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${client.url}/v1/swaps/${intentId}/events`, {
      agent: client.agent,
      headers: { 'x-api-key': client.apiKey, authorization: `Bearer ${client.walletToken}` },
    });
    request.on('error', reject);
    request.on('response', (response) => {
      // The previous round's streams may still be counted while the server notices they closed.
      if (response.statusCode === 429) {
        response.resume();
        request.destroy();
        void sleep(50).then(() => openStream(client, intentId).then(resolve, reject));
        return;
      }
      if (response.statusCode !== 200) {
        request.destroy();
        reject(new Error(`event stream answered ${response.statusCode}`));
        return;
      }
      let opened = false;
      let tail: Buffer = Buffer.alloc(0);
      let arrived: (at: number) => void = () => {};
      let failed: (error: Error) => void = () => {};
      const cancelledAt = new Promise<number>((resolveAt, rejectAt) => {
        arrived = resolveAt;
        failed = rejectAt;
      });
      cancelledAt.catch(() => {});
      const stream = { cancelledAt, close: () => request.destroy() };
      response.on('data', (chunk: Buffer) => {
        const seen = tail.length === 0 ? chunk : Buffer.concat([tail, chunk]);
        if (seen.includes(CANCELLED_LINE)) {
          arrived(performance.now());
          response.removeAllListeners('data');
          response.resume();
          return;
        }
        if (!opened && seen.includes(BLOCK_END)) {
          opened = true;
          resolve(stream);
        }
        // Enough to find the line across this chunk's end and the next chunk's start.
        tail = seen.subarray(Math.max(0, seen.length - CANCELLED_LINE.length + 1));
      });
      response.on('end', () => {
        const error = new Error('event stream ended without a cancelled event');
        if (!opened) reject(error);
        failed(error);
      });
      response.on('error', (error) => {
        if (!opened) reject(error);
        failed(error);
      });
    });
    request.end();
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
  const agent = new Agent({ keepAlive: true });
  const client: Client = { ...job, agent };
  try {
    const result: SseClientsResult = [];
    for (const streams of job.counts) {
      for (let r = 0; r < job.warmUpRounds; r++) await measureRound(client, streams);
      const latencies: number[] = [];
      for (let r = 0; r < job.rounds; r++) latencies.push(...(await measureRound(client, streams)));
      result.push({ streams, latencies });
    }
    return result;
  } finally {
    agent.destroy();
  }
}

if (parentPort !== null) {
  const port = parentPort;
  run(workerData as SseClientsJob).then(
    (result) => port.postMessage({ result }),
    (error: unknown) =>
      port.postMessage({ error: String(error instanceof Error ? error.stack : error) }),
  );
}
