/**
 * A swap as an app and a wallet perform it against `poolparty serve` on the embedded defaults:
 * wallet login, quote, intent, a signed deposit through the devnet endpoint, and the engine
 * paying out — checked on the ledger to the last unit.
 */
import { Amount, type SwapIntent } from '@poolparty/core';
import { COMPLETED_SWAP_HISTORY } from '@poolparty/store/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DevnetParty } from '../src/devnet-bootstrap.js';
import {
  devnetHolding,
  request,
  seededUser,
  sharedTestService,
  signedDeposit,
  walletTokenFor,
} from './support/service.js';

const STATUS_WAIT_MS = 20_000;

describe('a swap through the running service', () => {
  const t = sharedTestService();
  let alice: DevnetParty;
  let token: string;

  beforeAll(async () => {
    alice = seededUser(t, 0);
    token = await walletTokenFor(t, alice);
  });

  async function deposit(intent: SwapIntent, commandId: string): Promise<void> {
    const signed = await signedDeposit(t, alice, intent, commandId);
    const answer = await request(t.url, 'POST', '/devnet/transfers', signed);
    expect(answer.status).toBe(200);
  }

  async function settled(intentId: string): Promise<Status> {
    const deadline = Date.now() + STATUS_WAIT_MS;
    for (;;) {
      const status = await request<Status>(t.url, 'GET', `/v1/swaps/${intentId}`, {
        apiKey: t.apiKey,
        walletToken: token,
      });
      if (status.body.terminal || Date.now() > deadline) return status.body;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('pays the quoted output for a one-step Amulet deposit', async () => {
    const created = await request<SwapIntent>(t.url, 'POST', '/v1/swaps', {
      apiKey: t.apiKey,
      walletToken: token,
      body: { fromToken: 'Amulet', toToken: 'USDCx', amount: '1000', poolId: 'amulet-usdcx' },
    });
    expect(created.status).toBe(201);
    const intent = created.body;
    const pool = t.service.devnet?.pools.find((p) => p.poolId === 'amulet-usdcx');
    if (!pool) throw new Error('seeded pool missing');
    const amuletBefore = await devnetHolding(t, alice.partyId, 'Amulet', intent.inputTokenAdmin);
    const usdcxBefore = await devnetHolding(t, alice.partyId, 'USDCx', intent.outputTokenAdmin);

    await deposit(intent, `deposit-${intent.intentId}`);
    const status = await settled(intent.intentId);

    expect(status.status).toBe('completed');
    expect(status.history.map((h) => h.status)).toEqual(COMPLETED_SWAP_HISTORY);
    const paid = Amount.parse(status.actualOutput ?? '0');
    expect(paid.gte(Amount.parse(intent.minOutput))).toBe(true);
    // Nobody moved the pool in between, so the output is exactly what was quoted.
    expect(paid.toString()).toBe(intent.expectedOutput);
    expect(await devnetHolding(t, alice.partyId, 'Amulet', intent.inputTokenAdmin)).toEqual(
      amuletBefore.sub(Amount.parse(intent.expectedAmount)),
    );
    expect(await devnetHolding(t, alice.partyId, 'USDCx', intent.outputTokenAdmin)).toEqual(
      usdcxBefore.add(paid),
    );
    // The swap party received the deposit and paid the output.
    expect(await devnetHolding(t, pool.swapParty, 'USDCx', intent.outputTokenAdmin)).toEqual(
      Amount.parse(pool.reserveB).sub(paid),
    );
    expect(await devnetHolding(t, pool.swapParty, 'Amulet', intent.inputTokenAdmin)).toEqual(
      Amount.parse(pool.reserveA).add(Amount.parse(intent.expectedAmount)),
    );
  });

  it('refunds a deposit of the wrong amount, minus the network fee', async () => {
    const created = await request<SwapIntent>(t.url, 'POST', '/v1/swaps', {
      apiKey: t.apiKey,
      walletToken: token,
      body: { fromToken: 'Amulet', toToken: 'CBTC', amount: '500' },
    });
    expect(created.status).toBe(201);
    const intent = { ...created.body, expectedAmount: '499' };
    const before = await devnetHolding(t, alice.partyId, 'Amulet', intent.inputTokenAdmin);
    await deposit(intent, `short-${intent.intentId}`);
    const deadline = Date.now() + STATUS_WAIT_MS;
    let after = before;
    while (Date.now() < deadline) {
      after = await devnetHolding(t, alice.partyId, 'Amulet', intent.inputTokenAdmin);
      if (after.gt(before.sub(Amount.parse('499')))) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // The refund returns 499 less the network fee the intent quoted for this pool.
    expect(after).toEqual(before.sub(Amount.parse(intent.networkFeeAmount)));
    const status = await request<Status>(t.url, 'GET', `/v1/swaps/${intent.intentId}`, {
      apiKey: t.apiKey,
      walletToken: token,
    });
    expect(status.body.status).toBe('pending');
  });
});

interface Status {
  readonly status: string;
  readonly terminal: boolean;
  readonly actualOutput: string | null;
  readonly history: readonly { status: string }[];
}
