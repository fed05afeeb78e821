/**
 * Treasury sweeps (docs/spec/treasury.md): the platform's share of a pool side's fees and the
 * network fees it recovered leave the pool's swap party for the operator's treasury party, as a
 * `sweep` ledger command: fees set aside and sent (fee-transfers.ts), as a developer's collection.
 *
 * Exactly once: one transaction takes the pool's lock, reads what is sweepable (core's
 * `sweepableFees`: the `fees` bucket less what developers can still collect, the platform fees a
 * reversed payout would take back, and the network reserve), and records the sweep, its command
 * (`<sweepId>:sweep:0`) and the books' move before anything is submitted. A concurrent sweep of
 * the side waits for the lock and then finds nothing sweepable. The sweep ends `swept`, or
 * `returned` to the fees to be swept again, as fee-transfers.ts tells.
 */
import { randomBytes } from 'node:crypto';
import {
  type Amount,
  type AmountsByInstrument,
  amountFor,
  DomainError,
  type Instrument,
  type PoolBooks,
  type SweepDecision,
  sweepableFees,
  sweepDue,
} from '@poolparty/core';
import type { Database, PoolRecord, Queryable } from '@poolparty/store';
import {
  commandIdOf,
  feesHeldBack,
  getPool,
  insertSweep,
  lastSweptAt,
  poolsLeastRecentlySwept,
  SWEEP_TRANSFERS,
  type SweepRecord,
  type SweepTrigger,
} from '@poolparty/store';
import { lockPool, type Side } from './accounting.js';
import {
  type FeeTransferKind,
  feeTransferSteps,
  sendSetAsideFees,
  setAsideFees,
} from './fee-transfers.js';

const SWEEP_ID_BYTES = 12;
const SIDES: readonly Side[] = ['a', 'b'];

/** Where sweeps go and what each side keeps back for network costs. */
export interface TreasuryTarget {
  readonly treasuryParty: string;
  /** Kept in `fees` per instrument for what Amulet transfers burn. */
  readonly networkReserve: AmountsByInstrument;
}

/** The automatic schedule: a side above its threshold, swept at most once per interval. */
export interface SweepSchedule {
  readonly thresholds: AmountsByInstrument;
  readonly intervalMs: number;
  /** Pools one round looks at, least recently swept first. */
  readonly poolsPerRoundMax: number;
}

/** Why a sweep cannot be recorded, as the code an operator is answered with. */
export type SweepRefusal = 'pool_not_found';

export class SweepRefused extends DomainError<SweepRefusal> {
  override name = 'SweepRefused';
}

/** The transfer reason a sweep carries on the ledger. */
export function sweepReason(sweepId: string): string {
  return `sweep:${sweepId}`;
}

/** A sweep's transfer, from set-aside to its end (fee-transfers.ts). */
const SWEEPS: FeeTransferKind<'swept'> = {
  leg: 'sweep',
  rows: SWEEP_TRANSFERS,
  idOf: (command) => command.sweepId,
  subjectOf: (sweepId) => ({ intentId: null, depositId: null, sweepId }),
  reasonOf: sweepReason,
};

function instrumentOf(pool: PoolRecord, side: Side): Instrument {
  return side === 'a' ? pool.tokenA : pool.tokenB;
}

function feesOf(books: PoolBooks, side: Side): Amount {
  return side === 'a' ? books.feesA : books.feesB;
}

/** What the side's fees would give a sweep now, read with the books as they are. */
async function sweepableIn(
  q: Queryable,
  pool: PoolRecord,
  books: PoolBooks,
  side: Side,
  networkReserve: AmountsByInstrument,
): Promise<Amount> {
  const held = await feesHeldBack(q, pool.poolId, side);
  return sweepableFees(feesOf(books, side), {
    owedToDevelopers: held.owedToDevelopers,
    releasable: held.releasable,
    networkReserve: amountFor(networkReserve, instrumentOf(pool, side)),
  });
}

/** What each side of the pool could sweep now (no lock: a figure for people, not a decision). */
export async function sweepableNow(
  q: Queryable,
  pool: PoolRecord,
  networkReserve: AmountsByInstrument,
): Promise<Record<Side, Amount>> {
  return {
    a: await sweepableIn(q, pool, pool.accounting, 'a', networkReserve),
    b: await sweepableIn(q, pool, pool.accounting, 'b', networkReserve),
  };
}

/** What became of one side when a sweep was asked for. */
export type SideSweep =
  | {
      readonly poolId: string;
      readonly side: Side;
      readonly kind: 'recorded';
      readonly sweep: SweepRecord;
    }
  | {
      readonly poolId: string;
      readonly side: Side;
      readonly kind: Exclude<SweepDecision['kind'], 'sweep'>;
    };

/**
 * Sweeps one side of a pool when `decide` says so, given what is sweepable under the pool's lock
 * and the side's last sweep. The engine submits the command; the update stream settles it.
 */
async function sweepSide(
  db: Database,
  input: {
    readonly poolId: string;
    readonly side: Side;
    readonly target: TreasuryTarget;
    readonly trigger: SweepTrigger;
    readonly now: Date;
    readonly decide: (
      sweepable: Amount,
      lastSweptAt: Date | null,
      pool: PoolRecord,
    ) => SweepDecision;
  },
): Promise<SideSweep> {
  const { poolId, side, target, trigger, now } = input;
  return db.transaction(async (tx) => {
    const found = await getPool(tx, poolId);
    if (found === null) throw new SweepRefused('pool_not_found', `No pool ${poolId}.`);
    // The lock first, then the reading: whoever reads after us sees our sweep.
    const books = await lockPool(tx, poolId);
    const pool = { ...found, accounting: books };
    const sweepable = await sweepableIn(tx, pool, books, side, target.networkReserve);
    const decision = input.decide(sweepable, await lastSweptAt(tx, poolId, side), pool);
    if (decision.kind !== 'sweep') return { poolId, side, kind: decision.kind };
    const sweep = await recordSweepIn(tx, pool, side, decision.amount, target, trigger, now);
    return { poolId, side, kind: 'recorded', sweep };
  });
}

async function recordSweepIn(
  tx: Queryable,
  pool: PoolRecord,
  side: Side,
  amount: Amount,
  target: TreasuryTarget,
  trigger: SweepTrigger,
  now: Date,
): Promise<SweepRecord> {
  const sweepId = `swe_${randomBytes(SWEEP_ID_BYTES).toString('base64url')}`;
  const instrument = instrumentOf(pool, side);
  await setAsideFees(tx, pool.poolId, side, amount, now);
  const sweep = await insertSweep(tx, {
    sweepId,
    poolId: pool.poolId,
    side,
    instrument,
    treasuryParty: target.treasuryParty,
    amount: amount,
    trigger,
    commandId: commandIdOf(sweepId, 'sweep', 0),
    createdAt: now,
  });
  const transfer = { poolId: pool.poolId, side, swapParty: pool.swapParty, instrument, amount };
  await sendSetAsideFees(tx, SWEEPS, sweepId, { ...transfer, receiver: target.treasuryParty }, now);
  return sweep;
}

/**
 * An operator's sweep of both sides of a pool: everything sweepable now, whatever the schedule
 * and thresholds say. A side with nothing sweepable is answered `below_threshold`.
 */
export async function sweepPoolNow(
  db: Database,
  input: { readonly poolId: string; readonly target: TreasuryTarget; readonly now: Date },
): Promise<SideSweep[]> {
  const swept: SideSweep[] = [];
  for (const side of SIDES) {
    swept.push(
      await sweepSide(db, {
        ...input,
        side,
        trigger: 'operator',
        decide: (sweepable) =>
          sweepable.isPositive()
            ? { kind: 'sweep', amount: sweepable }
            : { kind: 'below_threshold' },
      }),
    );
  }
  return swept;
}

/**
 * One round of the automatic schedule: the pools least recently swept first, at most
 * `poolsPerRoundMax`, each side swept when core's `sweepDue` says so.
 */
export async function sweepDueSides(
  db: Database,
  input: { readonly target: TreasuryTarget; readonly schedule: SweepSchedule; readonly now: Date },
): Promise<SideSweep[]> {
  const { target, schedule, now } = input;
  const swept: SideSweep[] = [];
  for (const poolId of await poolsLeastRecentlySwept(db, schedule.poolsPerRoundMax)) {
    for (const side of SIDES) {
      swept.push(
        await sweepSide(db, {
          poolId,
          side,
          target,
          trigger: 'automatic',
          now,
          decide: (sweepable, last, pool) =>
            sweepDue({
              sweepable,
              threshold: amountFor(schedule.thresholds, instrumentOf(pool, side)),
              lastSweptAt: last,
              intervalMs: schedule.intervalMs,
              now,
            }),
        }),
      );
    }
  }
  return swept;
}

const steps = feeTransferSteps(SWEEPS);

/** The sweep's transfer became an offer: the treasury accepts it in its wallet. */
export const sweepOffered = steps.offered;

/** The swept amount arrived at the treasury; what it burned is a network cost of the side. */
export const finishSweep = steps.arrived;

/** The amount never reached the treasury: it is back among the fees, to be swept again. */
export const returnSweep = steps.returned;
