/**
 * `swap.canDeposit()` and the devnet wallet's deposit against a real service: a deposit the price
 * moved past is not sent (nothing leaves the wallet, no fee is spent), the check names the fresh
 * output and the minimum, and the intent can then be cancelled. A service of its own: the devnet
 * tests beside it move the ledger clock, after which the guard may block swaps until fresh
 * prices arrive.
 */
import { DepositRefusedError } from '@poolparty/sdk';
import { Devnet, type DevnetWallet } from '@poolparty/sdk/devnet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaled } from './support/amounts.js';
import { type Live, startLive, swapAmulet, uniqueHint } from './support/live.js';

let live: Live;
let devnet: Devnet;

beforeAll(async () => {
  live = await startLive();
  devnet = new Devnet({ baseUrl: live.t.url });
});

afterAll(() => live?.close());

const hint = uniqueHint;

describe('a deposit for a swap the price moved past', () => {
  it('is not sent: canDeposit() names the fresh output and the minimum, and the intent can be cancelled', async () => {
    const patient = await devnet.createWallet({ partyHint: hint('patient') });
    await patient.fund('Amulet', '100');
    let token: string | undefined;
    const pp = live.client({ walletToken: () => token, pollInterval: 50 });
    ({ token } = await patient.authenticate(pp));
    const swap = await pp.swaps.create({
      fromToken: 'Amulet',
      toToken: 'USDCx',
      amount: '100',
      poolId: live.canonical.poolId,
      slippageTolerance: 0.001,
    });
    expect(await swap.canDeposit()).toMatchObject({ ok: true, minOutput: swap.minOutput });

    // A larger swap in the same direction settles first and lowers the USDCx price ~0.6 %.
    const whale = await devnet.createWallet({ partyHint: hint('whale') });
    await whale.fund('Amulet', '5000');
    await swapAmulet(live, whale, '3000');

    const check = await swap.canDeposit();
    if (check.ok || check.reason !== 'price_moved') throw new Error(JSON.stringify(check));
    expect(scaled(check.freshOutput)).toBeLessThan(scaled(swap.minOutput));
    expect(check.minOutput).toBe(swap.minOutput);
    expect(scaled(check.shortfall)).toBe(scaled(swap.minOutput) - scaled(check.freshOutput));

    const refused = await patient.deposit(swap).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DepositRefusedError);
    expect(refused).toMatchObject({ code: 'deposit_refused', check: { reason: 'price_moved' } });
    expect(await patient.balance('Amulet')).toBe('100');
    expect((await swap.refresh()).status).toBe('pending');

    await swap.cancel();
    const after = await patient.deposit(swap).catch((e: unknown) => e);
    expect(after).toMatchObject({ check: { reason: 'not_pending', status: 'cancelled' } });
    expect(await patient.balance('Amulet')).toBe('100');
  });
});
