/**
 * Several transfers committed as one update (`submitTransfers`): an atomic swap's input and output
 * legs both move, in one update with both transfer events, or — any leg unable to commit — nothing
 * moves at all. The batch is replayed from the journal like any other change.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Amount, type Instrument } from '@poolparty/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type LedgerErrorCode, type LocalLedger, openLocalLedger } from '../src/index.js';

const START = new Date('2030-01-01T00:00:00Z');
const MINUTE_MS = 60_000;

const ledgers: LocalLedger[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(ledgers.splice(0).map((ledger) => ledger.close()));
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function open(dataDir?: string): Promise<LocalLedger> {
  const ledger = await openLocalLedger({ startTime: START, ...(dataDir && { dataDir }) });
  ledgers.push(ledger);
  return ledger;
}

/** A trader holding 100 USD and a pool holding 50 EUR, each pre-approving what it receives. */
async function market(dataDir?: string) {
  const ledger = await open(dataDir);
  const party = async (hint: string, preapprovals: Instrument[] = []) =>
    (await ledger.createParty({ hint, preapprovals })).partyId;
  const usd = { admin: await party('bank'), id: 'USD' };
  const eur = { admin: await party('ecb'), id: 'EUR' };
  await ledger.createInstrument(usd);
  await ledger.createInstrument(eur);
  const trader = await party('trader', [eur]);
  const pool = await party('pool', [usd]);
  await ledger.mint({ owner: trader, instrument: usd, amount: Amount.of(100) });
  const poolEur = await ledger.mint({ owner: pool, instrument: eur, amount: Amount.of(50) });
  return { ledger, usd, eur, trader, pool, poolEur: poolEur.holdingId };
}

type Market = Awaited<ReturnType<typeof market>>;

function swap(m: Market, input = '10', output = '4') {
  const executeBefore = new Date(START.getTime() + MINUTE_MS);
  return [
    {
      sender: m.trader,
      receiver: m.pool,
      instrument: m.usd,
      amount: Amount.parse(input),
      executeBefore,
    },
    {
      sender: m.pool,
      receiver: m.trader,
      instrument: m.eur,
      amount: Amount.parse(output),
      executeBefore,
    },
  ];
}

async function balances(m: Market) {
  const of = async (party: string, instrument: Instrument) => {
    const held = (await m.ledger.getHoldings(party)).filter(
      (h) => h.instrument.id === instrument.id && h.lock === null,
    );
    return Amount.sum(held.map((h) => h.amount)).toString();
  };
  return {
    traderUsd: await of(m.trader, m.usd),
    traderEur: await of(m.trader, m.eur),
    poolUsd: await of(m.pool, m.usd),
    poolEur: await of(m.pool, m.eur),
    end: await m.ledger.ledgerEnd(),
  };
}

async function expectRefusedUnchanged(m: Market, attempt: Promise<unknown>, code: LedgerErrorCode) {
  const before = await balances(m);
  await expect(attempt).rejects.toMatchObject({ code });
  expect(await balances(m)).toEqual(before);
}

describe('a batch of transfers', () => {
  it('moves both legs in one update that carries both transfer events', async () => {
    const m = await market();
    const result = await m.ledger.submitTransfers({ commandId: 'swap-1', transfers: swap(m) });
    expect(await balances(m)).toEqual({
      traderUsd: '90',
      traderEur: '4',
      poolUsd: '10',
      poolEur: '46',
      end: result.offset,
    });
    const update = m.ledger.updateAt(result.offset);
    expect(update?.commandId).toBe('swap-1');
    expect(
      update?.events.map((e) => e.kind === 'transfer' && [e.sender, e.amount.toString()]),
    ).toEqual([
      [m.trader, '10'],
      [m.pool, '4'],
    ]);
    expect(await m.ledger.lookupCommand('swap-1')).toMatchObject({ updateId: result.updateId });
  });

  it('answers a resubmission with the first outcome and moves nothing again', async () => {
    const m = await market();
    const first = await m.ledger.submitTransfers({ commandId: 'swap-2', transfers: swap(m) });
    const before = await balances(m);
    const again = await m.ledger.submitTransfers({ commandId: 'swap-2', transfers: swap(m) });
    expect(again).toEqual(first);
    expect(await balances(m)).toEqual(before);
  });

  it('refuses every leg when one cannot be covered', async () => {
    const m = await market();
    await expectRefusedUnchanged(
      m,
      m.ledger.submitTransfers({ commandId: 'short', transfers: swap(m, '10', '51') }),
      'insufficient_holdings',
    );
  });

  it('refuses every leg once their deadline has passed', async () => {
    const m = await market();
    const transfers = swap(m);
    await m.ledger.advanceClock(MINUTE_MS);
    await expectRefusedUnchanged(
      m,
      m.ledger.submitTransfers({ commandId: 'late', transfers }),
      'offer_expired',
    );
  });

  it('refuses a leg whose receiver does not pre-approve it, and a leg to its own sender', async () => {
    const m = await market();
    const [input, output] = swap(m);
    if (input === undefined || output === undefined) throw new Error('two legs');
    await m.ledger.setPreapproval(m.trader, m.eur, false);
    await expectRefusedUnchanged(
      m,
      m.ledger.submitTransfers({ commandId: 'not-approved', transfers: [input, output] }),
      'not_authorized',
    );
    await expectRefusedUnchanged(
      m,
      m.ledger.submitTransfers({
        commandId: 'merge',
        transfers: [input, { ...output, receiver: m.pool }],
      }),
      'not_authorized',
    );
  });

  it('covers two legs of one sender together, not each on its own', async () => {
    const m = await market();
    const [input, output] = swap(m, '60');
    if (input === undefined || output === undefined) throw new Error('two legs');
    await expectRefusedUnchanged(
      m,
      m.ledger.submitTransfers({ commandId: 'overspent', transfers: [input, output, input] }),
      'insufficient_holdings',
    );
  });

  it('never lets two legs spend one named holding', async () => {
    const m = await market();
    const [input, output] = swap(m, '10', '4');
    if (input === undefined || output === undefined) throw new Error('two legs');
    const named = { ...output, inputHoldingIds: [m.poolEur] };
    await expectRefusedUnchanged(
      m,
      m.ledger.submitTransfers({ commandId: 'twice', transfers: [input, named, named] }),
      'invalid_inputs',
    );
    const result = await m.ledger.submitTransfers({ commandId: 'once', transfers: [input, named] });
    const changes = m.ledger.holdingChangesAt(result.offset);
    expect(changes?.archived.map((h) => h.holdingId)).toContain(m.poolEur);
  });

  it('is rebuilt from the journal', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'batch-'));
    dirs.push(dir);
    const m = await market(dir);
    await m.ledger.submitTransfers({ commandId: 'kept', transfers: swap(m) });
    const before = await balances(m);
    await m.ledger.close();
    const reopened = await open(dir);
    expect(await balances({ ...m, ledger: reopened })).toEqual(before);
    expect(await reopened.lookupCommand('kept')).not.toBeNull();
  });
});
