/**
 * Where a quote's time goes: the service of quotes.ts and the bare Fastify route, each loaded
 * from a separate autocannon process, with the server's CPU time per answer (process CPU over
 * answers: on a shared machine a steadier figure than requests/s, since it does not count the
 * time spent waiting for a core) and a CPU profile of the quote run for DevTools.
 * Not part of `npm run bench`.
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
/** The bare route and the service under the same load, then a profile of the quote load. */
async function underLoad(bareUrl: string, quoteUrl: string, headers: Record<string, string>) {
  const b = await measure(bareUrl, {});
  const q = await measure(quoteUrl, headers);
  show('bare', b);
  show('quote', q);
  console.log(
    `ratio ${((100 * q.requestsPerS) / b.requestsPerS).toFixed(1)} % by req/s, ${((100 * b.cpuUsPerAnswer) / q.cpuUsPerAnswer).toFixed(1)} % by CPU per answer`,
  );
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
bare.get('/bare', async () => ({ ok: true }));
const bareUrl = `${await bare.listen({ host: '127.0.0.1', port: 0 })}/bare`;
const service = await startQuietService(dataDir);
try {
  if (service.url === null || service.devnet === null) throw new Error('service not listening');
  await unthrottle(service, service.devnet.apiKey);
  const headers = { 'x-api-key': service.devnet.apiKey };
  await underLoad(bareUrl, `${service.url}${QUOTE_PATH}`, headers);
} finally {
  await service.close();
  await bare.close();
  rmSync(dataDir, { recursive: true, force: true });
}
