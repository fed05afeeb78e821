import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Amount } from '../src/amount.js';
import {
  custodyOf,
  executionMovements,
  intentFeesOf,
  offeredRefundOf,
  payoutReversal,
  payoutsArrived,
  planIntentRefund,
  planOfferOutcome,
  transferArrived,
} from '../src/leg-outcomes.js';
import { otherSide, type RefundSettlement, type TransferPayload } from '../src/legs.js';
import {
  AccountingError,
  applyMovements,
  type Movement,
  type PoolBooks,
} from '../src/pool-books.js';
import { amount, books, heldChange, side, units } from './support/books.js';

/** The fees an intent recorded, conserved: the parts add up to the deposit. */
const recordedIntent = fc
  .tuple(units, units, units, units)
  .map(([network, lp, platform, afterFee]) => ({
    deposit: Amount.fromUnits(network + lp + platform + afterFee),
    recorded: {
      networkFeeAmount: Amount.fromUnits(network),
      lpFeeAmount: Amount.fromUnits(lp),
      platformFeeAmount: Amount.fromUnits(platform),
      inputAmountAfterPoolFee: Amount.fromUnits(afterFee),
    },
  }));

describe('a transfer the swap party sent arrives', () => {
  it('takes the amount and what it burned out of the side, and nothing from the other', () => {
    fc.assert(
      fc.property(books, side, amount, amount, (before, s, sent, burned) => {
        const movements = transferArrived(before, s, sent, burned);
        expect(heldChange(movements, s)).toBe(-(sent.units + burned.units));
        expect(heldChange(movements, s === 'a' ? 'b' : 'a')).toBe(0n);
      }),
    );
  });

  it('planned together, payouts move each pool exactly as one at a time would', () => {
    const payout = fc.record({
      poolId: fc.constantFrom('p1', 'p2'),
      side,
      amount: amount.map((a) => Amount.fromUnits(a.units / 4n)),
      feesBurned: amount.map((a) => Amount.fromUnits(a.units / 8n)),
    });
    fc.assert(
      fc.property(books, books, fc.array(payout, { maxLength: 8 }), (b1, b2, payouts) => {
        const start = new Map([
          ['p1', b1],
          ['p2', b2],
        ]);
        let together: Map<string, Movement[]>;
        try {
          together = payoutsArrived(start, payouts);
        } catch (error) {
          expect(error).toBeInstanceOf(AccountingError);
          return;
        }
        const oneByOne = new Map(start);
        for (const p of payouts) {
          const before = oneByOne.get(p.poolId) as PoolBooks;
          const moves = transferArrived(before, p.side, p.amount, p.feesBurned);
          oneByOne.set(p.poolId, applyMovements(before, moves));
        }
        for (const [poolId, before] of start) {
          const after = applyMovements(before, together.get(poolId) ?? []);
          expect(after).toEqual(oneByOne.get(poolId));
        }
      }),
    );
  });

  it('refuses payouts of a pool whose books were not read', () => {
    const payout = { poolId: 'p9', side: 'a' as const, amount: Amount.parse('1') };
    expect(() => payoutsArrived(new Map(), [{ ...payout, feesBurned: Amount.ZERO }])).toThrow(
      /no books read for pool p9/,
    );
  });
});

describe('a deposit offer accepted', () => {
  it('is in flight for the intent that waited, or owed back and told when it no longer did', () => {
    fc.assert(
      fc.property(side, amount, fc.boolean(), (s, deposited, waited) => {
        const custody = custodyOf(s, deposited, waited);
        expect(heldChange(custody.movements, s)).toBe(deposited.units);
        expect(custody.owedBack).toBe(!waited);
        const bucket = custody.movements[0]?.bucket;
        expect(bucket).toBe(waited ? 'inflight' : 'outgoing');
      }),
    );
  });
});

describe('a payout that cannot reach its receiver', () => {
  it('moves no holding: the trade is undone between buckets and the refund set aside', () => {
    fc.assert(
      fc.property(recordedIntent, side, amount, ({ deposit, recorded }, outputSide, output) => {
        const fees = intentFeesOf(recorded);
        const reversal = payoutReversal({ deposit, fees, outputSide, output });
        expect(reversal.inputSide).not.toBe(outputSide);
        expect(heldChange(reversal.movements, 'a')).toBe(0n);
        expect(heldChange(reversal.movements, 'b')).toBe(0n);
        const owed = deposit.units - fees.networkFeeAmount.units;
        expect(reversal.refund.units).toBe(owed > 0n ? owed : 0n);
      }),
    );
  });
});

describe('an intent refund', () => {
  const intent = {
    intentId: 'int_1',
    poolId: 'pool_1',
    depositAddress: 'swap::1220aa',
    walletParty: 'alice::1220bb',
    inputToken: 'Amulet',
    inputTokenAdmin: 'dso::1220cc',
  };
  const settle: RefundSettlement = {
    from: 'processing',
    to: 'slippage_failed',
    failureReason: { code: 'slippage_failed', message: 'The output fell below the minimum.' },
    networkFeeAmount: '0.5',
  };

  it('sends nothing when nothing is owed', () => {
    const plan = planIntentRefund({ intent, side: 'a', settle, refund: Amount.ZERO });
    expect(plan).toEqual({ kind: 'nothing_owed' });
  });

  it('returns what is owed from the swap party to the depositor, in the deposited token', () => {
    const plan = planIntentRefund({ intent, side: 'b', settle, refund: Amount.parse('9.5') });
    expect(plan).toEqual({
      kind: 'transfer',
      payload: {
        kind: 'transfer',
        poolId: 'pool_1',
        side: 'b',
        sender: 'swap::1220aa',
        receiver: 'alice::1220bb',
        instrument: { id: 'Amulet', admin: 'dso::1220cc' },
        amount: '9.5',
        reason: 'refund:int_1',
        settle,
      },
    });
  });

  it('keeps a refund offer’s amount and network fee on the intent; a payout offer keeps none', () => {
    const plan = planIntentRefund({ intent, side: 'a', settle, refund: Amount.parse('2') });
    const payload = (plan as { payload: TransferPayload }).payload;
    expect(offeredRefundOf('refund', payload)).toEqual({
      amount: Amount.parse('2'),
      networkFeeAmount: Amount.parse('0.5'),
    });
    expect(offeredRefundOf('payout', payload)).toBeNull();
  });
});

describe('the end of an offer a swap party made', () => {
  it('is a transfer that arrived when accepted, recorded on a payout or refund leg', () => {
    expect(planOfferOutcome('payout', 'accepted')).toEqual({
      legOutcome: 'accepted',
      step: { kind: 'finish_transfer' },
    });
    expect(planOfferOutcome('refund', 'accepted').step).toEqual({ kind: 'finish_transfer' });
    expect(planOfferOutcome('collect', 'accepted')).toEqual({
      legOutcome: null,
      step: { kind: 'finish_collection' },
    });
  });

  it('reverses a payout, parks a refund and returns a collection when it comes back', () => {
    for (const ending of ['rejected', 'withdrawn', 'expired'] as const) {
      const outcome = ending === 'rejected' ? 'rejected' : 'expired';
      const payout = planOfferOutcome('payout', ending);
      expect(payout.legOutcome).toBe(outcome);
      expect(payout.step).toMatchObject({
        kind: 'reverse_payout',
        failureReason: { code: 'output_failed' },
      });
      expect(planOfferOutcome('refund', ending)).toEqual({
        legOutcome: outcome,
        step: { kind: 'abandon_refund', error: `the refund offer was ${ending}` },
      });
      expect(planOfferOutcome('collect', ending)).toEqual({
        legOutcome: null,
        step: { kind: 'return_collection', error: `the collection offer was ${ending}` },
      });
    }
  });

  it('means nothing for an offer no payout, refund or collection made', () => {
    for (const leg of [null, 'accept', 'reject', 'withdraw']) {
      expect(planOfferOutcome(leg, 'accepted')).toEqual({ legOutcome: null, step: null });
      expect(planOfferOutcome(leg, 'rejected')).toEqual({ legOutcome: null, step: null });
    }
  });
});

describe('an execution decision', () => {
  it('moves no holding: a trade or a refund only moves amounts between buckets', () => {
    fc.assert(
      fc.property(side, units, units, units, fc.boolean(), (inputSide, x, y, out, trades) => {
        const deposit = Amount.fromUnits(x + y);
        const decision = trades
          ? {
              kind: 'execute' as const,
              output: Amount.fromUnits(out),
              priceImpact: { num: 0n, den: 1n } as never,
              inputReserveAdded: Amount.fromUnits(x),
              feesCollected: Amount.fromUnits(y),
            }
          : {
              kind: 'refund' as const,
              outcome: 'slippage_failed' as const,
              failureReason: { code: 'slippage_failed', message: 'below the minimum' },
              refund: Amount.fromUnits(x),
              kept: Amount.fromUnits(y),
            };
        const movements = executionMovements({ decision, inputSide, deposit });
        expect(heldChange(movements, 'a')).toBe(0n);
        expect(heldChange(movements, 'b')).toBe(0n);
        const outgoing = movements.filter((m) => m.bucket === 'outgoing');
        expect(outgoing).toEqual([
          {
            side: trades ? otherSide(inputSide) : inputSide,
            bucket: 'outgoing',
            units: trades ? out : x,
          },
        ]);
      }),
    );
  });
});
