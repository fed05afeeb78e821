/**
 * Roles (docs/spec/running.md#roles-and-scale-out): an `api` process serves HTTP and settles
 * nothing; a `worker` settles (engine, snapshots, reconciliation) and answers only the operational
 * endpoints; among workers one at a time leads the ledger stream, ingesting and reconciling, and a
 * command is claimed before it is sent so that two workers do not both send it. Processes in roles
 * reach their ledger over the network: here the devnet ledger server, with `LEDGER=canton`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEngine } from '@poolparty/settlement';
import {
  type EngineHarness,
  registerSeedPools,
  TEST_ENGINE_SETTINGS,
  useEngineWorld,
  waitFor,
} from '@poolparty/settlement/testing';
import {
  claimCommand,
  getLedgerCommand,
  type LeaderTerm,
  openStore,
  recordLedgerCommand,
  type StreamLeadership,
} from '@poolparty/store';
import {
  createSchema,
  dropSchema,
  POSTGRES_URL,
  postgresSkipReason,
} from '@poolparty/store/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSettings } from '../src/config.js';
import { type RunningService, startService } from '../src/service.js';
import { issueApiKey, type ServedDevnet, serveSeededDevnet } from './support/devnet-ledger.js';
import { request } from './support/service.js';

const skipReason = await postgresSkipReason('roles suite on PostgreSQL');

interface Started {
  readonly service: RunningService;
  readonly url: string;
  readonly apiKey: string;
  readonly schema: string;
}

describe.skipIf(skipReason !== null)('a process started in a role, on PostgreSQL', () => {
  const started: Started[] = [];
  const dataDirs: string[] = [];
  // Processes in roles share a ledger they reach over the network: the devnet ledger server.
  let devnet: ServedDevnet;

  beforeAll(async () => {
    devnet = await serveSeededDevnet();
  });

  afterAll(async () => {
    for (const { service, schema } of started) {
      await service.close();
      await dropSchema(schema);
    }
    await devnet?.close();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  async function start(role: 'api' | 'worker'): Promise<Started> {
    const dataDir = mkdtempSync(join(tmpdir(), `pp-role-${role}-`));
    dataDirs.push(dataDir);
    const schema = await createSchema(`pp_role_${role}`);
    // The store an operator prepares: migrated, with the seeded pools and a developer key.
    const store = await openStore({ dataDir, databaseUrl: POSTGRES_URL, schema });
    const now = await devnet.ledger.now();
    let apiKey: string;
    try {
      await registerSeedPools(store, devnet.seed, now);
      apiKey = await issueApiKey(store, devnet.seed.developer.partyId, now);
    } finally {
      await store.close();
    }
    const result = readSettings({
      ...devnet.env,
      PORT: '0',
      LOG_LEVEL: 'silent',
      POOLPARTY_DATA_DIR: dataDir,
      POOLPARTY_ROLE: role,
      DATABASE_URL: POSTGRES_URL,
    });
    if (!result.ok) throw new Error(result.errors.join('\n'));
    const service = await startService(result.settings, { schema });
    const entry = { service, url: service.url ?? '', apiKey, schema };
    started.push(entry);
    return entry;
  }

  async function count(started: Started, sql: string): Promise<number> {
    const rows = await started.service.ctx.db.query<{ n: number }>(sql);
    return rows[0]?.n ?? -1;
  }

  /** Sessions holding an ingest lock of the schema (leadership.ts). */
  async function ingestLocks(schema: string): Promise<number> {
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    try {
      const result = await client.query(
        `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2
           AND objid::bigint = (hashtext($1)::bigint + 4294967296) % 4294967296`,
        [`${schema}:ledger`],
      );
      return result.rowCount ?? 0;
    } finally {
      await client.end();
    }
  }

  /** The channels the schema's processes LISTEN on, from their listening sessions. */
  async function listenedChannels(schema: string): Promise<string[]> {
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    try {
      const result = await client.query<{ channel: string }>(
        `SELECT substring(query from 'LISTEN "?([a-z_]+)') AS channel FROM pg_stat_activity
          WHERE application_name = $1 AND query LIKE 'LISTEN %'`,
        [`poolparty-listen:${schema}`],
      );
      return result.rows.map((row) => row.channel).sort();
    } finally {
      await client.end();
    }
  }

  it('worker: leads the stream, takes snapshots, and answers only the operational endpoints', async () => {
    const worker = await start('worker');
    // It serves no event streams, so it listens for none of their notifications.
    const channels = await listenedChannels(worker.schema);
    expect(channels).toContain('admin_changes');
    expect(channels).not.toContain('intent_events');
    expect(channels).not.toContain('liquidity_events');
    expect(channels).not.toContain('withdrawal_events');
    expect(channels).not.toContain('atomic_swap_events');

    await waitFor(async () => (await ingestLocks(worker.schema)) === 1, 'the ingest lock');
    expect(await count(worker, 'SELECT count(*)::int AS n FROM pool_snapshots')).toBeGreaterThan(0);
    expect((await request(worker.url, 'GET', '/healthz')).status).toBe(200);
    expect((await request(worker.url, 'GET', '/readyz')).status).toBe(200);
    expect((await request<string>(worker.url, 'GET', '/metrics')).status).toBe(200);
    for (const path of ['/v1/pools', '/v1/quotes', '/api/sdk/keys', '/docs/json']) {
      expect((await request(worker.url, 'GET', path, { apiKey: worker.apiKey })).status).toBe(404);
    }
    const devnet = await request(worker.url, 'POST', '/devnet/clock', { body: { advanceMs: 1 } });
    expect(devnet.status).toBe(404);
  });

  it('api: serves the client API, and neither ingests nor takes snapshots', async () => {
    const api = await start('api');
    const channels = await listenedChannels(api.schema);
    expect(channels).toEqual(
      expect.arrayContaining([
        'intent_events',
        'liquidity_events',
        'withdrawal_events',
        'atomic_swap_events',
      ]),
    );

    const pools = await request(api.url, 'GET', '/v1/pools', { apiKey: api.apiKey });
    expect(pools.status).toBe(200);
    expect((await request(api.url, 'GET', '/healthz')).status).toBe(200);
    expect(await ingestLocks(api.schema)).toBe(0);
    expect(await count(api, 'SELECT count(*)::int AS n FROM pool_snapshots')).toBe(0);
    expect(await count(api, 'SELECT count(*)::int AS n FROM ledger_offsets')).toBe(0);
  });
});

/** Leadership granted and taken away by the test, as a lock session would be. */
class HandedLeadership implements StreamLeadership {
  acquisitions = 0;
  private waiting: ((term: LeaderTerm | null) => void) | null = null;
  private current: AbortController | null = null;

  acquire(_stream: string, signal: AbortSignal): Promise<LeaderTerm | null> {
    this.acquisitions += 1;
    return new Promise((resolve) => {
      this.waiting = resolve;
      signal.addEventListener('abort', () => resolve(null), { once: true });
    });
  }

  get queued(): boolean {
    return this.waiting !== null;
  }

  grant(): void {
    const lost = new AbortController();
    this.current = lost;
    this.waiting?.({ lost: lost.signal, release: async () => {} });
    this.waiting = null;
  }

  revoke(): void {
    this.current?.abort(new Error('lock session ended'));
  }
}

describe('leading the ledger stream', () => {
  const world = useEngineWorld();
  let h: EngineHarness;

  it('a worker ingests and reconciles only while it leads, and queues again when it loses the lead', async () => {
    h = await world.harness();
    const leadership = new HandedLeadership();
    const worker = await startEngine({
      db: h.db,
      ledger: h.ledger,
      clock: h.clock,
      quoter: { invalidate: () => {} },
      settings: TEST_ENGINE_SETTINGS,
      leadership,
    });

    await waitFor(async () => leadership.queued, 'the worker to queue for the lead');
    expect(worker.leading).toBe(false);
    expect(await worker.reconcileNow()).toEqual({ runs: [], deferred: [], skipped: 'not_leading' });

    leadership.grant();
    const first = await h.createIntent(h.alice, h.amulet, '100');
    await h.deposit(h.alice, h.amulet, '100', { reference: first.depositReference });
    await h.waitForStatus(first.intentId, 'completed');
    expect(worker.leading).toBe(true);
    expect((await worker.reconcileNow()).runs.every((run) => run.ok)).toBe(true);

    leadership.revoke();
    await waitFor(async () => leadership.acquisitions === 2 && leadership.queued, 'a new queue');
    expect(worker.leading).toBe(false);
    const second = await h.createIntent(h.bob, h.amulet, '100');
    await h.deposit(h.bob, h.amulet, '100', { reference: second.depositReference });
    leadership.grant();
    await h.waitForStatus(second.intentId, 'completed');
    await worker.stop();
    await h.booksMatchLedger();
  });

  it('a command is claimed by one worker at a time, until its claim runs out', async () => {
    h = await world.harness();
    const intent = await h.createIntent(h.alice, h.amulet, '100');
    const now = h.clock.now();
    await recordLedgerCommand(h.db, {
      commandId: `${intent.intentId}:payout:0`,
      intentId: intent.intentId,
      depositId: null,
      leg: 'payout',
      attempt: 0,
      payload: {},
      createdAt: now,
    });
    const commandId = `${intent.intentId}:payout:0`;
    const until = new Date(now.getTime() + 60_000);

    const claims = await Promise.all([
      claimCommand(h.db, { commandId, now, until }),
      claimCommand(h.db, { commandId, now, until }),
    ]);
    const later = new Date(until.getTime() + 1);
    const afterExpiry = await claimCommand(h.db, { commandId, now: later, until: later });

    expect(claims.sort()).toEqual([false, true]);
    expect(afterExpiry).toBe(true);
    expect((await getLedgerCommand(h.db, commandId))?.status).toBe('recorded');
  });
});
