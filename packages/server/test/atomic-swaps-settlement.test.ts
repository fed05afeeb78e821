/**
 * Atomic swaps through settlement, on the devnet ledger server via the canton adapter (as an
 * operator runs it) and on the embedded ledger (as `poolparty start` runs it): a swap prepared from a quote reserves pool holdings no other live swap
 * names, and executes with the trader's signature in one update, moving exactly the signed
 * amounts on the ledger and in the pool's books. Every refusal — another key, a changed
 * transaction, a late signature, a moved price, a cancel before signing — moves nothing; a second
 * execution is the first; a spent input prepares the swap again for a new signature.
 */
import {
  Amount,
  constantProductOutput,
  feeBreakdown,
  fingerprint,
  generateKeyPair,
  type Instrument,
  ratio,
  sign,
} from '@poolparty/core';
import {
  type DevnetLedgerServer,
  embeddedAtomicSwaps,
  startDevnetLedgerServer,
} from '@poolparty/devnet-ledger';
import { cantonOptionsFor } from '@poolparty/devnet-ledger/testing';
import {
  type AtomicSwapPort,
  type CantonLedger,
  LedgerError,
  type LedgerPort,
  type LocalLedger,
  openCantonLedger,
  openLocalLedger,
  withAtomicSwapPort,
} from '@poolparty/ledger';
import {
  type AtomicExecutionDeps,
  cancelAtomicSwap,
  EXECUTION_GRACE_MS,
  executeAtomicSwap,
  keepPoolHoldings,
  prepareAtomicSwap,
  resolveExecutingSwaps,
} from '@poolparty/settlement';
import {
  type AtomicSwapRecord,
  type Database,
  getAtomicSwap,
  getPoolAccounting,
  getPoolUnits,
  IN_MEMORY,
  insertPool,
  migrate,
  openPglite,
  putPoolPriceReference,
  reservationsOf,
  reservedHoldingIds,
} from '@poolparty/store';
import { seedTestDeveloper } from '@poolparty/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withOutputChanged } from './support/atomic-swaps.js';
import { DEVNET_AUDIENCE, DEVNET_AUTH_SECRET, mergeHoldings } from './support/devnet-ledger.js';

const T0 = new Date();
const POOL_ID = 'pool-usd-eur';
const EUR_HOLDINGS = 6;
const EUR_EACH = 50;
const USD_RESERVE = 3_000;
/** Swaps prepared at once on the pool: more than its free holdings of the output, at times. */
const CONCURRENT_SWAPS = 8;
/** Times a swap prepared again is signed again in the concurrency test, at most. */
const SIGNING_ROUNDS_MAX = 5;

let local: LocalLedger;
let server: DevnetLedgerServer;
let canton: CantonLedger;
/** The same ledger as the service opens it on `LEDGER=local`, with its atomic swaps. */
let embedded: LedgerPort & AtomicSwapPort;
let db: Database;
let usd: Instrument;
let eur: Instrument;
let pool: string;
let trader: { partyId: string; publicKey: Uint8Array; privateKey: Uint8Array };
let deps: AtomicExecutionDeps;
let invalidated: string[] = [];

beforeAll(async () => {
  local = await openLocalLedger({});
  const internal = async (hint: string) => (await local.createParty({ hint })).partyId;
  usd = { admin: await internal('bank'), id: 'USD' };
  eur = { admin: await internal('ecb'), id: 'EUR' };
  await local.createInstrument(usd);
  await local.createInstrument(eur);
  pool = (await local.createParty({ hint: 'pool', preapprovals: [usd, eur] })).partyId;
  const keys = generateKeyPair();
  const created = await local.createParty({
    hint: 'trader',
    publicKey: keys.publicKey,
    preapprovals: [eur],
  });
  trader = { partyId: created.partyId, ...keys };
  await local.mint({ owner: trader.partyId, instrument: usd, amount: Amount.of(500) });
  await local.mint({ owner: pool, instrument: usd, amount: Amount.of(USD_RESERVE) });
  // Several holdings of the output, so several swaps can be prepared at once.
  for (let n = 0; n < EUR_HOLDINGS; n++) {
    await local.mint({ owner: pool, instrument: eur, amount: Amount.of(EUR_EACH) });
  }
  server = await startDevnetLedgerServer({
    ledger: local,
    port: 0,
    authSecret: DEVNET_AUTH_SECRET,
    audience: DEVNET_AUDIENCE,
  });
  const auth = { secret: DEVNET_AUTH_SECRET, audience: DEVNET_AUDIENCE };
  canton = await openCantonLedger(cantonOptionsFor(server, auth, [usd.admin, eur.admin]));
  embedded = withAtomicSwapPort(local, embeddedAtomicSwaps(local));
  db = await openPglite(IN_MEMORY);
  await migrate(db);
  await seedTestDeveloper(db, T0);
  await insertPool(db, {
    poolId: POOL_ID,
    tokenA: usd,
    tokenB: eur,
    swapParty: pool,
    lpParty: 'lp::1220dd',
    lpSupply: Amount.of(1000),
    reserveA: Amount.of(USD_RESERVE),
    reserveB: Amount.of(EUR_HOLDINGS * EUR_EACH),
    createdAt: T0,
  });
  deps = {
    db,
    ledger: canton,
    atomicSwaps: canton,
    clock: { now: () => new Date() },
    quoter: { invalidate: (poolId) => invalidated.push(poolId) },
    log: { warn: () => {}, error: () => {} },
    settings: {
      maxPriceImpact: 0.5,
      guardThresholds: { outputReserveShareMax: 1, outputVelocityShareMax: 1 },
      velocityWindowMs: 60_000,
      expiryBatchMax: 100,
    },
  };
}, 60_000);

afterAll(async () => {
  await canton?.close();
  await server?.close();
  await local?.close();
  await db?.close();
});

/** The swap a quote of `amount` USD for EUR becomes at the books' reserves now, as the quoter prices it. */
async function quoteOf(amount: Amount) {
  const books = await getPoolAccounting(db, POOL_ID);
  if (books === null) throw new Error('no books');
  const fees = feeBreakdown({ amount, estimatedNetworkFee: Amount.ZERO, poolFeeBps: 30 });
  if (fees.kind !== 'priced') throw new Error('below minimum');
  const outputAmount = constantProductOutput(
    { input: books.reserveA, output: books.reserveB },
    fees.inputAmountAfterPoolFee,
  );
  return {
    quote: {
      inputToken: usd.id,
      inputTokenAdmin: usd.admin,
      outputToken: eur.id,
      outputTokenAdmin: eur.admin,
      networkFeePolicy: null,
      platformFeePolicy: null,
    },
    pool: { poolId: POOL_ID, swapParty: pool },
    trade: { outputAmount, fees, exceedsPriceImpactCap: false, maxPriceImpact: '0.5' },
    settlementSafety: null,
  } as unknown as Parameters<typeof prepareAtomicSwap>[1]['priced'];
}

async function prepared(amount = Amount.of(10), slippageTolerance = 0.05) {
  return prepareAtomicSwap(
    deps,
    {
      priced: await quoteOf(amount),
      origin: {
        apiKeyId: 'key_1',
        developerParty: 'dev::1220',
        walletParty: trader.partyId,
        slippageTolerance,
        now: new Date(),
        keyFingerprint: fingerprint(trader.publicKey),
      },
    },
    { view: (swap) => swap, answer: null },
  );
}

function signatureOf(
  swap: AtomicSwapRecord,
  privateKey = trader.privateKey,
  publicKey = trader.publicKey,
) {
  const hash = Buffer.from(swap.preparation.preparedTransactionHash, 'base64');
  return { signature: sign(hash, privateKey), publicKey };
}

/** The trader cancels, through the port that let go of what it set aside for the swap. */
function cancel(swap: AtomicSwapRecord) {
  return cancelAtomicSwap(
    db,
    { atomicSwapId: swap.atomicSwapId, trader: trader.partyId, now: new Date() },
    canton,
  );
}

function execute(swap: AtomicSwapRecord, signed = signatureOf(swap)) {
  return executeAtomicSwap(deps, {
    atomicSwapId: swap.atomicSwapId,
    trader: trader.partyId,
    signed,
  });
}

async function held(party: string, instrument: Instrument): Promise<Amount> {
  const holdings = (await local.getHoldings(party)).filter(
    (h) => h.instrument.id === instrument.id && h.instrument.admin === instrument.admin,
  );
  return Amount.sum(holdings.map((h) => h.amount));
}

/** The trader's and the pool's holdings, the pool's books, and the ledger's end. */
async function world() {
  const books = await getPoolAccounting(db, POOL_ID);
  return {
    traderUsd: (await held(trader.partyId, usd)).toString(),
    traderEur: (await held(trader.partyId, eur)).toString(),
    poolUsd: (await held(pool, usd)).toString(),
    poolEur: (await held(pool, eur)).toString(),
    booksUsd: books?.reserveA.add(books.feesA).toString(),
    booksEur: books?.reserveB.add(books.feesB).toString(),
    end: await local.ledgerEnd(),
  };
}

async function expectNothingMoved(attempt: () => Promise<unknown>) {
  const before = await world();
  await attempt();
  expect(await world()).toEqual(before);
}

/** Each ledger, one after the other on the same books and holdings. */
const LEDGERS: readonly {
  readonly name: string;
  readonly port: () => LedgerPort & AtomicSwapPort;
}[] = [
  { name: 'on the canton path', port: () => canton },
  { name: 'on the embedded ledger', port: () => embedded },
];

/** The pool's reference at its spot now (EUR per USD), and that spot. */
async function referenceAtSpot() {
  const books = await getPoolAccounting(db, POOL_ID);
  if (books === null) throw new Error('no books');
  const spot = ratio(books.reserveB.units, books.reserveA.units);
  return { spot, reference: { spot, price: spot, atMs: Date.now(), limitedSinceMs: null } };
}

describe.each(LEDGERS)('an atomic swap through settlement $name', ({ port }) => {
  beforeAll(async () => {
    deps = { ...deps, ledger: port(), atomicSwaps: port() };
    // Every swap of a suite sells USD: the next suite starts from a reference at the spot.
    await putPoolPriceReference(db, POOL_ID, (await referenceAtSpot()).reference);
  });

  it('moves exactly the signed amounts in one update, and the books equal the holdings', async () => {
    const swap = await prepared();
    expect(swap.status).toBe('prepared');
    expect(await reservationsOf(db, swap.atomicSwapId)).toEqual(
      [...swap.preparation.outputHoldingIds].sort(),
    );
    const before = await world();
    const books = await getPoolAccounting(db, POOL_ID);
    const growthBefore = (await getPoolUnits(db, POOL_ID))?.lpFeeGrowth;
    invalidated = [];
    const done = await execute(swap);
    expect(done.status).toBe('completed');
    // Recorded against the reserves it was judged by: the books just before it, USD in, EUR out.
    expect(done.execution?.reservesBefore).toEqual({
      input: books?.reserveA,
      output: books?.reserveB,
    });
    const { input, output } = done.execution?.reservesBefore ?? {};
    if (input === undefined || output === undefined) throw new Error('no reserves recorded');
    expect(
      done.execution?.curveOutput.eq(
        constantProductOutput({ input, output }, swap.inputAmountAfterPoolFee),
      ),
    ).toBe(true);
    // The LP fee joined the USD reserve, and the positions' fee growth of that side with it.
    const growthAfter = (await getPoolUnits(db, POOL_ID))?.lpFeeGrowth;
    expect(swap.lpFeeAmount.isPositive()).toBe(true);
    expect((growthAfter?.a ?? 0n) > (growthBefore?.a ?? 0n)).toBe(true);
    expect(growthAfter?.b).toBe(growthBefore?.b);
    expect(done.execution?.excess.gte(Amount.ZERO)).toBe(true);
    expect(done.execution?.curveOutput.eq(done.outputAmount.add(done.execution.excess))).toBe(true);
    const after = await world();
    const moved = (a: string, b: string) => Amount.parse(a).sub(Amount.parse(b)).toString();
    expect(moved(before.traderUsd, after.traderUsd)).toBe(swap.inputAmount.toString());
    expect(moved(after.traderEur, before.traderEur)).toBe(swap.outputAmount.toString());
    expect(moved(after.poolUsd, before.poolUsd)).toBe(swap.inputAmount.toString());
    expect(after.booksUsd).toBe(after.poolUsd);
    expect(after.booksEur).toBe(after.poolEur);
    expect(await local.lookupCommand(swap.preparation.commandId)).toMatchObject({
      updateId: done.execution?.updateId,
    });
    expect(await reservationsOf(db, swap.atomicSwapId)).toEqual([]);
    expect(invalidated).toEqual([POOL_ID]);
  });

  it('executes once however often the signature arrives', async () => {
    const swap = await prepared();
    const first = await execute(swap);
    expect(first.status).toBe('completed');
    await expectNothingMoved(async () => {
      const again = await Promise.all([execute(swap), execute(swap)]);
      expect(again.map((s) => s.execution?.updateId)).toEqual([
        first.execution?.updateId,
        first.execution?.updateId,
      ]);
    });
  });

  it('refuses another key’s signature, moving nothing and leaving the swap to sign', async () => {
    const swap = await prepared();
    const stranger = generateKeyPair();
    await expectNothingMoved(() =>
      expect(
        execute(swap, signatureOf(swap, stranger.privateKey, stranger.publicKey)),
      ).rejects.toMatchObject({
        code: 'invalid_transaction_signature',
      }),
    );
    // The trader's key over another hash.
    const other = {
      signature: sign(new Uint8Array(32), trader.privateKey),
      publicKey: trader.publicKey,
    };
    await expectNothingMoved(() =>
      expect(execute(swap, other)).rejects.toMatchObject({ code: 'invalid_transaction_signature' }),
    );
    expect((await getAtomicSwap(db, swap.atomicSwapId))?.status).toBe('prepared');
    expect((await execute(swap)).status).toBe('completed');
  });

  it('refuses a transaction changed after it was prepared, moving nothing', async () => {
    const swap = await prepared();
    // What the service would submit is not what the trader signed.
    await db.query('UPDATE atomic_swaps SET prepared_transaction = $2 WHERE atomic_swap_id = $1', [
      swap.atomicSwapId,
      withOutputChanged(swap.preparation.preparedTransaction, swap.outputAmount),
    ]);
    await expectNothingMoved(async () => {
      const refused = await execute(swap);
      expect(refused).toMatchObject({
        status: 'rejected',
        failureCode: 'invalid_transaction_signature',
      });
    });
    expect(await reservationsOf(db, swap.atomicSwapId)).toEqual([]);
  });

  it('refuses a signature at or after expiresAt, moving nothing and releasing the holdings', async () => {
    const swap = await prepared();
    const late = {
      ...deps,
      clock: { now: () => new Date(swap.preparation.expiresAt.getTime() + 1) },
    };
    await expectNothingMoved(() =>
      expect(
        executeAtomicSwap(late, {
          atomicSwapId: swap.atomicSwapId,
          trader: trader.partyId,
          signed: signatureOf(swap),
        }),
      ).rejects.toMatchObject({ code: 'atomic_swap_expired' }),
    );
    expect((await getAtomicSwap(db, swap.atomicSwapId))?.status).toBe('expired');
    expect(await reservationsOf(db, swap.atomicSwapId)).toEqual([]);
  });

  it('refuses a swap whose pool moved past the signed price, moving nothing', async () => {
    // Almost no tolerance: the first swap's execution moves the curve below the second's output.
    const first = await prepared(Amount.of(40), 0.0001);
    const second = await prepared(Amount.of(40), 0.0001);
    expect((await execute(first)).status).toBe('completed');
    await expectNothingMoved(async () => {
      const refused = await execute(second);
      expect(refused).toMatchObject({ status: 'price_moved', failureCode: 'price_moved' });
    });
    expect(await reservationsOf(db, second.atomicSwapId)).toEqual([]);
  });

  it('refuses a swap that takes the pool further from its own reference, moving nothing', async () => {
    // EUR per USD now, and a reference of twice that: selling USD takes the spot further below.
    const { spot, reference } = await referenceAtSpot();
    await putPoolPriceReference(db, POOL_ID, {
      ...reference,
      price: ratio(spot.numerator * 2n, spot.denominator),
    });
    const swap = await prepared();
    await expectNothingMoved(async () => {
      const refused = await execute(swap);
      expect(refused).toMatchObject({
        status: 'rejected',
        failureCode: 'reserve_price_deviation_exceeded',
      });
    });
    expect(await reservationsOf(db, swap.atomicSwapId)).toEqual([]);
    // The reference back at the spot, where the suites after this one find it.
    await putPoolPriceReference(db, POOL_ID, reference);
  });

  it('cancels before signing, after which a signature moves nothing', async () => {
    const swap = await prepared();
    const cancelled = await cancel(swap);
    expect(cancelled.status).toBe('cancelled');
    expect(await reservationsOf(db, swap.atomicSwapId)).toEqual([]);
    await expectNothingMoved(async () => expect((await execute(swap)).status).toBe('cancelled'));
    await expect(cancel(swap)).rejects.toMatchObject({ code: 'intent_not_cancellable' });
    // Its holdings are free at once: the next swap names them (the largest free) again.
    const next = await prepared();
    expect(next.preparation.outputHoldingIds).toEqual(swap.preparation.outputHoldingIds);
    await cancel(next);
  });

  it('never lets two prepared swaps name the same pool holding', async () => {
    const swaps = await Promise.all([prepared(), prepared(), prepared(), prepared()]);
    const named = swaps.flatMap((swap) => swap.preparation.outputHoldingIds);
    expect(new Set(named).size).toBe(named.length);
    for (const swap of swaps) await cancel(swap);
  });

  it('prepares again, never resubmits, when a holding the transaction names was spent', async () => {
    const swap = await prepared();
    const [spent] = swap.preparation.outputHoldingIds;
    // The pool's holding goes elsewhere behind the service's back (an operator's own transfer).
    await local.submitTransfer({
      commandId: `spend-${swap.atomicSwapId}`,
      sender: pool,
      receiver: pool,
      instrument: eur,
      amount: Amount.of(1),
      inputHoldingIds: spent === undefined ? [] : [spent],
    });
    const again = await execute(swap);
    expect(again).toMatchObject({ status: 'prepared', preparations: 2 });
    expect(again.preparation.commandId).not.toBe(swap.preparation.commandId);
    expect(again.preparation.preparedTransactionHash).not.toBe(
      swap.preparation.preparedTransactionHash,
    );
    expect(await local.lookupCommand(swap.preparation.commandId)).toBeNull();
    // The old signature authorises nothing; a signature of the new hash executes it.
    await expect(execute(again, signatureOf(swap))).rejects.toMatchObject({
      code: 'invalid_transaction_signature',
    });
    expect((await execute(again)).status).toBe('completed');
    const after = await world();
    expect(after.booksEur).toBe(after.poolEur);
  });

  it('settles swaps prepared at once and signed in any order at their signed amounts or not at all', async () => {
    const before = await world();
    const attempts = await Promise.allSettled(
      Array.from({ length: CONCURRENT_SWAPS }, () => prepared(Amount.of(5), 0.01)),
    );
    const swaps = attempts.flatMap((a) => (a.status === 'fulfilled' ? [a.value] : []));
    // A pool with fewer free holdings than swaps asked for says so; it never names one twice.
    for (const attempt of attempts) {
      if (attempt.status === 'rejected')
        expect(attempt.reason).toMatchObject({ code: 'pool_holdings_busy' });
    }
    expect(swaps.length).toBeGreaterThan(1);
    const named = swaps.flatMap((swap) => swap.preparation.outputHoldingIds);
    expect(new Set(named).size).toBe(named.length);
    const shuffled = [...swaps].sort(() => Math.random() - 0.5);
    const first = await Promise.all(shuffled.map((swap) => execute(swap)));
    // The trader's own input holding, named by several of its swaps at once, is spent by the
    // first to execute: the others are prepared again (nothing moved) and signed again.
    const ended: AtomicSwapRecord[] = [];
    for (let swap of first) {
      for (let round = 0; swap.status === 'prepared' && round < SIGNING_ROUNDS_MAX; round++) {
        expect(swap.preparations).toBeGreaterThan(1);
        swap = await execute(swap);
      }
      ended.push(swap);
    }
    for (const swap of ended) {
      expect(['completed', 'price_moved']).toContain(swap.status);
      // The pool never pays more than its curve at the moment it executes.
      if (swap.status === 'completed') {
        expect(swap.execution?.curveOutput.gte(swap.outputAmount)).toBe(true);
      }
    }
    const completed = ended.filter((swap) => swap.status === 'completed');
    const after = await world();
    const sum = (amounts: Amount[]) => Amount.sum(amounts).toString();
    const moved = (a: string, b: string) => Amount.parse(a).sub(Amount.parse(b)).toString();
    expect(moved(before.traderUsd, after.traderUsd)).toBe(sum(completed.map((s) => s.inputAmount)));
    expect(moved(after.traderEur, before.traderEur)).toBe(
      sum(completed.map((s) => s.outputAmount)),
    );
    expect(after.booksUsd).toBe(after.poolUsd);
    expect(after.booksEur).toBe(after.poolEur);
  });

  it('prepares one swap at a time from a pool holding its output as one, and several once the keeper split it', async () => {
    // The pool's free EUR holdings merged into one, as one provider's deposit would have made it.
    await mergeHoldings(local, pool, eur, await reservedHoldingIds(db, POOL_ID));
    const cancelAll = async (swaps: readonly AtomicSwapRecord[]) => {
      for (const swap of swaps) {
        await cancelAtomicSwap(
          db,
          { atomicSwapId: swap.atomicSwapId, trader: trader.partyId, now: new Date() },
          port(),
        );
      }
    };
    const preparedAtOnce = async (count: number) => {
      const attempts = await Promise.allSettled(
        Array.from({ length: count }, () => prepared(Amount.of(5), 0.01)),
      );
      const swaps = attempts.flatMap((a) => (a.status === 'fulfilled' ? [a.value] : []));
      const refused = attempts.flatMap((a) => (a.status === 'rejected' ? [a.reason] : []));
      return { swaps, refused };
    };
    const one = await preparedAtOnce(3);
    expect(one.swaps).toHaveLength(1);
    expect(one.refused).toMatchObject([
      { code: 'pool_holdings_busy' },
      { code: 'pool_holdings_busy' },
    ]);
    await cancelAll(one.swaps);
    const before = await world();
    const round = await keepPoolHoldings({ db, ledger: port() }, { targets: { '*': 4 } });
    expect(round.sides.find((side) => side.instrument.id === eur.id)?.selfTransfers).toBe(3);
    const after = await world();
    // Self-transfers: nothing moved between the parties, nothing in the books.
    expect({ ...after, end: 0 }).toEqual({ ...before, end: 0 });
    const four = await preparedAtOnce(4);
    expect(four.refused).toEqual([]);
    const named = four.swaps.flatMap((swap) => swap.preparation.outputHoldingIds);
    expect(new Set(named).size).toBe(4);
    await cancelAll(four.swaps);
  });

  describe('an execution whose answer was lost', () => {
    /** The port as a service killed mid-call sees it: the ledger's answer never arrives. */
    function losing(commits: boolean): AtomicSwapPort {
      const real = port();
      return {
        prepareAtomicSwap: (command) => real.prepareAtomicSwap(command),
        executeAtomicSwap: async (command) => {
          if (commits) await real.executeAtomicSwap(command);
          throw new LedgerError('timeout', 'no answer in time');
        },
      };
    }
    const later = (ms: number) => ({ now: () => new Date(Date.now() + ms) });

    it.each([
      ['after the ledger committed it', true],
      ['before the ledger took it', false],
    ])(
      'is found out %s: one execution, completed, books equal holdings',
      async (_when, commits) => {
        const swap = await prepared();
        const before = await world();
        const open = await executeAtomicSwap(
          { ...deps, atomicSwaps: losing(commits) },
          { atomicSwapId: swap.atomicSwapId, trader: trader.partyId, signed: signatureOf(swap) },
        );
        expect(open.status).toBe('executing');
        // Left to the request that signed it for a while, then looked up.
        expect(await resolveExecutingSwaps(deps)).toBe(0);
        const resolved = await resolveExecutingSwaps({
          ...deps,
          clock: later(EXECUTION_GRACE_MS + 1),
        });
        expect(resolved).toBe(1);
        const done = await getAtomicSwap(db, swap.atomicSwapId);
        expect(done).toMatchObject({ status: 'completed' });
        const after = await world();
        const moved = (a: string, b: string) => Amount.parse(a).sub(Amount.parse(b)).toString();
        expect(moved(before.traderUsd, after.traderUsd)).toBe(swap.inputAmount.toString());
        expect(moved(after.traderEur, before.traderEur)).toBe(swap.outputAmount.toString());
        expect(after.booksUsd).toBe(after.poolUsd);
        expect(after.booksEur).toBe(after.poolEur);
        expect(await local.lookupCommand(swap.preparation.commandId)).toMatchObject({
          updateId: done?.execution?.updateId,
        });
      },
    );

    it('ends expired, nothing moved, once the ledger can no longer commit it', async () => {
      const swap = await prepared();
      await expectNothingMoved(async () => {
        await executeAtomicSwap(
          { ...deps, atomicSwaps: losing(false) },
          { atomicSwapId: swap.atomicSwapId, trader: trader.partyId, signed: signatureOf(swap) },
        );
        const pastDeadline = swap.preparation.expiresAt.getTime() - Date.now() + 61_000;
        expect(await resolveExecutingSwaps({ ...deps, clock: later(pastDeadline) })).toBe(1);
      });
      expect(await getAtomicSwap(db, swap.atomicSwapId)).toMatchObject({
        status: 'expired',
        failureCode: 'atomic_swap_expired',
      });
    });
  });
});
