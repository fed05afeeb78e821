/**
 * `poolparty admin treasury`: an operator sweeps a pool's platform fees to the treasury now
 * (recorded in the store, audited, submitted and confirmed by the engine) and lists what each
 * side could sweep and the sweeps so far; a command without a treasury party, or naming no
 * pool, is refused with a line saying why. The treasury's figures on `/metrics` follow.
 */
import { Amount } from '@poolparty/core';
import {
  completedSwap,
  type EngineHarness,
  useEngineWorld,
  waitFor,
} from '@poolparty/settlement/testing';
import { getSweep, listAdminActions, listSweeps } from '@poolparty/store';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { registerTreasuryMetrics } from '../src/treasury/metrics.js';
import { runAdmin } from './support/admin.js';

const world = useEngineWorld();
const POOL = 'amulet-usdcx';

/** Runs `poolparty admin …` against the harness's store; returns what it printed. */
function admin(h: EngineHarness, treasuryParty: string | null, ...args: string[]) {
  return runAdmin(
    h.db,
    {
      treasury: () => ({ treasuryParty, networkReserve: { Amulet: Amount.parse('1') } }),
      now: () => h.clock.now(),
      actor: () => 'ops',
    },
    args,
  );
}

/** A completed swap of 1000 Amulet: its platform and network fees sit in the pool's fees. */
async function withFees(h: EngineHarness): Promise<void> {
  await h.startEngine();
  await h.caughtUp();
  await completedSwap(h);
}

async function metricLines(h: EngineHarness): Promise<string[]> {
  const registry = new Registry();
  registerTreasuryMetrics(registry, { db: h.db, networkReserve: { Amulet: Amount.parse('1') } });
  return (await registry.metrics()).split('\n').filter((line) => line.startsWith('poolparty_'));
}

describe('admin treasury', () => {
  it('sweeps a pool now, audited, and the engine delivers it to the treasury', async () => {
    const h = await world.harness();
    await withFees(h);
    const treasury = await h.newParty('treasury', [h.amulet, h.usdcx]);

    const listed = await admin(h, treasury.partyId, 'treasury', 'list', '--pool', POOL);
    expect(listed.errors).toEqual([]);
    const sweepableLine = listed.out.find((line) => line.startsWith(`${POOL}\ta\t`)) ?? '';
    const sweepable = Amount.parse(/sweepable (\S+)/.exec(sweepableLine)?.[1] ?? '');
    expect(sweepable.isPositive()).toBe(true);
    expect(listed.out).toContain('no sweeps');

    const swept = await admin(h, treasury.partyId, 'treasury', 'sweep', '--pool', POOL);
    expect(swept.errors).toEqual([]);
    expect(swept.out).toEqual([
      expect.stringMatching(
        new RegExp(`^${POOL}\\ta\\trecorded swe_\\S+: ${sweepable} Amulet to ${treasury.partyId}$`),
      ),
      `${POOL}\tb\tnothing to sweep`,
    ]);
    const [sweep] = await listSweeps(h.db, { poolId: POOL, limit: 10 });
    expect(sweep?.trigger).toBe('operator');
    const audit = await listAdminActions(h.db, 10);
    expect(audit.map((a) => [a.actor, a.action, a.subject, a.details])).toEqual([
      [
        'ops',
        'treasury.sweep',
        POOL,
        {
          sweepId: sweep?.sweepId,
          side: 'a',
          amount: sweepable.toString(),
          treasuryParty: treasury.partyId,
        },
      ],
    ]);

    await waitFor(
      async () => (await getSweep(h.db, sweep?.sweepId ?? ''))?.status === 'swept',
      'the sweep to arrive',
    );
    expect(await h.balance(treasury, h.amulet)).toEqual(sweepable);
    await h.caughtUp();
    await h.booksMatchLedger();

    const after = await admin(h, treasury.partyId, 'treasury', 'list');
    expect(after.out).toContain(`${POOL}\ta\tsweepable 0 Amulet`);
    expect(after.out.some((line) => line.startsWith(`${sweep?.sweepId}\t${POOL}\ta\t`))).toBe(true);
    expect(after.out.find((line) => line.startsWith(sweep?.sweepId ?? '-'))).toMatch(
      /\tswept\toperator\t/,
    );

    // A second sweep finds nothing, and records and audits nothing.
    const again = await admin(h, treasury.partyId, 'treasury', 'sweep', '--pool', POOL);
    expect(again.out).toEqual([`${POOL}\ta\tnothing to sweep`, `${POOL}\tb\tnothing to sweep`]);
    expect(await listAdminActions(h.db, 10)).toHaveLength(1);

    const metrics = await metricLines(h);
    expect(metrics).toContain(
      `poolparty_treasury_swept_amount{pool="${POOL}",side="a"} ${sweepable}`,
    );
    expect(metrics).toContain('poolparty_treasury_sweeps{outcome="swept"} 1');
    expect(metrics).toContain('poolparty_treasury_sweeps{outcome="returned"} 0');
    expect(metrics).toContain(`poolparty_treasury_sweepable_amount{pool="${POOL}",side="a"} 0`);
  });

  it('refuses without a treasury party, and a pool that does not exist', async () => {
    const h = await world.harness();
    const none = await admin(h, null, 'treasury', 'sweep');
    expect(none.errors).toEqual([
      'no treasury party: set POOLPARTY_TREASURY_PARTY (or --treasury-party) to the party sweeps go to',
    ]);
    const treasury = await h.newParty('treasury', [h.amulet]);
    const missing = await admin(h, treasury.partyId, 'treasury', 'sweep', '--pool', 'no-such-pool');
    expect(missing.errors).toEqual(['no pool no-such-pool']);
    const bad = await admin(h, treasury.partyId, 'treasury', 'list', '--limit', '0');
    expect(bad.errors).toEqual(['--limit must be a whole number from 1 to 1000 (got "0")']);
    expect(await listSweeps(h.db, { poolId: null, limit: 10 })).toEqual([]);
    expect(await listAdminActions(h.db, 10)).toEqual([]);
  });

  it('reports what is sweepable before any sweep', async () => {
    const h = await world.harness();
    await withFees(h);
    const metrics = await metricLines(h);
    const line = metrics.find((l) =>
      l.startsWith(`poolparty_treasury_sweepable_amount{pool="${POOL}",side="a"}`),
    );
    expect(Number(line?.split(' ')[1])).toBeGreaterThan(0);
    expect(metrics).toContain('poolparty_treasury_sweeps{outcome="swept"} 0');
  });
});
