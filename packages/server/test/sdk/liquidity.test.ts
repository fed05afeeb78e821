/**
 * `pp.liquidity` against a real service with its settlement engine: an intent created with a
 * per-call wallet token, both deposits sent by a devnet wallet (Amulet one-step, USDCx an offer
 * the service accepts), `wait()` to `completed` and `on()` seeing `partial` and `completed`, the
 * position, a withdrawal of half waited on until both payouts are paid, and the refusals as the
 * catalogue's typed errors.
 */

import {
  ConflictError,
  type LiquidityIntent,
  NotFoundError,
  PoolPartyError,
  TimeoutError,
  ValidationError,
} from '@poolparty/sdk';
import type { DevnetWallet } from '@poolparty/sdk/devnet';
import { type WithLiquidity, withLiquidity } from '@poolparty/sdk/liquidity';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaled } from './support/amounts.js';
import { type Live, startLive, uniqueHint } from './support/live.js';

let live: Live;

beforeAll(async () => {
  live = await startLive();
});

afterAll(() => live?.close());

const hint = uniqueHint;

/** A provider holding both tokens of the canonical pool, with its client and wallet token. */
async function provider(
  name: string,
): Promise<{ wallet: DevnetWallet; pp: WithLiquidity; token: string }> {
  const wallet = await live.devnet.createWallet({ partyHint: hint(name) });
  await wallet.fund('Amulet', '5000');
  await wallet.fund('USDCx', '1000', live.canonical.tokenB.admin);
  const pp = withLiquidity(live.client({ pollInterval: 50 }));
  const { token } = await wallet.authenticate(pp);
  return { wallet, pp, token };
}

const poolId = () => live.canonical.poolId;

describe('pp.liquidity', () => {
  it('adds liquidity, shows the position, and withdraws half for both payouts', async () => {
    const { wallet, pp, token } = await provider('lp');
    const intent = await pp.liquidity.create(
      { poolId: poolId(), amountA: '100' },
      { walletToken: token },
    );
    expect(intent).toMatchObject({ status: 'pending', poolId: poolId(), tokenA: 'Amulet' });
    const fired: string[] = [];
    intent.on('partial', (seen) => fired.push(seen.status));
    intent.on('completed', (seen) => fired.push(seen.status));

    await wallet.depositLiquidity(intent, 'a');
    await expect(intent.wait({ until: 'partial', timeoutMs: 20_000 })).resolves.toMatchObject({
      status: expect.stringMatching(/^(partial|joining|completed)$/),
    });
    await wallet.depositLiquidity(intent, 'b');
    const done = await intent.wait({ timeoutMs: 30_000 });
    expect(done.status).toBe('completed');
    expect(done.minted?.units).toBe(intent.expectedUnits);
    expect(fired).toEqual(['partial', 'completed']);
    expect(intent.latest.status).toBe('completed');
    expect(intent.followedBy).toBe('stream');
    expect((await pp.liquidity.get(intent.liquidityIntentId, { walletToken: token })).status).toBe(
      'completed',
    );
    const history = await pp.liquidity.list({}, { walletToken: token });
    expect(history.map((item) => item.liquidityIntentId)).toEqual([intent.liquidityIntentId]);

    const [position] = await pp.liquidity.positions({ walletToken: token });
    expect(position).toMatchObject({ poolId: poolId(), units: done.minted?.units });

    const before = await Promise.all([wallet.balance('Amulet'), usdcx(wallet)]);
    const withdrawal = await pp.liquidity.withdraw(
      { poolId: poolId(), shareBps: 5000, minimumA: '0', minimumB: '0' },
      { walletToken: token },
    );
    expect(withdrawal.status).toBe('paying');
    const paid = await withdrawal.wait({ timeoutMs: 30_000 });
    expect(paid).toMatchObject({
      status: 'completed',
      payoutA: { state: 'paid' },
      payoutB: { state: 'paid' },
    });
    const again = await pp.liquidity.withdrawal(withdrawal.withdrawalId, { walletToken: token });
    expect(again.status).toBe('completed');
    const listed = await pp.liquidity.withdrawals({ walletToken: token, limit: 5 });
    expect(listed.map((w) => w.withdrawalId)).toEqual([withdrawal.withdrawalId]);
    expect(scaled(await wallet.balance('Amulet'))).toBe(
      scaled(before[0]) + scaled(paid.payoutA.amount),
    );
    expect(scaled(await usdcx(wallet))).toBe(scaled(before[1]) + scaled(paid.payoutB.amount));
    const [left] = await pp.liquidity.positions({ walletToken: token });
    expect(scaled(left?.units ?? '0')).toBe(scaled(done.minted?.units ?? '0') - scaled(paid.units));
  });

  it('maps the refusals to typed errors, and a cancelled intent rejects wait()', async () => {
    const { wallet, pp, token } = await provider('lp-errors');
    const call = { walletToken: token };
    await expect(
      pp.liquidity.withdraw(
        { poolId: poolId(), shareBps: 5000, minimumA: '0', minimumB: '0' },
        call,
      ),
    ).rejects.toMatchObject({ constructor: NotFoundError, code: 'position_not_found' });
    await expect(pp.liquidity.create({ poolId: poolId() }, call)).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(
      pp.liquidity.withdraw({
        poolId: poolId(),
        units: '1',
        shareBps: 1,
        minimumA: '0',
        minimumB: '0',
      }),
    ).rejects.toBeInstanceOf(ValidationError);

    const intent = await pp.liquidity.create({ poolId: poolId(), amountB: '10' }, call);
    const second = pp.liquidity.create({ poolId: poolId(), amountA: '1' }, call);
    await expect(second).rejects.toBeInstanceOf(ConflictError);
    await expect(second).rejects.toMatchObject({ code: 'active_liquidity_intent_exists' });

    const waiting = intent.wait();
    // Observed below, after the cancel that settles it.
    waiting.catch(() => {});
    const cancelled = await intent.cancel();
    expect(cancelled.status).toBe('cancelled');
    await expect(waiting).rejects.toMatchObject({
      code: 'cancelled',
      body: { status: 'cancelled' },
    });
    await expect(waiting).rejects.toBeInstanceOf(PoolPartyError);
    await expect(intent.cancel()).rejects.toMatchObject({
      code: 'liquidity_intent_not_cancellable',
    });

    // After a side arrived, cancelling is a conflict; a short wait times out and the intent goes on.
    const open = await pp.liquidity.create({ poolId: poolId(), amountA: '5' }, call);
    await wallet.depositLiquidity(open, 'a');
    await open.wait({ until: 'partial', timeoutMs: 20_000 });
    await expect(open.cancel()).rejects.toBeInstanceOf(ConflictError);
    await expect(open.wait({ timeoutMs: 50 })).rejects.toBeInstanceOf(TimeoutError);
    await expect(
      pp.liquidity.withdraw({ poolId: poolId(), units: '1', minimumA: '0', minimumB: '0' }, call),
    ).rejects.toMatchObject({ code: 'position_not_found' });
    await expect(pp.liquidity.get('liq_0000000000000000000000000Z', call)).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });

  it('refuses a withdrawal over the position or under its minimum, burning nothing', async () => {
    const { wallet, pp, token } = await provider('lp-refusals');
    const call = { walletToken: token };
    const intent = await pp.liquidity.create({ poolId: poolId(), amountA: '50' }, call);
    await wallet.depositLiquidity(intent, 'b');
    await wallet.depositLiquidity(intent, 'a');
    const done: LiquidityIntent = await intent.wait({ timeoutMs: 30_000 });
    const units = done.minted?.units ?? '0';
    const withdraw = (more: object) =>
      pp.liquidity.withdraw({ poolId: poolId(), minimumA: '0', minimumB: '0', ...more }, call);
    await expect(withdraw({ units: String(Number(units) + 1) })).rejects.toMatchObject({
      constructor: ConflictError,
      code: 'insufficient_units',
    });
    await expect(withdraw({ shareBps: 10_000, minimumA: '1000000' })).rejects.toMatchObject({
      code: 'withdrawal_minimum_not_met',
    });
    const [position] = await pp.liquidity.positions(call);
    expect(position?.units).toBe(units);
  });
});

function usdcx(wallet: DevnetWallet): Promise<string> {
  return wallet.balance('USDCx', live.canonical.tokenB.admin);
}
