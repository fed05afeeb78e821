/**
 * Server-Sent Events delivery latency at 1, 100 and 1 000 open streams: the real service (PGlite,
 * devnet ledger), a seeded wallet's swap, N clients streaming `GET /v1/swaps/{id}/events`; then
 * the swap is cancelled and each client times the `cancelled` event from the moment the cancel
 * was sent (so the figure includes committing the state change, as a wallet would see it). A few
 * rounds per N, a new swap each round; p50 and p99 over every stream of every round.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { encodeBase64, sign } from '@poolparty/core';
import type { DevnetParty } from '../packages/server/src/devnet-bootstrap.js';
import type { RunningService } from '../packages/server/src/service.js';
import { startQuietService, unthrottle } from './quotes.js';
import { isMain, percentile, table } from './report.js';

export const STREAM_COUNTS = [1, 100, 1_000] as const;
export const SSE_TARGET_STREAMS = 1_000;
export const SSE_TARGET_P99_MS = 50;
const ROUNDS = 5;
const QUICK_ROUNDS = 2;
const EVENT_WAIT_MS = 30_000;

export interface SsePoint {
  readonly streams: number;
  readonly samples: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

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

/** A wallet token for a seeded party, through the challenge its wallet would sign. */
async function walletToken(url: string, apiKey: string, party: DevnetParty): Promise<string> {
  const post = async <T>(path: string, body: unknown) => {
    const answer = await fetch(`${url}/v1/wallet-auth/${path}`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!answer.ok) throw new Error(`wallet-auth/${path} answered ${answer.status}`);
    return (await answer.json()) as T;
  };
  const challenge = await post<{ nonce: string; message: string }>('challenge', {
    partyId: party.partyId,
  });
  const privateKey = Uint8Array.from(Buffer.from(party.privateKey, 'hex'));
  const verified = await post<{ token: string }>('verify', {
    partyId: party.partyId,
    nonce: challenge.nonce,
    signature: encodeBase64(sign(challenge.message, privateKey)),
    publicKey: encodeBase64(Uint8Array.from(Buffer.from(party.publicKey, 'hex'))),
  });
  return verified.token;
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

export async function benchSse(
  counts: readonly number[] = STREAM_COUNTS,
  rounds: number = ROUNDS,
): Promise<SsePoint[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'poolparty-bench-sse-'));
  let service: RunningService | null = null;
  const agent = new Agent({ keepAlive: true });
  try {
    service = await startQuietService(dataDir);
    const { url, devnet } = service;
    if (url === null || devnet === null) throw new Error('service not listening');
    const alice = devnet.users[0];
    if (!alice) throw new Error('no seeded user');
    await unthrottle(service, devnet.apiKey);
    const client = {
      agent,
      url,
      apiKey: devnet.apiKey,
      walletToken: await walletToken(url, devnet.apiKey, alice),
    };
    const points: SsePoint[] = [];
    for (const streams of counts) {
      const latencies: number[] = [];
      for (let r = 0; r < rounds; r++) latencies.push(...(await measureRound(client, streams)));
      points.push({
        streams,
        samples: latencies.length,
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
      });
    }
    return points;
  } finally {
    agent.destroy();
    await service?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export { QUICK_ROUNDS as SSE_QUICK_ROUNDS };

export function printSseBench(points: readonly SsePoint[]): void {
  console.log('SSE delivery: cancel sent → `cancelled` event received, per open stream (PGlite)');
  console.log(
    table([
      ['  streams', 'samples', 'p50 ms', 'p99 ms'],
      ...points.map((p) => [
        `  ${p.streams}`,
        `${p.samples}`,
        p.p50Ms.toFixed(1),
        p.p99Ms.toFixed(1),
      ]),
    ]),
  );
}

if (isMain(import.meta.url)) {
  const quick = process.argv.includes('--quick');
  printSseBench(await benchSse(STREAM_COUNTS, quick ? QUICK_ROUNDS : ROUNDS));
}
