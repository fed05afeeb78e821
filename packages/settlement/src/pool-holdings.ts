/**
 * Keeping each pool side in several holdings (docs/spec/atomic-swaps.md#reservations), so that
 * atomic swaps prepared at once and payouts in flight at once name holdings of their own. A round
 * looks at the active pools in turn, each read → plan → write under the pool's reservation lock:
 * - read: the holdings live atomic swaps reserve (store) and the swap party's holdings (ledger),
 *   read after the lock, so no prepare picks a holding meanwhile and every reservation is seen;
 * - plan: core's `planHoldingSplits` per side, reserved and locked holdings counted, never split;
 * - write: each split as self-transfers through the port (`splitHolding`), a piece at a time
 *   from the change of the one before.
 *
 * A split moves nothing between parties, so the books do not move and still equal the holdings.
 * Its command id is the split holding's (a holding is spent once), so a split sent again after a
 * lost answer is the same command. The ledger's refusal (another transfer named the holding
 * first) ends that holding's split for the round; the next round plans again from what is there.
 */
import { createHash } from 'node:crypto';
import {
  type HoldingSplit,
  type HoldingTargets,
  holdingsTargetFor,
  type Instrument,
  instrumentKey,
  planHoldingSplits,
  type SideHolding,
  SPLITS_PER_ROUND_MAX,
} from '@poolparty/core';
import { type Holding, LedgerError, type LedgerPort, REASON_META_KEY } from '@poolparty/ledger';
import {
  type Database,
  listPools,
  lockPoolReservations,
  type PoolRecord,
  reservedHoldingIds,
} from '@poolparty/store';

/** Pools one round looks at, at most; the next round goes on after the last one looked at. */
export const HOLDINGS_POOLS_PER_ROUND_MAX = 50;

/** The reason a split's self-transfer carries, for whoever reads the swap party's history. */
const SPLIT_REASON = 'pool holdings split';

export interface HoldingsKeeping {
  /** Holdings each side keeps, by instrument id (core's `holdingsTargetFor`). */
  readonly targets: HoldingTargets;
  /** Pools this round looks at, at most. */
  readonly poolsPerRound?: number;
  /** The pool the previous round looked at last: this one starts after it. */
  readonly after?: string | null;
}

/** What a round did to one side. */
export interface SideKept {
  readonly poolId: string;
  readonly instrument: Instrument;
  readonly target: number;
  /** Holdings that counted toward the target before the round. */
  readonly counted: number;
  /** Self-transfers that committed. */
  readonly selfTransfers: number;
  /** Splits the ledger refused part-way (a holding another transfer spent first). */
  readonly refused: number;
}

export interface HoldingsRound {
  readonly sides: readonly SideKept[];
  /** The pool looked at last, for the next round's `after`. */
  readonly last: string | null;
}

/** The command id of the self-transfer that splits `holdingId`: one per holding, ever. */
export function splitCommandId(holdingId: string): string {
  return `split-${createHash('sha256').update(holdingId).digest('hex').slice(0, 32)}`;
}

/** One round over the next active pools, in the order pools opened, starting after `after`. */
export async function keepPoolHoldings(
  deps: { readonly db: Database; readonly ledger: LedgerPort },
  keeping: HoldingsKeeping,
): Promise<HoldingsRound> {
  const active = (await listPools(deps.db)).filter((pool) => pool.status === 'active');
  const start = active.findIndex((pool) => pool.poolId === keeping.after) + 1;
  const count = Math.min(active.length, keeping.poolsPerRound ?? HOLDINGS_POOLS_PER_ROUND_MAX);
  const turn = [...active.slice(start), ...active.slice(0, start)].slice(0, count);
  const sides: SideKept[] = [];
  for (const pool of turn) sides.push(...(await keepPool(deps, pool, keeping.targets)));
  return { sides, last: turn.at(-1)?.poolId ?? keeping.after ?? null };
}

/** Both sides of one pool, under its reservation lock. */
export function keepPool(
  deps: { readonly db: Database; readonly ledger: LedgerPort },
  pool: PoolRecord,
  targets: HoldingTargets,
): Promise<SideKept[]> {
  return deps.db.transaction(async (tx) => {
    await lockPoolReservations(tx, pool.poolId);
    const reserved = await reservedHoldingIds(tx, pool.poolId);
    const holdings = await deps.ledger.getHoldings(pool.swapParty);
    const kept: SideKept[] = [];
    for (const instrument of [pool.tokenA, pool.tokenB]) {
      const target = holdingsTargetFor(targets, instrument);
      const side = sideHoldings(holdings, pool.swapParty, instrument, reserved);
      const plan = planHoldingSplits(side, target, SPLITS_PER_ROUND_MAX);
      let selfTransfers = 0;
      let refused = 0;
      for (const split of plan.splits) {
        const done = await carryOut(deps.ledger, pool.swapParty, split);
        selfTransfers += done.selfTransfers;
        if (!done.whole) refused += 1;
      }
      kept.push({
        poolId: pool.poolId,
        instrument,
        target,
        counted: plan.counted,
        selfTransfers,
        refused,
      });
    }
    return kept;
  });
}

/** The swap party's holdings of the instrument as the plan sees them. */
export function sideHoldings(
  holdings: readonly Holding[],
  owner: string,
  instrument: Instrument,
  reserved: ReadonlySet<string>,
): SideHolding[] {
  const key = instrumentKey(instrument);
  return holdings
    .filter((h) => h.owner === owner && instrumentKey(h.instrument) === key)
    .map((h) => ({
      holdingId: h.holdingId,
      amount: h.amount,
      busy: h.lock !== null || reserved.has(h.holdingId),
    }));
}

/**
 * The split's self-transfers, each from the change of the one before; stops at the first the
 * ledger refuses. A closed ledger ends the round.
 */
async function carryOut(
  ledger: LedgerPort,
  owner: string,
  split: HoldingSplit,
): Promise<{ readonly selfTransfers: number; readonly whole: boolean }> {
  let holdingId = split.holdingId;
  const transfers = split.pieces.slice(0, -1);
  for (const [done, amount] of transfers.entries()) {
    try {
      const outcome = await ledger.splitHolding({
        commandId: splitCommandId(holdingId),
        owner,
        holdingId,
        amount,
        meta: { [REASON_META_KEY]: SPLIT_REASON },
      });
      holdingId = outcome.change.holdingId;
    } catch (error) {
      if (!(error instanceof LedgerError) || error.code === 'closed') throw error;
      return { selfTransfers: done, whole: false };
    }
  }
  return { selfTransfers: transfers.length, whole: true };
}
