/**
 * A worker killed mid-settlement: `poolparty serve` with `POOLPARTY_ROLE=worker` on PostgreSQL is
 * SIGKILLed while swaps are settling, and a fresh worker on the same store finishes them: every
 * swap ends once and is paid once.
 *
 * The workers reach the seeded devnet ledger over the network (`LEDGER=canton` against the devnet
 * ledger server this test serves), as they would a participant. The swaps are set up before the
 * first worker starts, so that it finds them all in flight; the final balances are read from the
 * served ledger.
 */
import { waitFor } from '@poolparty/settlement/testing';
import { postgresSkipReason } from '@poolparty/store/testing';
import { describe, expect, it } from 'vitest';
import {
  depositedSwaps,
  expectEachPaidOnce,
  settlementProgress,
} from './support/worker-process.js';
import { openWorkerWorld, useWorkerWorlds } from './support/worker-world.js';

const SETTLE_WAIT_MS = 30_000;
const SWAPS = 40;
const POOL_ID = 'amulet-usdcx';

const skipReason = await postgresSkipReason('worker-kill suite');

describe.skipIf(skipReason !== null)('a worker killed mid-settlement', () => {
  const { opened, start } = useWorkerWorlds();

  it('is replaced by a fresh worker that settles every swap once, paid once', async () => {
    const world = opened(await openWorkerWorld('kill'));
    const { db, devnet } = world;
    const swaps = await depositedSwaps(db, devnet, POOL_ID, SWAPS, '60');

    // A worker answers probes only, and settles.
    const victim = start(world);
    const victimUrl = await victim.url;
    expect((await fetch(`${victimUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${victimUrl}/v1/pools`)).status).toBe(404);
    const atKill = await waitFor(
      async () => {
        const seen = await settlementProgress(db);
        return seen.done >= 1 && seen.done < seen.total ? seen : null;
      },
      'settlement to be under way',
      SETTLE_WAIT_MS,
    ).finally(() => victim.child.kill('SIGKILL'));
    expect(await victim.exited).toBeNull();
    expect(atKill.done).toBeLessThan(SWAPS);

    const successor = start(world);
    await successor.url;
    await waitFor(
      async () => (await settlementProgress(db)).done === SWAPS,
      'the successor to settle every swap',
      SETTLE_WAIT_MS,
    );
    successor.child.kill('SIGTERM');
    expect(await successor.exited).toBe(0);
    await expectEachPaidOnce(db, devnet, POOL_ID, swaps);
  }, 90_000);
});
