/**
 * Liquidity end to end through the SDK, on PGlite and on PostgreSQL: three providers add
 * liquidity (one-step and two-step deposits, in both orders, one over-supplying a side and getting
 * the excess back), swaps run both ways through the SDK from several parties at once, and all
 * three withdraw everything. Each provider's units and payouts equal core's pure model (planMint,
 * planBurn over the reserves the books held, read from the store) to the last unit, and afterwards
 * the books equal the swap party's holdings and the LP party holds nothing.
 *
 * `POOLPARTY_LIQUIDITY_SWAPS` sets the number of swaps (default 200); lower it where the machine
 * is too slow for the whole file to stay within a minute.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Amount,
  afterBurn,
  afterMint,
  type PoolLiquidity,
  planBurn,
  planMint,
} from '@poolparty/core';
import { PoolParty } from '@poolparty/sdk';
import { Devnet, type DevnetWallet } from '@poolparty/sdk/devnet';
import { type WithLiquidity, withLiquidity } from '@poolparty/sdk/liquidity';
import { balanceOf, booksAndHoldings } from '@poolparty/settlement/testing';
import {
  findApiKeysByIdOrPrefix,
  getPool,
  getPoolAccounting,
  setApiKeyRateLimits,
} from '@poolparty/store';
import {
  createSchema,
  dropSchema,
  POSTGRES_URL,
  postgresSkipReason,
} from '@poolparty/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSettings } from '../../src/config.js';
import { type RunningService, startService } from '../../src/service.js';

/** Swaps in the run; each is a small amount, so the pool's price barely moves. */
const SWAPS = Number(process.env.POOLPARTY_LIQUIDITY_SWAPS ?? 200);
/** Requests a minute the run's API key may make: the swaps need more than a key's default. */
const RUN_RATE_PER_MIN = 100_000;
/** Parties swapping at once: each runs its share of the swaps one after the other. */
const SWAPPERS = 4;
const START_TIMEOUT_MS = 60_000;
const RUN_TIMEOUT_MS = 120_000;
const WAIT_MS = 30_000;

const postgresSkip = await postgresSkipReason('liquidity through the SDK on PostgreSQL');

interface World {
  readonly service: RunningService;
  readonly url: string;
  readonly apiKey: string;
  close(): Promise<void>;
}

async function start(database: 'pglite' | 'postgres'): Promise<World> {
  const dataDir = mkdtempSync(join(tmpdir(), 'poolparty-liquidity-e2e-'));
  const schema = database === 'postgres' ? await createSchema('pp_liquidity_sdk') : null;
  const env = {
    PORT: '0',
    LOG_LEVEL: 'silent',
    POOLPARTY_DATA_DIR: dataDir,
    ...(schema !== null && { DATABASE_URL: POSTGRES_URL }),
  };
  const settings = readSettings(env);
  if (!settings.ok) throw new Error(settings.errors.join('\n'));
  const service = await startService(settings.settings, schema === null ? {} : { schema });
  if (service.url === null || service.devnet === null) throw new Error('not listening');
  const [key] = await findApiKeysByIdOrPrefix(
    service.ctx.db,
    service.devnet.apiKey.slice(0, 12),
    1,
  );
  if (key === undefined) throw new Error('the seeded API key is not in the store');
  const rate = RUN_RATE_PER_MIN;
  await setApiKeyRateLimits(service.ctx.db, key.keyId, { readsPerMin: rate, swapsPerMin: rate });
  return {
    service,
    url: service.url,
    apiKey: service.devnet.apiKey,
    close: async () => {
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
      if (schema !== null) await dropSchema(schema);
    },
  };
}

describe.each([
  ['PGlite', 'pglite', null],
  ['PostgreSQL', 'postgres', postgresSkip],
] as const)('liquidity through the SDK on %s', (_name, database, skip) => {
  let w: World;
  let devnet: Devnet;

  beforeAll(async () => {
    if (skip !== null) return;
    w = await start(database);
    devnet = new Devnet({ baseUrl: w.url });
  }, START_TIMEOUT_MS);

  afterAll(() => w?.close());

  const pool = () => {
    const found = w.service.devnet?.pools.find(
      (p) => p.tokenA.id === 'Amulet' && p.tokenB.id === 'USDCx',
    );
    if (found === undefined) throw new Error('no Amulet/USDCx pool');
    return found;
  };

  /** The reserves and supply the store holds now. */
  async function liquidity(): Promise<PoolLiquidity> {
    const books = await getPoolAccounting(w.service.ctx.db, pool().poolId);
    const record = await getPool(w.service.ctx.db, pool().poolId);
    if (books === null || record === null) throw new Error('no pool');
    return {
      reserveA: books.reserveA,
      reserveB: books.reserveB,
      supply: record.lpSupply,
    };
  }

  async function party(name: string): Promise<{ wallet: DevnetWallet; pp: WithLiquidity }> {
    const wallet = await devnet.createWallet({ partyHint: `${name}-${database}` });
    await wallet.fund('Amulet', '20000');
    await wallet.fund('USDCx', '3000', pool().tokenB.admin);
    const pp = new PoolParty({
      apiKey: w.apiKey,
      environment: 'devnet',
      baseUrl: w.url,
      pollInterval: 50,
    });
    const { token } = await wallet.authenticate(pp);
    const authed = withLiquidity(
      new PoolParty({
        apiKey: w.apiKey,
        environment: 'devnet',
        baseUrl: w.url,
        pollInterval: 50,
        walletToken: token,
      }),
    );
    return { wallet, pp: authed };
  }

  /** One provider's mint, checked against planMint at the reserves before it. */
  async function addLiquidity(
    lp: { wallet: DevnetWallet; pp: WithLiquidity },
    order: readonly ('a' | 'b')[],
    oversupplyB = false,
  ): Promise<string> {
    const before = await liquidity();
    const intent = await lp.pp.liquidity.create({ poolId: pool().poolId, amountA: '1000' });
    const sentB = oversupplyB
      ? Amount.parse(intent.expected.b).mulDiv(3n, 2n, 'up').toString()
      : intent.expected.b;
    for (const side of order)
      await lp.wallet.depositLiquidity(intent, side, side === 'b' ? sentB : undefined);
    const done = await intent.wait({ timeoutMs: WAIT_MS });
    const plan = planMint(before, Amount.parse(intent.expected.a), Amount.parse(sentB));
    if (plan.kind !== 'mint') throw new Error(`the model refuses: ${plan.reason}`);
    expect(done.minted).toEqual({
      units: plan.minted.toString(),
      joined: { a: plan.joinA.toString(), b: plan.joinB.toString() },
      returned: { a: plan.excessA.toString(), b: plan.excessB.toString() },
    });
    if (oversupplyB) expect(plan.excessB.isPositive()).toBe(true);
    expect(await liquidity()).toEqual(afterMint(before, plan));
    return plan.minted.toString();
  }

  async function swapMany(swappers: readonly { wallet: DevnetWallet; pp: PoolParty }[]) {
    await Promise.all(
      swappers.map(async ({ wallet, pp }, index) => {
        for (let n = index; n < SWAPS; n += swappers.length) {
          const aToB = n % 2 === 0;
          const swap = await pp.swaps.create({
            fromToken: aToB ? 'Amulet' : 'USDCx',
            toToken: aToB ? 'USDCx' : 'Amulet',
            amount: aToB ? '20' : '3',
            poolId: pool().poolId,
          });
          await wallet.deposit(swap);
          await swap.wait({ timeout: WAIT_MS });
        }
      }),
    );
  }

  async function settled(): Promise<void> {
    const { ctx } = w.service;
    const { books, holdings } = await booksAndHoldings(ctx.db, ctx.ledger, pool().poolId);
    expect(holdings).toEqual(books);
    for (const token of [pool().tokenA, pool().tokenB]) {
      expect((await balanceOf(ctx.ledger, pool().lpParty, token)).toString()).toBe('0');
    }
  }

  it.skipIf(skip !== null)(
    'mints, swaps and burns exactly as the model does, ending with books equal to holdings',
    async () => {
      const one = await party('lp-one');
      const two = await party('lp-two');
      const three = await party('lp-three');
      const lps = [one, two, three];
      // One-step Amulet first; the USDCx offer first; and USDCx over-supplied by half.
      const units = [
        await addLiquidity(one, ['a', 'b']),
        await addLiquidity(two, ['b', 'a']),
        await addLiquidity(three, ['a', 'b'], true),
      ];
      for (const [index, lp] of lps.entries()) {
        const [position] = await lp.pp.liquidity.positions();
        expect(position?.units).toBe(units[index]);
      }

      const swappers = await Promise.all(
        Array.from({ length: SWAPPERS }, (_, index) => party(`swapper-${index}`)),
      );
      await swapMany(swappers);

      for (const [index, lp] of lps.entries()) {
        const before = await liquidity();
        const held = Amount.parse(units[index] as string);
        const pay = planBurn(before, held);
        if (pay === null) throw new Error('the model refuses the burn');
        const withdrawal = await lp.pp.liquidity.withdraw({
          poolId: pool().poolId,
          shareBps: 10_000,
          minimumA: '0',
          minimumB: '0',
        });
        expect(withdrawal.units).toBe(held.toString());
        const paid = await withdrawal.wait({ timeoutMs: WAIT_MS });
        expect([paid.payoutA.amount, paid.payoutB.amount]).toEqual([
          pay.payA.toString(),
          pay.payB.toString(),
        ]);
        expect(await liquidity()).toEqual(afterBurn(before, held, pay));
        const left = await lp.pp.liquidity.positions();
        expect(left.filter((p) => Amount.parse(p.units).isPositive())).toEqual([]);
      }
      await settled();
    },
    RUN_TIMEOUT_MS,
  );
});
