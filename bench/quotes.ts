/**
 * Quote throughput against a bare Fastify route answering the quote's own bytes (its body and
 * headers, replayed), on the same machine, in the same run: the target is quotes at ≥ 40 % of
 * that route and p99 ≤ 10 ms. Both send the same bytes, so the ratio is the service's work per
 * request (key, rate limit, hooks, pricing, guard) and not the cost of serialising and sending a
 * larger body than `{"ok":true}`. A route answering `{"ok":true}` is loaded too and its ratio
 * printed beside, with the server's CPU time per answer of each route.
 *
 *   node --import tsx bench/quotes.ts [--quick]   (--quick: three 1 s rounds, for a fast pass)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashApiKey, type RunningService, readSettings, startService } from '@poolparty/server';
import { findApiKeyByHash, setApiKeyRateLimits } from '@poolparty/store';
import Fastify from 'fastify';
import {
  combinedLoad,
  cpuUsPerAnswer,
  DEFAULT_ROUND_LOAD,
  type LoadResult,
  measureRounds,
  pairedRatio,
  QUICK_ROUND_LOAD,
  type RoundLoadSettings,
} from './load.js';
import { isMain, percent, ratioLine } from './report.js';

export const QUOTE_TARGET_RATIO = 0.4;
export const QUOTE_TARGET_P99_MS = 10;
export const QUOTE_PATH = '/v1/quotes?from=Amulet&to=USDCx&amount=100&poolId=amulet-usdcx';
/** Far above any rate the bench reaches (the column is a 32-bit integer). */
export const BENCH_READS_PER_MIN = 1_000_000_000;
/** Headers Node sets on every answer itself; the rest of a quote's are replayed. */
const NODE_HEADERS = new Set(['connection', 'keep-alive', 'date', 'content-length']);

/** One round: the three routes loaded one after the other, in this order. */
export interface QuoteRound {
  /** The bare route answering `{"ok":true}`: what Fastify itself costs per request. */
  readonly ok: LoadResult;
  /** The bare route answering the quote's own bytes: the target's baseline. */
  readonly sameBytes: LoadResult;
  readonly quote: LoadResult;
}

export interface QuoteBench {
  readonly load: RoundLoadSettings;
  readonly rounds: readonly QuoteRound[];
  /** The quote's answer as replayed: body length in bytes, the headers beyond Node's own. */
  readonly answer: { readonly bodyBytes: number; readonly headers: readonly string[] };
  /** Each route's rounds together: mean rate, worst p99, all its CPU time. */
  readonly ok: LoadResult;
  readonly sameBytes: LoadResult;
  readonly quotes: LoadResult;
  /** The median of the rounds' quote / same-bytes ratios: the target's figure. */
  readonly ratio: number;
  /** The median of the rounds' quote / `{"ok":true}` ratios, printed beside. */
  readonly okRatio: number;
  readonly meetsTarget: boolean;
}

/** A quote's answer as the load receives it: its body and the headers the service set. */
export interface RecordedAnswer {
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Asks for one quote and keeps its answer, for the bare route to replay byte for byte. */
export async function recordQuote(
  quoteUrl: string,
  headers: Record<string, string>,
): Promise<RecordedAnswer> {
  const answer = await fetch(quoteUrl, { headers });
  if (answer.status !== 200) throw new Error(`quote probe answered ${answer.status}`);
  const replayed: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    if (!NODE_HEADERS.has(name)) replayed[name] = value;
  });
  return { headers: replayed, body: await answer.text() };
}

export interface BareRoutes {
  /** Answers `{"ok":true}`. */
  readonly okUrl: string;
  /** Answers `quote`'s body with its headers. */
  readonly sameBytesUrl: string;
  close(): Promise<void>;
}

/** A Fastify app doing nothing but answer, as cheaply as Fastify can: the baselines. */
export async function startBareRoutes(quote: RecordedAnswer): Promise<BareRoutes> {
  const app = Fastify({ logger: false });
  app.get('/bare', async () => ({ ok: true }));
  app.get('/same-bytes', async (_request, reply) => reply.headers(quote.headers).send(quote.body));
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { okUrl: `${url}/bare`, sameBytesUrl: `${url}/same-bytes`, close: () => app.close() };
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

/**
 * Lifts the bench key's limits, reads and swap creations (an atomic swap's prepare among them),
 * so the rate measured is the service's, not its limiter's.
 */
export async function unthrottle(service: RunningService, apiKey: string): Promise<void> {
  const key = await findApiKeyByHash(service.ctx.db, hashApiKey(apiKey));
  if (key === null) throw new Error('the devnet API key is not in the store');
  await setApiKeyRateLimits(service.ctx.db, key.keyId, {
    readsPerMin: BENCH_READS_PER_MIN,
    swapsPerMin: BENCH_READS_PER_MIN,
  });
}

export async function benchQuotes(
  load: RoundLoadSettings = DEFAULT_ROUND_LOAD,
): Promise<QuoteBench> {
  const dataDir = mkdtempSync(join(tmpdir(), 'poolparty-bench-'));
  let service: RunningService | null = null;
  let bare: BareRoutes | null = null;
  try {
    service = await startQuietService(dataDir);
    if (service.url === null || service.devnet === null) throw new Error('service not listening');
    const headers = { 'x-api-key': service.devnet.apiKey };
    await unthrottle(service, service.devnet.apiKey);
    const quoteUrl = `${service.url}${QUOTE_PATH}`;
    const answer = await recordQuote(quoteUrl, headers);
    bare = await startBareRoutes(answer);
    const rounds: QuoteRound[] = await measureRounds(
      {
        ok: { url: bare.okUrl, headers: {} },
        sameBytes: { url: bare.sameBytesUrl, headers: {} },
        quote: { url: quoteUrl, headers },
      },
      load,
    );
    const against = (baseline: keyof QuoteRound) =>
      pairedRatio(rounds.map((round) => ({ baseline: round[baseline], subject: round.quote })));
    const ratio = against('sameBytes');
    const quotes = combinedLoad(rounds.map((round) => round.quote));
    return {
      load,
      rounds,
      answer: {
        bodyBytes: Buffer.byteLength(answer.body),
        headers: Object.keys(answer.headers),
      },
      ok: combinedLoad(rounds.map((round) => round.ok)),
      sameBytes: combinedLoad(rounds.map((round) => round.sameBytes)),
      quotes,
      ratio,
      okRatio: against('ok'),
      meetsTarget: ratio >= QUOTE_TARGET_RATIO && quotes.latencyP99Ms <= QUOTE_TARGET_P99_MS,
    };
  } finally {
    await service?.close();
    await bare?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function printQuoteBench(result: QuoteBench): void {
  const { load, answer } = result;
  const rate = (r: LoadResult) =>
    `${Math.round(r.requestsPerS)} req/s, p99 ${r.latencyP99Ms} ms, ${cpuUsPerAnswer(r).toFixed(1)} µs CPU per answer (${r.requests} requests)`;
  console.log(
    `quotes: ${load.connections} connections, ${load.warmUpS} s warm-up each, then ${load.rounds} rounds of ${load.roundS} s on each route in turn`,
  );
  console.log(`  bench key readsPerMin raised to ${BENCH_READS_PER_MIN} (no 429s in the run)`);
  console.log(
    `  the quote's answer, replayed by the bare route: ${answer.bodyBytes}-byte body, ${answer.headers.length} headers beyond Node's own (${answer.headers.join(', ')})`,
  );
  const routes: [string, LoadResult][] = [
    ['bare route, {"ok":true}', result.ok],
    ["bare route, the quote's bytes", result.sameBytes],
    [`GET ${QUOTE_PATH}`, result.quotes],
  ];
  const width = Math.max(...routes.map(([name]) => name.length));
  for (const [name, r] of routes) console.log(`  ${name.padEnd(width)}  ${rate(r)}`);
  const perRound = result.rounds.map((round) =>
    percent(round.quote.requestsPerS / round.sameBytes.requestsPerS),
  );
  console.log(`  rounds, quote / its bytes: ${perRound.join(', ')} (the median is the figure)`);
  const ratioMet = result.ratio >= QUOTE_TARGET_RATIO;
  console.log(`  ${ratioLine('quote / its bytes', result.ratio, QUOTE_TARGET_RATIO, ratioMet)}`);
  const p99Met = result.quotes.latencyP99Ms <= QUOTE_TARGET_P99_MS;
  console.log(
    `  quote p99 = ${result.quotes.latencyP99Ms} ms (target ≤ ${QUOTE_TARGET_P99_MS} ms: ${p99Met ? 'met' : 'NOT met'})`,
  );
  console.log(`  quote / {"ok":true} = ${percent(result.okRatio)} (shown beside, not judged)`);
  const beyondBytes = cpuUsPerAnswer(result.quotes) - cpuUsPerAnswer(result.sameBytes);
  console.log(`  the service's work beyond its bytes: ${beyondBytes.toFixed(1)} µs CPU per quote`);
}

if (isMain(import.meta.url)) {
  const quick = process.argv.includes('--quick');
  printQuoteBench(await benchQuotes(quick ? QUICK_ROUND_LOAD : DEFAULT_ROUND_LOAD));
}
