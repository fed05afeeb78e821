/**
 * The chaos run's reading of the ledger, on a ledger of hand-made updates: what an LP party
 * forwards to a swap party is no deposit, an atomic swap's execution (an update under a stored
 * swap's command id) is read as such and not as a deposit, a second delivery of an update counts
 * once, and each party's mints, fees and holdings, and every transfer leaving the run's parties,
 * are read.
 */
import { Amount, type Instrument } from '@poolparty/core';
import {
  type Holding,
  type LedgerEvent,
  type LedgerPort,
  type LedgerUpdate,
  REASON_META_KEY,
} from '@poolparty/ledger';
import { describe, expect, it } from 'vitest';
import { type RunParties, readLedger } from '../../chaos/evidence.js';

const AMULET: Instrument = { id: 'Amulet', admin: 'dso::1' };
const USDCX: Instrument = { id: 'USDCx', admin: 'circle::1' };
const PARTIES: RunParties = {
  swap: ['swap::1'],
  lp: ['lp::1'],
  providers: ['provider::1'],
  others: ['trader::1'],
};

const amount = (text: string) => Amount.parse(text);

function transfer(
  sender: string,
  receiver: string,
  value: string,
  reason?: string,
  feesBurned = '0',
): LedgerEvent {
  return {
    kind: 'transfer',
    sender,
    receiver,
    instrument: AMULET,
    amount: amount(value),
    meta: reason === undefined ? {} : { [REASON_META_KEY]: reason },
    offerId: null,
    feesBurned: amount(feesBurned),
  };
}

function mint(owner: string, value: string): LedgerEvent {
  return { kind: 'mint', owner, instrument: AMULET, amount: amount(value) };
}

function update(offset: number, ...events: LedgerEvent[]): LedgerUpdate {
  return {
    offset,
    updateId: `u${offset}`,
    recordTime: new Date(0),
    commandId: null,
    trafficBytes: null,
    events,
  };
}

function holding(owner: string, value: string): Holding {
  return { holdingId: `h-${owner}`, owner, instrument: AMULET, amount: amount(value), lock: null };
}

/** Just what the reading calls: the end, the updates (one delivered twice), the holdings. */
function ledgerOf(updates: LedgerUpdate[], holdings: readonly Holding[]): LedgerPort {
  const end = Math.max(...updates.map((u) => u.offset));
  return {
    ledgerEnd: async () => end,
    async *updates() {
      yield* updates;
    },
    getHoldings: async (party: string) => holdings.filter((h) => h.owner === party),
  } as unknown as LedgerPort;
}

describe('the chaos reading of the ledger', () => {
  const forwardOffer: LedgerEvent = {
    kind: 'offer_created',
    offerId: 'offer-1',
    sender: 'lp::1',
    receiver: 'swap::1',
    instrument: USDCX,
    amount: amount('3'),
    meta: {},
    executeBefore: new Date(0),
  };
  const deposit = update(4, transfer('trader::1', 'swap::1', '5', 'pp-swap-1'));
  const updates = [
    update(1, mint('provider::1', '100'), mint('swap::1', '1000'), mint('trader::1', '10')),
    update(2, transfer('provider::1', 'lp::1', '2', undefined, '0.1')),
    update(3, transfer('lp::1', 'swap::1', '2', 'forward:lp:u2:0')),
    deposit,
    deposit,
    update(5, transfer('swap::1', 'trader::1', '4', 'payout:swp_1')),
    update(6, transfer('swap::1', 'stranger::1', '1', 'payout:swp_9')),
    update(7, forwardOffer),
  ];
  const holdings = [
    holding('provider::1', '97.9'),
    holding('swap::1', '1002'),
    holding('trader::1', '9'),
  ];

  it('takes only what the traders sent a swap party as deposits, each once', async () => {
    const reading = await readLedger(ledgerOf(updates, holdings), PARTIES);
    expect(reading.deposits).toEqual([
      { updateId: 'u4', eventIndex: 0, sender: 'trader::1', receiver: 'swap::1', offerId: null },
    ]);
    expect(reading.transfersByReason).toEqual({ 'payout:swp_1': 1, 'payout:swp_9': 1 });
  });

  it("reads each party's mints, fees and holdings, and what left the run", async () => {
    const reading = await readLedger(ledgerOf(updates, holdings), PARTIES);
    const key = 'Amulet@dso::1';
    expect(reading.accounts).toEqual([
      {
        party: 'swap::1',
        instrument: key,
        minted: '1000',
        burned: '0',
        feesBurned: '0',
        holdings: '1002',
      },
      { party: 'lp::1', instrument: key, minted: '0', burned: '0', feesBurned: '0', holdings: '0' },
      {
        party: 'provider::1',
        instrument: key,
        minted: '100',
        burned: '0',
        feesBurned: '0.1',
        holdings: '97.9',
      },
      {
        party: 'trader::1',
        instrument: key,
        minted: '10',
        burned: '0',
        feesBurned: '0',
        holdings: '9',
      },
    ]);
    expect(reading.crossings).toEqual([
      {
        updateId: 'u6',
        sender: 'swap::1',
        receiver: 'stranger::1',
        instrument: key,
        amount: '1',
        reason: 'payout:swp_9',
      },
    ]);
  });

  it("reads an atomic swap's execution as such, its input leg no deposit", async () => {
    const legs = update(
      8,
      transfer('trader::1', 'swap::1', '3'),
      transfer('swap::1', 'trader::1', '2'),
    );
    const executed = { ...legs, commandId: 'atomic-atm_1-1' };
    const trader = holding('trader::1', '8');
    const reading = await readLedger(
      ledgerOf([...updates, executed], [...holdings.slice(0, 2), trader]),
      PARTIES,
      new Set(['atomic-atm_1-1']),
    );
    expect(reading.atomicUpdates).toEqual([
      { commandId: 'atomic-atm_1-1', updateId: 'u8', transfers: 2 },
    ]);
    expect(reading.deposits.map((d) => d.updateId)).toEqual(['u4']);
    expect(reading.crossings.map((c) => c.updateId)).toEqual(['u6']);
  });
});
