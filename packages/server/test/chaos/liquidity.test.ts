/**
 * The liquidity rounds' decisions: which token a stray carries and which reference, what a cancel
 * race does after its cancel, the amounts at the seeded prices, and the waits for ended swaps
 * that start each round.
 */
import { instrumentKey } from '@poolparty/core';
import { describe, expect, it } from 'vitest';
import {
  afterCancel,
  amountIn,
  instrumentsOf,
  SwapMilestones,
  strayInstrument,
  strayReference,
} from '../../chaos/liquidity.js';
import type { PlannedLiquidityRound, StrayKind, StrayRound } from '../../chaos/schedule.js';
import type { DevnetPoolInfo } from '../../src/devnet-bootstrap.js';

const amulet = { id: 'Amulet', admin: 'dso::1' };
const usdcx = { id: 'USDCx', admin: 'circle::1' };
const bridged = { id: 'USDCx', admin: 'bridge::1' };
const cbtc = { id: 'CBTC', admin: 'bitsafe::1' };

function pool(poolId: string, tokenB: typeof usdcx, reserveB: string): DevnetPoolInfo {
  return {
    poolId,
    tokenA: amulet,
    tokenB,
    swapParty: `${poolId}-swap::1`,
    lpParty: `${poolId}-lp::1`,
    reserveA: '1000000',
    reserveB,
    feeBps: 30,
  };
}

const POOLS = [
  pool('amulet-usdcx', usdcx, '150000'),
  pool('amulet-usdcx-bridge', bridged, '150000'),
  pool('amulet-cbtc', cbtc, '1.5'),
];

function stray(stray: StrayKind, pick: number, index = 3, provider = 1) {
  const round: StrayRound = { kind: 'stray', stray, pick };
  return {
    index,
    afterSwaps: 1,
    provider,
    pool: 0,
    size: 1,
    round,
  } satisfies PlannedLiquidityRound;
}

describe('stray deposits', () => {
  it('send a token the pool does not trade for untraded-token, one of its own otherwise', () => {
    const picks = [0, 0.3, 0.6, 0.99];
    for (const p of POOLS) {
      const own = [instrumentKey(p.tokenA), instrumentKey(p.tokenB)];
      for (const pick of picks) {
        const untraded = strayInstrument(stray('untraded-token', pick).round, p, POOLS);
        expect(own).not.toContain(instrumentKey(untraded));
        for (const kind of ['no-reference', 'made-up-reference', 'other-reference'] as const) {
          expect(own).toContain(instrumentKey(strayInstrument(stray(kind, pick).round, p, POOLS)));
        }
      }
    }
    // Each token of a pool, and each it does not trade, is drawn by some pick.
    const drawn = picks.map((pick) =>
      strayInstrument(stray('untraded-token', pick).round, POOLS[0] as DevnetPoolInfo, POOLS),
    );
    expect(new Set(drawn.map(instrumentKey))).toEqual(new Set([bridged, cbtc].map(instrumentKey)));
  });

  it("borrow another provider's reference, never their own", () => {
    const references = [
      { provider: 1, reference: 'pp-own' },
      { provider: 0, reference: 'pp-zero' },
      { provider: 2, reference: 'pp-two' },
    ];
    const borrowed = [0, 0.7].map((pick) =>
      strayReference(stray('other-reference', pick), references),
    );
    expect(borrowed).toEqual([
      { reference: 'pp-zero', kind: 'other-reference' },
      { reference: 'pp-two', kind: 'other-reference' },
    ]);
  });

  it('make one up when no other provider has a reference yet, and say so', () => {
    const own = [{ provider: 1, reference: 'pp-own' }];
    expect(strayReference(stray('other-reference', 0.5, 7), own)).toEqual({
      reference: 'pp-stray-7',
      kind: 'made-up-reference',
    });
    expect(strayReference(stray('made-up-reference', 0.5, 8), own).reference).toBe('pp-stray-8');
  });

  it('carry no reference for no-reference and untraded-token', () => {
    for (const kind of ['no-reference', 'untraded-token'] as const) {
      expect(strayReference(stray(kind, 0.5), [{ provider: 0, reference: 'pp-x' }])).toEqual({
        reference: undefined,
        kind,
      });
    }
  });

  it("are sized in each token at its pool's seeded price", () => {
    expect(amountIn(amulet, 2, POOLS)).toBe('2');
    expect(amountIn(usdcx, 2, POOLS)).toBe('0.3');
    expect(amountIn(cbtc, 2, POOLS)).toBe('0.000003');
    expect(instrumentsOf(POOLS).map(instrumentKey)).toEqual(
      [amulet, usdcx, bridged, cbtc].map(instrumentKey),
    );
  });
});

describe('a cancel race after its cancel', () => {
  it('waits for the deposit back once the intent is cancelled, whatever the answer said', () => {
    for (const answer of ['accepted', 'refused', 'failed'] as const) {
      expect(afterCancel(answer, 'cancelled')).toBe('await_return');
    }
  });

  it('sends the other side of an intent still open after a refused or unanswered cancel', () => {
    expect(afterCancel('refused', 'partial')).toBe('send_other_side');
    expect(afterCancel('failed', 'pending')).toBe('send_other_side');
  });

  it('waits for the end of an intent that moved on, and calls an accepted cancel of an open intent a contradiction', () => {
    expect(afterCancel('refused', 'joining')).toBe('await_end');
    expect(afterCancel('refused', 'refunding')).toBe('await_end');
    expect(afterCancel('accepted', 'partial')).toBe('contradiction');
    expect(afterCancel('accepted', 'pending')).toBe('contradiction');
  });
});

/** Lets the promise callbacks already due run. */
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('swap milestones', () => {
  it('release a wait once that many swaps ended, and every wait when the swaps are done', async () => {
    const milestones = new SwapMilestones();
    const released: number[] = [];
    const waits = [3, 5, 9].map((at) => milestones.at(at).then(() => released.push(at)));
    milestones.reached(4);
    await flush();
    expect(released).toEqual([3]);
    milestones.reached(5);
    await flush();
    expect(released).toEqual([3, 5]);
    milestones.finish();
    await Promise.all(waits);
    expect(released).toEqual([3, 5, 9]);
    await milestones.at(100);
  });
});
