/**
 * `poolparty admin flags retry` (a payout or return the engine gave up on, sent again exactly
 * once) and `poolparty admin pools show` (the pool's books). A withdrawal's payout the ledger
 * kept refusing is paid by the re-send once: the provider's holding grows by it once, `outgoing`
 * gives it up, the flag is closed and the change audited; a second run, or two at once, send
 * nothing more; should the attempt given up on commit after all, it is flagged, never silent. A
 * deposit whose forward failed goes back to its sender. The books equal the ledger throughout.
 */
import { randomUUID } from 'node:crypto';
import { Amount } from '@poolparty/core';
import {
  LedgerError,
  type LedgerPort,
  REASON_META_KEY,
  type TransferCommand,
} from '@poolparty/ledger';
import { openLiquidityIntent } from '@poolparty/settlement';
import {
  type EngineHarness,
  ledgerWith,
  openPostgresHarness,
  type Party,
  type PostgresHarness,
  SCALE_OUT_API_KEY_ID,
  useEngineWorld,
  waitFor,
  withdrawWholePosition,
} from '@poolparty/settlement/testing';
import {
  commandAttemptsOf,
  type Database,
  depositsOfLiquidityIntent,
  getLiquidityIntent,
  getOperatorFlag,
  getPool,
  getWithdrawal,
  latestReconciliationRun,
  listAdminActions,
  listOpenOperatorFlags,
  type OperatorFlag,
  raiseOperatorFlag,
  type WithdrawalRecord,
} from '@poolparty/store';
import { postgresSkipReason, recordedAmount } from '@poolparty/store/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAdmin } from './support/admin.js';

const world = useEngineWorld();
const skipReason = await postgresSkipReason('admin flags retry from two processes');
let h: EngineHarness;
const POOL = 'amulet-usdcx';

/** A ledger that refuses the transfers `refusing.refuses` picks, while it is set. */
function transferGate(
  ledger: LedgerPort,
  refusing: { refuses: ((command: TransferCommand) => boolean) | null },
): LedgerPort {
  return ledgerWith(ledger, {
    submitTransfer: async (command: TransferCommand) => {
      if (refusing.refuses?.(command)) throw new LedgerError('rejected', 'refused by the test');
      return ledger.submitTransfer(command);
    },
  });
}

const reasonOf = (command: TransferCommand) => command.meta?.[REASON_META_KEY] ?? '';

function admin(...args: string[]) {
  return adminOn(h.db, ...args);
}

function adminOn(db: Database, ...args: string[]) {
  return runAdmin(db, { now: () => h.clock.now(), actor: () => 'ops' }, args);
}

/** A provider pre-approving both tokens (its payouts are one-step), with funds for a deposit. */
function provider(hint: string): Promise<Party> {
  return h.newParty(
    hint,
    [h.amulet, h.usdcx],
    [
      [h.amulet, '100000'],
      [h.usdcx, '10000'],
    ],
  );
}

/**
 * Opens a liquidity intent of 1000 Amulet and its USDCx at the pool's ratio, and deposits both;
 * `timesB` over-supplies USDCx, whose excess goes back.
 */
async function depositLiquidity(lp: Party, timesB = 1n) {
  const intent = await openLiquidityIntent(h.db, {
    liquidityIntentId: `liq_${randomUUID().replaceAll('-', '').slice(0, 26).toUpperCase()}`,
    depositReference: `pp-${randomUUID().slice(0, 12)}`,
    poolId: POOL,
    providerParty: lp.partyId,
    apiKeyId: SCALE_OUT_API_KEY_ID,
    developerParty: h.seed.developer.partyId,
    amountA: '1000',
    now: h.clock.now(),
  });
  await h.depositLiquidity(lp, h.amulet, intent.expectedA.toString(), intent.depositReference);
  const sentB = intent.expectedB.mulDiv(timesB, 1n, 'up');
  await h.depositLiquidity(lp, h.usdcx, sentB.toString(), intent.depositReference);
  return intent;
}

function openFlags(kind: string): Promise<OperatorFlag[]> {
  return waitFor(async () => {
    const flags = (await listOpenOperatorFlags(h.db, 50)).filter((f) => f.kind === kind);
    return flags.length > 0 ? flags : null;
  }, `a ${kind} flag`);
}

interface FlaggedWithdrawal {
  readonly lp: Party;
  readonly withdrawal: WithdrawalRecord;
  readonly flag: OperatorFlag;
  readonly refusing: { refuses: ((command: TransferCommand) => boolean) | null };
}

/**
 * A provider's whole position withdrawn while the ledger refuses its USDCx payout: the Amulet
 * side is paid, the USDCx side is given up on and flagged, its amount kept in `outgoing`.
 */
async function flaggedWithdrawal(): Promise<FlaggedWithdrawal> {
  const refusing: FlaggedWithdrawal['refusing'] = { refuses: null };
  await h.startEngine({ ledger: transferGate(h.ledger, refusing) });
  const lp = await provider('lp-flagged');
  const intent = await depositLiquidity(lp);
  await waitFor(async () => {
    const found = await getLiquidityIntent(h.db, intent.liquidityIntentId);
    return found?.status === 'completed' || null;
  }, 'the liquidity to join');
  refusing.refuses = (command) =>
    reasonOf(command).startsWith('withdraw:') && command.instrument.id === h.usdcx.id;
  const recorded = await withdrawWholePosition(h, lp, POOL);
  const withdrawal = await waitFor(async () => {
    const w = await getWithdrawal(h.db, recorded.withdrawalId);
    return w?.payoutA === 'paid' && w.payoutB === 'flagged' ? w : null;
  }, 'the USDCx payout to be flagged');
  const [flag] = await openFlags('withdrawal_payout_failed');
  if (flag === undefined) throw new Error('no flag');
  return { lp, withdrawal, flag, refusing };
}

async function outgoingB(): Promise<Amount | undefined> {
  return (await getPool(h.db, POOL))?.accounting.outgoingB;
}

/** The books equal the ledger's holdings, and the reconciler finds both parties right. */
async function settled(): Promise<void> {
  await h.caughtUp();
  await h.booksMatchLedger(POOL);
  const report = await h.engine?.reconcileNow();
  expect(report?.runs.find((run) => run.poolId === POOL)?.ok).toBe(true);
}

describe('admin flags retry', () => {
  it('pays a flagged withdrawal payout exactly once, closes its flag, audits it; a second run sends nothing', async () => {
    h = await world.harness();
    const { lp, withdrawal, flag, refusing } = await flaggedWithdrawal();
    const id = withdrawal.withdrawalId;
    expect(await outgoingB()).toEqual(withdrawal.amountB);
    await settled();
    const before = await h.balance(lp, h.usdcx);
    refusing.refuses = null;
    // A withdrawal's payout is no swap refund: that command points to this one.
    expect((await admin('refunds', 'retry', id)).errors).toEqual([
      `no open refund_failed flag for ${id}: a liquidity payout or return is sent again by its flag (admin flags list, then admin flags retry <flagId>)`,
    ]);

    const { out, errors } = await admin('flags', 'retry', String(flag.id));

    expect(errors).toEqual([]);
    expect(out).toEqual([
      `flag ${flag.id} (withdrawal_payout_failed): recorded ${id}.b:lp_payout:1, ${withdrawal.amountB} USDCx (${h.usdcx.admin}) to ${lp.partyId}, in place of ${id}.b:lp_payout:0; a running worker submits it`,
    ]);
    const paid = await waitFor(async () => {
      const w = await getWithdrawal(h.db, id);
      return w?.payoutB === 'paid' ? w : null;
    }, 'the re-sent payout to arrive');
    expect(paid.completedAt).not.toBeNull();
    expect(await h.balance(lp, h.usdcx)).toEqual(before.add(withdrawal.amountB));
    expect(await outgoingB()).toEqual(Amount.ZERO);
    expect(await getOperatorFlag(h.db, flag.id)).toMatchObject({
      resolution: `re-sent as ${id}.b:lp_payout:1`,
      resolvedAt: expect.any(Date),
    });
    const audit = await listAdminActions(h.db, 10);
    expect(audit).toMatchObject([
      {
        actor: 'ops',
        action: 'flags.retry',
        subject: `flag ${flag.id}`,
        details: {
          kind: 'withdrawal_payout_failed',
          commandId: `${id}.b:lp_payout:1`,
          replaces: `${id}.b:lp_payout:0`,
          amount: withdrawal.amountB.toString(),
          receiver: lp.partyId,
        },
      },
    ]);
    await settled();

    const again = await admin('flags', 'retry', String(flag.id));

    expect(again).toEqual({
      out: [],
      errors: [
        `flag ${flag.id} is resolved already (re-sent as ${id}.b:lp_payout:1): nothing was sent`,
      ],
    });
    await h.caughtUp();
    expect(await h.balance(lp, h.usdcx)).toEqual(before.add(withdrawal.amountB));
    expect(await h.transfersWithReason(`withdraw:${id}`)).toBe(2); // side A once, side B once
    const attempts = await commandAttemptsOf(h.db, `${id}.b`, 'lp_payout');
    expect(attempts.map((c) => [c.commandId, c.status])).toEqual([
      [`${id}.b:lp_payout:0`, 'failed'],
      [`${id}.b:lp_payout:1`, 'committed'],
    ]);
    expect(await listAdminActions(h.db, 10)).toHaveLength(1);
  });

  it('sends once when two operators retry the same flag at the same moment', async () => {
    h = await world.harness();
    const { lp, withdrawal, flag } = await flaggedWithdrawal();
    await h.stopEngine();
    const before = await h.balance(lp, h.usdcx);

    const runs = await Promise.all([
      admin('flags', 'retry', String(flag.id)),
      admin('flags', 'retry', String(flag.id)),
    ]);

    expect(runs.map((run) => run.out.length).sort()).toEqual([0, 1]);
    expect(runs.flatMap((run) => run.errors)).toEqual([
      expect.stringMatching(new RegExp(`^flag ${flag.id} is resolved already`)),
    ]);
    await h.startEngine();
    await waitFor(async () => {
      const w = await getWithdrawal(h.db, withdrawal.withdrawalId);
      return w?.payoutB === 'paid' || null;
    }, 'the re-sent payout to arrive');
    expect(await h.balance(lp, h.usdcx)).toEqual(before.add(withdrawal.amountB));
    expect(await commandAttemptsOf(h.db, `${withdrawal.withdrawalId}.b`, 'lp_payout')).toHaveLength(
      2,
    );
    await settled();
  });

  it('flags the attempt given up on should it commit after all: a second payment never goes unnoticed', async () => {
    h = await world.harness();
    const { lp, withdrawal, flag, refusing } = await flaggedWithdrawal();
    const id = withdrawal.withdrawalId;
    refusing.refuses = null;
    await admin('flags', 'retry', String(flag.id));
    await waitFor(async () => {
      const w = await getWithdrawal(h.db, id);
      return w?.payoutB === 'paid' || null;
    }, 'the re-sent payout to arrive');

    // The participant committed the first attempt after all, under its own id.
    await h.ledger.submitTransfer({
      commandId: `${id}.b:lp_payout:0`,
      sender: h.pool(POOL).swapParty,
      receiver: lp.partyId,
      instrument: h.usdcx,
      amount: withdrawal.amountB,
      meta: { [REASON_META_KEY]: `withdraw:${id}` },
    });

    const [late] = await openFlags('late_confirmation');
    expect(late?.details).toMatchObject({ commandId: `${id}.b:lp_payout:0`, leg: 'lp_payout' });
    await h.caughtUp();
    const report = await h.engine?.reconcileNow();
    expect(report?.runs.find((run) => run.poolId === POOL)?.ok).toBe(false);
  });

  it('returns a deposit whose forward failed from the LP party to its sender', async () => {
    h = await world.harness();
    const refusing: FlaggedWithdrawal['refusing'] = {
      refuses: (command) => reasonOf(command).startsWith('forward:'),
    };
    await h.startEngine({ ledger: transferGate(h.ledger, refusing) });
    const lp = await provider('lp-unforwarded');
    const [amuletBefore, usdcxBefore] = [
      await h.balance(lp, h.amulet),
      await h.balance(lp, h.usdcx),
    ];
    const intent = await depositLiquidity(lp);
    await waitFor(async () => {
      const found = await getLiquidityIntent(h.db, intent.liquidityIntentId);
      return found?.status === 'refund_failed' || null;
    }, 'the intent to end refund_failed');
    const flags = await openFlags('liquidity_forward_failed');
    expect(flags).toHaveLength(2);
    refusing.refuses = null;

    for (const flag of flags) {
      const { errors } = await admin('flags', 'retry', String(flag.id));
      expect(errors).toEqual([]);
    }

    await waitFor(async () => {
      const deposits = await depositsOfLiquidityIntent(h.db, intent.liquidityIntentId);
      return deposits.every((d) => d.status === 'returned') || null;
    }, 'both deposits to be back with their sender');
    expect(await h.balance(lp, h.amulet)).toEqual(amuletBefore);
    expect(await h.balance(lp, h.usdcx)).toEqual(usdcxBefore);
    for (const instrument of [h.amulet, h.usdcx]) {
      expect(await h.balance(h.pool(POOL).lpParty, instrument)).toEqual(Amount.ZERO);
    }
    expect(await listOpenOperatorFlags(h.db, 50)).toEqual([]);
    await settled();
  });

  it("sends again an over-supplied side's excess the swap party could not return", async () => {
    h = await world.harness();
    const refusing: FlaggedWithdrawal['refusing'] = {
      refuses: (command) => reasonOf(command).startsWith('return:'),
    };
    await h.startEngine({ ledger: transferGate(h.ledger, refusing) });
    const lp = await provider('lp-over');
    const startB = await h.balance(lp, h.usdcx);
    const intent = await depositLiquidity(lp, 3n);
    const [flag] = await openFlags('liquidity_lp_return_failed');
    const done = await getLiquidityIntent(h.db, intent.liquidityIntentId);
    const returnedB = done?.completion?.returnedB ?? '';
    expect(done?.status).toBe('completed');
    expect(await outgoingB()).toEqual(returnedB);
    refusing.refuses = null;

    const { out, errors } = await admin('flags', 'retry', String(flag?.id));

    expect(errors).toEqual([]);
    expect(out[0]).toContain(
      `recorded ${intent.liquidityIntentId}.b:lp_return:1, ${returnedB} USDCx`,
    );
    await waitFor(
      async () => (await h.transfersWithReason(`return:${intent.liquidityIntentId}`)) === 1 || null,
      'the excess to return',
    );
    await h.caughtUp();
    expect(await outgoingB()).toEqual(Amount.ZERO);
    const joinedB = recordedAmount(done?.completion?.joinedB);
    expect(await h.balance(lp, h.usdcx)).toEqual(startB.sub(joinedB));
    await settled();
  });

  it('refuses a flag with nothing to send again, and one that does not exist', async () => {
    h = await world.harness();
    await h.startEngine();
    const { id } = await raiseOperatorFlag(h.db, {
      intentId: null,
      depositId: null,
      kind: 'reconciliation_mismatch',
      details: { poolId: POOL },
      createdAt: h.clock.now(),
    });

    expect(await admin('flags', 'retry', String(id))).toEqual({
      out: [],
      errors: [
        `flag ${id} (reconciliation_mismatch) names no payout or return of the service's to send again; resolve it with admin flags resolve`,
      ],
    });
    expect((await admin('flags', 'retry', '999999')).errors).toEqual(['no flag 999999']);
    expect(await listAdminActions(h.db, 10)).toEqual([]);
  });
});

describe.skipIf(skipReason !== null)('admin flags retry from two processes on PostgreSQL', () => {
  let postgres: PostgresHarness;
  let stores: readonly Database[] = [];

  beforeEach(async () => {
    postgres = await openPostgresHarness('pp_flags_retry', 2);
    stores = postgres.databases;
    h = postgres.harness;
  }, 30_000);

  afterEach(async () => {
    await postgres?.close();
  });

  it('records one re-send: the second process waits for the pool, then finds the flag resolved', async () => {
    const { lp, withdrawal, flag, refusing } = await flaggedWithdrawal();
    refusing.refuses = null;
    const before = await h.balance(lp, h.usdcx);

    const runs = await Promise.all(
      stores.map((db) => adminOn(db, 'flags', 'retry', String(flag.id))),
    );

    expect(runs.map((run) => run.out.length).sort()).toEqual([0, 1]);
    expect(runs.flatMap((run) => run.errors)).toEqual([
      expect.stringMatching(new RegExp(`^flag ${flag.id} is resolved already`)),
    ]);
    await waitFor(async () => {
      const w = await getWithdrawal(h.db, withdrawal.withdrawalId);
      return w?.payoutB === 'paid' || null;
    }, 'the re-sent payout to arrive');
    expect(await h.balance(lp, h.usdcx)).toEqual(before.add(withdrawal.amountB));
    expect(await listAdminActions(h.db, 10)).toHaveLength(1);
    await settled();
  });
});

describe('admin pools show', () => {
  it("prints the pool's buckets per side as the store holds them, and its latest reconciliation", async () => {
    h = await world.harness();
    const { withdrawal } = await flaggedWithdrawal();
    await settled();
    // No run of its own between the reads below.
    await h.stopEngine();
    const pool = await getPool(h.db, POOL);
    const run = await latestReconciliationRun(h.db, POOL);
    if (pool === null || run === null) throw new Error('no pool or run');
    const a = pool.accounting;
    const total = (...buckets: Amount[]) => Amount.sum(buckets).toString();

    const { out, errors } = await admin('pools', 'show', POOL);

    expect(errors).toEqual([]);
    expect(a.outgoingB).toEqual(withdrawal.amountB);
    expect(out).toEqual([
      `${POOL}\tactive\tfee ${pool.feeBps} bps\tlp supply ${pool.lpSupply}\tswap party ${pool.swapParty}\tlp party ${pool.lpParty}`,
      `side a\tAmulet (${h.amulet.admin})\treserve ${a.reserveA}\tinflight ${a.inflightA}\toutgoing ${a.outgoingA}\tfees ${a.feesA}\ttotal ${total(a.reserveA, a.inflightA, a.outgoingA, a.feesA)}\tlp party holds 0`,
      `side b\tUSDCx (${h.usdcx.admin})\treserve ${a.reserveB}\tinflight ${a.inflightB}\toutgoing ${withdrawal.amountB}\tfees ${a.feesB}\ttotal ${total(a.reserveB, a.inflightB, a.outgoingB, a.feesB)}\tlp party holds 0`,
      `reconciliation\tok\t${run.at.toISOString()}`,
    ]);
    expect((await admin('pools', 'show', 'nope')).errors).toEqual(['no pool nope']);
  });
});
