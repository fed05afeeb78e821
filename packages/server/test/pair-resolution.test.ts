import { describe, expect, it } from 'vitest';
import { resolvePair, type TradedPair } from '../src/market/pair-resolution.js';

const DSO = 'DSO::1220aa';
const CIRCLE = 'circle::1220bb';
const BRIDGE = 'bridge::1220cc';
const BITSAFE = 'bitsafe::1220dd';

const amulet = { id: 'Amulet', admin: DSO };
const usdcx = { id: 'USDCx', admin: CIRCLE };
const usdcxBridged = { id: 'USDCx', admin: BRIDGE };
const cbtc = { id: 'CBTC', admin: BITSAFE };

const canonical: TradedPair = { poolId: 'amulet-usdcx', tokenA: amulet, tokenB: usdcx };
const bridge: TradedPair = { poolId: 'amulet-usdcx-bridge', tokenA: amulet, tokenB: usdcxBridged };
const bitcoin: TradedPair = { poolId: 'amulet-cbtc', tokenA: amulet, tokenB: cbtc };
const pools = [canonical, bridge, bitcoin];

describe('resolvePair', () => {
  it('resolves a symbol pair that only one pool trades, in either direction', () => {
    expect(resolvePair(pools, { from: 'Amulet', to: 'CBTC' })).toEqual({
      kind: 'resolved',
      pool: bitcoin,
      inputSide: 'tokenA',
    });
    expect(resolvePair(pools, { from: 'CBTC', to: 'Amulet' })).toEqual({
      kind: 'resolved',
      pool: bitcoin,
      inputSide: 'tokenB',
    });
  });

  it('answers ambiguous with every candidate and the admins that pick it', () => {
    expect(resolvePair(pools, { from: 'USDCx', to: 'Amulet' })).toEqual({
      kind: 'ambiguous',
      candidates: [
        { poolId: 'amulet-usdcx', fromAdmin: CIRCLE, toAdmin: DSO },
        { poolId: 'amulet-usdcx-bridge', fromAdmin: BRIDGE, toAdmin: DSO },
      ],
    });
  });

  it('resolves an ambiguous symbol when both admins are given', () => {
    const resolved = resolvePair(pools, {
      from: 'Amulet',
      to: 'USDCx',
      fromAdmin: DSO,
      toAdmin: BRIDGE,
    });
    expect(resolved).toEqual({ kind: 'resolved', pool: bridge, inputSide: 'tokenA' });
  });

  it('narrows the candidates with a single admin', () => {
    expect(resolvePair(pools, { from: 'Amulet', to: 'USDCx', toAdmin: CIRCLE })).toMatchObject({
      kind: 'resolved',
      pool: canonical,
    });
    expect(resolvePair(pools, { from: 'USDCx', to: 'Amulet', fromAdmin: BRIDGE })).toMatchObject({
      kind: 'resolved',
      pool: bridge,
      inputSide: 'tokenB',
    });
    // The admin of the unambiguous side narrows nothing.
    expect(resolvePair(pools, { from: 'Amulet', to: 'USDCx', fromAdmin: DSO })).toMatchObject({
      kind: 'ambiguous',
    });
  });

  it('lets poolId win over symbol ambiguity', () => {
    expect(
      resolvePair(pools, { from: 'USDCx', to: 'Amulet', poolId: 'amulet-usdcx-bridge' }),
    ).toEqual({ kind: 'resolved', pool: bridge, inputSide: 'tokenB' });
  });

  it('refuses a poolId that does not exist', () => {
    expect(resolvePair(pools, { from: 'Amulet', to: 'USDCx', poolId: 'nope' })).toEqual({
      kind: 'pool_not_found',
      poolId: 'nope',
    });
  });

  it('refuses a poolId that trades another pair, or the pair under other admins', () => {
    expect(resolvePair(pools, { from: 'Amulet', to: 'USDCx', poolId: 'amulet-cbtc' })).toEqual({
      kind: 'pool_mismatch',
      pool: bitcoin,
    });
    expect(
      resolvePair(pools, { from: 'Amulet', to: 'USDCx', poolId: 'amulet-usdcx', toAdmin: BRIDGE }),
    ).toEqual({ kind: 'pool_mismatch', pool: canonical });
  });

  it('refuses a symbol no pool trades, naming which side', () => {
    expect(resolvePair(pools, { from: 'DOGE', to: 'Amulet' })).toEqual({
      kind: 'token_not_found',
      role: 'from',
      token: 'DOGE',
      admin: null,
    });
    expect(resolvePair(pools, { from: 'Amulet', to: 'DOGE', poolId: 'amulet-usdcx' })).toEqual({
      kind: 'token_not_found',
      role: 'to',
      token: 'DOGE',
      admin: null,
    });
  });

  it('refuses a known symbol under an admin that has no such token', () => {
    expect(resolvePair(pools, { from: 'USDCx', to: 'Amulet', fromAdmin: BITSAFE })).toEqual({
      kind: 'token_not_found',
      role: 'from',
      token: 'USDCx',
      admin: BITSAFE,
    });
  });

  it('answers pool_not_found for two traded tokens that no pool pairs', () => {
    expect(resolvePair(pools, { from: 'USDCx', to: 'CBTC' })).toEqual({
      kind: 'pool_not_found',
      poolId: null,
    });
    expect(resolvePair(pools, { from: 'Amulet', to: 'Amulet' })).toEqual({
      kind: 'pool_not_found',
      poolId: null,
    });
  });

  it('finds nothing in an empty book', () => {
    expect(resolvePair([], { from: 'Amulet', to: 'USDCx' })).toMatchObject({
      kind: 'token_not_found',
      role: 'from',
    });
  });

  it('treats two pools of the same instruments as ambiguous even with both admins', () => {
    const twin: TradedPair = { ...canonical, poolId: 'amulet-usdcx-2' };
    const resolved = resolvePair([canonical, twin], {
      from: 'Amulet',
      to: 'USDCx',
      fromAdmin: DSO,
      toAdmin: CIRCLE,
    });
    expect(resolved).toEqual({
      kind: 'ambiguous',
      candidates: [
        { poolId: 'amulet-usdcx', fromAdmin: DSO, toAdmin: CIRCLE },
        { poolId: 'amulet-usdcx-2', fromAdmin: DSO, toAdmin: CIRCLE },
      ],
    });
  });

  it('offers both directions of a pool whose sides share a symbol', () => {
    const stable: TradedPair = { poolId: 'usdcx-usdcx', tokenA: usdcx, tokenB: usdcxBridged };
    expect(resolvePair([stable], { from: 'USDCx', to: 'USDCx' })).toEqual({
      kind: 'ambiguous',
      candidates: [
        { poolId: 'usdcx-usdcx', fromAdmin: CIRCLE, toAdmin: BRIDGE },
        { poolId: 'usdcx-usdcx', fromAdmin: BRIDGE, toAdmin: CIRCLE },
      ],
    });
    expect(
      resolvePair([stable], {
        from: 'USDCx',
        to: 'USDCx',
        poolId: 'usdcx-usdcx',
        fromAdmin: BRIDGE,
      }),
    ).toEqual({ kind: 'resolved', pool: stable, inputSide: 'tokenB' });
  });
});
