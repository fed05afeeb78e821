/**
 * The chaos verdict on hand-made evidence: a clean run passes; a double payout, a lost deposit
 * (unrecorded, without outcome, or never on the ledger), a deposit in two outcomes, books that
 * differ from the holdings and a pool the service's own reconciliation blocked each fail it. On the liquidity side: a deposit to an LP party left
 * part-way, one taken by a cancelled intent, an LP party holding anything, an update or swap set
 * aside, a provider short of what it should hold, an instrument not conserved over the run's
 * parties, and a transfer to a party outside the run each fail it. Atomic swaps: one completed
 * in one update of its two legs and one ended with nothing moved pass; one executed twice, one
 * whose books and ledger disagree, and one never ended each fail it.
 */
import { describe, expect, it } from 'vitest';
import {
  assembleEvidence,
  type LedgerAccount,
  type LedgerReading,
  type PoolBalance,
  type StoreReading,
} from '../../chaos/evidence.js';
import { judge } from '../../chaos/verdict.js';

const AMULET = 'Amulet@dso::1';
const USDCX = 'USDCx@usdcx::1';

/**
 * Three swap deposits: one paid out, one whose swap was refunded, one unmatched and returned.
 * Atomic swaps: atm_1 completed in update ua1 under its second preparation's command id, atm_2
 * ended price_moved with nothing on the ledger.
 * Liquidity: provider lp::1 sent a stray 2 Amulet that came back, and an intent of 10 Amulet and
 * 5 USDCx that completed; provider lp::2 had a deposit of 1 USDCx returned after its cancel.
 */
function cleanRun(): { store: StoreReading; ledger: LedgerReading; pools: PoolBalance[] } {
  return {
    store: {
      deposits: [
        deposit('dep_1', 'u1', 'swp_1', 'attributed', null),
        deposit('dep_2', 'u2', 'swp_2', 'attributed', 'offer_2'),
        deposit('dep_3', 'u3', null, 'returned', 'offer_3'),
      ],
      flags: [],
      liquidityDeposits: [
        lpDeposit('lp:s1:0', null, null, 'returned'),
        lpDeposit('lp:a1:0', 'liq_1', 'completed', 'forwarded'),
        lpDeposit('lp:b1:0', 'liq_1', 'completed', 'forwarded'),
        lpDeposit('lp:c2:0', null, null, 'returned', 'lp::2'),
      ],
      openFlags: [{ id: 7, kind: 'refund_failed' }],
      joined: [
        { provider: 'lp::1', instrument: AMULET, amount: '10' },
        { provider: 'lp::1', instrument: USDCX, amount: '5' },
      ],
      atomicSwaps: [
        atomicSwap('atm_1', 'completed', 2, 'ua1'),
        atomicSwap('atm_2', 'price_moved', 1, null),
      ],
    },
    ledger: {
      deposits: [
        ledgerDeposit('u1', null),
        ledgerDeposit('u2', 'offer_2'),
        ledgerDeposit('u3', 'offer_3'),
      ],
      transfersByReason: { 'payout:swp_1': 1, 'refund:swp_2': 1 },
      rejectedOffers: { offer_3: 1 },
      parties: { swap: ['swap::1'], lp: ['lpp::1'], providers: ['lp::1', 'lp::2'], others: [] },
      accounts: [
        account('swap::1', AMULET, { minted: '90.5', holdings: '100.5' }),
        account('swap::1', USDCX, { minted: '2', holdings: '7' }),
        account('lp::1', AMULET, { minted: '100', holdings: '89.9', feesBurned: '0.1' }),
        account('lp::1', USDCX, { minted: '50', holdings: '45' }),
        account('lp::2', USDCX, { minted: '50', holdings: '50' }),
        account('lpp::1', AMULET, { minted: '0', holdings: '0' }),
      ],
      crossings: [],
      atomicUpdates: [{ commandId: 'atomic-atm_1-2', updateId: 'ua1', transfers: 2 }],
    },
    pools: [{ poolId: 'p', books: { a: '100.5', b: '7' }, holdings: { a: '100.5', b: '7.0' } }],
  };
}

function atomicSwap(id: string, status: string, preparations: number, updateId: string | null) {
  const commandIds = Array.from({ length: preparations }, (_, n) => `atomic-${id}-${n + 1}`);
  return { atomicSwapId: id, status, commandIds, updateId };
}

function lpDeposit(
  depositId: string,
  intentId: string | null,
  intentStatus: string | null,
  status: string,
  sender = 'lp::1',
) {
  return { depositId, poolId: 'p', sender, intentId, intentStatus, status, unmatchedReason: null };
}

function account(
  party: string,
  instrument: string,
  figures: { minted: string; holdings: string; feesBurned?: string; burned?: string },
): LedgerAccount {
  return { party, instrument, burned: '0', feesBurned: '0', ...figures };
}

function deposit(
  depositId: string,
  updateId: string,
  intentId: string | null,
  status: string,
  offerId: string | null,
) {
  return { depositId, updateId, eventIndex: 0, poolId: 'p', intentId, status, offerId };
}

function ledgerDeposit(updateId: string, offerId: string | null) {
  return { updateId, eventIndex: 0, receiver: 'swap::1', sender: 'trader::1', offerId };
}

const judged = (run: ReturnType<typeof cleanRun>, traderDeposits = ['u1', 'u2', 'u3']) =>
  judge(assembleEvidence(run.store, run.ledger, run.pools, traderDeposits));

const kinds = (verdict: ReturnType<typeof judge>) => verdict.violations.map((v) => v.kind);

describe('chaos verdict', () => {
  it('passes a run where each deposit has one outcome and the books equal the holdings', () => {
    const verdict = judged(cleanRun());
    expect(verdict).toMatchObject({
      passed: true,
      deposits: 3,
      outcomes: { payout: 1, refund: 2, flagged: 0 },
      doublePayouts: 0,
      lostDeposits: 0,
      poolsBalanced: 1,
      violations: [],
    });
  });

  it('counts a deposit kept for an operator as flagged', () => {
    const run = cleanRun();
    const store = {
      ...run.store,
      deposits: [...run.store.deposits, deposit('dep_4', 'u4', null, 'flagged', null)],
    };
    const ledger = { ...run.ledger, deposits: [...run.ledger.deposits, ledgerDeposit('u4', null)] };
    const verdict = judged({ ...run, store, ledger }, ['u1', 'u2', 'u3', 'u4']);
    expect(verdict.passed).toBe(true);
    expect(verdict.outcomes.flagged).toBe(1);
  });

  it('fails a double payout', () => {
    const run = cleanRun();
    const ledger = { ...run.ledger, transfersByReason: { 'payout:swp_1': 2, 'refund:swp_2': 1 } };
    const verdict = judged({ ...run, ledger });
    expect(verdict.passed).toBe(false);
    expect(verdict.doublePayouts).toBe(1);
    expect(kinds(verdict)).toEqual(['double_payout']);
  });

  it('fails a payout of an intent no recorded deposit funded', () => {
    const run = cleanRun();
    const ledger = {
      ...run.ledger,
      transfersByReason: { ...run.ledger.transfersByReason, 'payout:swp_9': 1 },
    };
    expect(kinds(judged({ ...run, ledger }))).toEqual(['payout_without_deposit']);
  });

  it('fails a deposit on the ledger that the store never recorded', () => {
    const run = cleanRun();
    const ledger = { ...run.ledger, deposits: [...run.ledger.deposits, ledgerDeposit('u9', null)] };
    const verdict = judged({ ...run, ledger });
    expect(verdict.lostDeposits).toBe(1);
    expect(verdict.violations).toEqual([
      { kind: 'lost_deposit', detail: 'deposit u9#0 on the ledger, not in the store' },
    ]);
  });

  it('fails a recorded deposit with neither payout, refund nor flag', () => {
    const run = cleanRun();
    const ledger = { ...run.ledger, rejectedOffers: {} };
    const verdict = judged({ ...run, ledger });
    expect(verdict.passed).toBe(false);
    expect(verdict.lostDeposits).toBe(1);
    expect(kinds(verdict)).toEqual(['lost_deposit']);
  });

  it("fails a trader's deposit that never reached a swap party", () => {
    const verdict = judged(cleanRun(), ['u1', 'u2', 'u3', 'u7']);
    expect(verdict.lostDeposits).toBe(1);
    expect(kinds(verdict)).toEqual(['lost_deposit']);
  });

  it('fails a deposit both paid out and refunded', () => {
    const run = cleanRun();
    const ledger = {
      ...run.ledger,
      transfersByReason: { 'payout:swp_1': 1, 'refund:swp_1': 1, 'refund:swp_2': 1 },
    };
    const verdict = judged({ ...run, ledger });
    expect(verdict.violations).toEqual([
      { kind: 'several_outcomes', detail: 'deposit dep_1 has payout and refund' },
    ]);
  });

  it('fails a deposit both refunded and flagged', () => {
    const run = cleanRun();
    const store = {
      ...run.store,
      flags: [{ intentId: null, depositId: 'dep_3', kind: 'refund_failed' }],
    };
    expect(kinds(judged({ ...run, store }))).toEqual(['several_outcomes']);
  });

  it("fails a pool the service's own reconciliation blocked", () => {
    const run = cleanRun();
    const openFlags = [...run.store.openFlags, { id: 8, kind: 'reconciliation_mismatch' }];
    expect(judged({ ...run, store: { ...run.store, openFlags } }).violations).toEqual([
      {
        kind: 'reconciliation_mismatch',
        detail: "open reconciliation_mismatch flag 8: the service's reconciliation blocked a pool",
      },
    ]);
  });

  it('fails books that differ from the holdings by one unit', () => {
    const run = cleanRun();
    const pools = [
      { poolId: 'p', books: { a: '100.5', b: '7' }, holdings: { a: '100.5000000001', b: '7' } },
    ];
    const verdict = judged({ ...run, pools });
    expect(verdict.poolsBalanced).toBe(0);
    expect(verdict.violations).toEqual([
      { kind: 'books_differ', detail: 'pool p side a: books 100.5, holdings 100.5000000001' },
    ]);
  });
});

describe('chaos verdict on liquidity', () => {
  it('passes deposits returned or forwarded, empty LP parties and balanced providers', () => {
    const verdict = judged(cleanRun());
    expect(verdict.violations).toEqual([]);
    expect(verdict.liquidity).toEqual({
      deposits: 4,
      returned: 2,
      forwarded: 2,
      lpParties: 1,
      lpPartiesEmpty: 1,
      providerBalances: 3,
      providersBalanced: 3,
      instruments: 2,
      instrumentsConserved: 2,
    });
  });

  it.each(['accepting', 'forwarding', 'returning', 'flagged'])(
    'fails a deposit stranded %s',
    (status) => {
      const run = cleanRun();
      const store = {
        ...run.store,
        liquidityDeposits: [
          ...run.store.liquidityDeposits.slice(0, 3),
          lpDeposit('lp:c2:0', null, null, status, 'lp::2'),
        ],
      };
      expect(judged({ ...run, store }).violations).toEqual([
        {
          kind: 'liquidity_deposit_open',
          detail: `liquidity deposit lp:c2:0 from lp::2 to pool p is ${status}`,
        },
      ]);
    },
  );

  it('fails a deposit a cancelled intent took, even one returned since', () => {
    const run = cleanRun();
    const store = {
      ...run.store,
      liquidityDeposits: [
        ...run.store.liquidityDeposits.slice(0, 3),
        lpDeposit('lp:c2:0', 'liq_2', 'cancelled', 'returned', 'lp::2'),
      ],
    };
    expect(kinds(judged({ ...run, store }))).toEqual(['cancelled_intent_holds_deposit']);
  });

  it('fails an LP party that holds anything, locked or not', () => {
    const run = cleanRun();
    const accounts = run.ledger.accounts.map((a) =>
      a.party === 'lpp::1' ? { ...a, minted: '3', holdings: '3' } : a,
    );
    const verdict = judged({ ...run, ledger: { ...run.ledger, accounts } });
    expect(verdict.violations).toEqual([
      { kind: 'lp_party_holds', detail: `LP party lpp::1 holds 3 ${AMULET}` },
    ]);
    expect(verdict.liquidity.lpPartiesEmpty).toBe(0);
  });

  it.each(['update_set_aside', 'execution_set_aside'])('fails an open %s flag', (kind) => {
    const run = cleanRun();
    const store = { ...run.store, openFlags: [...run.store.openFlags, { id: 9, kind }] };
    expect(judged({ ...run, store }).violations).toEqual([
      { kind: 'set_aside', detail: `open ${kind} flag 9` },
    ]);
  });

  it('fails a provider whose stray deposit did not come back', () => {
    const run = cleanRun();
    // lp::2's 1 USDCx is with the swap party instead: the totals hold, the provider is short.
    const accounts = run.ledger.accounts.map((a) =>
      a.party === 'lp::2'
        ? { ...a, holdings: '49' }
        : a.party === 'swap::1' && a.instrument === USDCX
          ? { ...a, holdings: '8' }
          : a,
    );
    const verdict = judged({ ...run, ledger: { ...run.ledger, accounts } });
    expect(verdict.violations).toEqual([
      {
        kind: 'provider_holdings_differ',
        detail: `provider lp::2 ${USDCX}: minted 50, held + joined + burned 49`,
      },
    ]);
  });

  it('fails a provider credited with a join it did not pay for', () => {
    const run = cleanRun();
    const store = {
      ...run.store,
      joined: [...run.store.joined, { provider: 'lp::2', instrument: USDCX, amount: '1' }],
    };
    expect(kinds(judged({ ...run, store }))).toEqual(['provider_holdings_differ']);
  });

  it('fails an instrument whose total over the run is not what was minted', () => {
    const run = cleanRun();
    const accounts = run.ledger.accounts.map((a) =>
      a.party === 'swap::1' && a.instrument === AMULET ? { ...a, holdings: '100.4' } : a,
    );
    const verdict = judged({ ...run, ledger: { ...run.ledger, accounts } });
    expect(verdict.violations).toEqual([
      { kind: 'not_conserved', detail: `${AMULET}: minted 190.5, held + burned 190.4` },
    ]);
    expect(verdict.liquidity.instrumentsConserved).toBe(1);
  });

  it('fails a transfer to a party outside the run, though the totals count it', () => {
    const run = cleanRun();
    const crossing = {
      updateId: 'u9',
      sender: 'swap::1',
      receiver: 'stranger::1',
      instrument: AMULET,
      amount: '0.5',
      reason: 'payout:swp_9',
    };
    const accounts = run.ledger.accounts.map((a) =>
      a.party === 'swap::1' && a.instrument === AMULET ? { ...a, holdings: '100' } : a,
    );
    const verdict = judged({
      ...run,
      ledger: { ...run.ledger, accounts, crossings: [crossing] },
      pools: [{ poolId: 'p', books: { a: '100', b: '7' }, holdings: { a: '100', b: '7' } }],
    });
    expect(verdict.violations).toEqual([
      {
        kind: 'left_the_run',
        detail: `0.5 ${AMULET} from swap::1 to stranger::1 (payout:swp_9, update u9)`,
      },
    ]);
  });
});

describe('chaos verdict on atomic swaps', () => {
  const withAtomic = (
    swaps: ReturnType<typeof atomicSwap>[],
    updates: { commandId: string; updateId: string; transfers: number }[],
  ) => {
    const run = cleanRun();
    return judged({
      ...run,
      store: { ...run.store, atomicSwaps: swaps },
      ledger: { ...run.ledger, atomicUpdates: updates },
    });
  };

  it('passes a swap completed in the one update it recorded and one that moved nothing', () => {
    expect(judged(cleanRun()).atomic).toEqual({
      swaps: 2,
      completed: 1,
      nothingMoved: 1,
      doubled: 0,
      lost: 0,
      open: 0,
    });
  });

  it('fails a swap executed under two of its preparations', () => {
    const verdict = withAtomic(
      [atomicSwap('atm_1', 'completed', 2, 'ua1')],
      [
        { commandId: 'atomic-atm_1-1', updateId: 'ua0', transfers: 2 },
        { commandId: 'atomic-atm_1-2', updateId: 'ua1', transfers: 2 },
      ],
    );
    expect(verdict.atomic.doubled).toBe(1);
    expect(verdict.violations).toEqual([
      {
        kind: 'atomic_swap_doubled',
        detail:
          'atomic swap atm_1 is completed with recorded update ua1; on the ledger: ua0 of 2 transfers, ua1 of 2 transfers',
      },
    ]);
  });

  it.each([
    ['moved though it ended price_moved', atomicSwap('atm_2', 'price_moved', 1, null), 'ua2', 2],
    ['completed in another update', atomicSwap('atm_2', 'completed', 1, 'ua1'), 'ua2', 2],
    ['completed in an update of one leg', atomicSwap('atm_2', 'completed', 1, 'ua2'), 'ua2', 1],
  ])('fails a swap %s', (_, swap, updateId, transfers) => {
    const verdict = withAtomic([swap], [{ commandId: 'atomic-atm_2-1', updateId, transfers }]);
    expect(verdict.atomic.lost).toBe(1);
    expect(kinds(verdict)).toEqual(['atomic_swap_lost']);
  });

  it('fails a swap completed with nothing on the ledger', () => {
    const verdict = withAtomic([atomicSwap('atm_3', 'completed', 1, 'ua3')], []);
    expect(kinds(verdict)).toEqual(['atomic_swap_lost']);
  });

  it.each(['prepared', 'executing'])('fails a swap left %s', (status) => {
    const verdict = withAtomic([atomicSwap('atm_4', status, 1, null)], []);
    expect(verdict.atomic.open).toBe(1);
    expect(kinds(verdict)).toEqual(['atomic_swap_open']);
  });
});
