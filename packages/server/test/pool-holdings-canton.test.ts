/**
 * A pool's reserves kept in several holdings on the served devnet ledger, through the canton
 * adapter as a worker runs it: the pool's USDCx reserve, merged into one holding, is split into
 * its target by the holdings keeper while swaps of the pool pay out of it, and then more swaps
 * pay out at once from the pieces. No payout is ever refused for inputs another transfer spent,
 * each swap is paid once, the side ends at its target and the books equal the holdings.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Amount, planHoldingSplits } from '@poolparty/core';
import { LedgerError, type LedgerPort } from '@poolparty/ledger';
import {
  type Engine,
  keepPoolHoldings,
  LedgerClock,
  type SideKept,
  sideHoldings,
  startEngine,
} from '@poolparty/settlement';
import {
  allUpdates,
  booksAndHoldings,
  createPricedIntent,
  depositFor,
  fundedParties,
  ledgerWith,
  registerSeed,
  TEST_ENGINE_SETTINGS,
  transfersByReason,
  waitFor,
} from '@poolparty/settlement/testing';
import {
  type Database,
  getPool,
  IN_MEMORY,
  type IntentRecord,
  migrate,
  openPglite,
} from '@poolparty/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LedgerConnection, openLedgerConnection } from '../src/ledger-connection.js';
import {
  mergeHoldings,
  type ServedDevnet,
  serveSeededDevnet,
  serviceSettingsIn,
} from './support/devnet-ledger.js';

const POOL_ID = 'amulet-usdcx';
const TARGET = 8;
/** Swaps whose payouts run while the keeper splits, then swaps paid out of the pieces at once. */
const WHILE_SPLITTING = 3;
const FROM_PIECES = 6;
const DEPOSIT = '200';
const SETTLE_WAIT_MS = 30_000;

let devnet: ServedDevnet;
let connection: LedgerConnection;
let clock: LedgerClock;
let db: Database;
let engine: Engine;
let dataDir: string;
/** Payouts the ledger refused because another transfer had spent an input they named. */
const spentInputs: string[] = [];
let ledger: LedgerPort;

beforeAll(async () => {
  devnet = await serveSeededDevnet();
  dataDir = mkdtempSync(join(tmpdir(), 'pp-pool-holdings-'));
  connection = await openLedgerConnection(serviceSettingsIn(dataDir, devnet.env));
  const canton = connection.ledger;
  ledger = ledgerWith(canton, {
    submitTransfer: async (command) => {
      try {
        return await canton.submitTransfer(command);
      } catch (error) {
        if (error instanceof LedgerError && error.code === 'invalid_inputs') {
          spentInputs.push(command.commandId);
        }
        throw error;
      }
    },
  });
  clock = await LedgerClock.follow(canton);
  db = await openPglite(IN_MEMORY);
  await migrate(db);
  await registerSeed(db, devnet.seed, clock.now());
  const { swapParty, tokenB } = seededPool();
  await mergeHoldings(devnet.ledger, swapParty, tokenB);
  engine = await startEngine({
    db,
    ledger,
    clock,
    quoter: { invalidate: () => {} },
    settings: TEST_ENGINE_SETTINGS,
  });
}, 60_000);

afterAll(async () => {
  await engine?.stop();
  clock?.stop();
  await connection?.close();
  await db?.close();
  await devnet?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function seededPool() {
  const pool = devnet.seed.pools.find((p) => p.poolId === POOL_ID);
  if (pool === undefined) throw new Error(`no pool ${POOL_ID}`);
  return pool;
}

async function usdcxHoldings() {
  const { swapParty, tokenB } = seededPool();
  return sideHoldings(await ledger.getHoldings(swapParty), swapParty, tokenB, new Set());
}

/** `count` traders' Amulet-for-USDCx swaps, their deposits sent at once. */
async function swaps(count: number): Promise<{ intents: IntentRecord[]; sent: Promise<unknown> }> {
  const { amulet, usdcx } = devnet.seed.instruments;
  const parties = await fundedParties(devnet.ledger, count, [amulet, usdcx], amulet, DEPOSIT);
  const intents: IntentRecord[] = [];
  for (const party of parties) {
    intents.push(
      await createPricedIntent(db, ledger, {
        poolId: POOL_ID,
        party,
        input: amulet,
        amount: DEPOSIT,
        developerParty: devnet.seed.developer.partyId,
        now: clock.now(),
      }),
    );
  }
  const sent = Promise.all(intents.map((intent) => depositFor(devnet.ledger, intent, amulet)));
  return { intents, sent };
}

async function completed(intents: readonly IntentRecord[]): Promise<void> {
  const ids = intents.map((intent) => intent.intentId);
  await waitFor(
    async () => {
      const rows = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM intents WHERE status = 'completed' AND intent_id = ANY($1)`,
        [ids],
      );
      return rows[0]?.n === ids.length;
    },
    `${ids.length} swaps to complete`,
    SETTLE_WAIT_MS,
  );
}

const keep = () => keepPoolHoldings({ db, ledger }, { targets: { '*': TARGET } });
const usdcxSide = (sides: readonly SideKept[]) =>
  sides.find((side) => side.poolId === POOL_ID && side.instrument.id === 'USDCx');

describe('a pool kept in several holdings on the served devnet ledger', () => {
  it('splits its one USDCx holding while swaps pay out of it, and pays later swaps side by side', async () => {
    expect(await usdcxHoldings()).toHaveLength(1);
    // The keeper's round and the first payouts at once: one of them waits for the other.
    const first = await swaps(WHILE_SPLITTING);
    const [round] = await Promise.all([keep(), first.sent]);
    await completed(first.intents);
    // A split the payouts got to first is finished by the next round.
    const finished = await keep();
    const [during = 0, after = 0] = [round, finished].map(
      (r) => usdcxSide(r.sides)?.selfTransfers ?? 0,
    );
    expect(during + after).toBeGreaterThan(0);
    const side = await usdcxHoldings();
    expect(side.length).toBeGreaterThanOrEqual(TARGET);
    expect(planHoldingSplits(side, TARGET).splits).toEqual([]);

    const later = await swaps(FROM_PIECES);
    await later.sent;
    await completed(later.intents);

    expect(spentInputs).toEqual([]);
    const byReason = transfersByReason(await allUpdates(devnet.ledger));
    for (const intent of [...first.intents, ...later.intents]) {
      expect(byReason.get(`payout:${intent.intentId}`)).toBe(1);
    }
    const { books, holdings } = await booksAndHoldings(db, devnet.ledger, POOL_ID);
    expect(holdings).toEqual(books);
    expect((await getPool(db, POOL_ID))?.accounting.outgoingB).toEqual(Amount.ZERO);
  }, 60_000);
});
