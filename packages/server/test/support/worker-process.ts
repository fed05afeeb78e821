/**
 * A settlement worker as an operator runs one: `poolparty serve` with `POOLPARTY_ROLE=worker` on
 * PostgreSQL, in a process of its own, reaching the devnet ledger served over the network; and
 * the swaps it is given to settle, set up before it starts so that it finds them all in flight,
 * then checked once settled: each completed and paid exactly once, the books equal to the
 * holdings.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Instrument } from '@poolparty/core';
import {
  allUpdates,
  balanceOf,
  booksAndHoldings,
  createPricedIntent,
  depositFor,
  fundedParties,
  transfersByReason,
} from '@poolparty/settlement/testing';
import { type Database, getIntent, type IntentRecord, listIntentEvents } from '@poolparty/store';
import { recordedAmount } from '@poolparty/store/testing';
import { expect } from 'vitest';
import type { ServedDevnet } from './devnet-ledger.js';

const CLI = join(import.meta.dirname, '../../src/cli.ts');
/** A start on a busy two-core machine, migrations and ledger connection included. */
export const WORKER_STARTUP_WAIT_MS = 60_000;

export interface WorkerProcess {
  readonly child: ChildProcess;
  /** Exit codes seen so far (a signal counts as null). */
  readonly exits: readonly (number | null)[];
  readonly exited: Promise<number | null>;
  /** Its base URL once its banner is out; rejects if it exits or stays silent first. */
  readonly url: Promise<string>;
  readonly output: () => string;
}

/**
 * `poolparty serve` as a worker on the store at `databaseUrl`, with `env` (the ledger's settings,
 * and any other) added last: `POOLPARTY_ROLE: 'api'` there makes it an api process instead.
 */
export function startWorkerProcess(
  dataDir: string,
  databaseUrl: string,
  env: Readonly<Record<string, string>>,
): WorkerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve', '--port', '0'], {
    env: {
      ...process.env,
      POOLPARTY_DATA_DIR: dataDir,
      POOLPARTY_ROLE: 'worker',
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exits: (number | null)[] = [];
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      exits.push(code);
      resolve(code);
    }),
  );
  const url = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no banner:\n${output}`)),
      WORKER_STARTUP_WAIT_MS,
    );
    void exited.then((code) => reject(new Error(`exited with ${code}:\n${output}`)));
    // The banner is on stderr when stdout carries JSON logs (not a terminal), else on stdout.
    const read = (chunk: Buffer) => {
      output += chunk;
      const found = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    };
    child.stderr?.on('data', read);
    child.stdout?.on('data', read);
  });
  // A caller may look at `exits` before it waits for the banner: no unhandled rejection then.
  url.catch(() => {});
  return { child, exits, exited, url, output: () => output };
}

/** Swaps completed so far, of all intents. */
export async function settlementProgress(db: Database): Promise<{ done: number; total: number }> {
  const rows = await db.query<{ done: number; total: number }>(
    `SELECT count(*) FILTER (WHERE status = 'completed')::int AS done, count(*)::int AS total
     FROM intents`,
  );
  return rows[0] ?? { done: 0, total: 0 };
}

export interface DepositedSwaps {
  readonly intents: readonly IntentRecord[];
  readonly input: Instrument;
  readonly output: Instrument;
}

/** `swaps` intents of new parties on the pool, each with its deposit already on the ledger. */
export async function depositedSwaps(
  db: Database,
  devnet: ServedDevnet,
  poolId: string,
  swaps: number,
  amount: string,
): Promise<DepositedSwaps> {
  const { ledger, seed } = devnet;
  const pool = seed.pools.find((p) => p.poolId === poolId);
  if (!pool) throw new Error(`no ${poolId} in the seed`);
  const { tokenA: input, tokenB: output } = pool;
  const now = await ledger.now();
  const intents: IntentRecord[] = [];
  for (const party of await fundedParties(ledger, swaps, [input, output], input, amount)) {
    const request = { poolId, party, input, amount, developerParty: seed.developer.partyId, now };
    intents.push(await createPricedIntent(db, ledger, request));
  }
  for (const intent of intents) await depositFor(ledger, intent, input);
  return { intents, input, output };
}

/**
 * Every swap completed and paid exactly once, never refunded, each wallet holding what its
 * swap says it was paid, no state entered twice; and the pool's books equal its holdings.
 */
export async function expectEachPaidOnce(
  db: Database,
  devnet: ServedDevnet,
  poolId: string,
  swaps: DepositedSwaps,
): Promise<void> {
  const { ledger } = devnet;
  const byReason = transfersByReason(await allUpdates(ledger));
  for (const intent of swaps.intents) {
    const done = await getIntent(db, intent.intentId);
    expect(done?.status).toBe('completed');
    expect(byReason.get(`payout:${intent.intentId}`)).toBe(1);
    expect(byReason.has(`refund:${intent.intentId}`)).toBe(false);
    expect(await balanceOf(ledger, intent.walletParty, swaps.output)).toEqual(
      recordedAmount(done?.actualOutput),
    );
    const states = (await listIntentEvents(db, intent.intentId)).map((event) => event.status);
    expect(new Set(states).size).toBe(states.length);
  }
  const { books, holdings } = await booksAndHoldings(db, ledger, poolId);
  expect(holdings).toEqual(books);
}
