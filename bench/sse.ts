/**
 * Server-Sent Events delivery latency at 1, 100 and 1 000 open streams: the real service (PGlite,
 * devnet ledger), a seeded wallet's swap, N clients streaming `GET /v1/swaps/{id}/events`; then
 * the swap is cancelled and each client times the `cancelled` event from the moment the cancel
 * was sent (so the figure includes committing the state change, as a wallet would see it). A few
 * rounds per N, a new swap each round; p50 and p99 over every stream of every round.
 */
import { mkdtempSync, rmSync } from 'node:fs';
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

/** Opens one event stream; resolves once its first event (the current state) has arrived. */
async function openStream(client: Client, intentId: string): Promise<OpenStream> {
  const abort = new AbortController();
  for (;;) {
    const answer = await fetch(`${client.url}/v1/swaps/${intentId}/events`, {
      headers: { 'x-api-key': client.apiKey, authorization: `Bearer ${client.walletToken}` },
      signal: abort.signal,
    });
    // The previous round's streams may still be counted while the server notices they closed.
    if (answer.status === 429) {
      await answer.body?.cancel();
      await sleep(50);
      continue;
    }
    if (answer.status !== 200 || answer.body === null) {
      throw new Error(`event stream answered ${answer.status}`);
    }
    const reader = answer.body.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('\n\n')) {
      const { value, done } = await reader.read();
      if (done) throw new Error('event stream ended before its first event');
      text += decoder.decode(value, { stream: true });
    }
    const cancelledAt = (async () => {
      for (;;) {
        if (/^event: cancelled$/m.test(text)) return performance.now();
        const { value, done } = await reader.read();
        if (done) throw new Error('event stream ended without a cancelled event');
        text += decoder.decode(value, { stream: true });
      }
    })();
    cancelledAt.catch(() => {});
    return { cancelledAt, close: () => abort.abort() };
  }
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
  try {
    service = await startQuietService(dataDir);
    const { url, devnet } = service;
    if (url === null || devnet === null) throw new Error('service not listening');
    const alice = devnet.users[0];
    if (!alice) throw new Error('no seeded user');
    await unthrottle(service, devnet.apiKey);
    const client = {
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
