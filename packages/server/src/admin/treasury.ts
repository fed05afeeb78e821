/**
 * `poolparty admin treasury` (docs/spec/treasury.md#operator-commands): an operator sweeps the
 * platform's fees of one pool, or of every pool, to the treasury now, whatever the schedule and
 * thresholds say, and lists what each side could sweep and the sweeps so far.
 *
 * The store records; only a worker talks to the ledger: a recorded sweep is submitted by a
 * running worker (with the embedded PGlite store, run the command while the service is stopped:
 * the next start submits it). Each recorded sweep is audited.
 */
import type { AmountsByInstrument } from '@poolparty/core';
import {
  type SideSweep,
  SweepRefused,
  sweepableNow,
  sweepPoolNow,
  type TreasuryTarget,
} from '@poolparty/settlement';
import {
  type Database,
  getPool,
  listPools,
  listSweeps,
  type PoolRecord,
  type SweepRecord,
} from '@poolparty/store';
import { AdminError } from './admin-error.js';

/** Pools one `treasury sweep` without `--pool`, or one `treasury list`, takes at most. */
const TREASURY_POOLS_MAX = 500;
/** Sweeps `treasury list` shows by default, and at most. */
export const SWEEPS_LIST_DEFAULT = 50;
export const SWEEPS_LIST_MAX = 1_000;

/** Where sweeps go as the settings (or the devnet seed) say; refused when nowhere. */
export function treasuryTargetOf(settings: {
  readonly treasuryParty: string | null;
  readonly networkReserve: AmountsByInstrument;
}): TreasuryTarget {
  if (settings.treasuryParty === null) {
    throw new AdminError(
      'validation_error',
      'no treasury party: set POOLPARTY_TREASURY_PARTY (or --treasury-party) to the party sweeps go to',
    );
  }
  return { treasuryParty: settings.treasuryParty, networkReserve: settings.networkReserve };
}

async function poolsNamed(db: Database, poolId: string | null): Promise<PoolRecord[]> {
  if (poolId === null) return (await listPools(db)).slice(0, TREASURY_POOLS_MAX);
  const pool = await getPool(db, poolId);
  if (pool === null) throw new AdminError('pool_not_found', `no pool ${poolId}`);
  return [pool];
}

/** Sweeps every side of the pools named that has anything sweepable; answers each side's fate. */
export async function sweepNow(
  db: Database,
  input: { readonly target: TreasuryTarget; readonly poolId: string | null; readonly now: Date },
): Promise<SideSweep[]> {
  const sides: SideSweep[] = [];
  for (const pool of await poolsNamed(db, input.poolId)) {
    try {
      sides.push(...(await sweepPoolNow(db, { ...input, poolId: pool.poolId })));
    } catch (error) {
      if (!(error instanceof SweepRefused)) throw error;
      throw new AdminError(error.code, error.message);
    }
  }
  return sides;
}

export function describeSideSweep(side: SideSweep): string {
  if (side.kind !== 'recorded') return `${side.poolId}\t${side.side}\tnothing to sweep`;
  const { sweep } = side;
  return [
    sweep.poolId,
    sweep.side,
    `recorded ${sweep.sweepId}: ${sweep.amount} ${sweep.instrument.id} to ${sweep.treasuryParty}`,
  ].join('\t');
}

/** What each side of the pools named could sweep now, one line per side. */
export async function sweepableLines(
  db: Database,
  poolId: string | null,
  networkReserve: AmountsByInstrument,
): Promise<string[]> {
  const lines: string[] = [];
  for (const pool of await poolsNamed(db, poolId)) {
    const now = await sweepableNow(db, pool, networkReserve);
    lines.push(`${pool.poolId}\ta\tsweepable ${now.a} ${pool.tokenA.id}`);
    lines.push(`${pool.poolId}\tb\tsweepable ${now.b} ${pool.tokenB.id}`);
  }
  return lines;
}

export function listTreasurySweeps(
  db: Database,
  poolId: string | null,
  limit: number,
): Promise<SweepRecord[]> {
  return listSweeps(db, { poolId, limit });
}

export function describeSweep(sweep: SweepRecord): string {
  return [
    sweep.sweepId,
    sweep.poolId,
    sweep.side,
    `${sweep.amount} ${sweep.instrument.id}`,
    sweep.status,
    sweep.trigger,
    sweep.treasuryParty,
    sweep.createdAt.toISOString(),
    sweep.updateId ?? sweep.error ?? '',
  ].join('\t');
}
