/**
 * The worker's holdings keeper: its first round splits a pool whose reserves are each one holding
 * and says so (the work it was told of, the figures on `/metrics`); a round that fails is told and
 * the next one tries again.
 */
import { Amount } from '@poolparty/core';
import { LedgerError, type LocalLedger, openLocalLedger } from '@poolparty/ledger';
import type { SideKept } from '@poolparty/settlement';
import { ledgerWith, openTestDatabase, waitFor } from '@poolparty/settlement/testing';
import { type Database, insertPool, migrate } from '@poolparty/store';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PoolHoldingsKeeper } from '../src/pool-holdings.js';

let db: Database;
let ledger: LocalLedger;

beforeAll(async () => {
  db = await openTestDatabase();
  await migrate(db);
  ledger = await openLocalLedger({});
  const internal = async (hint: string) => (await ledger.createParty({ hint })).partyId;
  const usd = { admin: await internal('bank'), id: 'USD' };
  const eur = { admin: await internal('ecb'), id: 'EUR' };
  await ledger.createInstrument(usd);
  await ledger.createInstrument(eur);
  const swapParty = (await ledger.createParty({ hint: 'pool', preapprovals: [usd, eur] })).partyId;
  await ledger.mint({ owner: swapParty, instrument: usd, amount: Amount.of(1_000) });
  await ledger.mint({ owner: swapParty, instrument: eur, amount: Amount.of(100) });
  await insertPool(db, {
    poolId: 'pool-usd-eur',
    tokenA: usd,
    tokenB: eur,
    swapParty,
    lpParty: 'lp::1220dd',
    lpSupply: Amount.of(1_000),
    reserveA: Amount.of(1_000),
    reserveB: Amount.of(100),
    createdAt: new Date(),
  });
}, 60_000);

afterAll(async () => {
  await ledger?.close();
  await db?.close();
});

describe('the pool holdings keeper', () => {
  it('tells of a failed round and splits at the next, counting its self-transfers on /metrics', async () => {
    const registry = new Registry();
    const worked: SideKept[][] = [];
    const failed: unknown[] = [];
    let refusing = true;
    const keeper = new PoolHoldingsKeeper({
      db,
      ledger: ledgerWith(ledger, {
        getHoldings: async (party) => {
          if (refusing) throw new LedgerError('timeout', 'the ledger does not answer');
          return ledger.getHoldings(party);
        },
      }),
      targets: { EUR: 2, '*': 4 },
      registry,
      onWork: (sides) => worked.push([...sides]),
      onError: (error) => {
        failed.push(error);
        refusing = false;
      },
    });
    // Rounds far apart: the first, refused, runs at start; the test runs the next itself.
    keeper.start(60_000);
    await waitFor(async () => failed.length > 0, 'the first round to fail');
    await keeper.stop();
    keeper.start(60_000);
    const [sides] = await waitFor(async () => worked.length > 0 && worked, 'a round that split');
    await keeper.stop();
    expect(sides?.map((side) => [side.instrument.id, side.target, side.selfTransfers])).toEqual([
      ['USD', 4, 3],
      ['EUR', 2, 1],
    ]);
    const metrics = await registry.metrics();
    expect(metrics).toContain(
      'poolparty_pool_holding_splits_total{pool="pool-usd-eur",instrument="USD"} 3',
    );
    expect(metrics).toContain('poolparty_pool_holdings{pool="pool-usd-eur",instrument="EUR"} 2');
    expect(metrics).toContain(
      'poolparty_pool_holdings_target{pool="pool-usd-eur",instrument="USD"} 4',
    );
  });
});
