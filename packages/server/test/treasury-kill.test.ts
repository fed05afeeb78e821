/**
 * A worker killed mid-sweep: `poolparty serve` with `POOLPARTY_ROLE=worker` on PostgreSQL is
 * SIGKILLed after a treasury sweep was recorded — once before the ledger took its transfer, once
 * after the transfer committed but before the update stream confirmed it — and a fresh worker on
 * the same store finishes it: the fees reach the treasury in exactly one transfer, and the books
 * equal the swap party's holdings.
 *
 * The workers reach the seeded devnet ledger over the network (`LEDGER=canton`), as they would a
 * participant; the test holds the ledger's controls, so it decides where the first worker stalls.
 */
import { Amount } from '@poolparty/core';
import type { LedgerFaults } from '@poolparty/ledger';
import { sweepPoolNow } from '@poolparty/settlement';
import {
  allUpdates,
  balanceOf,
  booksAndHoldings,
  transfersByReason,
  waitFor,
} from '@poolparty/settlement/testing';
import { getCommand, getSweep, listSweeps } from '@poolparty/store';
import { postgresSkipReason } from '@poolparty/store/testing';
import { describe, expect, it } from 'vitest';
import type { WorkerProcess } from './support/worker-process.js';
import { openWorkerWorld, useWorkerWorlds, type WorkerWorld } from './support/worker-world.js';

const POOL_ID = 'amulet-usdcx';
const FEES = Amount.parse('100');
const WAIT_MS = 60_000;

const skipReason = await postgresSkipReason('treasury-kill suite');

interface World extends WorkerWorld {
  readonly treasury: string;
}

/**
 * The seeded ledger and a store with its pools, and `FEES` of Amulet set aside in the pool's
 * `fees` books, held by its swap party: what swaps would have left there.
 */
async function setUp(): Promise<World> {
  const world = await openWorkerWorld('treasury-kill');
  const { db, devnet } = world;
  const pool = devnet.seed.pools.find((p) => p.poolId === POOL_ID);
  if (!pool) throw new Error(`no ${POOL_ID} in the seed`);
  await devnet.ledger.mint({ owner: pool.swapParty, instrument: pool.tokenA, amount: FEES });
  await db.query('UPDATE pool_accounting SET fees_a = fees_a + $2 WHERE pool_id = $1', [
    POOL_ID,
    FEES.toString(),
  ]);
  const { partyId: treasury } = await devnet.ledger.createParty({
    hint: 'treasury',
    preapprovals: 'all',
  });
  return { ...world, treasury };
}

describe.skipIf(skipReason !== null)('a worker killed mid-sweep', () => {
  const { opened, start: startIn } = useWorkerWorlds<World>();

  /**
   * Records a sweep, starts a worker with the ledger stalling it as `faults` say, kills it once
   * `stalled` holds, then lets a fresh worker finish; checks the sweep arrived once.
   */
  async function killedMidSweep(
    faults: LedgerFaults,
    stalled: (w: World, commandId: string) => Promise<boolean>,
    successorHasTreasury = true,
  ): Promise<WorkerProcess> {
    const w = opened(await setUp());
    const target = { treasuryParty: w.treasury, networkReserve: {} };
    const sides = await sweepPoolNow(w.db, {
      poolId: POOL_ID,
      target,
      now: await w.devnet.ledger.now(),
    });
    const sweep = sides.flatMap((side) => (side.kind === 'recorded' ? [side.sweep] : []))[0];
    if (sweep === undefined) throw new Error('nothing was swept');
    expect(sweep.amount).toEqual(FEES);
    const start = (withTreasury = true) =>
      startIn(w, withTreasury ? { POOLPARTY_TREASURY_PARTY: w.treasury } : {});

    w.devnet.ledger.setFaults(faults);
    const victim = start();
    await victim.url;
    await waitFor(() => stalled(w, sweep.commandId), 'the sweep to stall', WAIT_MS).finally(() =>
      victim.child.kill('SIGKILL'),
    );
    expect(await victim.exited).toBeNull();
    expect((await getSweep(w.db, sweep.sweepId))?.status).toBe('pending');
    w.devnet.ledger.setFaults({});

    const successor = start(successorHasTreasury);
    await successor.url;
    await waitFor(
      async () => (await getSweep(w.db, sweep.sweepId))?.status === 'swept',
      'the successor to finish the sweep',
      WAIT_MS,
    );
    successor.child.kill('SIGTERM');
    expect(await successor.exited).toBe(0);

    const byReason = transfersByReason(await allUpdates(w.devnet.ledger));
    expect(byReason.get(`sweep:${sweep.sweepId}`)).toBe(1);
    const amulet = w.devnet.seed.instruments.amulet;
    expect(await balanceOf(w.devnet.ledger, w.treasury, amulet)).toEqual(FEES);
    // The workers' own schedule found nothing more to sweep.
    expect(await listSweeps(w.db, { poolId: null, limit: 10 })).toHaveLength(1);
    const { books, holdings } = await booksAndHoldings(w.db, w.devnet.ledger, POOL_ID);
    expect(holdings).toEqual(books);
    return successor;
  }

  it('recorded, refused by the ledger, killed: the successor sends it once', async () => {
    // The successor has no treasury party: it sweeps nothing itself, says so once, and still
    // settles the sweep recorded before.
    const successor = await killedMidSweep(
      { rejectRate: 1 },
      async (w, commandId) => {
        const command = await getCommand(w.db, commandId);
        return command !== null && command.status === 'recorded' && command.submissions >= 1;
      },
      false,
    );
    const said = successor.output().match(/treasury sweeps are off: POOLPARTY_TREASURY_PARTY/g);
    expect(said).toHaveLength(1);
  }, 150_000);

  it('committed on the ledger, unconfirmed, killed: the successor confirms it, sent once', async () => {
    await killedMidSweep({ dropStreamRate: 1 }, async (w, commandId) => {
      const command = await getCommand(w.db, commandId);
      const committed = (await w.devnet.ledger.lookupCommand(commandId)) !== null;
      return command?.status === 'submitted' && committed;
    });
  }, 150_000);
});
