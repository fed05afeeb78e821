/**
 * Batched settlement ends each swap exactly as if it had settled alone. The same six swaps run
 * twice on fresh ledgers and stores: once executed one per transaction, once all in one batch
 * under one pool lock. In between, earlier swaps move the price (later tight tolerances fail
 * slippage), fill the pool's output velocity (a later swap hits the guard), and one payout is an
 * offer its receiver rejects (the trade is reversed). Both runs must end every swap in the same
 * state with the same amounts, the pool's books must be the same to the last unit, and equal to
 * the swap party's holdings. Backlogs of ledger updates are also ingested in batches, each
 * applied once. The batched run is repeated on PostgreSQL when one answers.
 */
import type { Instrument } from '@poolparty/core';
import { cancelIntent, getPool, listIntentEvents } from '@poolparty/store';
import { postgresSkipReason } from '@poolparty/store/testing';
import { describe, expect, it } from 'vitest';
import type { EngineStep } from '../src/index.js';
import { type EngineHarness, type Party, useEngineWorld, waitFor } from '../testing/engine.js';
import { openPostgresHarness, type PostgresHarness } from '../testing/postgres-harness.js';

const world = useEngineWorld();

interface SwapSpec {
  readonly name: string;
  readonly amount: string;
  readonly slippageTolerance: number;
  /** Without a USDCx pre-approval, the payout is an offer the party rejects. */
  readonly rejectsPayout?: boolean;
  /** Where the engine's execution leaves it. */
  readonly executed: string;
  /** Where it ends. */
  readonly ends: string;
}

const SWAPS: readonly SwapSpec[] = [
  {
    name: 'first',
    amount: '20000',
    slippageTolerance: 0.05,
    executed: 'completed',
    ends: 'completed',
  },
  {
    name: 'tight',
    amount: '1000',
    slippageTolerance: 0.001,
    executed: 'slippage_failed',
    ends: 'slippage_failed',
  },
  {
    name: 'carol',
    amount: '20000',
    slippageTolerance: 0.05,
    rejectsPayout: true,
    executed: 'sending_output',
    ends: 'output_failed',
  },
  { name: 'guarded', amount: '20000', slippageTolerance: 0.5, executed: 'failed', ends: 'failed' },
  {
    name: 'tight-again',
    amount: '1000',
    slippageTolerance: 0.001,
    executed: 'slippage_failed',
    ends: 'slippage_failed',
  },
  {
    name: 'last',
    amount: '1000',
    slippageTolerance: 0.5,
    executed: 'completed',
    ends: 'completed',
  },
];

interface SwapEnd {
  readonly name: string;
  readonly status: string;
  readonly failureCode: string | null;
  readonly actualOutput: string | null;
  readonly refundAmount: string | null;
  readonly refundFee: string | null;
  readonly history: readonly string[];
}

interface RunResult {
  readonly ends: readonly SwapEnd[];
  readonly books: Record<string, string>;
  readonly executionCommits: number;
}

/**
 * Runs the six swaps with `executionBatchMax`: the deposits are first all taken in (by an engine
 * that executes nothing), each at its own ledger second so both runs execute them in the same
 * order; then an engine executes them.
 */
async function settle(
  executionBatchMax: number,
  open: () => Promise<EngineHarness> = () => world.harness(),
): Promise<RunResult> {
  const h = await open();
  // The velocity limit is what a later swap hits; the price band is opened so that the 40 000
  // Amulet of the first two trades (about 8 % from the pool's reference) still both execute.
  await h.db.query(
    `UPDATE pools SET guard = '{"outputVelocityShareMax": 0.05, "reservePriceDeviationMax": 0.5}'
     WHERE pool_id = 'amulet-usdcx'`,
  );
  const { amulet, usdcx } = h;
  const parties: Party[] = [];
  const intents = [];
  for (const spec of SWAPS) {
    const preapprovals: Instrument[] = spec.rejectsPayout ? [amulet] : [amulet, usdcx];
    const party = await h.newParty(spec.name, preapprovals, [[amulet, spec.amount]]);
    parties.push(party);
    intents.push(
      await h.createIntent(party, amulet, spec.amount, {
        slippageTolerance: spec.slippageTolerance,
      }),
    );
  }
  await h.startEngine({ settings: { executionBatchMax: 0 } });
  for (const [i, intent] of intents.entries()) {
    await h.deposit(parties[i] as Party, amulet, intent.expectedAmount.toString(), {
      reference: intent.depositReference,
    });
    await h.waitForStatus(intent.intentId, 'deposit_received');
    await h.advanceClock(1000);
  }
  await h.stopEngine();

  let executionCommits = 0;
  const count = (step: EngineStep) => {
    if (step === 'execution_committed') executionCommits += 1;
  };
  await h.startEngine({ settings: { executionBatchMax }, faults: { crashAt: count } });
  for (const [i, spec] of SWAPS.entries()) {
    await h.waitForStatus(intents[i]?.intentId ?? '', spec.executed as never);
  }
  const carolIndex = SWAPS.findIndex((spec) => spec.rejectsPayout);
  const carol = parties[carolIndex] as Party;
  const offer = await waitFor(async () => {
    const offers = await h.ledger.getPendingOffers(carol.partyId);
    return offers.find((o) => o.receiver === carol.partyId) ?? null;
  }, 'the payout offer');
  await h.ledger.rejectOffer({
    commandId: `${carol.partyId}-rejects`,
    offerId: offer.offerId,
    actor: carol.partyId,
  });
  const ends: SwapEnd[] = [];
  for (const [i, spec] of SWAPS.entries()) {
    const intentId = intents[i]?.intentId ?? '';
    const ended = await h.waitForStatus(intentId, spec.ends as never);
    const history = (await listIntentEvents(h.db, intentId)).map(
      (event) => event.legEvent ?? event.status,
    );
    ends.push({
      name: spec.name,
      status: ended.status,
      failureCode: ended.failureReason?.code ?? null,
      actualOutput: ended.actualOutput?.toString() ?? null,
      refundAmount: ended.refund?.amount.toString() ?? null,
      refundFee: ended.refund?.networkFeeAmount.toString() ?? null,
      history,
    });
  }
  await h.caughtUp();
  await h.booksMatchLedger();
  const pool = await getPool(h.db, 'amulet-usdcx');
  const { version: _version, updatedAt: _updatedAt, ...books } = pool?.accounting ?? {};
  // The next run's harness takes over the shared connection's schema: this engine must be gone.
  await h.stopEngine();
  return { ends, books: books as Record<string, string>, executionCommits };
}

describe('batched execution', () => {
  it('ends every swap of a batch as if it had settled alone, books equal to holdings', async () => {
    const alone = await settle(1);
    const batched = await settle(50);
    // The reference really executed one swap per transaction, the batch all six in one.
    expect(alone.executionCommits).toBe(SWAPS.length);
    expect(batched.executionCommits).toBe(1);
    expect(batched.ends.map((end) => end.status)).toEqual(SWAPS.map((spec) => spec.ends));
    expect(batched.ends.find((end) => end.name === 'guarded')?.failureCode).toBe(
      'output_velocity_exceeded',
    );
    expect(batched.ends).toEqual(alone.ends);
    expect(batched.books).toEqual(alone.books);
  });
});

const skipReason = await postgresSkipReason('batched execution on PostgreSQL');

describe.skipIf(skipReason !== null)('batched execution on PostgreSQL', () => {
  it('ends every swap of a batch as if it had settled alone there too', async () => {
    const opened: PostgresHarness[] = [];
    const open = async () => {
      const postgres = await openPostgresHarness('pp_batches');
      opened.push(postgres);
      return postgres.harness;
    };
    try {
      const alone = await settle(1, open);
      const batched = await settle(50, open);
      expect(batched.executionCommits).toBe(1);
      expect(batched.ends.map((end) => end.status)).toEqual(SWAPS.map((spec) => spec.ends));
      expect(batched.ends).toEqual(alone.ends);
      expect(batched.books).toEqual(alone.books);
    } finally {
      for (const postgres of opened) await postgres.close();
    }
  }, 60_000);
});

describe('batched ingest', () => {
  it('takes a backlog of deposits in, each attributed and settled once', async () => {
    const h: EngineHarness = await world.harness();
    const { amulet, usdcx } = h;
    const intents = [];
    const parties: Party[] = [];
    for (let i = 0; i < 12; i++) {
      const party = await h.newParty(`backlog-${i}`, [amulet, usdcx], [[amulet, '100']]);
      parties.push(party);
      intents.push(await h.createIntent(party, amulet, '100'));
    }
    // The engine is not running: the deposits wait on the ledger as a backlog.
    for (const [i, intent] of intents.entries()) {
      await h.deposit(parties[i] as Party, amulet, '100', { reference: intent.depositReference });
    }
    let ingestCommits = 0;
    await h.startEngine({
      faults: {
        crashAt: (step) => {
          if (step === 'update_ingested') ingestCommits += 1;
        },
      },
    });
    for (const intent of intents) {
      const done = await h.waitForStatus(intent.intentId, 'completed');
      expect(done.actualOutput).not.toBeNull();
      expect(await h.transfersWithReason(`payout:${intent.intentId}`)).toBe(1);
    }
    await h.caughtUp();
    // Twelve deposits and twelve payouts, fewer commits than updates.
    expect(ingestCommits).toBeLessThan(24);
    const deposits = await h.db.query('SELECT deposit_id FROM deposits');
    expect(deposits).toHaveLength(12);
    await h.booksMatchLedger();
  });

  it('returns what no intent takes from a backlog, and settles the rest once', async () => {
    const h: EngineHarness = await world.harness();
    const { amulet, usdcx } = h;
    const intents = [];
    const parties: Party[] = [];
    for (let i = 0; i < 6; i++) {
      const party = await h.newParty(`mixed-${i}`, [amulet, usdcx], [[amulet, '200']]);
      parties.push(party);
      intents.push(await h.createIntent(party, amulet, '100'));
    }
    const [cancelled, twice] = [intents[1], intents[3]];
    if (cancelled === undefined || twice === undefined) throw new Error('no intents');
    // Cancelled before its deposit is taken in: the deposit finds no pending intent.
    await cancelIntent(h.db, {
      intentId: cancelled.intentId,
      walletParty: cancelled.walletParty,
      now: h.clock.now(),
    });
    for (const [i, intent] of intents.entries()) {
      await h.deposit(parties[i] as Party, amulet, '100', { reference: intent.depositReference });
    }
    // The same wallet sends its deposit a second time: only the first is the intent's.
    await h.deposit(parties[3] as Party, amulet, '100', { reference: twice.depositReference });
    await h.startEngine();
    for (const intent of intents) {
      if (intent === cancelled) continue;
      await h.waitForStatus(intent.intentId, 'completed');
      expect(await h.transfersWithReason(`payout:${intent.intentId}`)).toBe(1);
    }
    const returned = await waitFor(async () => {
      const rows = await h.db.query<{ deposit_id: string; sender: string }>(
        `SELECT deposit_id, sender FROM deposits WHERE status = 'returned' ORDER BY sender`,
      );
      return rows.length === 2 ? rows : null;
    }, 'both unmatched deposits returned');
    expect(returned.map((row) => row.sender).sort()).toEqual(
      [cancelled.walletParty, twice.walletParty].sort(),
    );
    for (const row of returned) {
      expect(await h.transfersWithReason(`refund:${row.deposit_id}`)).toBe(1);
    }
    expect((await h.intent(cancelled.intentId)).status).toBe('cancelled');
    const attributed = await h.db.query(`SELECT 1 FROM deposits WHERE status = 'attributed'`);
    expect(attributed).toHaveLength(5);
    await h.caughtUp();
    await h.booksMatchLedger();
  });
});
