/**
 * Treasury sweeps in a running devnet service: the devnet seed allocates the treasury party and
 * the service sweeps to it; the worker's schedule sweeps a side whose fees are above its
 * threshold when it starts, and `/metrics` reports the sweeps.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Amount } from '@poolparty/core';
import { balanceOf, booksAndHoldings, waitFor } from '@poolparty/settlement/testing';
import { listSweeps } from '@poolparty/store';
import { afterAll, describe, expect, it } from 'vitest';
import { readSettings } from '../src/config.js';
import { type RunningService, startService } from '../src/service.js';

const POOL_ID = 'amulet-usdcx';
const dataDir = mkdtempSync(join(tmpdir(), 'poolparty-treasury-'));

async function start(): Promise<RunningService> {
  const result = readSettings({
    PORT: '0',
    LOG_LEVEL: 'silent',
    POOLPARTY_DATA_DIR: dataDir,
    POOLPARTY_TREASURY_SWEEP_THRESHOLDS: 'Amulet=10,*=1000000',
    POOLPARTY_TREASURY_NETWORK_RESERVE: '*=0',
  });
  if (!result.ok) throw new Error(result.errors.join('\n'));
  return startService(result.settings);
}

describe('treasury sweeps on devnet', () => {
  let service: RunningService | null = null;
  afterAll(async () => {
    await service?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('sweeps fees above the threshold to the seeded treasury when the worker starts', async () => {
    service = await start();
    const treasury = service.devnet?.treasury?.partyId ?? '';
    expect(treasury).toMatch(/^treasury::1220[0-9a-f]{64}$/);
    const seedFile = JSON.parse(readFileSync(join(dataDir, 'devnet.json'), 'utf8'));
    expect(seedFile.treasury).toEqual({ partyId: treasury });

    // Fees as swaps would leave them: held by the swap party, in the side's fees bucket.
    const fees = Amount.parse('15');
    const { db, devnetLedger } = service.ctx;
    const pool = service.devnet?.pools.find((p) => p.poolId === POOL_ID);
    if (devnetLedger === null || pool === undefined) throw new Error('no devnet');
    await devnetLedger.mint({ owner: pool.swapParty, instrument: pool.tokenA, amount: fees });
    await db.query('UPDATE pool_accounting SET fees_a = fees_a + $2 WHERE pool_id = $1', [
      POOL_ID,
      fees.toString(),
    ]);
    await service.close();

    service = await start();
    const running = service;
    const [sweep] = await waitFor(
      async () => {
        const sweeps = await listSweeps(running.ctx.db, { poolId: null, limit: 10 });
        return sweeps.length > 0 && sweeps.every((s) => s.status === 'swept') ? sweeps : null;
      },
      'the automatic sweep to arrive',
      30_000,
    );
    expect(sweep).toMatchObject({
      poolId: POOL_ID,
      side: 'a',
      amount: Amount.parse('15'),
      trigger: 'automatic',
      treasuryParty: treasury,
    });
    const ledger = running.ctx.ledger;
    expect(await balanceOf(ledger, treasury, pool.tokenA)).toEqual(fees);
    await waitFor(async () => {
      const { books, holdings } = await booksAndHoldings(running.ctx.db, ledger, POOL_ID);
      return books.a === holdings.a && books.b === holdings.b;
    }, 'the books to match the holdings');

    const metrics = await (await fetch(`${running.url}/metrics`)).text();
    expect(metrics).toContain(`poolparty_treasury_swept_amount{pool="${POOL_ID}",side="a"} 15`);
    expect(metrics).toContain('poolparty_treasury_sweeps{outcome="swept"} 1');
  }, 120_000);
});
