/**
 * A worker whose PostgreSQL sessions are terminated again and again while it settles: once while
 * it starts, then repeatedly during a burst of swaps (`pg_terminate_backend`, as a failover, a
 * restarted pooler or an idle-session timeout would end them). The process never exits, every
 * swap ends exactly once and is paid once, and the books equal the ledger's holdings.
 *
 * The worker runs as `poolparty serve` in a process of its own, on the devnet ledger served over
 * the network (`LEDGER=canton`), as in the worker-kill suite. Its sessions carry an
 * `application_name` of this test's own (set in its `DATABASE_URL`), so that only they are ended
 * and not those of suites running beside it on the same server.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Amount } from '@poolparty/core';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type Database,
  getIntent,
  type IntentRecord,
  listIntentEvents,
  openStore,
} from '../src/store/index.js';
import { type ServedDevnet, serveSeededDevnet } from './support/devnet-ledger.js';
import { waitFor } from './support/engine.js';
import {
  createSchema,
  dropSchema,
  POSTGRES_URL,
  postgresSkipReason,
  schemaUrl,
} from './support/postgres.js';
import {
  allUpdates,
  balanceOf,
  booksAndHoldings,
  createPricedIntent,
  depositFor,
  fundedParties,
  registerSeed,
  transfersByReason,
} from './support/scale-out.js';

const CLI = join(import.meta.dirname, '../src/cli.ts');
const STARTUP_WAIT_MS = 60_000;
const SETTLE_WAIT_MS = 60_000;
const SWAPS = 40;
const POOL_ID = 'amulet-usdcx';
/** Passes of `pg_terminate_backend` over the worker's sessions while it settles. */
const DROP_PASSES = 12;
/** Pause between passes, drawn from this range: long enough for some work to land in between. */
const DROP_GAP_MS = { min: 80, max: 250 } as const;
const POLL_MS = 10;

const skipReason = await postgresSkipReason('store connection drops suite');

interface Worker {
  readonly child: ChildProcess;
  readonly exits: number[];
  readonly output: () => string;
  readonly banner: Promise<string>;
}

function startWorker(dataDir: string, databaseUrl: string, ledgerEnv: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve', '--port', '0'], {
    env: {
      ...process.env,
      ...ledgerEnv,
      POOLPARTY_DATA_DIR: dataDir,
      POOLPARTY_ROLE: 'worker',
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exits: number[] = [];
  child.on('exit', (code, signal) => exits.push(code ?? (signal === null ? -1 : -2)));
  const banner = new Promise<string>((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`exited with ${code}:\n${output}`)));
    const read = (chunk: Buffer) => {
      output += chunk;
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (url) resolve(url);
    };
    child.stderr?.on('data', read);
    child.stdout?.on('data', read);
  });
  // Awaited only after the start's sessions were ended; an exit before that shows in `exits`.
  banner.catch(() => {});
  return { child, exits, output: () => output, banner } satisfies Worker;
}

/** The worker's sessions, found by the application name its `DATABASE_URL` gives them all. */
class SessionKiller {
  constructor(
    private readonly admin: pg.Client,
    private readonly applicationName: string,
  ) {}

  async count(): Promise<number> {
    const rows = await this.admin.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1',
      [this.applicationName],
    );
    return rows.rows[0]?.n ?? 0;
  }

  /** Waits for the worker's first sessions, polling closely, and ends them. */
  async firstSessionsEnded(worker: Worker, timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (worker.exits.length > 0) throw new Error(`the worker exited:\n${worker.output()}`);
      const ended = (await this.count()) > 0 ? await this.terminateAll() : 0;
      if (ended > 0) return ended;
      await pause(POLL_MS);
    }
    throw new Error('the worker opened no session in time');
  }

  /** Ends every session of the worker; returns how many were ended. */
  async terminateAll(): Promise<number> {
    const rows = await this.admin.query<{ ended: boolean }>(
      `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
       WHERE application_name = $1 AND pid <> pg_backend_pid()`,
      [this.applicationName],
    );
    return rows.rows.filter((row) => row.ended).length;
  }
}

async function progress(db: Database): Promise<{ done: number; total: number }> {
  const rows = await db.query<{ done: number; total: number }>(
    `SELECT count(*) FILTER (WHERE status = 'completed')::int AS done, count(*)::int AS total
     FROM intents`,
  );
  return rows[0] ?? { done: 0, total: 0 };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const gap = () => DROP_GAP_MS.min + Math.random() * (DROP_GAP_MS.max - DROP_GAP_MS.min);

describe.skipIf(skipReason !== null)('a worker whose store sessions keep being terminated', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'pp-store-drops-'));
  let schema: string | null = null;
  let db: Database | null = null;
  let devnet: ServedDevnet | null = null;
  let worker: Worker | null = null;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });

  afterAll(async () => {
    worker?.child.kill('SIGKILL');
    await admin.end().catch(() => {});
    await db?.close();
    await devnet?.close();
    if (schema) await dropSchema(schema);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stays up and settles every swap exactly once, the books equal to the holdings', async () => {
    schema = await createSchema('pp_drops');
    devnet = await serveSeededDevnet();
    await admin.connect();
    const { ledger, seed } = devnet;
    db = await openStore({ dataDir, databaseUrl: POSTGRES_URL, schema });
    const pool = seed.pools.find((p) => p.poolId === POOL_ID);
    if (!pool) throw new Error(`no ${POOL_ID} in the seed`);
    const { tokenA: amulet, tokenB: usdcx } = pool;
    const now = await ledger.now();
    await registerSeed(db, seed, now);
    const intents: IntentRecord[] = [];
    const parties = await fundedParties(ledger, SWAPS, [amulet, usdcx], amulet, '60');
    for (const party of parties) {
      const request = { poolId: POOL_ID, party, input: amulet, amount: '60' };
      const developerParty = seed.developer.partyId;
      intents.push(await createPricedIntent(db, ledger, { ...request, developerParty, now }));
    }
    for (const intent of intents) await depositFor(ledger, intent, amulet);

    const applicationName = `${schema}_worker`;
    const url = new URL(schemaUrl(schema));
    url.searchParams.set('application_name', applicationName);
    const killer = new SessionKiller(admin, applicationName);
    worker = startWorker(dataDir, url.toString(), devnet.env);

    // Once during the start: as soon as the worker has sessions open, all of them end.
    const endedAtStart = await killer.firstSessionsEnded(worker, STARTUP_WAIT_MS);
    expect(endedAtStart).toBeGreaterThan(0);
    await worker.banner;

    // Then pass after pass while the swaps settle.
    let ended = 0;
    let passesInFlight = 0;
    for (let pass = 0; pass < DROP_PASSES; pass += 1) {
      const seen = await progress(db);
      if (seen.done < seen.total) passesInFlight += 1;
      ended += await killer.terminateAll();
      await pause(gap());
    }
    expect(ended).toBeGreaterThan(DROP_PASSES);
    expect(passesInFlight).toBeGreaterThan(0);

    await waitFor(
      async () => (await progress(db as Database)).done === SWAPS,
      'every swap to settle',
      SETTLE_WAIT_MS,
    );
    expect(worker.exits).toEqual([]);
    expect(worker.output()).not.toMatch(/unhandled|uncaught/i);

    const byReason = transfersByReason(await allUpdates(ledger));
    for (const intent of intents) {
      const done = await getIntent(db, intent.intentId);
      expect(done?.status).toBe('completed');
      expect(byReason.get(`payout:${intent.intentId}`)).toBe(1);
      expect(byReason.has(`refund:${intent.intentId}`)).toBe(false);
      expect(await balanceOf(ledger, intent.walletParty, usdcx)).toEqual(
        Amount.parse(done?.actualOutput ?? ''),
      );
      const states = (await listIntentEvents(db, intent.intentId)).map((event) => event.status);
      expect(new Set(states).size).toBe(states.length);
    }
    const { books, holdings } = await booksAndHoldings(db, ledger, POOL_ID);
    expect(holdings).toEqual(books);

    worker.child.kill('SIGTERM');
    await waitFor(async () => worker?.exits.length === 1, 'the worker to stop', SETTLE_WAIT_MS);
    expect(worker.exits).toEqual([0]);
  }, 180_000);
});
