/**
 * Starting and stopping the service: check that it can listen and reach its database, open the
 * store (migrating it), open the ledger, choose the clock, load the deployment's wallet-token
 * key, seed devnet on first start, then serve HTTP. `poolparty serve` and the tests both start
 * the service through `startService`.
 *
 * The checks come first so that a wrong setting (a port in use, an unreachable `DATABASE_URL`)
 * fails in a moment, naming the setting, before anything is created; and a start that fails
 * after creating the data folder removes it again, so a retry starts from the same place.
 */
import { existsSync, rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { BaseError } from '@poolparty/core';
import type { LedgerPort } from '@poolparty/ledger';
import { type Engine, LedgerClock, type ServiceClock, startEngine } from '@poolparty/settlement';
import type { Database, NotificationSource, StreamLeadership } from '@poolparty/store';
import {
  advisoryLockLeadership,
  causedByConnectionLoss,
  checkPostgresReachable,
  countIncompleteCompletedSwapsByPool,
  describeStore,
  ensureServiceSecret,
  holdsCluster,
  migrated,
  openEmbeddedStore,
  openStore,
  pgliteDirOf,
  requireStoreEnvironment,
  StoreProblem,
  serverConnectionLimits,
  WrongEnvironmentProblem,
} from '@poolparty/store';
import type { JWK } from 'jose';
import { AdminChangeFeed } from './admin/change-feed.js';
import { WalletTokenSigner } from './auth/wallet-token.js';
import { type CloseFailure, type Closer, Closers } from './closers.js';
import { devnetEnabled, type Settings } from './config.js';
import type { ServiceContext } from './context.js';
import { connectionBudgetProblem } from './database-connections.js';
import { bootstrapDevnet, type DevnetWelcome } from './devnet-bootstrap.js';
import { EventHub } from './events/event-hub.js';
import { registerFlagMetrics } from './flag-metrics.js';
import { Housekeeping } from './housekeeping.js';
import { buildApp } from './http/app.js';
import type { App } from './http/fastify.js';
import { buildOperationalApp } from './http/operational-app.js';
import {
  type LedgerConnection,
  LedgerUnavailable,
  openLedgerConnection,
} from './ledger-connection.js';
import { createLiveQuoter } from './market/live-quoter.js';
import { SnapshotJob } from './market/snapshots.js';
import { createMetrics } from './metrics.js';
import { PartyKeysFileError } from './party-keys-file.js';
import { PoolHoldingsKeeper } from './pool-holdings.js';
import { probeListen } from './preflight.js';
import { registerTreasuryMetrics } from './treasury/metrics.js';
import { TreasurySweeper } from './treasury/sweeper.js';
import { ATOMIC_SWAP_OUTBOX } from './views/atomic-swap-outbox.js';
import { LIQUIDITY_OUTBOX } from './views/liquidity-outbox.js';
import { SWAP_OUTBOX } from './views/swap-outbox.js';
import { WITHDRAWAL_OUTBOX } from './views/withdrawal-outbox.js';
import { developerKeyWorks, type WebAppKey, webAppKeyOf } from './web-app-key.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';

export interface StartOptions {
  /** PostgreSQL schema to work in (tests isolate themselves this way). */
  readonly schema?: string;
  /** Listen on `settings.host:settings.port`; default true. */
  readonly listen?: boolean;
  /** Told each step of a first start (the store, the devnet seed), as a line for a person to read. */
  readonly onProgress?: (line: string) => void;
  /** The built web pages to serve; the workspace's `packages/app/dist` by default. */
  readonly webAppDist?: string;
}

export interface RunningService {
  readonly ctx: ServiceContext;
  readonly app: App;
  /** Base URL when listening, e.g. `http://127.0.0.1:8787`. */
  readonly url: string | null;
  /** The devnet seed's key and parties; null outside devnet mode. */
  readonly devnet: DevnetWelcome | null;
  /** The key the web pages are served with, and what the start found about it. */
  readonly webAppKey: WebAppKey;
  /** Whether the devnet developer key still works; true outside devnet. */
  readonly developerKeyWorks: boolean;
  close(): Promise<void>;
}

export class StartupError extends BaseError<'startup_failed'> {
  override readonly name = 'StartupError';
  constructor(message: string) {
    super('startup_failed', message);
  }
}

const WALLET_TOKEN_KEY = 'wallet_token_signing_key';

/**
 * Starts the service; a start that loses its store connection part-way (a failover, a restarted
 * pooler) closes what it opened and starts again, up to `STARTUP_ATTEMPTS` times, saying so.
 * Every step of a start is safe to repeat: migrations and the devnet seed check what is there.
 */
export async function startService(
  settings: Settings,
  options: StartOptions = {},
): Promise<RunningService> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startOnce(settings, options);
    } catch (error) {
      if (!causedByConnectionLoss(error) || attempt >= STARTUP_ATTEMPTS) throw error;
      options.onProgress?.(
        `the store connection was lost while starting (${(error as Error).message}); ` +
          `starting again in ${STARTUP_RETRY_DELAY_MS / 1000} s (attempt ${attempt + 1} of ${STARTUP_ATTEMPTS})`,
      );
      await sleep(STARTUP_RETRY_DELAY_MS);
    }
  }
}

/** Starts made before a start that keeps losing its store connection gives up. */
const STARTUP_ATTEMPTS = 5;
/** Wait between starts: long enough for a restarted pooler or a promoted replica to answer. */
const STARTUP_RETRY_DELAY_MS = 1_000;

async function startOnce(settings: Settings, options: StartOptions): Promise<RunningService> {
  const listen = options.listen ?? true;
  if (listen) {
    const problem = await probeListen(settings.host, settings.port);
    if (problem !== null) throw new StartupError(problem);
  }
  const closers = new Closers();
  const lateLog = new LateLog();
  const freshDataDir = !existsSync(settings.dataDir);
  try {
    const base = await openFoundations(settings, options, closers);
    const ctx = await openServices(settings, base, closers, lateLog);
    const app =
      settings.role === 'worker'
        ? await buildOperationalApp(ctx)
        : await buildApp(ctx, {
            webAppApiKey: base.webAppKey.key,
            ...(options.webAppDist !== undefined && { webAppDist: options.webAppDist }),
          });
    lateLog.useFrom(app);
    closers.push({ what: 'the HTTP server', close: () => app.close() });
    // The worker's jobs start once the app, and so its logger, exists; they stop before the
    // app, the ledger and the store they work with (closers run in reverse).
    if (settings.role !== 'api') {
      const treasuryParty = settings.treasuryParty ?? base.devnet?.treasury?.partyId ?? null;
      closers.push(...(await startWorkerJobs(ctx, app, options.schema, treasuryParty)));
    }
    const url = listen ? await listenOn(app, settings) : null;
    // Rejects once everything was closed if any part did not close (`poolparty serve` then
    // exits 1); each failure is logged as it happens.
    const close = async () => {
      const failures = await closers.closeAll((failure) => lateLog.closeFailed(failure));
      if (failures.length > 0) {
        throw new AggregateError(failures, 'the service did not close cleanly');
      }
    };
    const { webAppKey, developerKeyWorks } = base;
    return { ctx, app, url, devnet: base.devnet, webAppKey, developerKeyWorks, close };
  } catch (error) {
    // The start's own error is what the caller is told; a part that then fails to close is
    // reported beside it.
    await closers.closeAll((failure) => lateLog.closeFailed(failure));
    // Nothing half-made stays behind: the next start finds the folder as the operator left it.
    if (freshDataDir) rmSync(settings.dataDir, { recursive: true, force: true });
    throw startupErrorOf(error, settings);
  }
}

/**
 * Where the store listeners' warnings go: nowhere until the HTTP app, and so its logger, exists
 * (a listener may break before that), then the app's log. A part that fails to close is never
 * dropped: before the app exists it is a process warning.
 */
class LateLog {
  private app: App | null = null;

  useFrom(app: App): void {
    this.app = app;
  }

  listenerLost(which: string) {
    return (error: Error, retryInMs: number) =>
      this.app?.log.warn({ err: error, retryInMs }, `${which} listener lost; listening again`);
  }

  /** A part that did not close: the app's log, or a process warning before there is one. */
  closeFailed(failure: CloseFailure): void {
    if (this.app === null) process.emitWarning(failure);
    else this.app.log.error({ err: failure }, failure.message);
  }
}

interface Foundations {
  readonly db: Database;
  readonly ledger: LedgerPort;
  readonly devnetLedger: LedgerConnection['local'];
  readonly clock: LedgerClock;
  readonly walletTokens: WalletTokenSigner;
  readonly devnet: DevnetWelcome | null;
  readonly webAppKey: WebAppKey;
  readonly developerKeyWorks: boolean;
}

/** The store, the ledger, the clock, the wallet-token key and, on devnet, the seed. */
async function openFoundations(
  settings: Settings,
  options: StartOptions,
  closers: Closers,
): Promise<Foundations> {
  // Making the embedded store is the longest step of a first start: say what is happening.
  if (settings.databaseUrl === null && !holdsCluster(pgliteDirOf(settings.dataDir))) {
    options.onProgress?.(`first start: creating the store in ${settings.dataDir}`);
  }
  const db = await openServiceStore(settings, options.schema);
  closers.push({ what: 'the store', close: () => db.close() });
  const { ledger, local: devnetLedger, close: closeLedger } = await openLedger(settings);
  closers.push({ what: 'the ledger connection', close: closeLedger });
  const clock = await serviceClock(settings, ledger);
  closers.push({ what: 'the ledger clock', close: async () => clock.stop() });
  const walletTokens = await loadWalletTokenSigner(db, settings, clock);
  const devnet =
    devnetLedger && devnetEnabled(settings)
      ? await bootstrapDevnet(db, devnetLedger, {
          dataDir: settings.dataDir,
          apiKey: settings.devnetApiKey,
          now: clock.now(),
          ...(options.onProgress && { onProgress: options.onProgress }),
        })
      : null;
  const now = clock.now();
  const webAppKey = await webAppKeyOf(db, settings.appApiKey, devnet, now);
  const developerWorks = devnet === null || (await developerKeyWorks(db, devnet.apiKey, now));
  return {
    db,
    ledger,
    devnetLedger,
    clock,
    walletTokens,
    devnet,
    webAppKey,
    developerKeyWorks: developerWorks,
  };
}

/** Notifications for a hub nobody streams from: it listens to nothing. */
const SILENT_SOURCE: NotificationSource = {
  listen: async () => async () => {},
};

/**
 * The quoter, the feeds of changes made elsewhere (admin commands, intent events) and, on a
 * worker, the hourly snapshots: the service context every role serves from. Roles
 * (docs/spec/running.md#roles-and-scale-out): `api` serves HTTP only; a `worker` settles (engine,
 * snapshots, reconciliation) and answers only the operational endpoints; `all` does both.
 */
async function openServices(
  settings: Settings,
  base: Foundations,
  closers: Closers,
  log: LateLog,
): Promise<ServiceContext> {
  const { db, ledger, clock } = base;
  const quoter = await createLiveQuoter({
    db,
    ledger,
    clock,
    countIncompleteCompletedSwaps: countIncompleteCompletedSwapsByPool,
  });
  closers.push({ what: 'the quoter', close: () => quoter.close() });
  // Discounts, key limits and pool status changed by `poolparty admin` in another process.
  const adminChanges = await AdminChangeFeed.open(db, {
    onListenerProblem: log.listenerLost('admin change'),
  });
  closers.push({ what: 'the admin change feed', close: () => adminChanges.close() });
  adminChanges.subscribe(() => quoter.invalidate());
  if (settings.role !== 'api') {
    const snapshots = new SnapshotJob({ db, ledger, clock });
    await snapshots.start();
    closers.push({ what: 'the pool snapshots', close: () => snapshots.stop() });
  }
  // The event hubs feed the API's event streams. A worker serves none, so its hubs listen to
  // nothing: three connections fewer per worker, and PostgreSQL signals three backends fewer at
  // every notification (about a tenth of its CPU went to listening backends at 50 swaps/s).
  const events = settings.role === 'worker' ? SILENT_SOURCE : db;
  const intentEvents = await EventHub.listen(events, SWAP_OUTBOX.channel, {
    onListenerProblem: log.listenerLost('intent event'),
  });
  closers.push({ what: 'the swap event hub', close: () => intentEvents.close() });
  const liquidityEvents = await EventHub.listen(events, LIQUIDITY_OUTBOX.channel, {
    budget: intentEvents.budget,
    onListenerProblem: log.listenerLost('liquidity event'),
  });
  closers.push({ what: 'the liquidity event hub', close: () => liquidityEvents.close() });
  const withdrawalEvents = await EventHub.listen(events, WITHDRAWAL_OUTBOX.channel, {
    budget: intentEvents.budget,
    onListenerProblem: log.listenerLost('withdrawal event'),
  });
  closers.push({ what: 'the withdrawal event hub', close: () => withdrawalEvents.close() });
  const atomicSwapEvents = await EventHub.listen(events, ATOMIC_SWAP_OUTBOX.channel, {
    budget: intentEvents.budget,
    onListenerProblem: log.listenerLost('atomic swap event'),
  });
  closers.push({ what: 'the atomic swap event hub', close: () => atomicSwapEvents.close() });
  const metrics = createMetrics();
  registerFlagMetrics(metrics.registry, db);
  registerTreasuryMetrics(metrics.registry, {
    db,
    networkReserve: settings.treasuryNetworkReserve,
  });
  return {
    settings,
    db,
    ledger,
    devnetLedger: devnetEnabled(settings) ? base.devnetLedger : null,
    clock,
    walletTokens: base.walletTokens,
    metrics,
    quoter,
    intentEvents,
    liquidityEvents,
    withdrawalEvents,
    atomicSwapEvents,
    adminChanges,
  };
}

/** Listens on the configured address; answers the base URL, with the port a `0` was given. */
async function listenOn(app: App, settings: Settings): Promise<string> {
  await app.listen({ port: settings.port, host: settings.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : settings.port;
  return `http://${settings.host.includes(':') ? `[${settings.host}]` : settings.host}:${port}`;
}

/** A failed start as the operator reads it: a setting named where one is at fault. */
function startupErrorOf(error: unknown, settings: Settings): unknown {
  if (error instanceof StoreProblem) return new StartupError(error.message);
  if (isAddressProblem(error)) {
    return new StartupError(
      `cannot listen on HOST ${settings.host} PORT ${settings.port}: ${(error as Error).message}`,
    );
  }
  return error;
}

/** The settlement engine and the housekeeping of a worker; answers what stops them, in order. */
async function startWorkerJobs(
  ctx: ServiceContext,
  app: App,
  schema: string | undefined,
  treasuryParty: string | null,
): Promise<Closer[]> {
  const { settings, db, ledger, clock, quoter, adminChanges } = ctx;
  const engine = await startEngine({
    db,
    ledger,
    clock,
    quoter,
    log: {
      warn: (message, details) => app.log.warn(details ?? {}, message),
      error: (message, details) => app.log.error(details ?? {}, message),
    },
    ...(settings.databaseUrl !== null && {
      leadership: ingestLeadership(settings.databaseUrl, schema, app),
    }),
  });
  // A pool added by `poolparty admin pools add` joins the stream this engine follows.
  const unsubscribe = adminChanges.subscribe(() => engine.poolsChanged());
  const housekeeping = new Housekeeping({
    db,
    clock,
    onError: (error) =>
      app.log.warn({ err: error }, 'purging expired rows failed; trying again at the next run'),
  });
  housekeeping.start();
  const holdings = startPoolHoldings(ctx, app);
  const sweeper = startTreasurySweeps(ctx, app, engine, treasuryParty);
  const webhooks = startWebhookDelivery(ctx, app);
  return [
    { what: 'the settlement engine', close: () => engine.stop() },
    { what: "the engine's admin change subscription", close: async () => unsubscribe() },
    { what: 'housekeeping', close: () => housekeeping.stop() },
    { what: 'the pool holdings keeper', close: () => holdings.stop() },
    { what: 'the treasury sweeps', close: async () => sweeper?.stop() },
    { what: 'the webhook deliveries', close: () => webhooks.stop() },
  ];
}

/** The worker's keeping of each pool side in several holdings (pool-holdings.ts). */
function startPoolHoldings(ctx: ServiceContext, app: App): PoolHoldingsKeeper {
  const keeper = new PoolHoldingsKeeper({
    db: ctx.db,
    ledger: ctx.ledger,
    targets: ctx.settings.poolHoldingsTarget,
    registry: ctx.metrics.registry,
    onWork: (sides) =>
      app.log.info(
        {
          sides: sides.map((side) => ({
            pool: side.poolId,
            instrument: side.instrument.id,
            target: side.target,
            selfTransfers: side.selfTransfers,
            refused: side.refused,
          })),
        },
        'pool holdings split',
      ),
    onError: (error) =>
      app.log.warn(
        { err: error },
        'splitting pool holdings failed; trying again at the next round',
      ),
  });
  keeper.start();
  return keeper;
}

/** The worker's webhook delivery loop (webhooks/dispatcher.ts), beside and apart from settlement. */
function startWebhookDelivery(ctx: ServiceContext, app: App): WebhookDispatcher {
  const { settings } = ctx;
  const dispatcher = new WebhookDispatcher({
    db: ctx.db,
    clock: ctx.clock,
    settings: {
      mode: settings.environment,
      allowPrivate: settings.webhookAllowPrivate,
      timeoutMs: settings.webhookTimeoutMs,
      concurrency: settings.webhookConcurrency,
      perEndpoint: settings.webhookPerEndpoint,
    },
    log: {
      warn: (details, message) => app.log.warn(details, message),
      info: (details, message) => app.log.debug(details, message),
    },
  });
  dispatcher.start();
  return dispatcher;
}

/**
 * The automatic treasury sweeps of a worker, or null (said once) when no treasury party is set.
 * A round's sweeps are recorded; the engine, poked, submits them.
 */
function startTreasurySweeps(
  ctx: ServiceContext,
  app: App,
  engine: Engine,
  treasuryParty: string | null,
): TreasurySweeper | null {
  const { settings, db, clock } = ctx;
  if (treasuryParty === null) {
    app.log.warn('treasury sweeps are off: POOLPARTY_TREASURY_PARTY is not set');
    return null;
  }
  const sweeper = new TreasurySweeper({
    db,
    clock,
    target: { treasuryParty, networkReserve: settings.treasuryNetworkReserve },
    schedule: {
      thresholds: settings.treasurySweepThresholds,
      intervalMs: settings.treasurySweepIntervalMs,
      poolsPerRoundMax: settings.treasurySweepPoolsMax,
    },
    onRecorded: (sweeps) => {
      app.log.info({ sweeps: sweeps.length }, 'treasury sweeps recorded');
      engine.poke();
    },
    onError: (error) =>
      app.log.warn({ err: error }, 'a round of treasury sweeps failed; trying again at the next'),
  });
  sweeper.start();
  app.log.info({ treasuryParty }, 'treasury sweeps on');
  return sweeper;
}

function isAddressProblem(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL';
}

/**
 * The store `serve` works on, created on first start and brought up to date. PostgreSQL is
 * reached once first, with a timeout, so an unreachable `DATABASE_URL` is reported by name; the
 * embedded store is held by this process alone while it runs (store/data-folder-lock.ts).
 */
async function openServiceStore(settings: Settings, schema: string | undefined): Promise<Database> {
  const db = await openMigratedStore(settings, schema);
  try {
    await requireStoreEnvironment(db, describeStore(settings), settings.environment, {
      claim: true,
      now: new Date(),
    });
  } catch (error) {
    await db.close();
    throw error instanceof WrongEnvironmentProblem ? new StartupError(error.message) : error;
  }
  return db;
}

async function openMigratedStore(
  settings: Settings,
  schema: string | undefined,
): Promise<Database> {
  if (settings.databaseUrl === null) {
    return migrated(await openEmbeddedStore(settings.dataDir, 'serve'));
  }
  await checkPostgresReachable(settings.databaseUrl);
  const db = await openStore({
    dataDir: settings.dataDir,
    databaseUrl: settings.databaseUrl,
    connectionsMax: settings.databaseConnections,
    ...(schema !== undefined && { schema }),
  });
  const problem = connectionBudgetProblem(
    settings.databaseConnections,
    await serverConnectionLimits(db),
  );
  if (problem === null) return db;
  await db.close();
  throw new StartupError(problem);
}

/** Workers on one PostgreSQL take turns at ingesting through an advisory lock (leadership.ts). */
function ingestLeadership(url: string, schema: string | undefined, app: App): StreamLeadership {
  return advisoryLockLeadership({
    url,
    ...(schema !== undefined && { schema }),
    onProblem: (error) => app.log.warn({ err: error }, 'ingest leadership connection problem'),
  });
}

async function openLedger(settings: Settings): Promise<LedgerConnection> {
  try {
    return await openLedgerConnection(settings);
  } catch (error) {
    if (error instanceof LedgerUnavailable || error instanceof PartyKeysFileError) {
      throw new StartupError(error.message);
    }
    throw error;
  }
}

/**
 * What "now" is for the service: the ledger's clock. The embedded ledger's moves only through
 * `/devnet/clock`, whose routes re-read it. A participant's is re-read every few seconds, since
 * whoever moves it (a `poolparty devnet-ledger` clock advance) does so in another process; and it
 * never runs behind the system clock, because a participant's time is the record time of its
 * latest update or checkpoint, which stands still while the ledger is idle.
 */
async function serviceClock(settings: Settings, ledger: LedgerPort): Promise<LedgerClock> {
  if (settings.ledger === 'local') return LedgerClock.follow(ledger);
  return LedgerClock.follow(ledger, {
    resyncEveryMs: LEDGER_CLOCK_RESYNC_MS,
    notBehindSystemClock: true,
  });
}

/** How often a service on a participant re-reads the ledger's time. */
const LEDGER_CLOCK_RESYNC_MS = 5_000;

async function loadWalletTokenSigner(
  db: Database,
  settings: Settings,
  clock: ServiceClock,
): Promise<WalletTokenSigner> {
  const jwk = await ensureServiceSecret<JWK>(
    db,
    `${WALLET_TOKEN_KEY}:${settings.environment}`,
    () => WalletTokenSigner.generateJwk(),
    clock.now(),
  );
  return WalletTokenSigner.fromJwk(jwk, settings.environment);
}
