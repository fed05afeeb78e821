/**
 * A settlement engine over a real local ledger (devnet seed) and a PGlite store, for engine tests.
 *
 * Opening PGlite is slow (seconds), so a test file opens one database and every test gets its own
 * schema in it, migrated afresh, with its own in-memory ledger: tests share nothing but the WASM.
 * Intents are inserted directly, with the amounts core's `priceTrade` gives for the pool as it is.
 */
import { randomUUID } from 'node:crypto';
import {
  Amount,
  type Instrument,
  instrumentKey,
  minOutput,
  type PoolSideName,
  priceTrade,
  type SwapState,
  sameInstrument,
} from '@poolparty/core';
import {
  type DevnetPool,
  type DevnetSeed,
  type LedgerPort,
  type LedgerUpdate,
  type LocalLedger,
  openLocalLedger,
  REASON_META_KEY,
  seedDevnet,
  type TransferOutcome,
} from '@poolparty/ledger';
import { LedgerClock } from '../../src/clock.js';
import {
  type Engine,
  type EngineFaults,
  type EngineSettings,
  startEngine,
} from '../../src/engine/index.js';
import { readPriceBook } from '../../src/engine/prices.js';
import {
  type Database,
  getIntent,
  getPool,
  IN_MEMORY,
  type IntentRecord,
  insertApiKey,
  insertIntent,
  insertPool,
  listPools,
  migrate,
  openPglite,
  upsertDeveloper,
} from '../../src/store/index.js';

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
const POLL_INTERVAL_MS = 10;

let schemaCount = 0;

export function openTestDatabase(): Promise<Database> {
  return openPglite(IN_MEMORY);
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
    readonly apiKeyId: string,
  ) {}

  /** A fresh schema in `db`, a freshly seeded ledger, and the pools registered in the store. */
  static async create(db: Database): Promise<EngineHarness> {
    schemaCount += 1;
    const schema = `engine_${process.pid}_${schemaCount}`;
    await db.exec(`CREATE SCHEMA ${schema}; SET search_path TO ${schema}`);
    await migrate(db);
    const ledger = await openLocalLedger({});
    const seed = await seedDevnet(ledger);
    const clock = await LedgerClock.follow(ledger);
    const now = clock.now();
    for (const pool of seed.pools) {
      await insertPool(db, {
        poolId: pool.poolId,
        tokenA: pool.tokenA,
        tokenB: pool.tokenB,
        swapParty: pool.swapParty,
        lpParty: pool.lpParty,
        feeBps: pool.feeBps,
        lpSupply: '1',
        reserveA: pool.reserves.tokenA.toString(),
        reserveB: pool.reserves.tokenB.toString(),
        createdAt: now,
      });
    }
    await upsertDeveloper(db, seed.developer.partyId, now);
    const apiKeyId = 'key_engine_test';
    await insertApiKey(db, {
      keyId: apiKeyId,
      developerParty: seed.developer.partyId,
      name: 'engine tests',
      keyHash: 'a'.repeat(64),
      prefix: 'pp_test_aaaa',
      environment: 'devnet',
      createdAt: now,
    });
    return new EngineHarness(db, ledger, clock, seed, apiKeyId);
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

  pool(poolId = 'amulet-usdcx'): DevnetPool {
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
    options: IntentOptions & { poolId?: string } = {},
  ): Promise<IntentRecord> {
    const record = await getPool(this.db, options.poolId ?? 'amulet-usdcx');
    if (!record) throw new Error('pool missing');
    const inputSide: PoolSideName = sameInstrument(record.tokenA, input) ? 'tokenA' : 'tokenB';
    const output = inputSide === 'tokenA' ? record.tokenB : record.tokenA;
    const round = await this.ledger.openMiningRound();
    const traffic = await this.ledger.trafficParameters();
    const prices = await readPriceBook(this.ledger, await listPools(this.db));
    const inputPriceUsd = prices.usdPrice(input);
    if (!inputPriceUsd) throw new Error('no USD price');
    const trade = priceTrade({
      pool: {
        poolId: record.poolId,
        tokenA: { instrument: record.tokenA, reserve: Amount.parse(record.accounting.reserveA) },
        tokenB: { instrument: record.tokenB, reserve: Amount.parse(record.accounting.reserveB) },
        feeBps: record.feeBps,
        status: record.status,
      },
      inputSide,
      amount: Amount.parse(amount),
      traffic: {
        bytes: traffic.transferBytes,
        extraTrafficPriceUsdPerMb: traffic.extraTrafficPriceUsdPerMb,
        amuletPriceUsd: round.amuletPriceUsd,
      },
      inputPriceUsd,
    });
    if (trade.kind !== 'priced') throw new Error(`amount ${amount} is below the minimum`);
    const tolerance = options.slippageTolerance ?? 0.05;
    const now = this.clock.now();
    const intentId = `swp_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
    return insertIntent(this.db, {
      intentId,
      poolId: record.poolId,
      apiKeyId: this.apiKeyId,
      developerParty: this.seed.developer.partyId,
      walletParty: party.partyId,
      depositAddress: record.swapParty,
      depositReference: `pp-${intentId.slice(4, 17)}`,
      inputToken: input.id,
      inputTokenAdmin: input.admin,
      outputToken: output.id,
      outputTokenAdmin: output.admin,
      expectedAmount: trade.fees.amount.toString(),
      quotedSwapAmount: trade.fees.amount.toString(),
      networkFeeAmount: trade.fees.networkFeeAmount.toString(),
      poolFeeAmount: trade.fees.poolFeeAmount.toString(),
      lpFeeAmount: trade.fees.lpFeeAmount.toString(),
      platformFeeAmount: trade.fees.platformFeeAmount.toString(),
      inputAmountAfterPoolFee: trade.fees.inputAmountAfterPoolFee.toString(),
      expectedOutput: trade.outputAmount.toString(),
      minOutput: minOutput(trade.outputAmount, tolerance).toString(),
      slippageTolerance: tolerance,
      networkFeePolicy: null,
      platformFeePolicy: null,
      outputAddress: party.partyId,
      createdAt: now,
      expiresAt: new Date(now.getTime() + (options.validityMs ?? 24 * 60 * 60_000)),
    });
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
    const partyId = typeof party === 'string' ? party : party.partyId;
    const holdings = await this.ledger.getHoldings(partyId);
    const key = instrumentKey(instrument);
    return Amount.sum(
      holdings.filter((h) => instrumentKey(h.instrument) === key).map((h) => h.amount),
    );
  }

  /** Moves the ledger clock and the service clock that follows it. */
  async advanceClock(ms: number): Promise<void> {
    await this.ledger.advanceClock(ms);
    await this.clock.sync();
  }

  /** Waits until the engine ingested every update so far that names a swap party. */
  async caughtUp(): Promise<void> {
    const swapParties = new Set(this.seed.pools.map((pool) => pool.swapParty));
    let target = 0;
    await this.eachUpdate((update) => {
      const named = update.events.some((event) =>
        'owner' in event
          ? swapParties.has(event.owner)
          : 'sender' in event && (swapParties.has(event.sender) || swapParties.has(event.receiver)),
      );
      if (named) target = update.offset;
    });
    await waitFor(async () => {
      const rows = await this.db.query<{ last_offset: string }>(
        'SELECT last_offset FROM ledger_offsets',
      );
      return Number(rows[0]?.last_offset ?? -1) >= target || null;
    }, `the engine to ingest up to offset ${target}`);
  }

  /** Every committed update so far, in order. */
  private async eachUpdate(visit: (update: LedgerUpdate) => void): Promise<void> {
    const end = await this.ledger.ledgerEnd();
    if (end === 0) return;
    const controller = new AbortController();
    for await (const update of this.ledger.updates(0, { signal: controller.signal })) {
      visit(update);
      if (update.offset >= end) break;
    }
    controller.abort();
  }

  /** The swap party's holdings per side equal reserve + inflight + outgoing + fees (SPEC §5.6). */
  async booksMatchLedger(poolId = 'amulet-usdcx'): Promise<void> {
    const pool = await getPool(this.db, poolId);
    if (!pool) throw new Error('pool missing');
    const { accounting: a } = pool;
    const expected = (parts: string[]) => Amount.sum(parts.map((p) => Amount.parse(p))).toString();
    const holdingsA = (await this.balance(pool.swapParty, pool.tokenA)).toString();
    const holdingsB = (await this.balance(pool.swapParty, pool.tokenB)).toString();
    const booksA = expected([a.reserveA, a.inflightA, a.outgoingA, a.feesA]);
    const booksB = expected([a.reserveB, a.inflightB, a.outgoingB, a.feesB]);
    if (holdingsA !== booksA || holdingsB !== booksB) {
      throw new Error(
        `books differ from the ledger: A ${booksA} vs ${holdingsA}, B ${booksB} vs ${holdingsB}`,
      );
    }
  }

  /** How many transfers on the ledger carry `reason` (e.g. `payout:<id>`). */
  async transfersWithReason(reason: string): Promise<number> {
    let count = 0;
    await this.eachUpdate((update) => {
      for (const event of update.events) {
        if (event.kind === 'transfer' && event.meta[REASON_META_KEY] === reason) count += 1;
      }
    });
    return count;
  }
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
