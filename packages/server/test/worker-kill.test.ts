/**
 * A worker killed mid-settlement (SPEC §7.4, §11): `poolparty serve` with `POOLPARTY_ROLE=worker`
 * on PostgreSQL is SIGKILLed while swaps are settling, and a fresh worker on the same store
 * finishes them: every swap ends once and is paid once.
 *
 * The workers reach the seeded devnet ledger over the network (`LEDGER=canton` against the devnet
 * ledger server this test serves), as they would a participant. The swaps are set up before the
 * first worker starts, so that it finds them all in flight; the final balances are read from the
 * served ledger.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Amount } from '@poolparty/core';
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
const STARTUP_WAIT_MS = 30_000;
const SETTLE_WAIT_MS = 30_000;
const SWAPS = 40;
const POOL_ID = 'amulet-usdcx';

const skipReason = await postgresSkipReason('worker-kill suite');

interface Worker {
  readonly child: ChildProcess;
  readonly url: string;
  readonly exited: Promise<number | null>;
  readonly output: () => string;
}

function startWorker(dataDir: string, schema: string, ledgerEnv: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve', '--port', '0'], {
    env: {
      ...process.env,
      ...ledgerEnv,
      POOLPARTY_DATA_DIR: dataDir,
      POOLPARTY_ROLE: 'worker',
      DATABASE_URL: schemaUrl(schema),
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return new Promise<Worker>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner:\n${output}`)), STARTUP_WAIT_MS);
    void exited.then((code) => reject(new Error(`exited with ${code}:\n${output}`)));
    // The banner is on stderr when stdout carries JSON logs (not a terminal), else on stdout.
    const read = (chunk: Buffer) => {
      output += chunk;
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ child, url, exited, output: () => output });
      }
    };
    child.stderr?.on('data', read);
    child.stdout?.on('data', read);
  });
}

async function stopWorker(worker: Worker, signal: NodeJS.Signals): Promise<number | null> {
  worker.child.kill(signal);
  return worker.exited;
}

async function progress(db: Database): Promise<{ done: number; total: number }> {
  const rows = await db.query<{ done: number; total: number }>(
    `SELECT count(*) FILTER (WHERE status = 'completed')::int AS done, count(*)::int AS total
     FROM intents`,
  );
  return rows[0] ?? { done: 0, total: 0 };
}

describe.skipIf(skipReason !== null)('a worker killed mid-settlement', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'pp-worker-kill-'));
  let schema: string | null = null;
  let db: Database | null = null;
  let devnet: ServedDevnet | null = null;
  const running: Worker[] = [];

  afterAll(async () => {
    for (const worker of running) worker.child.kill('SIGKILL');
    await db?.close();
    await devnet?.close();
    if (schema) await dropSchema(schema);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is replaced by a fresh worker that settles every swap once, paid once', async () => {
    schema = await createSchema('pp_kill');
    devnet = await serveSeededDevnet();
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

    // A worker answers probes only, and settles.
    const victim = await startWorker(dataDir, schema, devnet.env);
    running.push(victim);
    expect((await fetch(`${victim.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${victim.url}/v1/pools`)).status).toBe(404);
    const atKill = await waitFor(
      async () => {
        const seen = await progress(db as Database);
        return seen.done >= 1 && seen.done < seen.total ? seen : null;
      },
      'settlement to be under way',
      SETTLE_WAIT_MS,
    ).finally(() => victim.child.kill('SIGKILL'));
    expect(await victim.exited).toBeNull();
    expect(atKill.done).toBeLessThan(SWAPS);

    const successor = await startWorker(dataDir, schema, devnet.env);
    running.push(successor);
    await waitFor(
      async () => (await progress(db as Database)).done === SWAPS,
      'the successor to settle every swap',
      SETTLE_WAIT_MS,
    );
    expect(await stopWorker(successor, 'SIGTERM')).toBe(0);

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
  }, 90_000);
});
