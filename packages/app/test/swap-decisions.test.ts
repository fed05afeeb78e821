/**
 * The pure decisions behind the swap pages: reading an amount, the least output a slippage setting
 * allows, reading the slippage field, the token pickers, the progress timeline and the action asked
 * of the user, and which holdings a Canton wallet's deposit spends.
 */
import type { Pool, SwapStatus } from '@poolparty/sdk';
import { PoolPartyError } from '@poolparty/sdk';
import { describe, expect, it } from 'vitest';
import { minOutputOf, parseAmount, parseSlippagePercent } from '../src/decimal.js';
import { describeError } from '../src/describe-error.js';
import { formatAmount } from '../src/format.js';
import { type SwapReadiness, swapBlocker } from '../src/swap-blocker.js';
import { requiredAction, timelineOf } from '../src/swap-progress-model.js';
import {
  choiceLabel,
  counterparts,
  pairLabel,
  poolFor,
  poolsFor,
  tradableTokens,
} from '../src/token-choice.js';
import {
  holdingsOf,
  registryUrlFor,
  selectInputHoldings,
  spendableOf,
} from '../src/wallets/token-standard.js';
import { readyToSwap } from './support/readiness.js';

describe('parseAmount', () => {
  it('reads the wire form, ignoring the spaces a user types around it', () => {
    expect(parseAmount('100')?.toString()).toBe('100');
    expect(parseAmount(' 0.5 ')?.toString()).toBe('0.5');
    expect(parseAmount('1.0000000001')?.units).toBe(10_000_000_001n);
    expect(parseAmount('0')?.isPositive()).toBe(false);
    expect(parseAmount(`${'9'.repeat(28)}.5`)).not.toBeNull();
  });
  it('refuses anything else', () => {
    for (const text of ['', ' ', '1e3', '-1', '+1', '.5', '5.', '1 000', '1,5', '0.00000000001']) {
      expect(parseAmount(text), text).toBeNull();
    }
    expect(parseAmount('9'.repeat(29))).toBeNull();
  });
});

describe('minOutputOf', () => {
  it('floors output × (1 − slippage) at ten decimals', () => {
    expect(minOutputOf('100', 100)).toBe('99');
    expect(minOutputOf('5.7968690183', 100)).toBe('5.7389003281');
    expect(minOutputOf('0.0000000001', 10)).toBe('0');
  });
  it('refuses what is not an amount or a slippage', () => {
    expect(minOutputOf('1e3', 100)).toBeNull();
    expect(minOutputOf('10', 10.5)).toBeNull();
  });
});

describe('parseSlippagePercent', () => {
  it('reads 0.1 to 5 percent as basis points', () => {
    expect(parseSlippagePercent('0.1')).toEqual({ ok: true, bps: 10 });
    expect(parseSlippagePercent(' 5 ')).toEqual({ ok: true, bps: 500 });
    expect(parseSlippagePercent('0.25')).toEqual({ ok: true, bps: 25 });
  });
  it('says why anything else cannot be used', () => {
    expect(parseSlippagePercent('0.05')).toMatchObject({
      ok: false,
      message: expect.stringContaining('between 0.1 % and 5 %'),
    });
    expect(parseSlippagePercent('5.5')).toMatchObject({ ok: false });
    expect(parseSlippagePercent('0.125')).toMatchObject({
      ok: false,
      message: expect.stringContaining('two decimals'),
    });
    expect(parseSlippagePercent('1%')).toMatchObject({ ok: false });
  });
});

const side = (name: string, admin: string) => ({ name, admin, reserve: '1' });
const pool = (
  poolId: string,
  a: ReturnType<typeof side>,
  b: ReturnType<typeof side>,
  status: Pool['status'] = 'active',
): Pool => ({
  poolId,
  tokenA: a,
  tokenB: b,
  fee: 0.003,
  lpSupply: '1',
  swapAddress: `${poolId}-swap::1220`,
  lpAddress: `${poolId}-lp::1220`,
  status,
});
const AMULET = side('Amulet', 'DSO::1220aa');
const USDCX = side('USDCx', 'circle::1220aa');
const USDCX_BRIDGE = side('USDCx', 'bridge::1220aa');
const CBTC = side('CBTC', 'bitsafe::1220aa');
const POOLS = [
  pool('amulet-usdcx', AMULET, USDCX),
  pool('amulet-usdcx-bridge', AMULET, USDCX_BRIDGE),
  pool('usdcx-cbtc', USDCX, CBTC, 'paused'),
];

describe('token pickers', () => {
  const token = (s: ReturnType<typeof side>) => ({ name: s.name, admin: s.admin });
  it('offers each token of an active pool once, and names admins only for shared symbols', () => {
    const tokens = tradableTokens(POOLS);
    expect(tokens.map((t) => choiceLabel(t, tokens))).toEqual([
      'Amulet',
      'USDCx (issued by bridge)',
      'USDCx (issued by circle)',
    ]);
  });
  it('names the short party when two admins share a hint', () => {
    const all = [token(USDCX), { name: 'USDCx', admin: 'circle::1220bbbbbbbbbbbb' }];
    expect(choiceLabel(all[1] as { name: string; admin: string }, all)).toBe(
      'USDCx (issued by circle::1220bbbb…)',
    );
  });
  it('pairs a token with the other side of its active pools, and finds the pool', () => {
    expect(counterparts(POOLS, token(USDCX))).toEqual([token(AMULET)]);
    expect(poolFor(POOLS, token(USDCX_BRIDGE), token(AMULET))?.poolId).toBe('amulet-usdcx-bridge');
    expect(poolFor(POOLS, token(USDCX), token(CBTC))).toBeNull();
  });
});

function status(partial: Partial<SwapStatus>): SwapStatus {
  return {
    kind: 'deposit',
    intentId: 'swp_1',
    poolId: 'amulet-usdcx',
    depositAddress: 'amulet-usdcx-swap::1220',
    depositReference: 'ref',
    inputToken: 'Amulet',
    inputTokenAdmin: 'DSO::1220',
    outputToken: 'USDCx',
    outputTokenAdmin: 'circle::1220',
    expectedAmount: '100',
    expectedOutput: '12',
    minOutput: '11.88',
    slippageTolerance: 0.01,
    outputAddress: 'me::1220',
    expiresAt: '2026-11-23T10:00:00.000Z',
    status: 'pending',
    createdAt: '2026-11-23T09:00:00.000Z',
    terminal: false,
    actualOutput: null,
    matchedAt: null,
    completedAt: null,
    failureReason: null,
    deposit: null,
    payout: null,
    refund: null,
    history: [{ status: 'pending', at: '2026-11-23T09:00:00.000Z' }],
    ...partial,
  };
}

describe('the progress timeline', () => {
  it('draws every in-progress state, reached or not, then the outcome', () => {
    const steps = timelineOf(
      status({
        status: 'slippage_failed',
        history: [
          { status: 'pending', at: 't0' },
          { status: 'matched', at: 't1' },
          { status: 'deposit_received', at: 't2' },
          { status: 'processing', at: 't3' },
          { status: 'slippage_failed', at: 't4' },
        ],
      }),
    );
    expect(steps.map((s) => [s.state, s.at, s.current])).toEqual([
      ['pending', 't0', false],
      ['matched', 't1', false],
      ['deposit_received', 't2', false],
      ['forwarded', null, false],
      ['processing', 't3', false],
      ['sending_output', null, false],
      ['slippage_failed', 't4', true],
    ]);
    expect(steps.at(-1)?.text.title).toBe('Refunded: the price moved');
  });
});

describe('the action asked of the user', () => {
  it('is the deposit while pending without one', () => {
    expect(requiredAction(status({}))).toEqual({ kind: 'deposit' });
  });
  it('is accepting a payout offer, then nothing once it is committed', () => {
    const payout = {
      amount: '12',
      state: 'offered' as const,
      updateId: 'u',
      offerId: 'o1',
      expiresAt: 'e',
    };
    expect(requiredAction(status({ status: 'sending_output', payout }))).toEqual({
      kind: 'accept',
      leg: 'payout',
      offerId: 'o1',
      amount: '12',
      token: 'USDCx',
      tokenAdmin: 'circle::1220',
      expiresAt: 'e',
    });
    expect(
      requiredAction(status({ status: 'completed', payout: { ...payout, state: 'committed' } })),
    ).toBeNull();
  });
  it('is accepting a refund offer, in the input token', () => {
    const refund = {
      amount: '99',
      state: 'offered' as const,
      updateId: 'u',
      offerId: 'r1',
      expiresAt: null,
      networkFeeAmount: '1',
    };
    expect(requiredAction(status({ status: 'processing', refund }))).toMatchObject({
      leg: 'refund',
      token: 'Amulet',
    });
  });
});

describe("a Canton wallet's input holdings", () => {
  const me = 'me::1220';
  const entry = (contractId: string, amount: string, extra: Record<string, unknown> = {}) => ({
    contractEntry: {
      JsActiveContract: {
        createdEvent: {
          contractId,
          interfaceViews: [
            {
              interfaceId: 'abc:Splice.Api.Token.HoldingV1:Holding',
              viewValue: {
                owner: me,
                instrumentId: { admin: 'DSO::1220', id: 'Amulet' },
                amount,
                lock: null,
                ...extra,
              },
            },
          ],
        },
      },
    },
  });
  const holdings = holdingsOf([
    entry('a', '30.0'),
    entry('b', '50.0'),
    entry('locked', '500.0', { lock: { holders: ['DSO::1220'] } }),
    entry('other', '500.0', { instrumentId: { admin: 'DSO::1220', id: 'Other' } }),
    { contractEntry: { JsIncompleteAssigned: {} } },
  ]);
  const amulet = { admin: 'DSO::1220', id: 'Amulet' };
  it('spends the fewest unlocked holdings of the instrument, largest first', () => {
    expect(selectInputHoldings(holdings, me, amulet, '40')).toEqual(['b']);
    expect(selectInputHoldings(holdings, me, amulet, '80')).toEqual(['b', 'a']);
  });
  it('answers null when the unlocked holdings do not cover the amount', () => {
    expect(selectInputHoldings(holdings, me, amulet, '80.0000000001')).toBeNull();
  });
});

describe('the registry a Canton wallet asks', () => {
  const registries = {
    defaultUrl: 'https://scan.example/api/validator/v0/scan-proxy/',
    byAdmin: { 'circle::1220': 'https://circle.example/registry' },
  };
  it("is the admin's own registry, else the default one", () => {
    expect(registryUrlFor(registries, 'circle::1220')).toBe('https://circle.example/registry');
    expect(registryUrlFor(registries, 'DSO::1220')).toBe(
      'https://scan.example/api/validator/v0/scan-proxy',
    );
    expect(registryUrlFor({ defaultUrl: null, byAdmin: {} }, 'DSO::1220')).toBeNull();
  });
});

describe('formatAmount', () => {
  it('keeps six significant digits, so a small amount is not shown as its first decimals', () => {
    expect(formatAmount('0.0001325888')).toBe('0.000132588');
    expect(formatAmount('13.2588874884')).toBe('13.2588');
    expect(formatAmount('1000000')).toBe('1,000,000');
    expect(formatAmount('145000.125')).toBe('145,000.12');
    expect(formatAmount('0.145')).toBe('0.145');
    expect(formatAmount('1.5', 10)).toBe('1.5');
  });
});

describe('describeError', () => {
  const party = `nc2desktop::1220${'ab'.repeat(32)}`;
  it('says a short balance in plain words, without the ledger text or the party id', () => {
    const raw = new PoolPartyError('Invalid request', {
      code: 'validation_error',
      details: `${party} holds 0 unlocked Amulet, needs 100`,
    });
    const text = describeError(raw);
    expect(text).toBe(
      'Your party holds 0 unlocked Amulet, and this needs 100 Amulet. Get more Amulet first.',
    );
    expect(text).not.toContain('1220');
  });
  it('words the codes a trader meets, and shortens any party id left in a message', () => {
    expect(describeError(new PoolPartyError('x', { code: 'active_intent_exists' }))).toContain(
      'Cancel it',
    );
    expect(describeError(new Error(`No transfer from ${party}`))).toBe(
      'No transfer from nc2desktop::1220abab…',
    );
  });
});

describe('swapBlocker', () => {
  const ready = readyToSwap({ settlementSafety: null } as SwapReadiness['quote']);
  it('lets a swap the balance, amount and quote allow go, and says why another cannot', () => {
    expect(swapBlocker(ready)).toBeNull();
    expect(swapBlocker({ ...ready, walletConnected: false })).toBe('Connect a wallet to swap.');
    expect(swapBlocker({ ...ready, amount: '0' })).toBe('Enter an amount above 0.');
    expect(swapBlocker({ ...ready, spendable: '0' })).toBe(
      'Your party holds no Amulet it can spend. Get some Amulet first.',
    );
    expect(swapBlocker({ ...ready, spendable: '99.5' })).toContain('can spend 99.5 Amulet');
    expect(swapBlocker({ ...ready, waitingSwap: true })).toContain('still waiting');
    expect(swapBlocker({ ...ready, quote: null })).toBe('Waiting for a quote…');
    expect(swapBlocker({ ...ready, quote: null, quoteError: 'x' })).toContain('no quote');
    expect(
      swapBlocker({ ...ready, quote: { settlementSafety: {} } as SwapReadiness['quote'] }),
    ).toContain('cannot take this swap');
    // Unknown balances do not block: the deposit's own check still applies.
    expect(swapBlocker({ ...ready, spendable: null })).toBeNull();
  });
});

describe('pools of a pair and their labels', () => {
  const side = (name: string, admin: string) => ({ name, admin, reserve: '1' });
  const pool = (poolId: string, b: string) =>
    ({
      poolId,
      status: 'active',
      tokenA: side('Amulet', 'dso::1220aa'),
      tokenB: side('USDCx', `${b}::1220aa`),
    }) as Pool;
  const pools = [pool('one', 'circle'), pool('two', 'circle'), pool('bridge', 'bridge')];
  it('lists every pool trading a pair, and names the issuer where symbols clash', () => {
    const amulet = { name: 'Amulet', admin: 'dso::1220aa' };
    const usdcx = { name: 'USDCx', admin: 'circle::1220aa' };
    expect(poolsFor(pools, amulet, usdcx).map((p) => p.poolId)).toEqual(['one', 'two']);
    expect(pairLabel(pools[2] as Pool, pools)).toBe('Amulet/USDCx (bridge)');
  });
});

describe('spendableOf', () => {
  it("sums the party's unlocked holdings per instrument", () => {
    const holding = (amount: string, locked = false, owner = 'me') => ({
      contractId: amount,
      owner,
      admin: 'dso',
      id: 'Amulet',
      amount,
      locked,
    });
    expect(
      spendableOf(
        [holding('1.5'), holding('2.25'), holding('7', true), holding('9', false, 'other')],
        'me',
      ),
    ).toEqual([{ token: 'Amulet', admin: 'dso', amount: '3.75' }]);
  });
});
