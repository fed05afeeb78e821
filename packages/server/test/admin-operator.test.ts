/**
 * `poolparty admin discounts | keys | pools | audit` against a running service on PostgreSQL:
 * the CLI runs as a process of its own, as an operator runs it, and what it changes shows in the
 * service's answers within moments (the audit row's notification makes the service re-read),
 * is undone as promised, and is recorded with who did it.
 */
import { waitFor } from '@poolparty/settlement/testing';
import {
  createSchema,
  dropSchema,
  POSTGRES_URL,
  postgresSkipReason,
  schemaUrl,
} from '@poolparty/store/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../src/service.js';
import { type CliRun, runCli } from './support/cli.js';
import {
  expectProblem,
  type JsonResponse,
  request,
  STARTUP_TIMEOUT_MS,
  startPostgresTestService,
  type TestService,
  walletTokenFor,
} from './support/service.js';

const skipReason = await postgresSkipReason('admin operator suite on PostgreSQL');

/** Each test runs the CLI a few times; each run is a whole process loading the store modules. */
const CLI_TESTS_TIMEOUT_MS = 120_000;
const ACTOR = 'ops-oncall';

interface QuoteBody {
  readonly networkFeePolicy: Record<string, unknown> | null;
  readonly platformFeePolicy: Record<string, unknown> | null;
}

describe.skipIf(skipReason !== null)('poolparty admin on a running service (PostgreSQL)', () => {
  let t: TestService | null = null;
  let service: RunningService;
  let url: string;
  let apiKey: string;
  let schema: string;
  let heard = 0;

  /** `poolparty admin …` as a separate process on the service's database. */
  async function admin(...args: string[]): Promise<CliRun> {
    return runCli(['admin', ...args], { DATABASE_URL: schemaUrl(schema) });
  }

  async function adminOk(...args: string[]): Promise<string> {
    const run = await admin(...args);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    return run.stdout;
  }

  const quote = () =>
    request<QuoteBody>(
      url,
      'GET',
      '/v1/quotes?from=Amulet&to=USDCx&amount=1000&poolId=amulet-usdcx',
      {
        apiKey,
      },
    );

  async function auditRows(): Promise<{ actor: string; action: string; subject: string }[]> {
    const client = new pg.Client({ connectionString: schemaUrl(schema) });
    await client.connect();
    try {
      const result = await client.query(
        'SELECT actor, action, subject FROM admin_audit ORDER BY id',
      );
      return result.rows;
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    const started = await startPostgresTestService('pp_admin');
    t = started;
    ({ service, url, apiKey, schema } = started);
    service.ctx.adminChanges.subscribe(() => {
      heard++;
    });
  }, STARTUP_TIMEOUT_MS);

  afterAll(async () => {
    await t?.close();
  });

  it(
    'a discount added by the CLI shows in the next quotes, and removing it restores the full fee',
    async () => {
      const before = await quote();
      expect(before.status).toBe(200);
      expect(before.body).toMatchObject({ networkFeePolicy: null, platformFeePolicy: null });

      const heardBefore = heard;
      const added = await adminOk(
        'discounts',
        'add',
        '--pool',
        'amulet-usdcx',
        '--network-charge-bps',
        '5000',
        '--platform-charge-bps',
        '7000',
        '--actor',
        ACTOR,
      );
      const id = /^added discount (\d+)\t/.exec(added)?.[1];
      expect(id).toBeDefined();
      expect(added).toContain('network 5000 bps (50 % off)\tplatform 7000 bps (30 % off)');

      const discounted = await waitFor(async () => {
        const answer = await quote();
        return answer.body.networkFeePolicy !== null ? answer : null;
      }, 'the discount in a quote');
      expect(discounted.body.networkFeePolicy).toMatchObject({
        targetType: 'pool',
        chargeBps: 5000,
      });
      expect(discounted.body.platformFeePolicy).toMatchObject({
        targetType: 'pool',
        chargeBps: 7000,
        discountBps: 3000,
      });
      // The service heard of it from the store, not only by re-reading on its own schedule.
      expect(heard).toBeGreaterThan(heardBefore);

      expect(await adminOk('discounts', 'list')).toContain(`discount ${id}\tpool amulet-usdcx`);
      expect(await adminOk('discounts', 'remove', String(id), '--actor', ACTOR)).toMatch(
        new RegExp(`^removed discount ${id}\\t`),
      );
      await waitFor(async () => {
        const answer = await quote();
        return answer.body.networkFeePolicy === null && answer.body.platformFeePolicy === null;
      }, 'the full fee again');
      expect(await adminOk('discounts', 'list')).toBe('no discounts\n');
    },
    CLI_TESTS_TIMEOUT_MS,
  );

  it(
    'refuses a discount that names no existing target or no charge, storing nothing',
    async () => {
      const noPool = await admin(
        'discounts',
        'add',
        '--pool',
        'no-such-pool',
        '--network-charge-bps',
        '5000',
      );
      expect(noPool).toMatchObject({ code: 1, stderr: 'poolparty: no pool no-such-pool\n' });
      const noCharge = await admin('discounts', 'add', '--pool', 'amulet-usdcx');
      expect(noCharge).toMatchObject({
        code: 1,
        stderr: 'poolparty: give --network-charge-bps and/or --platform-charge-bps\n',
      });
      const badBps = await admin(
        'discounts',
        'add',
        '--pool',
        'amulet-usdcx',
        '--network-charge-bps',
        '50%',
      );
      expect(badBps.stderr).toBe(
        'poolparty: --network-charge-bps must be a whole number of basis points from 0 to 10000 (got "50%")\n',
      );
      expect(await adminOk('discounts', 'list', '--all')).toContain('no discounts');
    },
    CLI_TESTS_TIMEOUT_MS,
  );

  it(
    "a key's read limit set by the CLI limits the next requests; default restores it",
    async () => {
      const prefix = apiKey.slice(0, 12);
      expect(await adminOk('keys', 'limits', prefix)).toMatch(
        /: reads 1200\/min \(default\), creates 60\/min \(default\)\n$/,
      );
      expect(await adminOk('keys', 'limits', prefix, '--read', '2', '--actor', ACTOR)).toMatch(
        /: reads 2\/min, creates 60\/min \(default\)\n$/,
      );
      const pools = () => request(url, 'GET', '/v1/pools', { apiKey });
      await waitFor(
        async () => (await pools()).headers.get('ratelimit-limit') === '2',
        'the new read limit',
      );
      let limited: JsonResponse | null = null;
      for (let i = 0; i < 3 && limited === null; i++) {
        const answer = await pools();
        if (answer.status === 429) limited = answer;
      }
      if (limited === null) throw new Error('three reads at 2 per minute were all allowed');
      expectProblem(limited, 429, 'rate_limited');

      await adminOk('keys', 'limits', prefix, '--read', 'default', '--actor', ACTOR);
      await waitFor(
        async () => (await pools()).headers.get('ratelimit-limit') === '1200',
        'the default read limit',
      );
    },
    CLI_TESTS_TIMEOUT_MS,
  );

  it(
    'a pool paused by the CLI refuses quotes and swaps with pool_paused until resumed',
    async () => {
      expect(
        await adminOk(
          'pools',
          'pause',
          'amulet-usdcx',
          '--reason',
          'incident 42',
          '--actor',
          ACTOR,
        ),
      ).toBe('paused pool amulet-usdcx\n');
      const refused = await waitFor(async () => {
        const answer = await quote();
        return answer.status === 409 ? answer : null;
      }, 'the pause in quotes');
      expectProblem(refused, 409, 'pool_paused');

      const alice = service.devnet?.users[0];
      if (!alice) throw new Error('no seeded user');
      const created = await request(url, 'POST', '/v1/swaps', {
        apiKey,
        walletToken: await walletTokenFor({ url, apiKey }, alice),
        body: { fromToken: 'Amulet', toToken: 'USDCx', amount: '100', poolId: 'amulet-usdcx' },
      });
      expectProblem(created, 409, 'pool_paused');
      expect(await adminOk('pools', 'list')).toMatch(/^amulet-usdcx\tpaused\t/m);
      expect(await admin('pools', 'pause', 'amulet-usdcx')).toMatchObject({
        code: 1,
        stderr: 'poolparty: pool amulet-usdcx is already paused\n',
      });

      expect(await adminOk('pools', 'resume', 'amulet-usdcx', '--actor', ACTOR)).toBe(
        'resumed pool amulet-usdcx\n',
      );
      await waitFor(async () => (await quote()).status === 200, 'quotes again');
    },
    CLI_TESTS_TIMEOUT_MS,
  );

  it(
    'records every change with who made it, and lists them',
    async () => {
      const rows = await auditRows();
      expect(rows.map((row) => [row.actor, row.action])).toEqual([
        [ACTOR, 'discounts.add'],
        [ACTOR, 'discounts.remove'],
        [ACTOR, 'keys.limits'],
        [ACTOR, 'keys.limits'],
        [ACTOR, 'pools.pause'],
        [ACTOR, 'pools.resume'],
      ]);
      const listed = (await adminOk('audit', 'list')).trim().split('\n');
      expect(listed).toHaveLength(6);
      expect(listed[4]).toMatch(
        new RegExp(`^\\S+Z\\t${ACTOR}\\tpools\\.pause\\tamulet-usdcx\\t.*"reason":"incident 42"`),
      );
      // Without --actor, the change is the operating-system user's.
      await adminOk('pools', 'pause', 'amulet-cbtc');
      await adminOk('pools', 'resume', 'amulet-cbtc');
      const last = (await auditRows()).at(-1);
      expect(last?.actor).not.toBe(ACTOR);
      expect(last?.actor.length).toBeGreaterThan(0);
      expect(await adminOk('audit', 'list', '--limit', '1')).toMatch(
        /\tpools\.resume\tamulet-cbtc\t/,
      );
    },
    CLI_TESTS_TIMEOUT_MS,
  );

  it(
    'migrate refuses a schema without a store unless --create, and creates no table',
    async () => {
      const empty = await createSchema('pp_admin_empty');
      try {
        const env = { DATABASE_URL: schemaUrl(empty) };
        const refused = await runCli(['migrate'], env);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toMatch(
          /holds no PoolParty store; pass --create to create one there/,
        );
        const listedAdmin = await runCli(['admin', 'flags', 'list'], env);
        expect(listedAdmin.code).toBe(1);
        expect(listedAdmin.stderr).toMatch(/holds no PoolParty store/);
        expect(await tablesIn(empty)).toBe(0);
        const created = await runCli(['migrate', '--create'], env);
        expect(created.code).toBe(0);
        expect(await tablesIn(empty)).toBeGreaterThan(0);
      } finally {
        await dropSchema(empty);
      }
    },
    CLI_TESTS_TIMEOUT_MS,
  );
});

async function tablesIn(schema: string): Promise<number> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    const result = await client.query(
      'SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = $1',
      [schema],
    );
    return result.rows[0].n as number;
  } finally {
    await client.end();
  }
}
