/**
 * `poolparty admin pools add`: a pool whose liquidity is on the ledger already. The LP funds the
 * swap party by transfers, the operator adds the pool, and its reserves are the swap party's
 * holdings; a running engine takes the new swap party into its stream, settles swaps on the pool
 * without taking the funding transfers for deposits, and reconciliation finds the books right.
 * Every mistake is refused with one line before anything is written.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Amount, type Instrument } from '@poolparty/core';
import { LedgerError, type LedgerPort, REASON_META_KEY } from '@poolparty/ledger';
import { openLiquidityIntent } from '@poolparty/settlement';
import {
  type EngineHarness,
  ledgerWith,
  type Party,
  useEngineWorld,
  waitFor,
} from '@poolparty/settlement/testing';
import {
  getLiquidityIntent,
  getPool,
  getPosition,
  listAdminActions,
  listPools,
} from '@poolparty/store';
import { recordedAmount } from '@poolparty/store/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { runAdmin } from './support/admin.js';
import { runCli } from './support/cli.js';

/** Three CLI runs, each a whole process loading the store modules. */
const CLI_TIMEOUT_MS = 120_000;

const world = useEngineWorld();
let h: EngineHarness;

/** Runs `poolparty admin …` against the harness's store and `ledger`; returns what it printed. */
function admin(ledger: LedgerPort | null, ...args: string[]) {
  return runAdmin(
    h.db,
    {
      ...(ledger !== null && { openLedger: async () => ({ ledger, close: async () => {} }) }),
      now: () => h.clock.now(),
      actor: () => 'ops',
    },
    args,
  );
}

const spec = (instrument: Instrument) => `${instrument.admin}:${instrument.id}`;

interface Funded {
  readonly swap: Party;
  readonly lp: Party;
  readonly usdcx: Instrument;
  readonly cbtc: Instrument;
}

/** An LP that sends 10 000 USDCx and 0.1 CBTC to a fresh swap party, as a real pool is funded. */
async function fundedSwapParty(): Promise<Funded> {
  const usdcx = h.usdcx;
  const cbtc = h.seed.instruments.cbtc;
  const lp = await h.newParty(
    'new-pool-lp',
    [],
    [
      [usdcx, '10000'],
      [cbtc, '0.1'],
    ],
  );
  const swap = await h.newParty('new-pool-swap', [usdcx, cbtc]);
  for (const [instrument, amount] of [
    [usdcx, '10000'],
    [cbtc, '0.1'],
  ] as const) {
    await h.ledger.submitTransfer({
      commandId: `funding-${randomUUID()}`,
      sender: lp.partyId,
      receiver: swap.partyId,
      instrument,
      amount: Amount.parse(amount),
    });
  }
  return { swap, lp, usdcx, cbtc };
}

function addArgs(funded: Funded, ...extra: string[]): string[] {
  return [
    'pools',
    'add',
    '--swap-party',
    funded.swap.partyId,
    '--lp-party',
    funded.lp.partyId,
    '--base',
    spec(funded.usdcx),
    '--quote',
    spec(funded.cbtc),
    '--owner',
    funded.lp.partyId,
    ...extra,
  ];
}

describe('admin pools add', () => {
  it('adds a pool with the swap party’s holdings as reserves; swaps settle on it and the books match', async () => {
    h = await world.harness();
    const engine = await h.startEngine();
    const funded = await fundedSwapParty();
    const endAtAdd = await h.ledger.ledgerEnd();

    const { out, errors } = await admin(h.ledger, ...addArgs(funded, '--fee-bps', '25'));

    expect(errors).toEqual([]);
    expect(out).toEqual([
      `added usdcx-cbtc\tactive\tUSDCx (${funded.usdcx.admin}) / CBTC (${funded.cbtc.admin})\treserves 10000 / 0.1\tfee 25 bps`,
    ]);
    const pool = await getPool(h.db, 'usdcx-cbtc');
    expect(pool).toMatchObject({
      swapParty: funded.swap.partyId,
      lpParty: funded.lp.partyId,
      feeBps: 25,
      booksFromOffset: endAtAdd,
      accounting: {
        reserveA: Amount.parse('10000'),
        reserveB: Amount.parse('0.1'),
        inflightA: Amount.ZERO,
        feesA: Amount.ZERO,
      },
    });
    expect(pool?.lpSupply).toEqual(Amount.parse('31.6227766016')); // √(10000 × 0.1), the first LP supply
    // The owner holds the opening units but the locked minimum (docs/spec/liquidity.md#units).
    expect((await getPosition(h.db, 'usdcx-cbtc', funded.lp.partyId))?.units).toEqual(
      Amount.parse('31.6227765016'),
    );
    const [audit] = await listAdminActions(h.db, 10);
    expect(audit).toMatchObject({ actor: 'ops', action: 'pools.add', subject: 'usdcx-cbtc' });
    expect(audit?.details).toMatchObject({ reserveA: '10000', reserveB: '0.1', feeBps: 25 });

    // A running engine hears of the pool (from the audit row's notification, in a service).
    engine.poolsChanged();
    const intent = await h.createIntent(h.alice, funded.usdcx, '100', { poolId: 'usdcx-cbtc' });
    await h.ledger.submitTransfer({
      commandId: `wallet-${randomUUID()}`,
      sender: h.alice.partyId,
      receiver: funded.swap.partyId,
      instrument: funded.usdcx,
      amount: Amount.parse('100'),
      meta: { [REASON_META_KEY]: intent.depositReference },
    });
    const done = await h.waitForStatus(intent.intentId, 'completed');

    // The funding transfers came before the books began: neither was taken for a deposit.
    const deposits = await h.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM deposits WHERE pool_id = 'usdcx-cbtc'`,
    );
    expect(deposits[0]?.n).toBe(1);
    expect(await h.transfersWithReason(`refund:${intent.intentId}`)).toBe(0);
    expect(await h.balance(funded.lp, funded.usdcx)).toEqual(Amount.parse('0'));
    expect(await h.balance(h.alice, funded.cbtc)).toEqual(
      Amount.parse('0.05').add(recordedAmount(done.actualOutput)),
    );
    await h.booksMatchLedger('usdcx-cbtc');
    const report = await engine.reconcileNow();
    expect(report.runs.find((run) => run.poolId === 'usdcx-cbtc')?.ok).toBe(true);
  });

  it('adds an empty pool whose first liquidity intent sets its price; then it prices swaps', async () => {
    h = await world.harness();
    const engine = await h.startEngine();
    const usdcx = h.usdcx;
    const cbtc = h.seed.instruments.cbtc;
    const swap = await h.newParty('empty-pool-swap', [usdcx, cbtc]);
    const lpParty = await h.newParty('empty-pool-lp', [usdcx, cbtc]);
    const provider = await h.newParty(
      'first-provider',
      [usdcx, cbtc],
      [
        [usdcx, '5000'],
        [cbtc, '1'],
      ],
    );
    const args = ['pools', 'add', '--swap-party', swap.partyId, '--lp-party', lpParty.partyId];
    const { errors } = await admin(h.ledger, ...args, '--base', spec(usdcx), '--quote', spec(cbtc));
    expect(errors).toEqual([]);
    expect(await getPool(h.db, 'usdcx-cbtc')).toMatchObject({ lpSupply: Amount.ZERO });
    engine.poolsChanged();

    const poolArgs = { poolId: 'usdcx-cbtc', now: h.clock.now() };
    const origin = { providerParty: provider.partyId, apiKeyId: 'key_scale_out' };
    const ids = {
      liquidityIntentId: 'liq_FIRSTLIQUIDITY0000000000000',
      depositReference: 'pp-first-liq',
    };
    const developerParty = h.seed.developer.partyId;
    // One side alone cannot price an empty pool.
    await expect(
      openLiquidityIntent(h.db, {
        ...poolArgs,
        ...origin,
        ...ids,
        developerParty,
        amountA: '4000',
      }),
    ).rejects.toMatchObject({ code: 'pool_has_no_price' });
    const intent = await openLiquidityIntent(h.db, {
      ...poolArgs,
      ...origin,
      ...ids,
      developerParty,
      amountA: '4000',
      amountB: '0.4',
    });
    for (const [instrument, amount] of [
      [usdcx, '4000'],
      [cbtc, '0.4'],
    ] as const) {
      await h.ledger.submitTransfer({
        commandId: `wallet-${randomUUID()}`,
        sender: provider.partyId,
        receiver: lpParty.partyId,
        instrument,
        amount: Amount.parse(amount),
        meta: { [REASON_META_KEY]: intent.depositReference },
      });
    }
    await waitFor(async () => {
      const found = await getLiquidityIntent(h.db, intent.liquidityIntentId);
      return found?.status === 'completed' || null;
    }, 'the first liquidity to complete');
    expect(await getPool(h.db, 'usdcx-cbtc')).toMatchObject({
      lpSupply: Amount.parse('40'),
      accounting: { reserveA: Amount.parse('4000'), reserveB: Amount.parse('0.4') },
    });

    const swapIntent = await h.createIntent(h.alice, usdcx, '100', { poolId: 'usdcx-cbtc' });
    await h.ledger.submitTransfer({
      commandId: `wallet-${randomUUID()}`,
      sender: h.alice.partyId,
      receiver: swap.partyId,
      instrument: usdcx,
      amount: Amount.parse('100'),
      meta: { [REASON_META_KEY]: swapIntent.depositReference },
    });
    await h.waitForStatus(swapIntent.intentId, 'completed');
    await h.booksMatchLedger('usdcx-cbtc');
  });

  it('refuses every mistake in one line, writing nothing', async () => {
    h = await world.harness();
    const funded = await fundedSwapParty();
    const seeded = h.pool('amulet-usdcx');
    const unfunded = await h.newParty('unfunded-swap', [funded.usdcx]);
    await h.ledger.mint({
      owner: unfunded.partyId,
      instrument: funded.usdcx,
      amount: Amount.parse('5'),
    });
    const amulet = h.amulet;
    const ghost = 'ghost::1220aaaa';
    const cases: readonly [readonly string[], string][] = [
      [
        addArgs(funded, '--base', 'USDCx'),
        '--base must be ADMIN:ID, the admin\'s party id and the symbol, e.g. DSO::1220…:Amulet (got "USDCx")',
      ],
      [
        addArgs(funded, '--fee-bps', '10000'),
        '--fee-bps must be a whole number of basis points from 0 to 9999 (got "10000")',
      ],
      [
        addArgs(funded, '--pool-id', 'no spaces'),
        '--pool-id must be 1 to 128 of A-Z a-z 0-9 . _ ~ - (got "no spaces")',
      ],
      [
        addArgs(funded, '--quote', spec(funded.usdcx)),
        '--base and --quote must be two instruments',
      ],
      [
        addArgs(funded, '--lp-party', funded.swap.partyId),
        '--swap-party and --lp-party must be two parties',
      ],
      [addArgs(funded, '--swap-party', ghost), `--swap-party: the ledger knows no party ${ghost}`],
      [addArgs(funded, '--lp-party', ghost), `--lp-party: the ledger knows no party ${ghost}`],
      [
        addArgs(funded, '--quote', `${funded.cbtc.admin}:WBTC`),
        `--quote: the ledger's registries know no instrument WBTC (${funded.cbtc.admin})`,
      ],
      [
        addArgs(funded, '--swap-party', unfunded.partyId),
        `${unfunded.partyId} holds only one of USDCx (${funded.usdcx.admin}) and CBTC (${funded.cbtc.admin}); fund both, or neither for a pool its first liquidity prices`,
      ],
      [
        // Without its last two words, `--owner` and the party.
        addArgs(funded).slice(0, -2),
        `${funded.swap.partyId} holds reserves already: give --owner <partyId>, the party credited with their liquidity units`,
      ],
      [
        addArgs(funded, '--pool-id', 'amulet-usdcx'),
        'pool amulet-usdcx exists already (choose another --pool-id)',
      ],
      [
        addArgs(funded, '--swap-party', seeded.swapParty),
        `${seeded.swapParty} is the swap party of pool amulet-usdcx already: a swap party serves one pool`,
      ],
      [
        addArgs(funded, '--base', spec(funded.usdcx), '--quote', spec(amulet)),
        `pool amulet-usdcx trades USDCx (${funded.usdcx.admin}) and Amulet (${amulet.admin}) already`,
      ],
    ];
    const poolsBefore = await listPools(h.db);
    for (const [args, message] of cases) {
      expect(await admin(h.ledger, ...args)).toEqual({ out: [], errors: [message] });
    }
    expect(await listPools(h.db)).toEqual(poolsBefore);
    expect(await listAdminActions(h.db, 10)).toEqual([]);
  });

  it('refuses a party the service cannot act for, naming it and what is missing, writing nothing', async () => {
    h = await world.harness();
    const funded = await fundedSwapParty();
    // A devnet wallet party (as `/devnet/parties` makes them): only its own key signs for it, so
    // the service could never forward a deposit it received or pay out of it.
    const external = h.alice.partyId;
    expect(await h.ledger.getParty(external)).toMatchObject({ kind: 'external' });
    const why = 'it is an external party, which only its own key signs for';

    expect(await admin(h.ledger, ...addArgs(funded, '--lp-party', external))).toEqual({
      out: [],
      errors: [`--lp-party: the service cannot act as ${external}: ${why}`],
    });
    expect(await admin(h.ledger, ...addArgs(funded, '--swap-party', external))).toEqual({
      out: [],
      errors: [`--swap-party: the service cannot act as ${external}: ${why}`],
    });
    expect(await getPool(h.db, 'usdcx-cbtc')).toBeNull();
    expect(await listAdminActions(h.db, 10)).toEqual([]);
  });

  it('refuses a swap party with a transfer in flight: its reserves are not known', async () => {
    h = await world.harness();
    const funded = await fundedSwapParty();
    // An offer to a party without pre-approval locks the swap party's holding until it settles.
    const stranger = await h.newParty('stranger', []);
    await h.ledger.submitTransfer({
      commandId: `offer-${randomUUID()}`,
      sender: funded.swap.partyId,
      receiver: stranger.partyId,
      instrument: funded.cbtc,
      amount: Amount.parse('0.01'),
    });

    expect((await admin(h.ledger, ...addArgs(funded))).errors).toEqual([
      `${funded.swap.partyId} has CBTC (${funded.cbtc.admin}) locked in a pending transfer; settle or withdraw it first`,
    ]);
    expect(await getPool(h.db, 'usdcx-cbtc')).toBeNull();
  });

  it('turns a ledger that fails into one line, not a crash', async () => {
    h = await world.harness();
    const funded = await fundedSwapParty();
    const down = ledgerWith(h.ledger, {
      getHoldings: async () => {
        throw new LedgerError('timeout', 'no answer from the participant in 30 s');
      },
    });

    expect((await admin(down, ...addArgs(funded))).errors).toEqual([
      'the ledger answered timeout: no answer from the participant in 30 s',
    ]);
    expect(await getPool(h.db, 'usdcx-cbtc')).toBeNull();
  });
});

describe('poolparty admin pools add, as an operator runs it', () => {
  const root = mkdtempSync(join(tmpdir(), 'pp-pools-add-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const args = [
    'admin',
    'pools',
    'add',
    '--swap-party',
    'swap::1220aa',
    '--lp-party',
    'lp::1220bb',
    '--base',
    'DSO::1220cc:Amulet',
    '--quote',
    'issuer::1220dd:USDCx',
  ];

  it(
    'refuses the embedded ledger, and names the missing Canton settings, in one line each',
    async () => {
      const dataDir = join(root, 'store');
      expect((await runCli(['migrate', '--create', '--data-dir', dataDir])).code).toBe(0);

      const local = await runCli([...args, '--data-dir', dataDir]);
      expect(local).toMatchObject({
        code: 1,
        stdout: '',
        stderr:
          'poolparty: admin pools add reads the swap party on a participant: set LEDGER=canton and the CANTON_* settings (the embedded devnet ledger seeds its own pools)\n',
      });
      const canton = await runCli([...args, '--data-dir', dataDir, '--ledger', 'canton'], {
        CANTON_USER_ID: 'poolparty',
      });
      expect(canton).toMatchObject({
        code: 2,
        stdout: '',
        stderr:
          'poolparty: LEDGER=canton needs CANTON_LEDGER_API_URL, CANTON_REGISTRY_URL, CANTON_SCAN_PROXY_URL (or their --canton-… flags)\n',
      });
      expect((await runCli(['admin', 'audit', 'list', '--data-dir', dataDir])).stdout).toBe(
        'no recorded changes\n',
      );
    },
    CLI_TIMEOUT_MS,
  );
});
