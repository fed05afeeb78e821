/**
 * `/v1/atomic-swaps` on the embedded ledger (`LEDGER=local`, what `poolparty start` and the web
 * app run), end to end through the SDK as a wallet uses it: the devnet party's own key signs the
 * prepared transaction's hash and the swap completes in one ledger update holding both legs.
 * Every refusal — a transaction changed after it was prepared, another key's signature, a
 * signature after `expiresAt`, a pool moved past the signed price, a cancel before signing —
 * moves nothing: the trader's and the pool's ledger holdings stay as they were, and the pool's
 * books equal its holdings after each.
 */
import { Amount, generateKeyPair, type Instrument } from '@poolparty/core';
import type { LedgerEvent } from '@poolparty/ledger';
import { PoolParty } from '@poolparty/sdk';
import { type AtomicSwapObject, withAtomicSwaps } from '@poolparty/sdk/atomic';
import { balanceOf, booksAndHoldings } from '@poolparty/settlement/testing';
import { getPool, type PoolRecord } from '@poolparty/store';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  expectNotTakenAsDeposit,
  type KeyedParty,
  walletSignerOf,
  withOutputChanged,
} from './support/atomic-swaps.js';
import { request, seededUser, sharedTestService, walletTokenFor } from './support/service.js';

const POOL_ID = 'amulet-usdcx';
/** The service's default signing window, and a little more: past it, no signature is taken. */
const PAST_EXPIRY_MS = 61_000;

const test = sharedTestService();
let trader: KeyedParty;
let pool: PoolRecord;
let pp: ReturnType<typeof withAtomicSwaps<PoolParty>>;

beforeAll(async () => {
  trader = seededUser(test, 0);
  const found = await getPool(test.service.ctx.db, POOL_ID);
  if (found === null) throw new Error(`no pool ${POOL_ID}`);
  pool = found;
  const walletToken = await walletTokenFor(test, trader);
  pp = withAtomicSwaps(new PoolParty({ apiKey: test.apiKey, baseUrl: test.url, walletToken }));
});

function create(amount: string, slippageTolerance?: number): Promise<AtomicSwapObject> {
  return pp.atomicSwaps.create({
    fromToken: 'Amulet',
    toToken: 'USDCx',
    amount,
    poolId: POOL_ID,
    keyFingerprint: walletSignerOf(trader).fingerprint,
    ...(slippageTolerance !== undefined && { slippageTolerance }),
  });
}

const held = async (party: string, instrument: Instrument) =>
  (await balanceOf(test.service.ctx.ledger, party, instrument)).toString();

/** The trader's and the pool's ledger holdings of both tokens. */
async function holdings() {
  return {
    traderAmulet: await held(trader.partyId, pool.tokenA),
    traderUsdcx: await held(trader.partyId, pool.tokenB),
    poolAmulet: await held(pool.swapParty, pool.tokenA),
    poolUsdcx: await held(pool.swapParty, pool.tokenB),
  };
}

async function expectBooksEqualHoldings() {
  const { books, holdings: ledger } = await booksAndHoldings(
    test.service.ctx.db,
    test.service.ctx.ledger,
    POOL_ID,
  );
  expect(books).toEqual(ledger);
}

/** The attempt leaves every holding as it was, and the books equal the holdings after. */
async function expectNothingMoved(attempt: () => Promise<unknown>) {
  const before = await holdings();
  await attempt();
  expect(await holdings()).toEqual(before);
  await expectBooksEqualHoldings();
}

const moved = (from: string, to: string) => Amount.parse(to).sub(Amount.parse(from)).toString();

/** The transfers of the update a swap's command committed in. */
async function committedTransfers(atomicSwapId: string) {
  const { db, ledger, devnetLedger } = test.service.ctx;
  const [row] = await db.query<{ command_id: string }>(
    'SELECT command_id FROM atomic_swaps WHERE atomic_swap_id = $1',
    [atomicSwapId],
  );
  const committed = await ledger.lookupCommand(row?.command_id ?? '');
  if (committed === null) throw new Error(`atomic swap ${atomicSwapId} committed nothing`);
  const update = devnetLedger?.updateAt(committed.offset);
  const transfers = (update?.events ?? []).filter(
    (e): e is Extract<LedgerEvent, { kind: 'transfer' }> => e.kind === 'transfer',
  );
  return {
    updateId: update?.updateId,
    transfers: transfers.map((e) => `${e.sender}→${e.receiver} ${e.amount}`),
  };
}

describe('atomic swaps on the embedded ledger, through the SDK', () => {
  it('completes with the devnet party’s key: both legs in one update, the books equal the holdings', async () => {
    await expectBooksEqualHoldings();
    const swap = await create('25');
    const legs = await swap.verify();
    expect(legs.input).toMatchObject({ sender: trader.partyId, receiver: pool.swapParty });
    const before = await holdings();
    const done = await swap.execute(walletSignerOf(trader));
    expect(done).toMatchObject({ status: 'completed', failure: null });
    const { input, output } = done;
    expect(await committedTransfers(swap.atomicSwapId)).toEqual({
      updateId: done.updateId,
      transfers: [
        `${trader.partyId}→${pool.swapParty} ${Amount.parse(input.amount)}`,
        `${pool.swapParty}→${trader.partyId} ${Amount.parse(output.amount)}`,
      ],
    });
    const after = await holdings();
    expect(moved(after.traderAmulet, before.traderAmulet)).toBe(input.amount);
    expect(moved(before.traderUsdcx, after.traderUsdcx)).toBe(output.amount);
    expect(moved(before.poolAmulet, after.poolAmulet)).toBe(input.amount);
    expect(moved(after.poolUsdcx, before.poolUsdcx)).toBe(output.amount);
    await expectBooksEqualHoldings();
    await expectNotTakenAsDeposit(test.service.ctx, swap.atomicSwapId);
  });

  it('refuses a transaction whose output was changed after it was prepared', async () => {
    const swap = await create('10');
    await test.service.ctx.db.query(
      'UPDATE atomic_swaps SET prepared_transaction = $2 WHERE atomic_swap_id = $1',
      [
        swap.atomicSwapId,
        withOutputChanged(swap.data.preparedTransaction, Amount.parse(swap.data.output.amount)),
      ],
    );
    // The wallet signs what it was shown; the service's ledger is sent another transaction.
    await expectNothingMoved(async () => {
      const ended = await swap.execute(walletSignerOf(trader));
      expect(ended).toMatchObject({
        status: 'rejected',
        failure: { code: 'invalid_transaction_signature' },
      });
    });
  });

  it('refuses another key’s signature, and the swap still waits for the trader’s', async () => {
    const swap = await create('10');
    const stranger = walletSignerOf(trader, generateKeyPair().privateKey);
    await expectNothingMoved(() =>
      expect(swap.execute(stranger)).rejects.toMatchObject({
        code: 'invalid_transaction_signature',
      }),
    );
    expect((await swap.refresh()).status).toBe('prepared');
    expect((await swap.cancel()).status).toBe('cancelled');
  });

  it('refuses a swap whose pool moved past the signed price', async () => {
    // The least tolerance there is (0.1 %), and a first swap that moves the curve 0.4 %: below
    // the second's signed output.
    const first = await create('2000', 0.001);
    const second = await create('2000', 0.001);
    expect((await first.execute(walletSignerOf(trader))).status).toBe('completed');
    await expectNothingMoved(async () => {
      const ended = await second.execute(walletSignerOf(trader));
      expect(ended).toMatchObject({ status: 'price_moved', failure: { code: 'price_moved' } });
    });
  });

  it('moves nothing for a swap cancelled before it was signed', async () => {
    const swap = await create('10');
    expect((await swap.cancel()).status).toBe('cancelled');
    await expectNothingMoved(async () => {
      const ended = await swap.execute(walletSignerOf(trader));
      expect(ended.status).toBe('cancelled');
    });
  });

  it('prepares no swap whose input the pool’s swap party does not pre-approve', async () => {
    // The seed's swap parties pre-approve Amulet only: USDCx into the pool would be an offer.
    await expectNothingMoved(() =>
      expect(
        pp.atomicSwaps.create({
          fromToken: 'USDCx',
          toToken: 'Amulet',
          amount: '10',
          poolId: POOL_ID,
          keyFingerprint: walletSignerOf(trader).fingerprint,
        }),
      ).rejects.toMatchObject({ code: 'validation_error' }),
    );
  });

  it('refuses a signature after expiresAt: the swap expires, nothing moved', async () => {
    const swap = await create('10');
    const advanced = await request(test.url, 'POST', '/devnet/clock', {
      body: { advanceMs: PAST_EXPIRY_MS },
    });
    expect(advanced.status).toBe(200);
    await expectNothingMoved(() =>
      expect(swap.execute(walletSignerOf(trader))).rejects.toMatchObject({
        code: 'atomic_swap_expired',
      }),
    );
    expect((await swap.refresh()).status).toBe('expired');
  });
});
