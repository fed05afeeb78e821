/**
 * Quote throughput against a bare Fastify route on the same machine, in the same run: the
 * performance note asks for quotes at ≥ 40 % of the bare route, since quotes must not touch the
 * database on the hot path.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashApiKey, type RunningService, readSettings, startService } from '@poolparty/server';
import { findApiKeyByHash, setApiKeyRateLimits } from '@poolparty/store';
import Fastify from 'fastify';
import {
  combinedLoad,
  DEFAULT_PAIRED_LOAD,
  type LoadResult,
  measurePaired,
  type PairedLoadSettings,
  type PairedRound,
  pairedRatio,
} from './load.js';
import { isMain, percent, ratioLine } from './report.js';

export const QUOTE_TARGET_RATIO = 0.4;
export const QUOTE_PATH = '/v1/quotes?from=Amulet&to=USDCx&amount=100&poolId=amulet-usdcx';
/** Far above any rate the bench reaches (the column is a 32-bit integer). */
export const BENCH_READS_PER_MIN = 1_000_000_000;

export interface QuoteBench {
  readonly load: PairedLoadSettings;
  readonly rounds: readonly PairedRound[];
  /** Each side's rounds together: mean rate, worst p99. */
  readonly baseline: LoadResult;
  readonly quotes: LoadResult;
  /** The median of the rounds' quote / bare ratios. */
  readonly ratio: number;
  readonly meetsTarget: boolean;
}

/** A route doing nothing but answer small JSON: what Fastify itself costs per request. */
async function startBareRoute(): Promise<{ url: string; close(): Promise<void> }> {
  const app = Fastify({ logger: false });
  app.get('/bare', async () => ({ ok: true }));
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url: `${url}/bare`, close: () => app.close() };
}

/**
 * The real service on embedded PGlite and the devnet ledger, logging nothing; `env` sets more
 * settings (the SSE bench's stream caps).
 */
export async function startQuietService(
  dataDir: string,
  env: Readonly<Record<string, string>> = {},
): Promise<RunningService> {
  const read = readSettings({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    POOLPARTY_DATA_DIR: dataDir,
    ...env,
  });
  if (!read.ok) throw new Error(read.errors.join('\n'));
  return startService(read.settings);
}

/** Lifts the bench key's read limit, so the rate measured is the service's, not its limiter's. */
export async function unthrottle(service: RunningService, apiKey: string): Promise<void> {
  const key = await findApiKeyByHash(service.ctx.db, hashApiKey(apiKey));
  if (key === null) throw new Error('the devnet API key is not in the store');
  await setApiKeyRateLimits(service.ctx.db, key.keyId, {
    readsPerMin: BENCH_READS_PER_MIN,
    swapsPerMin: null,
  });
}

export async function benchQuotes(
  load: PairedLoadSettings = DEFAULT_PAIRED_LOAD,
): Promise<QuoteBench> {
  const dataDir = mkdtempSync(join(tmpdir(), 'poolparty-bench-'));
  const bare = await startBareRoute();
  let service: RunningService | null = null;
  try {
    service = await startQuietService(dataDir);
    if (service.url === null || service.devnet === null) throw new Error('service not listening');
    const apiKey = service.devnet.apiKey;
    await unthrottle(service, apiKey);
    const quoteUrl = `${service.url}${QUOTE_PATH}`;
    const probe = await fetch(quoteUrl, { headers: { 'x-api-key': apiKey } });
    if (probe.status !== 200) throw new Error(`quote probe answered ${probe.status}`);
    const rounds = await measurePaired(
      { url: bare.url, headers: {} },
      { url: quoteUrl, headers: { 'x-api-key': apiKey } },
      load,
    );
    const ratio = pairedRatio(rounds);
    return {
      load,
      rounds,
      baseline: combinedLoad(rounds.map((round) => round.baseline)),
      quotes: combinedLoad(rounds.map((round) => round.subject)),
      ratio,
      meetsTarget: ratio >= QUOTE_TARGET_RATIO,
    };
  } finally {
    await service?.close();
    await bare.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function printQuoteBench(result: QuoteBench): void {
  const { load } = result;
  const rate = (r: LoadResult) =>
    `${Math.round(r.requestsPerS)} req/s (p99 ${r.latencyP99Ms} ms, ${r.requests} requests)`;
  console.log(
    `quotes: ${load.connections} connections, ${load.warmUpS} s warm-up each, then ${load.rounds} rounds of ${load.roundS} s bare + ${load.roundS} s quotes`,
  );
  console.log(`  bench key readsPerMin raised to ${BENCH_READS_PER_MIN} (no 429s in the run)`);
  console.log(`  bare Fastify route  ${rate(result.baseline)}`);
  console.log(`  GET ${QUOTE_PATH}  ${rate(result.quotes)}`);
  const perRound = result.rounds.map((round) =>
    percent(round.subject.requestsPerS / round.baseline.requestsPerS),
  );
  console.log(`  rounds: ${perRound.join(', ')} (the median is the figure)`);
  console.log(
    `  ${ratioLine('quote / bare', result.ratio, QUOTE_TARGET_RATIO, result.meetsTarget)}`,
  );
}

if (isMain(import.meta.url)) printQuoteBench(await benchQuotes());
