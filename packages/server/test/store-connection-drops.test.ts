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
import { waitFor } from '@poolparty/settlement/testing';
import {
  POSTGRES_URL,
  postgresSkipReason,
  schemaUrl,
  terminateSessionsNamed,
} from '@poolparty/store/testing';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  depositedSwaps,
  expectEachPaidOnce,
  settlementProgress,
  startWorkerProcess,
  WORKER_STARTUP_WAIT_MS,
  type WorkerProcess,
} from './support/worker-process.js';
import { openWorkerWorld, useWorkerWorlds } from './support/worker-world.js';

const SETTLE_WAIT_MS = 60_000;
const SWAPS = 40;
const POOL_ID = 'amulet-usdcx';
/** Passes of `pg_terminate_backend` over the worker's sessions while it settles. */
const DROP_PASSES = 12;
/** Pause between passes, drawn from this range: long enough for some work to land in between. */
const DROP_GAP_MS = { min: 80, max: 250 } as const;
const POLL_MS = 10;

const skipReason = await postgresSkipReason('store connection drops suite');

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const gap = () => DROP_GAP_MS.min + Math.random() * (DROP_GAP_MS.max - DROP_GAP_MS.min);

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
  async firstSessionsEnded(worker: WorkerProcess, timeoutMs: number): Promise<number> {
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
  terminateAll(): Promise<number> {
    return terminateSessionsNamed(this.admin, this.applicationName);
  }
}

describe.skipIf(skipReason !== null)('a worker whose store sessions keep being terminated', () => {
  const { running, opened } = useWorkerWorlds();
  const admin = new pg.Client({ connectionString: POSTGRES_URL });

  afterAll(async () => {
    await admin.end().catch(() => {});
  });

  it('stays up and settles every swap exactly once, the books equal to the holdings', async () => {
    const { db, devnet, dataDir, schema } = opened(await openWorkerWorld('drops'));
    await admin.connect();
    const swaps = await depositedSwaps(db, devnet, POOL_ID, SWAPS, '60');

    const applicationName = `${schema}_worker`;
    const url = new URL(schemaUrl(schema));
    url.searchParams.set('application_name', applicationName);
    const killer = new SessionKiller(admin, applicationName);
    // Not the world's own start: this worker's sessions carry the name the killer looks for.
    const worker = startWorkerProcess(dataDir, url.toString(), devnet.env);
    running.push(worker);

    // Once during the start: as soon as the worker has sessions open, all of them end.
    expect(await killer.firstSessionsEnded(worker, WORKER_STARTUP_WAIT_MS)).toBeGreaterThan(0);
    await worker.url;

    // Then pass after pass while the swaps settle.
    let ended = 0;
    let passesInFlight = 0;
    for (let pass = 0; pass < DROP_PASSES; pass += 1) {
      const seen = await settlementProgress(db);
      if (seen.done < seen.total) passesInFlight += 1;
      ended += await killer.terminateAll();
      await pause(gap());
    }
    expect(ended).toBeGreaterThan(DROP_PASSES);
    expect(passesInFlight).toBeGreaterThan(0);

    await waitFor(
      async () => (await settlementProgress(db)).done === SWAPS,
      'every swap to settle',
      SETTLE_WAIT_MS,
    );
    expect(worker.exits).toEqual([]);
    expect(worker.output()).not.toMatch(/unhandled|uncaught/i);
    await expectEachPaidOnce(db, devnet, POOL_ID, swaps);

    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  }, 180_000);
});
