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
import { Worker } from 'node:worker_threads';
import { encodeBase64, sign } from '@poolparty/core';
import type { DevnetParty, RunningService } from '@poolparty/server';
import { EVENT_SUBSCRIBERS_MAX } from '@poolparty/server';
import { startQuietService, unthrottle } from './quotes.js';
import { isMain, percentile, table } from './report.js';
import type { SseClientsJob, SseClientsResult } from './sse-clients.js';

export const STREAM_COUNTS = [1, 100, 1_000] as const;
export const SSE_TARGET_STREAMS = 1_000;
export const SSE_TARGET_P99_MS = 50;
const ROUNDS = 5;
const QUICK_ROUNDS = 2;
/** Unmeasured rounds per size before the measured ones. */
const WARM_UP_ROUNDS = 1;
/**
 * Every stream follows one swap, so one wallet party and one API key hold them all: the caps per
 * party and per key are raised to the process's whole share, and the bench measures fan-out, not
 * the caps (which refuse such a caller in service).
 */
const ONE_CALLER_STREAMS = {
  POOLPARTY_STREAMS_PER_PARTY_MAX: String(EVENT_SUBSCRIBERS_MAX),
  POOLPARTY_STREAMS_PER_KEY_MAX: String(EVENT_SUBSCRIBERS_MAX),
};

export interface SsePoint {
  readonly streams: number;
  readonly samples: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
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

export async function benchSse(
  counts: readonly number[] = STREAM_COUNTS,
  rounds: number = ROUNDS,
): Promise<SsePoint[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'poolparty-bench-sse-'));
  let service: RunningService | null = null;
  try {
    service = await startQuietService(dataDir, ONE_CALLER_STREAMS);
    const { url, devnet } = service;
    if (url === null || devnet === null) throw new Error('service not listening');
    const alice = devnet.users[0];
    if (!alice) throw new Error('no seeded user');
    await unthrottle(service, devnet.apiKey);
    const job: SseClientsJob = {
      url,
      apiKey: devnet.apiKey,
      walletToken: await walletToken(url, devnet.apiKey, alice),
      counts,
      rounds,
      warmUpRounds: WARM_UP_ROUNDS,
    };
    const measured = await inWorker(job);
    return measured.map(({ streams, latencies }) => ({
      streams,
      samples: latencies.length,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
    }));
  } finally {
    await service?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Runs the clients in a worker thread, so they do not share the service's event loop. */
function inWorker(job: SseClientsJob): Promise<SseClientsResult> {
  return new Promise((resolve, reject) => {
    // Through tsx's API rather than the inherited `--import tsx`, which Node 20 does not carry
    // into workers.
    const clients = new URL('./sse-clients.ts', import.meta.url).href;
    const boot = `import('tsx/esm/api').then((tsx) => tsx.tsImport(${JSON.stringify(clients)}, ${JSON.stringify(clients)}))`;
    const worker = new Worker(boot, { eval: true, workerData: job });
    worker.once('message', (message: { result?: SseClientsResult; error?: string }) => {
      if (message.result !== undefined) resolve(message.result);
      else reject(new Error(`SSE clients failed: ${message.error}`));
      void worker.terminate();
    });
    worker.once('error', reject);
  });
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
