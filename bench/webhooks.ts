/**
 * Webhook delivery lag: the real service (PostgreSQL when it answers, else PGlite; the devnet
 * ledger), 100 endpoints on one loopback receiver in a child process, every endpoint subscribed
 * to `swap.*`, and swaps settling at 50 per second. Each delivery's lag runs from its event's
 * time as the store records it (the queued event's `at`, which is the outbox row's: the body's
 * `createdAt`) to the receiver's `Date.now()` when the request arrived, on one clock (see
 * webhook-lag.ts). The dispatcher runs at its default settings, which the output names.
 *
 * A developer holds at most `WEBHOOK_ENDPOINTS_MAX` endpoints, so the 100 belong to seven
 * developers (16, 16, … 4), registered through the store call the route makes, with its cap;
 * the swaps are attributed to the developers in turn, and every endpoint (`apiKeyIds` null) is
 * sent every event of its developer's swaps.
 *
 *   node --import tsx bench/webhooks.ts [--quick]
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { REASON_META_KEY } from '@poolparty/ledger';
import { type RunningService, WEBHOOK_ENDPOINTS_MAX } from '@poolparty/server';
import { createPricedIntent, fundedParties, registerApiKey } from '@poolparty/settlement/testing';
import {
  type Database,
  getPool,
  type IntentRecord,
  insertWebhookEndpointWithinCap,
  upsertDeveloper,
} from '@poolparty/store';
import { createSchema, dropSchema, postgresSkipReason, schemaUrl } from '@poolparty/store/testing';
import { postgresTicks, postgresTicksSpent, TICKS_PER_S } from './process-cpu.js';
import { startQuietService } from './quotes.js';
import { isMain, table } from './report.js';
import { DEPOSIT, POOL_ID } from './settlement.js';
import { type LagFigures, lagFigures, meetsLagTarget } from './webhook-lag.js';
import type { Receipt } from './webhook-receiver.js';

export const WEBHOOK_LAG_TARGET_MS = 50;
export const WEBHOOK_ENDPOINTS = 100;
export const WEBHOOK_RATE_PER_S = 50;
/** Swaps of a full run: five seconds at the rate. */
const SWAPS = 250;
/** A --quick run: a fifth of a second at the rate, to the same 100 endpoints. */
const QUICK_SWAPS = 10;
/**
 * Beside the target's load, a light one far below what delivery can carry: one endpoint, a swap
 * every 200 ms. Its lag is the dispatcher's wake-up and one request's, without a backlog.
 */
const LIGHT_LOAD = { endpoints: 1, ratePerS: 5, swaps: 25 };
const QUICK_LIGHT_SWAPS = 5;
/**
 * After the last deposit, a run waits this long at most for every delivery to arrive: the target
 * run's backlog took 135 s to drain on the 2-core VM (2026-12-02).
 */
const DRAIN_WAIT_MS = 180_000;
/** How often the store is asked whether every delivery is done; the figures come from receipts. */
const DONE_POLL_MS = 100;
/** The engine takes in the seed and the set-up before the swaps begin. */
const SETTLE_IN_MS = 1_000;
const RECEIVER_START_MS = 10_000;

export interface WebhookLoad {
  readonly endpoints: number;
  readonly ratePerS: number;
  readonly swaps: number;
}

export interface WebhookRun extends WebhookLoad {
  readonly developers: number;
  readonly lag: LagFigures;
  /** This process's CPU (the service, and the bench sending deposits), µs per delivery. */
  readonly serviceCpuUsPerDelivery: number;
  /** PostgreSQL's processes' CPU, µs per delivery; null on PGlite. */
  readonly postgresCpuUsPerDelivery: number | null;
}

export interface WebhookBench {
  readonly store: string;
  readonly concurrency: number;
  readonly perEndpoint: number;
  /** At the target's load. */
  readonly target: WebhookRun;
  readonly light: WebhookRun;
}

/** The dispatcher's settings as the environment gives them, so other values can be measured. */
function dispatcherSettingsFromEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        entry[0].startsWith('POOLPARTY_WEBHOOK_') && entry[1] !== undefined,
    ),
  );
}

interface Receiver {
  readonly url: string;
  receipts(): Promise<Receipt[]>;
  close(): void;
}

async function startReceiver(): Promise<Receiver> {
  const script = new URL('./webhook-receiver.ts', import.meta.url);
  const child: ChildProcess = fork(script, [], { execArgv: ['--import', 'tsx'] });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('receiver did not start')), RECEIVER_START_MS);
    child.once('message', (message: { port: number }) => {
      clearTimeout(timer);
      resolve(message.port);
    });
    child.once('error', reject);
  });
  return {
    url: `http://127.0.0.1:${port}`,
    receipts: () =>
      new Promise((resolve) => {
        child.once('message', (message: { receipts: Receipt[] }) => resolve(message.receipts));
        child.send('report');
      }),
    close: () => child.kill(),
  };
}

/** `count` endpoints over as few developers as the cap allows; the developers' parties. */
async function registerEndpoints(db: Database, hooksUrl: string, count: number): Promise<string[]> {
  const developers: string[] = [];
  for (let n = 0; n < count; n += 1) {
    if (n % WEBHOOK_ENDPOINTS_MAX === 0) {
      const party = `bench-developer-${developers.length}::${randomBytes(8).toString('hex')}`;
      await upsertDeveloper(db, party, new Date());
      developers.push(party);
    }
    const made = await insertWebhookEndpointWithinCap(
      db,
      {
        endpointId: `we_${randomBytes(12).toString('base64url')}`,
        developerParty: developers.at(-1) as string,
        url: `${hooksUrl}/${n}`,
        events: ['swap.*'],
        apiKeyIds: null,
        description: `bench endpoint ${n}`,
        secret: `whsec_${randomBytes(24).toString('base64url')}`,
        createdAt: new Date(),
      },
      WEBHOOK_ENDPOINTS_MAX,
    );
    if (made === null) throw new Error('the endpoint cap refused a bench endpoint');
  }
  return developers;
}

/** Funded wallets, each with a priced intent, attributed to the developers in turn. */
async function intentsFor(
  service: RunningService,
  developers: readonly string[],
  swaps: number,
): Promise<IntentRecord[]> {
  const { db, devnetLedger: ledger, clock } = service.ctx;
  const pool = await getPool(db, POOL_ID);
  if (ledger === null || pool === null) throw new Error('no devnet ledger or seeded pool');
  const amulet = pool.tokenA.id === 'Amulet' ? pool.tokenA : pool.tokenB;
  // Both sides pre-approved, so each payout settles at once rather than as an offer.
  const parties = await fundedParties(ledger, swaps, [pool.tokenA, pool.tokenB], amulet, DEPOSIT);
  const intents: IntentRecord[] = [];
  for (const [i, party] of parties.entries()) {
    const developerParty = developers[i % developers.length] as string;
    const request = { poolId: POOL_ID, party, input: amulet, amount: DEPOSIT, developerParty };
    intents.push(await createPricedIntent(db, ledger, { ...request, now: clock.now() }));
  }
  return intents;
}

/** Each wallet sends its deposit, evenly spaced at the rate. */
async function depositPaced(
  service: RunningService,
  intents: readonly IntentRecord[],
  ratePerS: number,
) {
  const { devnetLedger: ledger, db } = service.ctx;
  if (ledger === null) throw new Error('no devnet ledger');
  const pool = await getPool(db, POOL_ID);
  if (pool === null) throw new Error('no seeded pool');
  const amulet = pool.tokenA.id === 'Amulet' ? pool.tokenA : pool.tokenB;
  const startMs = Date.now();
  for (const [i, intent] of intents.entries()) {
    const dueInMs = startMs + (i * 1000) / ratePerS - Date.now();
    if (dueInMs > 1) await sleep(dueInMs);
    await ledger.submitTransfer({
      commandId: `bench-webhook-deposit-${intent.intentId}`,
      sender: intent.walletParty,
      receiver: intent.depositAddress,
      instrument: amulet,
      amount: intent.expectedAmount,
      meta: { [REASON_META_KEY]: intent.depositReference },
    });
  }
}

/** Whether every swap ended, the queue is empty and no delivery is left open. */
async function allDelivered(db: Database, intentIds: readonly string[]): Promise<boolean> {
  const [row] = await db.query<{ swaps: number; queued: number; deliveries: number }>(
    `SELECT
       (SELECT count(*)::int FROM intents WHERE intent_id = ANY($1)
          AND status NOT IN ('completed', 'failed', 'refund_failed', 'expired', 'cancelled')) AS swaps,
       (SELECT count(*)::int FROM webhook_events) AS queued,
       (SELECT count(*)::int FROM webhook_deliveries
          WHERE state IN ('pending', 'retrying')) AS deliveries`,
    [intentIds],
  );
  return row !== undefined && row.swaps === 0 && row.queued === 0 && row.deliveries === 0;
}

/** Deliveries owed: each state change of each swap (no leg events), per endpoint of its developer. */
async function deliveriesOwed(
  db: Database,
  intentIds: readonly string[],
  perDeveloper: Map<string, number>,
) {
  const rows = await db.query<{ developer_party: string; n: number }>(
    `SELECT i.developer_party, count(*)::int AS n FROM intent_events e
       JOIN intents i ON i.intent_id = e.intent_id
      WHERE e.intent_id = ANY($1) AND e.leg_event IS NULL GROUP BY i.developer_party`,
    [intentIds],
  );
  return rows.reduce((sum, row) => sum + row.n * (perDeveloper.get(row.developer_party) ?? 0), 0);
}

/**
 * Removes the run's endpoints, their deliveries (cascaded) and their queued events, so what a run
 * left undelivered is not sent during the next.
 */
async function removeEndpoints(db: Database, developers: readonly string[]): Promise<void> {
  await db.query('DELETE FROM webhook_endpoints WHERE developer_party = ANY($1)', [developers]);
  await db.query('DELETE FROM webhook_events WHERE developer_party = ANY($1)', [developers]);
}

/** Waits until every delivery is done or the drain's time is up. */
async function waitForDeliveries(db: Database, intentIds: readonly string[]): Promise<void> {
  const deadline = Date.now() + DRAIN_WAIT_MS;
  while (Date.now() < deadline && !(await allDelivered(db, intentIds))) await sleep(DONE_POLL_MS);
}

async function measure(
  store: string,
  service: RunningService,
  receiver: Receiver,
  load: WebhookLoad,
): Promise<WebhookRun> {
  const { db, clock } = service.ctx;
  const { endpoints, swaps } = load;
  // A path of the run's own: what its endpoints receive is told apart from the run before.
  const hooks = `/hooks/${randomBytes(6).toString('hex')}`;
  const developers = await registerEndpoints(db, `${receiver.url}${hooks}`, endpoints);
  const perDeveloper = new Map<string, number>();
  for (let n = 0; n < endpoints; n += 1) {
    const party = developers[Math.floor(n / WEBHOOK_ENDPOINTS_MAX)] as string;
    perDeveloper.set(party, (perDeveloper.get(party) ?? 0) + 1);
  }
  const intents = await intentsFor(service, developers, swaps);
  const intentIds = intents.map((intent) => intent.intentId);
  await sleep(SETTLE_IN_MS);
  const cpuBefore = process.cpuUsage();
  const postgresBefore = postgresTicks();
  await depositPaced(service, intents, load.ratePerS);
  await waitForDeliveries(db, intentIds);
  const cpu = process.cpuUsage(cpuBefore);
  const postgresSpent = postgresTicksSpent(postgresBefore, postgresTicks());
  // The service clock is Date.now() plus a fixed offset (it follows the ledger's).
  const clockOffsetMs = clock.now().getTime() - Date.now();
  const expected = await deliveriesOwed(db, intentIds, perDeveloper);
  const received = (await receiver.receipts()).filter((r) => r.path.startsWith(`${hooks}/`));
  const lag = lagFigures(received, expected, clockOffsetMs);
  await removeEndpoints(db, developers);
  const perDelivery = (us: number) => us / Math.max(1, lag.received);
  return {
    ...load,
    developers: developers.length,
    lag,
    serviceCpuUsPerDelivery: perDelivery(cpu.user + cpu.system),
    postgresCpuUsPerDelivery:
      store === 'PGlite' ? null : perDelivery((postgresSpent / TICKS_PER_S) * 1e6),
  };
}

/** One run on PostgreSQL when it answers, else on PGlite (what `npm start` runs). */
export async function benchWebhooks(quick = false): Promise<WebhookBench> {
  const swaps = quick ? QUICK_SWAPS : SWAPS;
  const dataDir = mkdtempSync(join(tmpdir(), 'poolparty-bench-webhooks-'));
  const onPostgres = (await postgresSkipReason('webhook bench')) === null;
  const schema = onPostgres ? await createSchema('pp_bench_webhooks') : null;
  const receiver = await startReceiver();
  let service: RunningService | null = null;
  try {
    service = await startQuietService(dataDir, {
      ...dispatcherSettingsFromEnv(),
      ...(schema !== null && { DATABASE_URL: schemaUrl(schema) }),
    });
    const store = schema === null ? 'PGlite' : 'PostgreSQL';
    const { webhookConcurrency: concurrency, webhookPerEndpoint: perEndpoint } =
      service.ctx.settings;
    // The intents name one key (that of the test helpers), of a developer of its own; the
    // endpoints take every key (`apiKeyIds` null), so each is sent its own developer's swaps.
    const keyHolder = `bench-key-holder::${randomBytes(8).toString('hex')}`;
    await registerApiKey(service.ctx.db, keyHolder, service.ctx.clock.now());
    const target = await measure(store, service, receiver, {
      endpoints: WEBHOOK_ENDPOINTS,
      ratePerS: WEBHOOK_RATE_PER_S,
      swaps,
    });
    const light = await measure(store, service, receiver, {
      ...LIGHT_LOAD,
      swaps: quick ? QUICK_LIGHT_SWAPS : LIGHT_LOAD.swaps,
    });
    return { store, concurrency, perEndpoint, target, light };
  } finally {
    await service?.close();
    receiver.close();
    if (schema !== null) await dropSchema(schema);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function meetsWebhookTarget(result: WebhookBench): boolean {
  return meetsLagTarget(result.target.lag, WEBHOOK_LAG_TARGET_MS);
}

/** The figures in one line, for the targets table; the light load's p99 beside. */
export function webhookFigures(result: WebhookBench): string {
  const { lag } = result.target;
  return `p99 ${lag.p99Ms.toFixed(0)} ms, p50 ${lag.p50Ms.toFixed(0)} ms, ${lag.received}/${lag.expected} delivered, ${lag.perS.toFixed(0)}/s; CPU ${result.target.serviceCpuUsPerDelivery.toFixed(0)} µs per delivery; 1 endpoint at ${LIGHT_LOAD.ratePerS}/s: p99 ${result.light.lag.p99Ms.toFixed(0)} ms`;
}

export function printWebhookBench(result: WebhookBench): void {
  console.log(
    `webhook delivery lag: event committed → request received, every endpoint on swap.* (${result.store})`,
  );
  console.log(
    `  dispatcher settings: POOLPARTY_WEBHOOK_CONCURRENCY ${result.concurrency}, POOLPARTY_WEBHOOK_PER_ENDPOINT ${result.perEndpoint}`,
  );
  const ms = (n: number) => n.toFixed(1);
  const us = (n: number | null) => (n === null ? '-' : n.toFixed(0));
  const row = (run: WebhookRun) => [
    `  ${run.endpoints} (${run.developers} dev.)`,
    `${run.ratePerS}/s`,
    `${run.swaps}`,
    `${run.lag.received}/${run.lag.expected}`,
    run.lag.perS.toFixed(0),
    ms(run.lag.p50Ms),
    ms(run.lag.p99Ms),
    ms(run.lag.maxMs),
    us(run.serviceCpuUsPerDelivery),
    us(run.postgresCpuUsPerDelivery),
  ];
  console.log(
    table([
      [
        '  endpoints',
        'swaps at',
        'swaps',
        'delivered',
        'deliveries/s',
        'p50 ms',
        'p99 ms',
        'max ms',
        'CPU µs/delivery',
        'postgres µs/delivery',
      ],
      row(result.target),
      row(result.light),
    ]),
  );
}

if (isMain(import.meta.url)) {
  printWebhookBench(await benchWebhooks(process.argv.includes('--quick')));
}
