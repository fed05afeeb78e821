/**
 * Reconciliation (docs/spec/lifecycle.md#reconciliation): the swap party's holdings against the
 * books, compared at the ingest checkpoint so that work in flight is never a mismatch; a real
 * mismatch blocks the pool through `incomplete_completed_accounting` (quotes and the pre-payout
 * guard) until an operator resolves it.
 */
import { Amount } from '@poolparty/core';
import type { EngineContext } from '@poolparty/settlement';
import {
  DEFAULT_ENGINE_SETTINGS,
  judgePool,
  RECONCILIATION_MISMATCH,
  reconcile,
  type SideComparison,
} from '@poolparty/settlement';
import {
  type EngineHarness,
  type Party,
  useEngineWorld,
  waitFor,
} from '@poolparty/settlement/testing';
import {
  countIncompleteCompletedSwapsByPool,
  listOpenOperatorFlags,
  type ReconciliationRun,
  resolveOperatorFlag,
} from '@poolparty/store';
import { afterEach, describe, expect, it } from 'vitest';
import { createLiveQuoter } from '../src/market/live-quoter.js';
import type { Quoter } from '../src/market/quoter.js';

const world = useEngineWorld();
let h: EngineHarness;
let quoter: Quoter | null = null;

// Registered after the world's hook, so it runs first: the quoter closes before the harness.
afterEach(async () => {
  await quoter?.close();
  quoter = null;
});

/** What a reconciliation sees, without an engine: the store, the ledger, the checkpoint. */
function contextOf(harness: EngineHarness): EngineContext {
  return {
    db: harness.db,
    ledger: harness.ledger,
    clock: harness.clock,
    quoter: { invalidate: () => {} },
    log: { warn: () => {}, error: () => {} },
    settings: DEFAULT_ENGINE_SETTINGS,
    step: () => {},
  };
}

interface RunDetails {
  readonly checkpoint: number;
  readonly ledgerEnd: number;
  readonly sides: readonly {
    readonly party: string;
    readonly side: string;
    readonly difference: string;
  }[];
  readonly incompleteSwaps: { readonly count: number; readonly intentIds: readonly string[] };
}

function runOf(runs: readonly ReconciliationRun[], poolId = 'amulet-usdcx') {
  const run = runs.find((r) => r.poolId === poolId);
  if (!run) throw new Error(`no run for ${poolId}`);
  return { ok: run.ok, details: run.details as RunDetails };
}

async function swap(harness: EngineHarness, party: Party, amount = '100'): Promise<string> {
  const intent = await harness.createIntent(party, harness.amulet, amount);
  await harness.deposit(party, harness.amulet, amount, { reference: intent.depositReference });
  await harness.waitForStatus(intent.intentId, 'completed');
  return intent.intentId;
}

async function leadingEngine(harness: EngineHarness) {
  const engine = await harness.startEngine();
  await waitFor(async () => engine.leading, 'the engine to lead the stream');
  return engine;
}

async function mismatchFlags() {
  return (await listOpenOperatorFlags(h.db, 100)).filter((f) => f.kind === RECONCILIATION_MISMATCH);
}

async function amuletQuoteSafety(live: Quoter) {
  const { amulet, usdcx } = h;
  const priced = await live.quote(
    {
      from: amulet.id,
      fromAdmin: amulet.admin,
      to: usdcx.id,
      toAdmin: usdcx.admin,
      amount: '100',
      poolId: 'amulet-usdcx',
    },
    { apiKeyId: null, walletParty: null },
  );
  return priced.settlementSafety?.code ?? null;
}

describe('a reconciliation run', () => {
  it('passes every pool once the books and the holdings agree', async () => {
    h = await world.harness();
    const engine = await leadingEngine(h);
    await swap(h, h.alice);
    await h.caughtUp();

    const report = await engine.reconcileNow();

    expect(report.deferred).toEqual([]);
    expect(report.runs.map((r) => [r.poolId, r.ok]).sort()).toEqual([
      ['amulet-cbtc', true],
      ['amulet-usdcx', true],
      ['amulet-usdcx-bridge', true],
    ]);
    const { details } = runOf(report.runs);
    // Both sides of the swap party, then both of the LP party (deposits in passage).
    expect(details.sides.map((s) => s.difference)).toEqual(['0', '0', '0', '0']);
    expect(details.incompleteSwaps.count).toBe(0);
  });

  it('passes a completed swap whose payout was an offer the receiver accepted', async () => {
    h = await world.harness();
    const engine = await leadingEngine(h);
    const carol = await h.newParty('carol', [], [[h.amulet, '1000']]);
    const intent = await h.createIntent(carol, h.amulet, '100');
    await h.deposit(carol, h.amulet, '100', { reference: intent.depositReference });
    const offer = await waitFor(
      async () => (await h.ledger.getPendingOffers(carol.partyId))[0] ?? null,
      'the payout offer to carol',
    );
    await h.ledger.acceptOffer({
      commandId: 'carol-accepts',
      offerId: offer.offerId,
      actor: carol.partyId,
    });
    await h.waitForStatus(intent.intentId, 'completed');
    await h.caughtUp();

    const { ok, details } = runOf((await engine.reconcileNow()).runs);

    expect(details.incompleteSwaps).toEqual({ count: 0, intentIds: [] });
    expect(ok).toBe(true);
    expect(await mismatchFlags()).toEqual([]);
  });

  it('finds no mismatch in work in flight: a payout recorded but unsent, a deposit not ingested', async () => {
    h = await world.harness();
    await h.startEngine({
      faults: {
        crashAt: (step) => {
          if (step === 'command_recorded') throw new Error('crash');
        },
      },
    });
    const first = await h.createIntent(h.alice, h.amulet, '100');
    await h.deposit(h.alice, h.amulet, '100', { reference: first.depositReference });
    await waitFor(async () => h.engine?.crashed, 'the engine to crash before the payout');
    await h.stopEngine();
    const second = await h.createIntent(h.bob, h.amulet, '80');
    await h.deposit(h.bob, h.amulet, '80', { reference: second.depositReference });

    const inFlight = runOf((await reconcile(contextOf(h))).runs);

    expect(inFlight.ok).toBe(true);
    expect(inFlight.details.ledgerEnd).toBeGreaterThan(inFlight.details.checkpoint);
    expect((await h.intent(first.intentId)).status).toBe('sending_output');
    await h.startEngine();
    await h.waitForStatus(first.intentId, 'completed');
    await h.waitForStatus(second.intentId, 'completed');
    await h.caughtUp();
    expect(runOf((await reconcile(contextOf(h))).runs).ok).toBe(true);
    await h.booksMatchLedger();
  });

  it('fails for a completed swap whose accounting is incomplete', async () => {
    h = await world.harness();
    const engine = await leadingEngine(h);
    const intentId = await swap(h, h.alice);
    await h.caughtUp();
    await h.db.query('DELETE FROM fee_events WHERE intent_id = $1', [intentId]);

    const { ok, details } = runOf((await engine.reconcileNow()).runs);

    expect(ok).toBe(false);
    expect(details.incompleteSwaps).toEqual({ count: 1, intentIds: [intentId] });
    // Both sides of the swap party, then both of the LP party (deposits in passage).
    expect(details.sides.map((s) => s.difference)).toEqual(['0', '0', '0', '0']);
  });
});

describe('a transfer the service did not make', () => {
  it('is judged once the checkpoint passes it, and blocks the pool until an operator resolves it', async () => {
    h = await world.harness();
    const engine = await leadingEngine(h);
    await swap(h, h.alice);
    await h.stopEngine();
    const pool = h.pool();
    await h.ledger.submitTransfer({
      commandId: 'stray-transfer',
      sender: pool.swapParty,
      receiver: h.bob.partyId,
      instrument: h.usdcx,
      amount: Amount.parse('5'),
    });

    // Not ingested yet: at the checkpoint the books were right, and they are judged there.
    const before = runOf((await reconcile(contextOf(h))).runs);
    expect(before.ok).toBe(true);
    expect(before.details.ledgerEnd).toBeGreaterThan(before.details.checkpoint);
    expect(engine.leading).toBe(false);

    const restarted = await leadingEngine(h);
    await h.caughtUp();
    const found = runOf((await restarted.reconcileNow()).runs);
    expect(found.ok).toBe(false);
    expect(found.details.sides.map((s) => [s.party, s.side, s.difference])).toEqual([
      ['swap', 'a', '0'],
      ['swap', 'b', '-5'],
      ['lp', 'a', '0'],
      ['lp', 'b', '0'],
    ]);
    const [flag] = await mismatchFlags();
    expect(flag?.details).toMatchObject({ poolId: 'amulet-usdcx' });

    // Blocked: in quotes, and before the payout of a swap already under way.
    quoter = await createLiveQuoter({
      db: h.db,
      ledger: h.ledger,
      clock: h.clock,
      countIncompleteCompletedSwaps: countIncompleteCompletedSwapsByPool,
    });
    expect(await amuletQuoteSafety(quoter)).toBe('incomplete_completed_accounting');
    const blocked = await h.createIntent(h.alice, h.amulet, '100');
    await h.deposit(h.alice, h.amulet, '100', { reference: blocked.depositReference });
    const failed = await h.waitForStatus(blocked.intentId, 'failed');
    expect(failed.failureReason?.code).toBe('incomplete_completed_accounting');

    // The books agree again, but the flag is open: still blocked until an operator resolves it.
    await h.ledger.mint({ owner: pool.swapParty, instrument: h.usdcx, amount: Amount.parse('5') });
    await h.caughtUp();
    const agreeing = runOf((await restarted.reconcileNow()).runs);
    expect(agreeing.ok).toBe(false);
    expect(agreeing.details.sides.map((s) => s.difference)).toEqual(['0', '0', '0', '0']);
    expect(await mismatchFlags()).toHaveLength(1);

    await resolveOperatorFlag(h.db, {
      id: flag?.id ?? -1,
      resolution: 'topped up',
      now: h.clock.now(),
    });
    expect(runOf((await restarted.reconcileNow()).runs).ok).toBe(true);
    quoter.invalidate('amulet-usdcx');
    expect(await amuletQuoteSafety(quoter)).toBeNull();
    await swap(h, h.bob);
  });
});

describe('judgePool', () => {
  const side = (holdings: bigint, books: bigint): SideComparison => ({
    side: 'a',
    instrument: { id: 'Amulet', admin: 'DSO' },
    holdings,
    books,
  });

  it.each([
    { sides: [side(5n, 5n)], incompleteSwaps: 0, openFlag: false, ok: true, raiseFlag: false },
    { sides: [side(5n, 4n)], incompleteSwaps: 0, openFlag: false, ok: false, raiseFlag: true },
    { sides: [side(4n, 5n)], incompleteSwaps: 0, openFlag: true, ok: false, raiseFlag: false },
    { sides: [side(5n, 5n)], incompleteSwaps: 1, openFlag: false, ok: false, raiseFlag: true },
    { sides: [side(5n, 5n)], incompleteSwaps: 0, openFlag: true, ok: false, raiseFlag: false },
  ])(
    'holdings/books $sides.0.holdings/$sides.0.books, incomplete $incompleteSwaps, open flag $openFlag → ok $ok',
    (row) => {
      expect(judgePool(row)).toEqual({ ok: row.ok, raiseFlag: row.raiseFlag });
    },
  );
});
