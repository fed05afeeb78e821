import {
  Amount,
  compareRatio,
  evaluateSettlementSafety,
  NO_FEE_GROWTH,
  ratio,
} from '@poolparty/core';
import type { PoolRecord } from '@poolparty/store';
import { describe, expect, it } from 'vitest';
import { poolToWire, tokensOf } from '../src/market/pool-view.js';
import {
  guardSnapshotOf,
  POOL_HISTORY_AGE_MAX_MS,
  POOL_RESERVES_AGE_MAX_MS,
  type PoolHistory,
  referenceOf,
  thresholdsOf,
  timeWeightedPrice,
} from '../src/market/quote-guard-inputs.js';
import { Refreshed } from '../src/market/refreshed.js';
import { usdPriceSourceOf } from '../src/market/usd-prices.js';

const amulet = { id: 'Amulet', admin: 'DSO::1220aa' };
const usdcx = { id: 'USDCx', admin: 'circle::1220bb' };
const cbtc = { id: 'CBTC', admin: 'bitsafe::1220dd' };
const a = (text: string) => Amount.parse(text);

const history = (overrides: Partial<PoolHistory> = {}): PoolHistory => ({
  trailingOutputs: { tokenA: Amount.ZERO, tokenB: a('20000') },
  snapshots: [],
  lastReconciliationOk: null,
  incompleteCompletedSwaps: 0,
  ...overrides,
});

describe('guard inputs', () => {
  it('reads per-pool threshold overrides, keeping a malformed one so the guard fails closed', () => {
    expect(thresholdsOf({})).toEqual({});
    expect(thresholdsOf({ outputReserveShareMax: 0.2, unrelated: 1 })).toEqual({
      outputReserveShareMax: 0.2,
    });
    const malformed = thresholdsOf({ outputVelocityShareMax: '0.5' });
    expect(malformed.outputVelocityShareMax).toBeNaN();
    const snapshot = guardSnapshotOf({
      inputSide: 'tokenA',
      reserves: { input: a('1000000'), output: a('145000') },
      reservesLoadedAtMs: 0,
      referencePrice: null,
      history: { value: history(), loadedAtMs: 0 },
      reference: null,
      wallNowMs: 0,
    });
    const verdict = evaluateSettlementSafety(
      snapshot,
      { output: a('10'), pricedInput: a('70') },
      malformed,
    );
    expect(verdict).toMatchObject({ code: 'settlement_safety_guard_unavailable' });
  });

  it('reads the pool reference (tokenB per tokenA) as output per unit of input', () => {
    const view = {
      reserves: { input: a('145000'), output: a('1000000') },
      reservesLoadedAtMs: 0,
      history: { value: history(), loadedAtMs: 0 },
      referencePrice: ratio(145n, 1000n),
      reference: null,
      wallNowMs: 0,
    };
    expect(guardSnapshotOf({ ...view, inputSide: 'tokenA' }).timeWeightedPrice).toEqual(
      ratio(145n, 1000n),
    );
    expect(guardSnapshotOf({ ...view, inputSide: 'tokenB' }).timeWeightedPrice).toEqual(
      ratio(1000n, 145n),
    );
  });

  it('averages the snapshots into output per unit of input', () => {
    const snapshots = [
      { reserveA: a('1000'), reserveB: a('100') },
      { reserveA: a('1000'), reserveB: a('300') },
      { reserveA: Amount.ZERO, reserveB: a('5') },
    ];
    const mean = timeWeightedPrice(snapshots, 'tokenA');
    expect(mean && compareRatio(mean, ratio(2n, 10n))).toBe(0);
    const reverse = timeWeightedPrice(snapshots.slice(0, 1), 'tokenB');
    expect(reverse && compareRatio(reverse, ratio(10n, 1n))).toBe(0);
    expect(timeWeightedPrice([], 'tokenA')).toBeNull();
  });

  it('gives a USD reference only to pairs priced directly on both sides', () => {
    const round = { round: 3, amuletPriceUsd: a('0.145'), opensAt: new Date(1_000) };
    const now = new Date(61_000);
    expect(referenceOf(amulet, usdcx, round, now)).toEqual({
      price: ratio(1_450_000_000n * 1n, 10_000_000_000n),
      observedAtMs: 1_000,
      nowMs: 61_000,
    });
    expect(referenceOf(amulet, cbtc, round, now)).toBeNull();
    expect(referenceOf(amulet, usdcx, null, now)).toEqual({ price: null, ageMs: 0 });
    expect(referenceOf(usdcx, { ...usdcx, admin: 'bridge::1220cc' }, null, now)).toEqual({
      price: ratio(1n, 1n),
      ageMs: 0,
    });
  });

  it('makes the guard unavailable when cached state is older than its bound', () => {
    const view = {
      inputSide: 'tokenA' as const,
      reserves: { input: a('1000000'), output: a('145000') },
      reservesLoadedAtMs: 0,
      referencePrice: null,
      history: { value: history(), loadedAtMs: 0 },
      reference: null,
      wallNowMs: 1_000,
    };
    const fresh = guardSnapshotOf(view);
    expect(fresh.unavailable).toBeUndefined();
    expect(fresh.trailingHourOutputs).toEqual(a('20000'));
    expect(guardSnapshotOf({ ...view, wallNowMs: POOL_RESERVES_AGE_MAX_MS + 1 }).unavailable).toBe(
      'pool_reserves',
    );
    expect(
      guardSnapshotOf({
        ...view,
        reservesLoadedAtMs: POOL_HISTORY_AGE_MAX_MS,
        wallNowMs: POOL_HISTORY_AGE_MAX_MS + 1,
      }).unavailable,
    ).toBe('pool_history');
    expect(guardSnapshotOf({ ...view, history: null }).unavailable).toBe('pool_history');
  });

  it('reports a failed reconciliation as an accounting mismatch', () => {
    const snapshot = guardSnapshotOf({
      inputSide: 'tokenB',
      reserves: { input: a('145000'), output: a('1000000') },
      reservesLoadedAtMs: 0,
      referencePrice: null,
      history: { value: history({ lastReconciliationOk: false }), loadedAtMs: 0 },
      reference: null,
      wallNowMs: 0,
    });
    expect(snapshot.accounting).toEqual({
      incompleteCompletedSwaps: 0,
      lastReconciliationMismatch: true,
    });
    expect(snapshot.trailingHourOutputs).toEqual(Amount.ZERO);
  });
});

describe('USD price sources', () => {
  const pools = [
    { tokenA: amulet, tokenB: usdcx, reserveA: a('1000000'), reserveB: a('145000') },
    { tokenA: cbtc, tokenB: amulet, reserveA: a('1.45'), reserveB: a('1000000') },
  ];

  it('prices USDCx and Amulet directly and other tokens through their Amulet pool', () => {
    expect(usdPriceSourceOf(usdcx, pools)).toEqual({ kind: 'usdcx' });
    expect(usdPriceSourceOf(amulet, pools)).toEqual({ kind: 'amulet' });
    expect(usdPriceSourceOf(cbtc, pools)).toEqual({
      kind: 'amulet_pool',
      reserves: { amulet: a('1000000'), token: a('1.45') },
    });
  });

  it('has no price for a token without an Amulet pool of the same admin', () => {
    expect(usdPriceSourceOf({ ...cbtc, admin: 'other::1220ee' }, pools)).toBeNull();
  });
});

describe('pool view', () => {
  const record: PoolRecord = {
    poolId: 'amulet-usdcx',
    tokenA: amulet,
    tokenB: usdcx,
    swapParty: 'swap::1220ff',
    lpParty: 'lp::1220ff',
    feeBps: 30,
    lpSupply: Amount.parse('12041.5945787922'),
    lpFeeGrowth: NO_FEE_GROWTH,
    status: 'paused',
    guard: {},
    priceImpactCap: null,
    booksFromOffset: null,
    createdAt: new Date(0),
    updatedAt: new Date(0),
    accounting: {
      reserveA: Amount.parse('1000000'),
      reserveB: Amount.parse('145000'),
      inflightA: Amount.parse('500'),
      inflightB: Amount.ZERO,
      outgoingA: Amount.ZERO,
      outgoingB: Amount.parse('70'),
      feesA: Amount.parse('3'),
      feesB: Amount.parse('1'),
      version: 4,
      updatedAt: new Date(0),
    },
  };

  it('shows effective reserves only, never amounts in flight or fees', () => {
    expect(poolToWire(record)).toEqual({
      poolId: 'amulet-usdcx',
      tokenA: { name: 'Amulet', admin: amulet.admin, reserve: '1000000' },
      tokenB: { name: 'USDCx', admin: usdcx.admin, reserve: '145000' },
      fee: 0.003,
      lpSupply: '12041.5945787922',
      swapAddress: 'swap::1220ff',
      lpAddress: 'lp::1220ff',
      status: 'paused',
    });
  });

  it('lists each traded instrument once, by symbol then admin', () => {
    const bridged = { id: 'USDCx', admin: 'bridge::1220cc' };
    expect(
      tokensOf([
        { tokenA: amulet, tokenB: usdcx },
        { tokenA: amulet, tokenB: bridged },
      ]),
    ).toEqual([
      { name: 'Amulet', admin: amulet.admin },
      { name: 'USDCx', admin: bridged.admin },
      { name: 'USDCx', admin: usdcx.admin },
    ]);
  });
});

describe('Refreshed', () => {
  it('keeps the last good value when a re-read fails', async () => {
    let calls = 0;
    const errors: unknown[] = [];
    const value = new Refreshed(
      async () => {
        calls += 1;
        if (calls === 2) throw new Error('store down');
        return calls;
      },
      { onError: (error) => errors.push(error), nowMs: () => calls * 10 },
    );
    await value.start();
    await value.refresh();
    expect(value.current()).toEqual({ value: 1, loadedAtMs: 10 });
    expect(errors).toHaveLength(1);
    await value.refresh();
    expect(value.current()?.value).toBe(3);
  });

  it('re-reads after a read that was already running when the refresh was asked', async () => {
    let state = 'old';
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reads = 0;
    const value = new Refreshed(async () => {
      reads += 1;
      const seen = state;
      if (reads === 1) await gate;
      return seen;
    });
    const first = value.refresh();
    state = 'new';
    const second = value.refresh();
    const third = value.refresh();
    release();
    await Promise.all([first, second, third]);
    expect(value.current()?.value).toBe('new');
    expect(reads).toBe(2);
  });
});
