/**
 * Where a quote's time goes: a CPU profile (for DevTools) of the service of quotes.ts under quote
 * load, which quotes.ts's figures cannot show. The load comes from a separate autocannon process,
 * so the profiled process does nothing but serve. `PROFILE_BARE=1` profiles the bare route
 * answering the quote's own bytes as well (quotes.ts's baseline), to set what Node and Fastify
 * spend sending those bytes apart from the service's work. Not part of `npm run bench`.
 *
 *   node --import tsx bench/quote-profile.ts [out.cpuprofile]
 *   (the profile goes to bench/results/quote.cpuprofile without a file name)
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import {
  QUOTE_PATH,
  recordQuote,
  startBareRoutes,
  startQuietService,
  unthrottle,
} from './quotes.js';

const run = promisify(execFile);
const AUTOCANNON = join(import.meta.dirname, '..', 'node_modules', '.bin', 'autocannon');
const CONNECTIONS = 10;
/** Discarded load before each profile: JIT, connection set-up, caches. */
const WARM_UP_S = 2;
const PROFILE_S = 5;
/** µs between samples: fine enough to see a hook of a few µs per request. */
const SAMPLING_INTERVAL_US = 200;

/** Requests per second offered (PACED_RATE): below saturation, every quote is answered alone. */
const pacedRate = process.env.PACED_RATE;

async function load(url: string, headers: Record<string, string>, seconds: number) {
  const args = ['--json', '-c', String(CONNECTIONS), '-d', String(seconds), url];
  if (pacedRate !== undefined) args.push('-R', pacedRate);
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}=${value}`);
  const { stdout } = await run(AUTOCANNON, args, { maxBuffer: 1 << 24 });
  const result = JSON.parse(stdout) as { '2xx': number; non2xx: number };
  if (result.non2xx > 0) throw new Error(`${url}: ${result.non2xx} non-2xx answers`);
  return result;
}

/** Warms `url` up, then profiles this process while it answers `PROFILE_S` seconds of load. */
async function profileUnderLoad(
  session: Session,
  url: string,
  headers: Record<string, string>,
  file: string,
): Promise<number> {
  await load(url, headers, WARM_UP_S);
  await session.post('Profiler.start');
  const profiled = await load(url, headers, PROFILE_S);
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(file, JSON.stringify(profile));
  return profiled['2xx'];
}

const out = process.argv[2] ?? join(import.meta.dirname, 'results', 'quote.cpuprofile');
mkdirSync(dirname(out), { recursive: true });
const dataDir = mkdtempSync(join(tmpdir(), 'poolparty-profile-'));
const service = await startQuietService(dataDir);
let closeBare = async () => {};
try {
  if (service.url === null || service.devnet === null) throw new Error('service not listening');
  await unthrottle(service, service.devnet.apiKey);
  const headers = { 'x-api-key': service.devnet.apiKey };
  const quoteUrl = `${service.url}${QUOTE_PATH}`;
  const bare = await startBareRoutes(await recordQuote(quoteUrl, headers));
  closeBare = () => bare.close();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: SAMPLING_INTERVAL_US });
  const quotes = await profileUnderLoad(session, quoteUrl, headers, out);
  console.log(`profile of ${quotes} quotes in ${out}`);
  if (process.env.PROFILE_BARE === '1') {
    const answers = await profileUnderLoad(session, bare.sameBytesUrl, {}, `${out}.bare`);
    console.log(`profile of ${answers} answers of the quote's bytes, bare, in ${out}.bare`);
  }
} finally {
  await service.close();
  await closeBare();
  rmSync(dataDir, { recursive: true, force: true });
}
