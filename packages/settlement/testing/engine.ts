/**
 * A settlement engine over a real local ledger (devnet seed) and a PGlite store, for engine tests.
 *
 * Opening PGlite is slow (seconds), so a test file opens one database and every test gets its own
 * schema in it, migrated afresh, with its own in-memory ledger: tests share nothing but the WASM.
 * Intents are inserted directly, with the amounts core's `priceTrade` gives for the pool as it is.
 */
import { randomUUID } from 'node:crypto';
import { Amount, type Instrument, type SwapState } from '@poolparty/core';
import {
  type DevnetPool,
  type DevnetSeed,
  type LedgerPort,
  type LocalLedger,
  openLocalLedger,
  REASON_META_KEY,
  seedDevnet,
  type TransferOutcome,
} from '@poolparty/ledger';
import {
  type Database,
  getIntent,
  getPool,
  IN_MEMORY,
  type IntentRecord,
  migrate,
  openPglite,
  type Queryable,
} from '@poolparty/store';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { LedgerClock } from '../src/clock.js';
import { type Engine, type EngineFaults, type EngineSettings, startEngine } from '../src/index.js';
import type { IncomingDeposit } from '../src/intake.js';
import { balanceOf, booksAndHoldings } from './holdings.js';
import { allUpdates, createPricedIntent, registerSeed, transfersByReason } from './scale-out.js';

/** The devnet seed's Amulet/USDCx pool: the one the world's helpers and its tests trade on. */
export const SEEDED_POOL_ID = 'amulet-usdcx';

export const TEST_ENGINE_SETTINGS: Partial<EngineSettings> = {
  retryBaseDelayMs: 5,
  retryDelayMaxMs: 40,
  streamRetryBaseDelayMs: 5,
  streamRetryDelayMaxMs: 40,
  idleIntervalMs: 50,
  refundAttemptsMax: 3,
  payoutAttemptsMax: 3,
  offerActionAttemptsMax: 3,
};

const WAIT_TIMEOUT_MS = 10_000;
/** Offsets of deposits handed to intake directly: far above what a test's ledger reaches. */
const INCOMING_OFFSET_BASE = 1_000_000;
const POLL_INTERVAL_MS = 10;

let schemaCount = 0;

export function openTestDatabase(): Promise<Database> {
  return openPglite(IN_MEMORY);
}

/** One database for a test file (or a describe block), and a fresh harness in it per test. */
export interface EngineWorld {
  /** The shared database, open from the first test to the last. */
  readonly db: Database;
  /** A harness in its own schema of `db`; it is closed once the test ends. */
  harness(): Promise<EngineHarness>;
}

/** Registers the hooks that open and close the database and each test's harnesses. */
export function useEngineWorld(): EngineWorld {
  let db: Database | null = null;
  const open: EngineHarness[] = [];
  beforeAll(async () => {
    db = await openTestDatabase();
  }, 60_000);
  afterAll(async () => {
    await db?.close();
  });
  afterEach(async () => {
    for (const harness of open.splice(0)) await harness.close();
  });
  const world: EngineWorld = {
    get db(): Database {
      if (!db) throw new Error('the engine test database is not open');
      return db;
    },
    async harness() {
      const harness = await EngineHarness.create(world.db);
      open.push(harness);
      return harness;
    },
  };
  return world;
}

export interface Party {
  readonly partyId: string;
}

export interface IntentOptions {
  readonly slippageTolerance?: number;
  readonly validityMs?: number;
}

export class EngineHarness {
  engine: Engine | null = null;
  readonly invalidated: string[] = [];

  private constructor(
    readonly db: Database,
    readonly ledger: LocalLedger,
    readonly clock: LedgerClock,
    readonly seed: DevnetSeed,
  ) {}

  /** A fresh schema in `db`, a freshly seeded ledger, and the pools registered in the store. */
  static async create(db: Database): Promise<EngineHarness> {
    schemaCount += 1;
    const schema = `engine_${process.pid}_${schemaCount}`;
    await db.exec(`CREATE SCHEMA ${schema}; SET search_path TO ${schema}`);
    return EngineHarness.createIn(db);
  }

  /**
   * The same in a database already scoped to an empty schema of its own (a PostgreSQL pool whose
   * every connection has its search path), where `SET search_path` would reach one connection.
   */
  static async createIn(db: Database): Promise<EngineHarness> {
    await migrate(db);
    const ledger = await openLocalLedger({});
    const seed = await seedDevnet(ledger);
    const clock = await LedgerClock.follow(ledger);
    await registerSeed(db, seed, clock.now());
    return new EngineHarness(db, ledger, clock, seed);
  }

  get alice(): Party {
    return this.user(0);
  }

  get bob(): Party {
    return this.user(1);
  }

  private user(index: number): Party {
    const user = this.seed.users[index];
    if (!user) throw new Error(`no seeded user ${index}`);
    return user;
  }

  get amulet(): Instrument {
    return this.seed.instruments.amulet;
  }

  get usdcx(): Instrument {
    return this.seed.instruments.usdcx;
  }

  pool(poolId = SEEDED_POOL_ID): DevnetPool {
    const pool = this.seed.pools.find((p) => p.poolId === poolId);
    if (!pool) throw new Error(`no pool ${poolId}`);
    return pool;
  }

  async startEngine(
    options: {
      faults?: EngineFaults;
      ledger?: LedgerPort;
      settings?: Partial<EngineSettings>;
    } = {},
  ): Promise<Engine> {
    this.engine = await startEngine({
      db: this.db,
      ledger: options.ledger ?? this.ledger,
      clock: this.clock,
      quoter: { invalidate: (poolId?: string) => this.invalidated.push(poolId ?? '*') },
      faults: options.faults ?? {},
      settings: { ...TEST_ENGINE_SETTINGS, ...options.settings },
    });
    return this.engine;
  }

  async stopEngine(): Promise<void> {
    await this.engine?.stop();
    this.engine = null;
  }

  async close(): Promise<void> {
    await this.stopEngine();
    await this.ledger.close();
  }

  /** A party with its own key-less id, pre-approving only `preapprovals`, funded by the faucet. */
  async newParty(
    hint: string,
    preapprovals: readonly Instrument[],
    funds: readonly [Instrument, string][] = [],
  ): Promise<Party> {
    const { partyId } = await this.ledger.createParty({ hint, preapprovals });
    for (const [instrument, amount] of funds) {
      await this.ledger.mint({ owner: partyId, instrument, amount: Amount.parse(amount) });
    }
    return { partyId };
  }

  /** A pending intent priced against the pool's current books, as `POST /v1/swaps` would. */
  async createIntent(
    party: Party,
    input: Instrument,
    amount: string,
    options: IntentOptions & { poolId?: string; developerParty?: string } = {},
  ): Promise<IntentRecord> {
    return createPricedIntent(this.db, this.ledger, {
      ...options,
      poolId: options.poolId ?? 'amulet-usdcx',
      party: party.partyId,
      input,
      amount,
      developerParty: options.developerParty ?? this.seed.developer.partyId,
      now: this.clock.now(),
    });
  }

  /**
   * The intent's exact deposit of Amulet by `party` as intake is handed it from the update
   * stream, without it being on the ledger: for tests that drive intake directly. `n` makes its
   * update id and offset its own.
   */
  async incomingDepositOf(party: Party, intent: IntentRecord, n: number): Promise<IncomingDeposit> {
    const pool = await getPool(this.db, intent.poolId);
    if (pool === null) throw new Error(`no pool ${intent.poolId}`);
    return {
      updateId: `incoming-${n}`,
      eventIndex: 0,
      offset: INCOMING_OFFSET_BASE + n,
      recordTime: this.clock.now(),
      pool,
      sender: party.partyId,
      instrument: this.amulet,
      amount: intent.expectedAmount,
      meta: { [REASON_META_KEY]: intent.depositReference },
      offerId: null,
    };
  }

  /** The party sends `amount` of `instrument` to the pool's swap party, as a wallet would. */
  deposit(
    party: Party,
    instrument: Instrument,
    amount: string,
    options: { reference?: string; poolId?: string } = {},
  ): Promise<TransferOutcome> {
    return this.ledger.submitTransfer({
      commandId: `wallet-${randomUUID()}`,
      sender: party.partyId,
      receiver: this.pool(options.poolId).swapParty,
      instrument,
      amount: Amount.parse(amount),
      meta: options.reference ? { [REASON_META_KEY]: options.reference } : {},
    });
  }

  /** The party sends `amount` of `instrument` to the pool's LP party with `reference`. */
  depositLiquidity(
    party: Party,
    instrument: Instrument,
    amount: string,
    reference: string | null,
    poolId = SEEDED_POOL_ID,
  ): Promise<TransferOutcome> {
    return this.ledger.submitTransfer({
      commandId: `wallet-${randomUUID()}`,
      sender: party.partyId,
      receiver: this.pool(poolId).lpParty,
      instrument,
      amount: Amount.parse(amount),
      meta: reference === null ? {} : { [REASON_META_KEY]: reference },
    });
  }

  async intent(intentId: string): Promise<IntentRecord> {
    const intent = await getIntent(this.db, intentId);
    if (!intent) throw new Error(`intent ${intentId} missing`);
    return intent;
  }

  /** Polls the store until the intent is in one of `statuses` (a safety-net timeout, not a timing). */
  async waitForStatus(intentId: string, ...statuses: SwapState[]): Promise<IntentRecord> {
    return waitFor(
      async () => {
        const intent = await this.intent(intentId);
        return statuses.includes(intent.status) ? intent : null;
      },
      `intent ${intentId} to reach ${statuses.join('|')}`,
    );
  }

  /** Every holding of the party, locked ones included, per instrument. */
  async balance(party: Party | string, instrument: Instrument): Promise<Amount> {
    return balanceOf(this.ledger, typeof party === 'string' ? party : party.partyId, instrument);
  }

  /** Moves the ledger clock and the service clock that follows it. */
  async advanceClock(ms: number): Promise<void> {
    await this.ledger.advanceClock(ms);
    await this.clock.sync();
  }

  /** Waits until the engine ingested every update so far that names a swap party. */
  async caughtUp(): Promise<void> {
    const parties = this.seed.pools.flatMap((pool) => [pool.swapParty, pool.lpParty]);
    await ingestedUpTo(this.db, this.ledger, parties);
  }

  /** The swap party's holdings per side equal reserve + inflight + outgoing + fees. */
  async booksMatchLedger(poolId = SEEDED_POOL_ID): Promise<void> {
    const { books, holdings } = await booksAndHoldings(this.db, this.ledger, poolId);
    if (holdings.a !== books.a || holdings.b !== books.b) {
      throw new Error(
        `books differ from the ledger: A ${books.a} vs ${holdings.a}, B ${books.b} vs ${holdings.b}`,
      );
    }
  }

  /** How many transfers on the ledger carry `reason` (e.g. `payout:<id>`). */
  async transfersWithReason(reason: string): Promise<number> {
    return transfersByReason(await allUpdates(this.ledger)).get(reason) ?? 0;
  }
}

/** Alice swaps 1000 Amulet for USDCx under the seeded developer's key, to completion. */
export async function completedSwap(h: EngineHarness): Promise<IntentRecord> {
  const intent = await h.createIntent(h.alice, h.amulet, '1000');
  await h.deposit(h.alice, h.amulet, '1000', { reference: intent.depositReference });
  await h.waitForStatus(intent.intentId, 'completed');
  return intent;
}

/** The engine started and caught up, then one `completedSwap`: fees for a collection or a sweep. */
export async function startedWithCompletedSwap(h: EngineHarness): Promise<IntentRecord> {
  await h.startEngine();
  await h.caughtUp();
  return completedSwap(h);
}

/**
 * Waits until the store's checkpoint has reached the ledger's latest update that names one of
 * `parties` (the pools' swap and LP parties a service follows).
 */
export async function ingestedUpTo(
  db: Queryable,
  ledger: LedgerPort,
  parties: readonly string[],
): Promise<void> {
  const followed = new Set(parties);
  let target = 0;
  for (const update of await allUpdates(ledger)) {
    const named = update.events.some((event) =>
      'owner' in event
        ? followed.has(event.owner)
        : followed.has(event.sender) || followed.has(event.receiver),
    );
    if (named) target = update.offset;
  }
  await waitFor(async () => {
    const rows = await db.query<{ last_offset: string }>('SELECT last_offset FROM ledger_offsets');
    return Number(rows[0]?.last_offset ?? -1) >= target || null;
  }, `the engine to ingest up to offset ${target}`);
}

export async function waitFor<T>(
  probe: () => Promise<T | null | false>,
  what: string,
  timeoutMs = WAIT_TIMEOUT_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}
