/**
 * Reconciliation (docs/spec/lifecycle.md#reconciliation): per pool and instrument, the swap party's
 * ledger holdings against the books (reserve + inflight + outgoing + fees), and every completed
 * swap's accounting. A mismatch raises an operator flag and records a failed run; the guard blocks
 * the pool (`incomplete_completed_accounting`) while the latest run failed, and every run fails
 * while the flag is open, so the block lasts until an operator resolves the flag and a run finds
 * the books right again.
 *
 * Comparing at one offset, so that work in flight never looks like a mismatch:
 * - the books and the ingest checkpoint C are read in one statement (one snapshot): the books as
 *   of offset C, since every change of a side's total is written with the checkpoint of the
 *   update that caused it (executions only move amounts between buckets);
 * - the ledger end E and the holdings are read until no commit falls between them, so the
 *   holdings are those at E;
 * - the updates in (C, E] are read back and their transfers of the swap party undone, which
 *   gives the holdings at C.
 * Commands recorded but not yet committed, payouts committed but not yet ingested, deposits in
 * flight: all of them are on the same side of C in both figures. A mint or burn of a swap party
 * after C defers that pool's run: such changes are not flows the books follow, and they are
 * judged once the checkpoint has passed them (the devnet seed funds pools this way before their
 * books exist). A pool added to a running ledger (`admin pools add`) is judged once the
 * checkpoint has passed the offset its reserves were read at. A swap party serves one pool.
 *
 * An atomic swap's books move at its execution, in the transaction that records its commit, not
 * with the checkpoint of its update (the update stream skips it): a swap completed in the books
 * whose update is after the checkpoint is counted in the holdings at the checkpoint as well (its
 * update is not undone), and a pool with a swap `executing` — committed on the ledger, perhaps,
 * and not yet in the books, as after a killed process — is deferred. The completed swaps are
 * those of the last `ATOMIC_LOOKBACK_MS`, read in the books' snapshot; a window holding an
 * atomic swap's update older than half of that defers the run, so none completed before the
 * look-back can be in it.
 */
import { Amount, type Instrument, instrumentKey } from '@poolparty/core';
import { type Holding, LedgerError, type LedgerUpdate } from '@poolparty/ledger';
import {
  atomicSwapCommands,
  incompleteCompletedSwaps,
  insertReconciliationRun,
  latestReconciliationRun,
  openFlagIdOfPool,
  type ReconciliationRun,
  raiseOperatorFlag,
  readBooksAtCheckpoint,
} from '@poolparty/store';
import { lockPool, type Side } from './accounting.js';
import type { EngineContext } from './context.js';

/** The operator flag a mismatch raises; `details.poolId` names the pool. */
export const RECONCILIATION_MISMATCH = 'reconciliation_mismatch';
/** Completed swaps with broken accounting named in a run's details, at most. */
const INCOMPLETE_SAMPLE_MAX = 20;
/**
 * How far back the books' snapshot lists the atomic swaps completed (see the module's note): far
 * beyond a checkpoint's lag behind a live ledger, and beyond the clocks' skew and a ledger round
 * trip between a swap's `completed_at` and its update's record time.
 */
export const ATOMIC_LOOKBACK_MS = 10 * 60_000;

export interface ReconciliationReport {
  /** The runs recorded, one per pool that could be compared. */
  readonly runs: readonly ReconciliationRun[];
  /** Pools not compared this time, and why; the next run tries again. */
  readonly deferred: readonly { readonly poolId: string; readonly reason: string }[];
  /** Set when nothing was compared because this engine does not lead the stream. */
  readonly skipped?: 'not_leading';
}

export interface SideComparison {
  /** Whose holdings: the swap party's (the pool's books), or the LP party's (deposits in passage). */
  readonly party?: 'swap' | 'lp';
  readonly side: Side;
  readonly instrument: Instrument;
  /** Units (10^-10) held by the swap party at the checkpoint. */
  readonly holdings: bigint;
  /** Units the books say it holds. */
  readonly books: bigint;
}

export interface PoolVerdict {
  readonly ok: boolean;
  /** A mismatch found now with no flag open for it yet: one is raised. */
  readonly raiseFlag: boolean;
}

/** Decides a pool's run from its comparison; a run never passes while a mismatch flag is open. */
export function judgePool(input: {
  readonly sides: readonly SideComparison[];
  readonly incompleteSwaps: number;
  readonly openFlag: boolean;
}): PoolVerdict {
  const mismatch =
    input.incompleteSwaps > 0 || input.sides.some((side) => side.holdings !== side.books);
  return { ok: !mismatch && !input.openFlag, raiseFlag: mismatch && !input.openFlag };
}

export async function reconcile(
  ctx: EngineContext,
  signal?: AbortSignal,
): Promise<ReconciliationReport> {
  const now = ctx.clock.now();
  const since = new Date(now.getTime() - ATOMIC_LOOKBACK_MS);
  const books = await readBooksAtCheckpoint(ctx.db, ctx.settings.stream, since);
  const all = (reason: string) => ({
    runs: [],
    deferred: books.pools.map((pool) => ({ poolId: pool.poolId, reason })),
  });
  if (books.pools.length === 0) return { runs: [], deferred: [] };
  if (books.checkpoint === null) return all('the update stream has not been ingested yet');
  const parties = new Set(books.pools.flatMap((pool) => [pool.swapParty, pool.lpParty]));
  const ledger = await readHoldings(ctx, parties);
  if (ledger === null) return all('the ledger kept committing while its holdings were read');
  const recorded = new Set(books.pools.flatMap((pool) => pool.atomicRecorded));
  const window = await readWindow(ctx, { from: books.checkpoint, to: ledger.end }, parties, {
    recorded,
    oldBefore: new Date(now.getTime() - ATOMIC_LOOKBACK_MS / 2),
    signal,
  });
  if ('deferred' in window) return all(window.deferred);
  if ((await atomicSwapCommands(ctx.db, window.oldCommands)).size > 0) {
    return all('an atomic swap older than the look-back is after the checkpoint');
  }
  const runs: ReconciliationRun[] = [];
  const deferred: { poolId: string; reason: string }[] = [];
  for (const pool of books.pools) {
    if (pool.booksFromOffset !== null && books.checkpoint < pool.booksFromOffset) {
      deferred.push({ poolId: pool.poolId, reason: 'its books begin after the checkpoint' });
      continue;
    }
    if (window.minted.has(pool.swapParty) || window.minted.has(pool.lpParty)) {
      deferred.push({ poolId: pool.poolId, reason: 'a mint or burn after the checkpoint' });
      continue;
    }
    if (pool.atomicExecuting > 0) {
      deferred.push({ poolId: pool.poolId, reason: 'an atomic swap of it is executing' });
      continue;
    }
    const atCheckpoint = (party: string, instrument: Instrument) =>
      unitsOf(ledger.holdings.get(party) ?? [], instrument) -
      (window.deltas.get(`${party}|${instrumentKey(instrument)}`) ?? 0n);
    const swapSides = pool.sides.map(({ side, instrument, books }) => ({
      side,
      instrument,
      books,
      holdings: atCheckpoint(pool.swapParty, instrument),
    }));
    const lpSides = pool.sides.map(({ side, instrument, lpBooks }) => ({
      party: 'lp' as const,
      side,
      instrument,
      books: lpBooks,
      holdings: atCheckpoint(pool.lpParty, instrument),
    }));
    const sides = [...swapSides, ...lpSides];
    const where = { checkpoint: books.checkpoint, ledgerEnd: ledger.end };
    runs.push(await recordRun(ctx, pool.poolId, sides, where));
  }
  return { runs, deferred };
}

async function recordRun(
  ctx: EngineContext,
  poolId: string,
  sides: readonly SideComparison[],
  where: { readonly checkpoint: number; readonly ledgerEnd: number },
): Promise<ReconciliationRun> {
  const { run, changed } = await ctx.db.transaction(async (tx) => {
    // Under the pool's lock, so two runs (an old and a new leader) never both raise a flag.
    await lockPool(tx, poolId);
    const now = ctx.clock.now();
    const incomplete = await incompleteCompletedSwaps(tx, poolId, INCOMPLETE_SAMPLE_MAX);
    let flagId = await openFlagIdOfPool(tx, RECONCILIATION_MISMATCH, poolId);
    const verdict = judgePool({
      sides,
      incompleteSwaps: incomplete.count,
      openFlag: flagId !== null,
    });
    const details = {
      ...where,
      sides: sides.map(describeSide),
      incompleteSwaps: incomplete,
      openFlagId: flagId,
    };
    if (verdict.raiseFlag) {
      const flag = await raiseOperatorFlag(tx, {
        intentId: null,
        depositId: null,
        kind: RECONCILIATION_MISMATCH,
        details: { poolId, ...details },
        createdAt: now,
      });
      flagId = flag.id;
    }
    const previous = await latestReconciliationRun(tx, poolId);
    const run = await insertReconciliationRun(tx, {
      poolId,
      ok: verdict.ok,
      details: { ...details, openFlagId: flagId },
      at: now,
    });
    return { run, changed: previous?.ok !== run.ok };
  });
  if (!run.ok) ctx.log.error('reconciliation found a mismatch', { poolId, details: run.details });
  // Quotes see the new verdict at once, not after their next re-read.
  if (changed) ctx.quoter.invalidate(poolId);
  ctx.step('reconciliation_recorded');
  return run;
}

function describeSide(side: SideComparison) {
  return {
    party: side.party ?? 'swap',
    side: side.side,
    instrument: side.instrument,
    holdings: signedAmount(side.holdings),
    books: signedAmount(side.books),
    difference: signedAmount(side.holdings - side.books),
  };
}

function signedAmount(units: bigint): string {
  const text = Amount.fromUnits(units < 0n ? -units : units).toString();
  return units < 0n ? `-${text}` : text;
}

// --- the ledger side ------------------------------------------------------------------------

function unitsOf(holdings: readonly Holding[], instrument: Instrument): bigint {
  const key = instrumentKey(instrument);
  let units = 0n;
  for (const holding of holdings) {
    if (instrumentKey(holding.instrument) === key) units += holding.amount.units;
  }
  return units;
}

/** The swap parties' holdings (locked ones too) and the ledger end they are the holdings at. */
async function readHoldings(
  ctx: EngineContext,
  parties: ReadonlySet<string>,
): Promise<{ end: number; holdings: Map<string, readonly Holding[]> } | null> {
  for (let attempt = 0; attempt < ctx.settings.holdingsReadAttemptsMax; attempt += 1) {
    const end = await ctx.ledger.ledgerEnd();
    const holdings = new Map<string, readonly Holding[]>();
    for (const party of parties) holdings.set(party, await ctx.ledger.getHoldings(party));
    if ((await ctx.ledger.ledgerEnd()) === end) return { end, holdings };
  }
  return null;
}

interface Window {
  /** Per `party|instrument`, the units the updates after the checkpoint added (negative: took). */
  readonly deltas: Map<string, bigint>;
  /** Swap parties minted to or burnt from after the checkpoint. */
  readonly minted: Set<string>;
  /** Command ids of the window's updates recorded before `oldBefore` (atomic swaps' or not). */
  readonly oldCommands: string[];
}

/** How the window reads the atomic swaps' updates (see the module's note). */
interface AtomicInWindow {
  /** Updates of atomic swaps the books hold already: not undone. */
  readonly recorded: ReadonlySet<string>;
  /** Updates recorded before this are listed by command id, to look for old atomic swaps. */
  readonly oldBefore: Date;
  readonly signal: AbortSignal | undefined;
}

/** What the updates in (from, to] did to the swap parties' holdings. */
async function readWindow(
  ctx: EngineContext,
  { from, to }: { readonly from: number; readonly to: number },
  parties: ReadonlySet<string>,
  atomic: AtomicInWindow,
): Promise<Window | { readonly deferred: string }> {
  const { signal } = atomic;
  const window: Window = { deltas: new Map(), minted: new Set(), oldCommands: [] };
  if (to <= from) return window;
  const controller = new AbortController();
  const stop = () => controller.abort();
  signal?.addEventListener('abort', stop, { once: true });
  let seen = from;
  let count = 0;
  try {
    // Unfiltered, so the update at `to` itself arrives and ends the read.
    for await (const update of ctx.ledger.updates(from, { signal: controller.signal })) {
      if (update.offset <= seen) continue;
      if (update.offset > to) break;
      seen = update.offset;
      count += 1;
      if (count > ctx.settings.reconcileWindowUpdatesMax) {
        return {
          deferred: `more than ${ctx.settings.reconcileWindowUpdatesMax} updates to ingest`,
        };
      }
      if (update.commandId !== null && update.recordTime < atomic.oldBefore) {
        window.oldCommands.push(update.commandId);
      }
      if (!atomic.recorded.has(update.updateId)) addUpdate(window, update, parties);
      if (update.offset >= to) break;
    }
  } catch (error) {
    if (error instanceof LedgerError && error.code === 'stream_dropped') {
      return { deferred: 'the update stream dropped while the window was read' };
    }
    throw error;
  } finally {
    signal?.removeEventListener('abort', stop);
    controller.abort();
  }
  if (seen < to) return { deferred: 'reading the window was stopped' };
  return window;
}

function addUpdate(window: Window, update: LedgerUpdate, parties: ReadonlySet<string>): void {
  const add = (party: string, instrument: Instrument, units: bigint) => {
    if (!parties.has(party)) return;
    const key = `${party}|${instrumentKey(instrument)}`;
    window.deltas.set(key, (window.deltas.get(key) ?? 0n) + units);
  };
  for (const event of update.events) {
    if (event.kind === 'transfer') {
      add(event.receiver, event.instrument, event.amount.units);
      // The sender's holdings also paid the fees the instrument burned.
      add(event.sender, event.instrument, -(event.amount.units + event.feesBurned.units));
    } else if ((event.kind === 'mint' || event.kind === 'burn') && parties.has(event.owner)) {
      window.minted.add(event.owner);
    }
  }
}
