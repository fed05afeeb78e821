/**
 * The liquidity routes over HTTP on a devnet service: refusals as problem documents with their
 * codes, an intent created from one side, cancelled while pending, completed by both deposits;
 * positions with both tokens' admins; withdrawals refused without burning, then paid on both
 * sides and listed.
 */
import { Amount, type Instrument } from '@poolparty/core';
import { REASON_META_KEY } from '@poolparty/ledger';
import { describe, expect, it } from 'vitest';
import { runAdmin } from './support/admin.js';
import {
  completeLiquidityIntent,
  fundedProvider,
  sharedDevnetPools,
  untilAnswer,
} from './support/pool-liquidity.js';
import { type Body, expectProblem, type TestService } from './support/service.js';

/**
 * The devnet's Amulet/USDCx pool (`devnet.pool`) and its Amulet/CBTC pool (`devnet.pools[1]`):
 * 1 000 000 Amulet to 1.45 CBTC, so one CBTC pairs with ~690 000.
 */
const devnet = sharedDevnetPools('amulet-usdcx', 'amulet-cbtc');
const { t } = devnet;

const call: TestService['call'] = (...args) => t.call(...args);

/** A party funded with both tokens, and its wallet token. */
const provider = (hint: string) => fundedProvider(t, devnet.ledger, devnet.pool, hint);

describe('liquidity intents', () => {
  it('refuse a request without a wallet token, a body without amounts and an unknown pool', async () => {
    const { token } = await provider('refused');
    expectProblem(
      await call('POST', '/v1/liquidity/intents', { body: { poolId: devnet.pool.poolId } }),
      401,
      'missing_wallet_token',
    );
    const create = (body: object) =>
      call('POST', '/v1/liquidity/intents', { walletToken: token, body });
    expectProblem(await create({ poolId: devnet.pool.poolId }), 400, 'validation_error');
    expectProblem(await create({ poolId: 'no-such-pool', amountA: '1' }), 404, 'pool_not_found');
    expectProblem(
      await create({ poolId: devnet.pool.poolId, amountA: '-1' }),
      400,
      'validation_error',
    );
  });

  it('are created from one side, one open per pool, and cancelled only while pending', async () => {
    const { token } = await provider('canceller');
    const other = await provider('other');
    const created = await call('POST', '/v1/liquidity/intents', {
      walletToken: token,
      body: { poolId: devnet.pool.poolId, amountA: '100' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: 'pending',
      depositAddress: devnet.pool.lpParty,
      expected: { a: '100' },
      slippageBps: 50,
    });
    expect(Amount.parse(created.body.expected.b).isPositive()).toBe(true);
    const again = await call('POST', '/v1/liquidity/intents', {
      walletToken: token,
      body: { poolId: devnet.pool.poolId, amountB: '1' },
    });
    expectProblem(again, 409, 'active_liquidity_intent_exists');
    expect(again.body.liquidityIntentId).toBe(created.body.liquidityIntentId);
    const id = created.body.liquidityIntentId;
    expectProblem(
      await call('GET', `/v1/liquidity/intents/${id}`, { walletToken: other.token }),
      404,
      'not_found',
    );
    const cancelled = await call('POST', `/v1/liquidity/intents/${id}/cancel`, {
      walletToken: token,
    });
    expect(cancelled.body.status).toBe('cancelled');
    const twice = await call('POST', `/v1/liquidity/intents/${id}/cancel`, { walletToken: token });
    expectProblem(twice, 409, 'liquidity_intent_not_cancellable');
    const listed = await call('GET', '/v1/liquidity/intents', { walletToken: token });
    expect(listed.body.items.map((i: Body) => i.liquidityIntentId)).toEqual([id]);
  });
});

describe('liquidity intents beyond what an amount holds', () => {
  const digits = (n: number) => '9'.repeat(n);

  it('refuse an amount they derive past 28 integer digits as a 400, recording nothing', async () => {
    const { token } = await provider('huge');
    const create = (body: object) =>
      call('POST', '/v1/liquidity/intents', { walletToken: token, body });
    // 23 digits of CBTC pair with about 6.9 × 10^28 Amulet at the pool's ratio.
    const paired = await create({ poolId: devnet.pools[1].poolId, amountB: digits(23) });
    expectProblem(paired, 400, 'amount_out_of_range');
    expect(paired.body.detail).toMatch(/28|9999999999999999999999999999/);
    // 28 digits of Amulet fit an amount, but the pool's reserve after the deposit would not.
    for (const poolId of [devnet.pools[1].poolId, devnet.pool.poolId]) {
      expectProblem(await create({ poolId, amountA: digits(28) }), 400, 'amount_out_of_range');
    }
    const { body: listed } = await call('GET', '/v1/liquidity/intents', { walletToken: token });
    expect(listed.items).toEqual([]);
    // No open intent was left behind: the party may still open one on the same pool.
    expect((await create({ poolId: devnet.pools[1].poolId, amountB: '0.01' })).status).toBe(201);
  });
});

describe('the first liquidity of an empty pool', () => {
  it('is refused with a code of its own when it mints no more than the locked units', async () => {
    const [swapParty, lpParty] = await Promise.all(
      ['empty-swap', 'empty-lp'].map(async (hint) => {
        const created = await devnet.ledger.createParty({ hint, preapprovals: 'all' });
        return created.partyId;
      }),
    );
    const spec = (instrument: Instrument) => `${instrument.admin}:${instrument.id}`;
    const { errors } = await runAdmin(
      t.service.ctx.db,
      {
        openLedger: async () => ({ ledger: devnet.ledger, close: async () => {} }),
        now: () => t.service.ctx.clock.now(),
        actor: () => 'ops',
      },
      [
        'pools',
        'add',
        '--swap-party',
        swapParty as string,
        '--lp-party',
        lpParty as string,
        '--base',
        spec(devnet.pool.tokenB),
        '--quote',
        spec(devnet.pools[1].tokenB),
      ],
    );
    expect(errors).toEqual([]);
    const { token } = await provider('first');
    const first = (amountA: string, amountB: string) =>
      call('POST', '/v1/liquidity/intents', {
        walletToken: token,
        body: { poolId: 'usdcx-cbtc', amountA, amountB },
      });
    // √(0.0000001 × 0.0000001) is the locked minimum itself: nothing would be the provider's.
    const tiny = await first('0.0000001', '0.0000001');
    expectProblem(tiny, 400, 'first_deposit_too_small');
    expect(tiny.body.detail).toContain('0.0000001 units');
    expect((await first('1', '0.0001')).status).toBe(201);
  });
});

describe('positions and withdrawals', () => {
  it('complete with both deposits, show the position, refuse a greedy withdrawal, pay half', async () => {
    const { party, token } = await provider('lp');
    const { body: intent } = await call('POST', '/v1/liquidity/intents', {
      walletToken: token,
      body: { poolId: devnet.pool.poolId, amountA: '1000' },
    });
    const done = await completeLiquidityIntent(
      t,
      devnet.ledger,
      devnet.pool,
      { partyId: party.partyId, token },
      intent,
    );
    expect(done.deposits.map((d: Body) => d.status)).toEqual(['forwarded', 'forwarded']);

    const { body: positions } = await call('GET', '/v1/liquidity/positions', {
      walletToken: token,
    });
    expect(positions.items).toHaveLength(1);
    expect(positions.items[0]).toMatchObject({
      poolId: devnet.pool.poolId,
      units: done.minted.units,
      tokenAAdmin: devnet.pool.tokenA.admin,
      tokenBAdmin: devnet.pool.tokenB.admin,
    });

    const withdraw = (body: object) =>
      call('POST', '/v1/liquidity/withdrawals', { walletToken: token, body });
    const base = { poolId: devnet.pool.poolId, minimumA: '0', minimumB: '0' };
    expectProblem(
      await withdraw({ ...base, shareBps: 5000, minimumA: '1000000' }),
      409,
      'withdrawal_minimum_not_met',
    );
    expectProblem(await withdraw({ ...base, shareBps: 5000, units: '1' }), 400, 'validation_error');
    // Zero units is a malformed request, not a position holding too few.
    const zero = await withdraw({ ...base, units: '0' });
    expectProblem(zero, 400, 'validation_error');
    expect(zero.body.detail).toMatch(/units must be positive/);
    expectProblem(await withdraw({ ...base, units: '100000000' }), 409, 'insufficient_units');
    const created = await withdraw({ ...base, shareBps: 5000 });
    expect(created.status).toBe(201);
    const paid = await untilAnswer(
      t,
      `/v1/liquidity/withdrawals/${created.body.withdrawalId}`,
      token,
      (b) => b.status === 'completed',
    );
    expect(paid.payoutA).toMatchObject({ state: 'paid', offerId: null });
    expect(paid.payoutB).toMatchObject({ state: 'paid', offerId: null });
    const { body: listed } = await call('GET', '/v1/liquidity/withdrawals', { walletToken: token });
    expect(listed.items.map((w: Body) => w.withdrawalId)).toEqual([created.body.withdrawalId]);
  });

  it("answer the LP fee share of a swap after the deposit as the position's fees earned", async () => {
    const { party, token } = await provider('lp-fees');
    const { body: intent } = await call('POST', '/v1/liquidity/intents', {
      walletToken: token,
      body: { poolId: devnet.pool.poolId, amountA: '5000' },
    });
    await completeLiquidityIntent(
      t,
      devnet.ledger,
      devnet.pool,
      { partyId: party.partyId, token },
      intent,
    );
    const positionNow = async () =>
      (await call('GET', '/v1/liquidity/positions', { walletToken: token })).body.items[0];
    expect((await positionNow()).feesEarned).toEqual({ a: '0', b: '0', aUsd: '0', bUsd: '0' });

    const { body: swap } = await call('POST', '/v1/swaps', {
      walletToken: token,
      body: { fromToken: 'Amulet', toToken: 'USDCx', amount: '1000', poolId: devnet.pool.poolId },
    });
    await devnet.ledger.submitTransfer({
      commandId: `wallet-${swap.intentId}`,
      sender: party.partyId,
      receiver: swap.depositAddress,
      instrument: devnet.pool.tokenA,
      amount: Amount.parse(swap.expectedAmount),
      meta: { [REASON_META_KEY]: swap.depositReference },
    });
    await untilAnswer(t, `/v1/swaps/${swap.intentId}`, token, (b) => b.status === 'completed');

    const position = await positionNow();
    const { body: pools } = await call('GET', '/v1/pools');
    const supply = Amount.parse(
      pools.pools.find((p: Body) => p.poolId === devnet.pool.poolId).lpSupply,
    );
    // lpFee × units / supply, rounded down: the growth per unit and the figure each round down.
    const share =
      (Amount.parse(swap.lpFeeAmount).units * Amount.parse(position.units).units) / supply.units;
    const earnedA = Amount.parse(position.feesEarned.a).units;
    expect(share - earnedA).toBeGreaterThanOrEqual(0n);
    expect(share - earnedA).toBeLessThanOrEqual(1n);
    expect(earnedA).toBeGreaterThan(0n);
    expect(position.feesEarned).toMatchObject({ b: '0', bUsd: '0' });
    // Amulet is priced on the devnet: the fees have a USD value.
    expect(Number(position.feesEarned.aUsd)).toBeGreaterThan(0);
  });

  it('refuse a withdrawal from a pool that does not exist as 404, before anything else', async () => {
    const { token } = await provider('no-pool');
    const response = await call('POST', '/v1/liquidity/withdrawals', {
      walletToken: token,
      body: { poolId: 'nope', units: '1', minimumA: '0', minimumB: '0' },
    });
    expectProblem(response, 404, 'pool_not_found');
  });

  it('refuse a withdrawal of a pool the party holds no units of', async () => {
    const { token } = await provider('no-units');
    const response = await call('POST', '/v1/liquidity/withdrawals', {
      walletToken: token,
      body: { poolId: devnet.pool.poolId, shareBps: 10_000, minimumA: '0', minimumB: '0' },
    });
    expectProblem(response, 404, 'position_not_found');
  });
});
