/**
 * The chaos verdict on hand-made evidence: a clean run passes; a double payout, a lost deposit
 * (unrecorded, without outcome, or never on the ledger), a deposit in two outcomes and books that
 * differ from the holdings each fail it.
 */
import { describe, expect, it } from 'vitest';
import {
  assembleEvidence,
  type LedgerReading,
  type PoolBalance,
  type StoreReading,
} from '../../chaos/evidence.js';
import { judge } from '../../chaos/verdict.js';

/** Three deposits: one paid out, one whose swap was refunded, one unmatched and returned. */
function cleanRun(): { store: StoreReading; ledger: LedgerReading; pools: PoolBalance[] } {
  return {
    store: {
      deposits: [
        deposit('dep_1', 'u1', 'swp_1', 'attributed', null),
        deposit('dep_2', 'u2', 'swp_2', 'attributed', 'offer_2'),
        deposit('dep_3', 'u3', null, 'returned', 'offer_3'),
      ],
      flags: [],
    },
    ledger: {
      deposits: [
        ledgerDeposit('u1', null),
        ledgerDeposit('u2', 'offer_2'),
        ledgerDeposit('u3', 'offer_3'),
      ],
      transfersByReason: { 'payout:swp_1': 1, 'refund:swp_2': 1 },
      rejectedOffers: { offer_3: 1 },
    },
    pools: [{ poolId: 'p', books: { a: '100.5', b: '7' }, holdings: { a: '100.5', b: '7.0' } }],
  };
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
