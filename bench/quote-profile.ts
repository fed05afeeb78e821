/**
 * Where a quote's time goes: the service of quotes.ts and the bare Fastify route, each loaded
 * from a separate autocannon process, with the server's CPU time per answer (process CPU over
 * answers: on a shared machine a steadier figure than requests/s, since it does not count the
 * time spent waiting for a core) and a CPU profile of the quote run for DevTools.
 * A third route answers the quote's own bytes (its body and headers, replayed) as cheaply as
 * Fastify can, so the quote's cost beyond the bytes it sends shows apart. Not part of
 * `npm run bench`.
 *
 *   node --import tsx bench/quote-profile.ts [out.cpuprofile]   (no profile without a file name)
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Fastify from 'fastify';
import { QUOTE_PATH, startQuietService, unthrottle } from './quotes.js';

const run = promisify(execFile);
const AUTOCANNON = join(import.meta.dirname, '..', 'node_modules', '.bin', 'autocannon');

interface Measured {
  readonly requestsPerS: number;
  readonly p99Ms: number;
  readonly cpuUsPerAnswer: number;
}

/** Requests per second offered (PACED_RATE): below saturation, every quote is answered alone. */
const pacedRate = process.env.PACED_RATE;

async function load(url: string, headers: Record<string, string>, seconds: number) {
  const args = ['--json', '-c', '10', '-d', String(seconds), url];
  if (pacedRate !== undefined) args.push('-R', pacedRate);
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}=${value}`);
  const { stdout } = await run(AUTOCANNON, args, { maxBuffer: 1 << 24 });
  return JSON.parse(stdout) as {
    '2xx': number;
    non2xx: number;
    requests: { average: number };
    latency: { p99: number };
  };
}

async function measure(url: string, headers: Record<string, string>): Promise<Measured> {
  await load(url, headers, 2);
  const before = process.cpuUsage();
  const result = await load(url, headers, 5);
  const cpu = process.cpuUsage(before);
  if (result.non2xx > 0) throw new Error(`${url}: ${result.non2xx} non-2xx answers`);
  return {
    requestsPerS: result.requests.average,
    p99Ms: result.latency.p99,
    cpuUsPerAnswer: (cpu.user + cpu.system) / result['2xx'],
  };
}

const show = (name: string, m: Measured) =>
  console.log(
    `${name.padEnd(6)} ${Math.round(m.requestsPerS)} req/s, p99 ${m.p99Ms} ms, ${m.cpuUsPerAnswer.toFixed(1)} µs CPU per answer`,
  );

const out = process.argv[2];
const dataDir = mkdtempSync(join(tmpdir(), 'poolparty-profile-'));
/** Headers Node sets on every answer itself; the rest of a quote's are replayed. */
const NODE_HEADERS = new Set(['connection', 'keep-alive', 'date', 'content-length']);

/**
 * The quote's own answer, replayed by the bare route (`/same-bytes`): its body and its headers,
 * byte for byte. What a quote costs beyond that is the service's work, not the bytes it sends.
 */
async function recordQuote(quoteUrl: string, headers: Record<string, string>) {
  const answer = await fetch(quoteUrl, { headers });
  if (answer.status !== 200) throw new Error(`quote probe answered ${answer.status}`);
  const replayed: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    if (!NODE_HEADERS.has(name)) replayed[name] = value;
  });
  return { headers: replayed, body: await answer.text() };
}

const ratio = (part: Measured, whole: Measured) =>
  `${((100 * part.requestsPerS) / whole.requestsPerS).toFixed(1)} % by req/s, ${((100 * whole.cpuUsPerAnswer) / part.cpuUsPerAnswer).toFixed(1)} % by CPU per answer`;

/** The bare route and the service under the same load, then a profile of the quote load. */
async function underLoad(bareUrl: string, quoteUrl: string, headers: Record<string, string>) {
  const b = await measure(bareUrl, {});
  const same = await measure(bareUrl.replace(/\/bare$/, '/same-bytes'), {});
  const q = await measure(quoteUrl, headers);
  show('bare', b);
  show('bytes', same);
  show('quote', q);
  console.log(`quote / bare: ${ratio(q, b)}`);
  console.log(`quote / the quote's bytes from a bare route: ${ratio(q, same)}`);
  if (out === undefined) return;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  const profiled = await load(quoteUrl, headers, 5);
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(out, JSON.stringify(profile));
  console.log(`profile of ${profiled['2xx']} quotes in ${out}`);
  if (process.env.PROFILE_BARE === '1') {
    await session.post('Profiler.start');
    const bareProfiled = await load(bareUrl, {}, 5);
    const bareProfile = await session.post('Profiler.stop');
    writeFileSync(`${out}.bare`, JSON.stringify(bareProfile.profile));
    console.log(`profile of ${bareProfiled['2xx']} bare answers in ${out}.bare`);
  }
}

const bare = Fastify({ logger: false });
const service = await startQuietService(dataDir);
try {
  if (service.url === null || service.devnet === null) throw new Error('service not listening');
  await unthrottle(service, service.devnet.apiKey);
  const headers = { 'x-api-key': service.devnet.apiKey };
  const quoteUrl = `${service.url}${QUOTE_PATH}`;
  const quote = await recordQuote(quoteUrl, headers);
  bare.get('/bare', async () => ({ ok: true }));
  bare.get('/same-bytes', async (_request, reply) => reply.headers(quote.headers).send(quote.body));
  const bareUrl = `${await bare.listen({ host: '127.0.0.1', port: 0 })}/bare`;
  await underLoad(bareUrl, quoteUrl, headers);
} finally {
  await service.close();
  await bare.close();
  rmSync(dataDir, { recursive: true, force: true });
}
