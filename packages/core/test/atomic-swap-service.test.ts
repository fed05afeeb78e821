import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Amount } from '../src/amount.js';
import {
  atomicSwapMovements,
  ledgerRefusalOutcome,
  OUTPUT_HOLDINGS_PER_SWAP_MAX,
  type PoolHolding,
  pickOutputHoldings,
  signatureProblem,
} from '../src/atomic-swap-service.js';
import { fingerprint } from '../src/fingerprint.js';
import { applyMovements, type PoolBooks } from '../src/pool-books.js';
import { generateKeyPair, sign } from '../src/signing.js';

const units = fc.bigInt({ min: 1n, max: 10n ** 15n });
const holdingsArb = fc
  .array(fc.record({ units, usable: fc.boolean() }), { maxLength: 30 })
  .map((rows) =>
    rows.map(
      (row, n): PoolHolding => ({
        holdingId: `h${n}`,
        amount: Amount.fromUnits(row.units),
        usable: row.usable,
      }),
    ),
  );

describe('picking the holdings an output leg names', () => {
  it('names only free, usable holdings that cover the amount, or says none are free', () => {
    fc.assert(
      fc.property(
        holdingsArb,
        fc.array(fc.nat(30), { maxLength: 10 }),
        units,
        (holdings, reservedAt, want) => {
          const reserved = new Set(reservedAt.map((n) => `h${n}`));
          const amount = Amount.fromUnits(want);
          const pick = pickOutputHoldings(holdings, reserved, amount);
          const byId = new Map(holdings.map((h) => [h.holdingId, h]));
          if (pick.kind === 'picked') {
            expect(pick.holdingIds.length).toBeLessThanOrEqual(OUTPUT_HOLDINGS_PER_SWAP_MAX);
            expect(new Set(pick.holdingIds).size).toBe(pick.holdingIds.length);
            for (const id of pick.holdingIds) {
              expect(reserved.has(id)).toBe(false);
              expect(byId.get(id)?.usable).toBe(true);
            }
            const total = Amount.sum(
              pick.holdingIds.map((id) => byId.get(id)?.amount ?? Amount.ZERO),
            );
            expect(total.eq(pick.total) && total.gte(amount)).toBe(true);
            // As few as cover it: without the last (smallest) one, they would not.
            const withoutLast = total.sub(byId.get(pick.holdingIds.at(-1) ?? '')?.amount ?? total);
            expect(withoutLast.lt(amount)).toBe(true);
          } else {
            // Largest free first: the limit's worth of them does not cover the amount.
            const free = holdings
              .filter((h) => h.usable && !reserved.has(h.holdingId))
              .map((h) => h.amount.units)
              .sort((x, y) => (x > y ? -1 : x < y ? 1 : 0))
              .slice(0, OUTPUT_HOLDINGS_PER_SWAP_MAX);
            expect(free.reduce((sum, u) => sum + u, 0n) < want).toBe(true);
          }
        },
      ),
    );
  });

  it('never names a holding another swap reserved, whatever is asked after it', () => {
    const holdings = ['5', '4', '3', '2', '1'].map((text, n) => ({
      holdingId: `h${n}`,
      amount: Amount.parse(text),
      usable: true,
    }));
    const reserved = new Set<string>();
    const picks: string[][] = [];
    for (const want of ['3', '3', '3', '1']) {
      const pick = pickOutputHoldings(holdings, reserved, Amount.parse(want));
      if (pick.kind !== 'picked') break;
      for (const id of pick.holdingIds) reserved.add(id);
      picks.push([...pick.holdingIds]);
    }
    expect(picks).toEqual([['h0'], ['h1'], ['h2'], ['h3']]);
    expect(pickOutputHoldings(holdings, reserved, Amount.parse('3.5'))).toEqual({
      kind: 'no_free_holdings',
      free: Amount.parse('1'),
    });
  });
});

describe('the signature a swap takes', () => {
  const trader = generateKeyPair();
  const hash = new Uint8Array(32).fill(7);
  const keyFingerprint = fingerprint(trader.publicKey);

  it('is the prepared hash signed by the key the swap names, and nothing else', () => {
    const good = { hash, signature: sign(hash, trader.privateKey), publicKey: trader.publicKey };
    expect(signatureProblem({ ...good, keyFingerprint })).toBeNull();
    const other = generateKeyPair();
    expect(
      signatureProblem({
        hash,
        signature: sign(hash, other.privateKey),
        publicKey: other.publicKey,
        keyFingerprint,
      }),
    ).toMatch(/not the key/);
    expect(
      signatureProblem({
        ...good,
        signature: sign(new Uint8Array(32), trader.privateKey),
        keyFingerprint,
      }),
    ).toMatch(/not one of the prepared transaction's hash/);
    expect(signatureProblem({ ...good, signature: new Uint8Array(10), keyFingerprint })).toMatch(
      /64 bytes/,
    );
  });

  it('is decided by the Ed25519 check its caller gives, over the hash, signature and key', () => {
    const good = { hash, signature: sign(hash, trader.privateKey), publicKey: trader.publicKey };
    const asked: Uint8Array[][] = [];
    const refusing = (...args: Uint8Array[]) => {
      asked.push(args);
      return false;
    };
    expect(signatureProblem({ ...good, keyFingerprint }, refusing)).toMatch(/not one of/);
    expect(asked).toEqual([[hash, good.signature, good.publicKey]]);
  });
});

describe("an executed swap in the pool's books", () => {
  const books: PoolBooks = {
    reserveA: Amount.of(1_000_000),
    reserveB: Amount.of(145_000),
    inflightA: Amount.ZERO,
    inflightB: Amount.ZERO,
    outgoingA: Amount.ZERO,
    outgoingB: Amount.ZERO,
    feesA: Amount.ZERO,
    feesB: Amount.ZERO,
  };

  it('moves the input side by the signed input and the output reserve by the signed output only', () => {
    fc.assert(
      fc.property(units, units, fc.bigInt({ min: 1n, max: 10n ** 14n }), (added, fees, paid) => {
        const after = applyMovements(
          books,
          atomicSwapMovements({
            inputSide: 'a',
            inputReserveAdded: Amount.fromUnits(added),
            feesCollected: Amount.fromUnits(fees),
            paid: Amount.fromUnits(paid),
          }),
        );
        const sideA = (b: PoolBooks) => b.reserveA.units + b.feesA.units + b.inflightA.units;
        expect(sideA(after) - sideA(books)).toBe(added + fees);
        expect(books.reserveB.units - after.reserveB.units).toBe(paid);
        expect(after.outgoingB.eq(Amount.ZERO) && after.inflightA.eq(Amount.ZERO)).toBe(true);
      }),
    );
  });
});

describe('a ledger refusal of an execution', () => {
  it('prepares a spent input again and ends every other refusal with nothing moved', () => {
    expect(ledgerRefusalOutcome('invalid_inputs', 'spent')).toEqual({ kind: 'prepare_again' });
    expect(ledgerRefusalOutcome('deadline_passed', 'late')).toMatchObject({
      kind: 'end',
      state: 'expired',
      code: 'atomic_swap_expired',
    });
    expect(ledgerRefusalOutcome('signature_invalid', 'bad')).toMatchObject({
      state: 'rejected',
      code: 'invalid_transaction_signature',
    });
    expect(ledgerRefusalOutcome('not_authorized', 'no')).toMatchObject({ state: 'rejected' });
    // No answer in time: it may have committed, so it is neither ended nor prepared again.
    for (const code of ['timeout', 'stream_dropped', 'closed', 'rejected']) {
      expect(ledgerRefusalOutcome(code, 'no answer')).toEqual({ kind: 'unresolved' });
    }
  });
});
