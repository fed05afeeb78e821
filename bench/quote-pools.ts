/**
 * Quote latency as the number of pools grows (1 asked; the devnet's 3 are the floor — 100,
 * 10 000): the real service on PGlite, the
 * devnet pools plus synthetic Amulet/TKN pools registered in its store (reserves in the store
 * only; quotes read the store's books, never the ledger), then the quote quotes.ts asks for,
 * one request at a time (latency, not throughput: quotes.ts measures that). Each size is a fresh service, so one size's caches never serve the
 * next.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Amount } from '@poolparty/core';
import type { RunningService } from '@poolparty/server';
import { insertPool } from '@poolparty/store';
import { QUOTE_PATH, startQuietService, unthrottle } from './quotes.js';
import { isMain, percentile, table } from './report.js';

export const POOL_COUNTS = [1, 100, 10_000] as const;
export const QUOTE_CURVE_SAMPLES = 300;
export const QUICK_QUOTE_CURVE_SAMPLES = 100;
/** A quote slower than this counts as not answered (the point then shows no figure). */
const QUOTE_TIMEOUT_MS = 20_000;
/** Sampling at one size stops after this long, however few samples it has. */
const SAMPLING_BUDGET_MS = 20_000;
/** Pools the devnet seed brings (one of them is the quoted pool). */
const SEEDED_POOLS = 3;
const INSERT_CHUNK = 500;

export interface QuotePoolsPoint {
  readonly pools: number;
  /** Quotes answered; fewer than asked when they were slow. */
  readonly samples: number;
  /** NaN when a quote did not answer within the time limit. */
  readonly p50Ms: number;
  readonly p99Ms: number;
}

async function addSyntheticPools(service: RunningService, count: number): Promise<void> {
  const amulet = service.devnet?.pools[0]?.tokenA;
  if (!amulet) throw new Error('no seeded pool');
  const now = new Date();
  for (let from = 0; from < count; from += INSERT_CHUNK) {
    await service.ctx.db.transaction(async (tx) => {
      for (let i = from; i < Math.min(count, from + INSERT_CHUNK); i++) {
        await insertPool(tx, {
          poolId: `bench-pool-${i}`,
          tokenA: amulet,
          tokenB: { admin: 'bench-admin::1220', id: `TKN${i}` },
          swapParty: `bench-swap-${i}::1220`,
          lpParty: `bench-lp-${i}::1220`,
          lpSupply: Amount.parse('1000'),
          reserveA: Amount.parse('1000000'),
          reserveB: Amount.parse('1000'),
          createdAt: now,
        });
      }
    });
  }
  service.ctx.quoter.invalidate();
}

/** One quote, timed; NaN when it did not answer 200 within the time limit. */
async function timeQuote(url: string, apiKey: string): Promise<number> {
  const start = performance.now();
  try {
    const answer = await fetch(url, {
      headers: { 'x-api-key': apiKey },
      signal: AbortSignal.timeout(QUOTE_TIMEOUT_MS),
    });
    await answer.arrayBuffer();
    return answer.status === 200 ? performance.now() - start : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

async function measurePools(pools: number, samples: number): Promise<QuotePoolsPoint> {
  const dataDir = mkdtempSync(join(tmpdir(), 'poolparty-bench-pools-'));
  let service: RunningService | null = null;
  try {
    service = await startQuietService(dataDir);
    if (service.url === null || service.devnet === null) throw new Error('service not listening');
    const apiKey = service.devnet.apiKey;
    await unthrottle(service, apiKey);
    // The devnet seed brings three pools, so the smallest size measured is 3, not 1.
    await addSyntheticPools(service, Math.max(0, pools - SEEDED_POOLS));
    const url = `${service.url}${QUOTE_PATH}`;
    // Warm-up: the first quote after the pools changed waits for the quoter's re-read.
    const first = await timeQuote(url, apiKey);
    const latencies: number[] = Number.isNaN(first) ? [first] : [];
    const until = performance.now() + SAMPLING_BUDGET_MS;
    while (latencies.length < samples && performance.now() < until && !Number.isNaN(first)) {
      const ms = await timeQuote(url, apiKey);
      latencies.push(ms);
      if (Number.isNaN(ms)) break;
    }
    const answered = latencies.filter((ms) => !Number.isNaN(ms));
    const failed = answered.length < latencies.length;
    return {
      pools: Math.max(pools, SEEDED_POOLS),
      samples: failed ? 0 : answered.length,
      p50Ms: failed ? Number.NaN : percentile(answered, 50),
      p99Ms: failed ? Number.NaN : percentile(answered, 99),
    };
  } finally {
    await service?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function benchQuotePools(
  counts: readonly number[] = POOL_COUNTS,
  samples: number = QUOTE_CURVE_SAMPLES,
): Promise<QuotePoolsPoint[]> {
  const points: QuotePoolsPoint[] = [];
  for (const pools of counts) points.push(await measurePools(pools, samples));
  return points;
}

export function printQuotePoolsBench(points: readonly QuotePoolsPoint[]): void {
  console.log(`quote latency vs pools in the store: GET ${QUOTE_PATH}, one at a time`);
  console.log(
    table([
      ['  pools', 'samples', 'p50 ms', 'p99 ms'],
      ...points.map((p) => [
        `  ${p.pools}`,
        `${p.samples}`,
        Number.isNaN(p.p50Ms) ? `> ${QUOTE_TIMEOUT_MS} (timed out)` : p.p50Ms.toFixed(1),
        Number.isNaN(p.p99Ms) ? '-' : p.p99Ms.toFixed(1),
      ]),
    ]),
  );
}

if (isMain(import.meta.url)) {
  const quick = process.argv.includes('--quick');
  printQuotePoolsBench(
    await benchQuotePools(POOL_COUNTS, quick ? QUICK_QUOTE_CURVE_SAMPLES : QUOTE_CURVE_SAMPLES),
  );
}
