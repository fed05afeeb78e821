/**
 * How a pool's swap party keeps each instrument (docs/spec/atomic-swaps.md#reservations): in
 * several holdings, so that transfers and atomic swaps of one pool name holdings of their own and
 * commit side by side. Two pure decisions over plain data:
 * - `chooseFreeHoldings`: the holdings a transfer names — the largest free ones first, as few
 *   as cover it — so that transfers in flight at once name disjoint inputs;
 * - `planHoldingSplits`: which holdings of a side to split, into how many and what amounts, to
 *   bring the side to its target number of holdings; each split is done by self-transfers
 *   (sender and receiver the swap party), which move nothing between parties.
 */
import { Amount } from './amount.js';
import type { Instrument } from './instrument.js';

/**
 * Holdings a pool side keeps of each instrument unless the setting says otherwise: so many atomic
 * swaps of one pool can be prepared at once, and so many payouts be in flight at once, each
 * naming a holding no other names. At 50 swaps a second on a ledger answering in about 100 ms,
 * about five are under way at any moment; eight leave room, and are what the devnet seed mints.
 */
export const POOL_HOLDINGS_TARGET_DEFAULT = 8;

/**
 * The most holdings a side is split into: every read of the swap party's holdings lists them
 * all, and an atomic swap's output leg names at most 20; more would only lengthen those reads.
 */
export const POOL_HOLDINGS_MAX = 64;

/**
 * Self-transfers one plan of one side asks for at most: a round of the keeper takes the pool's
 * reservation lock while it splits, so prepares of the pool wait for at most this many.
 */
export const SPLITS_PER_ROUND_MAX = 16;

/** A split never makes a holding smaller than this: a nearly empty side is left as it is. */
export const SPLIT_PIECE_MIN = Amount.parse('0.0001');

/**
 * Holdings a side keeps per instrument id, `*` for every instrument not named (`CBTC=4,*=8`); how
 * `POOLPARTY_POOL_HOLDINGS_TARGET` is written. 1 keeps a side as it is.
 */
export type HoldingTargets = Readonly<Record<string, number>>;

/** The target the table gives `instrument`: its id's entry, else `*`, else the default. */
export function holdingsTargetFor(targets: HoldingTargets, instrument: Instrument): number {
  return targets[instrument.id] ?? targets['*'] ?? POOL_HOLDINGS_TARGET_DEFAULT;
}

/** A holding as the choice of a transfer's inputs sees it. */
export interface FreeHolding {
  readonly holdingId: string;
  readonly amount: Amount;
}

/** Largest first; equal amounts by id, so the choice is the same whatever order they were read. */
export function largestFirst(x: FreeHolding, y: FreeHolding): number {
  if (x.amount.eq(y.amount)) return x.holdingId.localeCompare(y.holdingId);
  return x.amount.gt(y.amount) ? -1 : 1;
}

/**
 * The inputs of a transfer that must cover `cover`: among the holdings no other transfer in
 * flight names (`taken`), the largest first until they cover it, at most `max`. Largest first
 * keeps the inputs few and leaves the smaller holdings to the transfers beside it; a caller whose
 * `total` falls short of what it needs waits, or is refused.
 *
 * With `spread` (the transfer's command id), when several free holdings each cover `cover`
 * alone, the transfer names one of them picked by the key instead of the largest: transfers of
 * one sender sent by different processes, which cannot see each other's choices, then name the
 * same holding only by chance, where largest first would have them all name the same one.
 */
export function chooseFreeHoldings(
  holdings: readonly FreeHolding[],
  taken: (holdingId: string) => boolean,
  cover: Amount,
  max: number,
  spread?: string,
): { readonly holdingIds: readonly string[]; readonly total: Amount } {
  const free = holdings.filter((holding) => !taken(holding.holdingId)).sort(largestFirst);
  const covering = free.filter((holding) => holding.amount.gte(cover));
  if (spread !== undefined && covering.length > 1 && max > 0) {
    const one = covering[keyIndex(spread, covering.length)] ?? free[0];
    if (one !== undefined) return { holdingIds: [one.holdingId], total: one.amount };
  }
  const chosen: string[] = [];
  let total = Amount.ZERO;
  for (const holding of free.slice(0, max)) {
    if (total.gte(cover)) break;
    chosen.push(holding.holdingId);
    total = total.add(holding.amount);
  }
  return { holdingIds: chosen, total };
}

/** FNV-1a offset basis and prime (32 bits): a well-spread index from a text, stable everywhere. */
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** An index below `count` that `key` picks, the same for the same key in any process. */
function keyIndex(key: string, count: number): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < key.length; i++) {
    hash = Math.imul(hash ^ key.charCodeAt(i), FNV_PRIME) >>> 0;
  }
  return hash % count;
}

/** A holding of a pool side as the split plan sees it. */
export interface SideHolding extends FreeHolding {
  /** Reserved by a live atomic swap or locked for an offer: counted, never split. */
  readonly busy: boolean;
}

/** One holding split into `pieces`, which add up to its amount exactly. */
export interface HoldingSplit {
  readonly holdingId: string;
  readonly amount: Amount;
  /**
   * The holdings it becomes, largest first, each within one smallest unit of the others and at
   * least half a piece. One self-transfer per piece but the last: each transfers a piece to the
   * owner from the change of the one before, and the last change is the last piece.
   */
  readonly pieces: readonly Amount[];
}

export interface HoldingsPlan {
  /** The side's total over its target: what a holding holds once the side is at its target. */
  readonly pieceSize: Amount;
  /** Holdings that count toward the target now: at least half a piece. */
  readonly counted: number;
  readonly splits: readonly HoldingSplit[];
}

/** `amount` in `count` pieces as equal as whole units allow, the larger ones first. */
function equalPieces(amount: Amount, count: number): Amount[] {
  const n = BigInt(count);
  const base = amount.units / n;
  const larger = Number(amount.units % n);
  return Array.from({ length: count }, (_, i) => Amount.fromUnits(base + (i < larger ? 1n : 0n)));
}

/**
 * What to split so that the side holds `target` holdings (at most `POOL_HOLDINGS_MAX`) of at
 * least half a piece each, a piece being the side's total over its target. Each extra holding
 * goes to the free holding whose pieces are the largest at that moment, as long as its pieces
 * stay at least half a piece: one large holding becomes `target` pieces, and several become
 * pieces as equal as they allow. It stops at the target, the room under `POOL_HOLDINGS_MAX` or
 * `selfTransfersMax` self-transfers. Busy holdings are counted and never split; small ones (a
 * deposit, a payout's change) are left alone: a later payout that names several merges them.
 *
 * A plan carried out leaves no free holding that could be split into two of half a piece while
 * the target is missed, so the next plan is empty (unless the budget cut this one short).
 */
export function planHoldingSplits(
  holdings: readonly SideHolding[],
  target: number,
  selfTransfersMax = SPLITS_PER_ROUND_MAX,
): HoldingsPlan {
  const wanted = Math.max(1, Math.min(Math.floor(target), POOL_HOLDINGS_MAX));
  const pieceSize = Amount.sum(holdings.map((h) => h.amount)).mulDiv(1n, BigInt(wanted), 'down');
  const half = pieceSize.mulDiv(1n, 2n, 'down');
  const counted = holdings.filter((h) => h.amount.isPositive() && h.amount.gte(half)).length;
  if (half.lt(SPLIT_PIECE_MIN)) return { pieceSize, counted, splits: [] };
  const room = Math.min(POOL_HOLDINGS_MAX - holdings.length, selfTransfersMax);
  const free = holdings
    .filter((h) => !h.busy)
    .sort(largestFirst)
    .slice(0, POOL_HOLDINGS_MAX);
  const parts = free.map((holding) => ({ holding, count: 1 }));
  for (let added = 0; added < Math.min(wanted - counted, room); added++) {
    const next = largestSplittable(parts, half);
    if (next === null) break;
    next.count += 1;
  }
  const splits = parts
    .filter((part) => part.count > 1)
    .map(({ holding: { holdingId, amount }, count }) => ({
      holdingId,
      amount,
      pieces: equalPieces(amount, count),
    }));
  return { pieceSize, counted, splits };
}

interface Part {
  readonly holding: FreeHolding;
  count: number;
}

/**
 * The holding whose pieces (its amount over its count) are the largest, among those that would
 * still hold at least `half` each with one piece more; null when none would.
 */
function largestSplittable(parts: readonly Part[], half: Amount): Part | null {
  let best: Part | null = null;
  for (const part of parts) {
    const { units } = part.holding.amount;
    if (units < BigInt(part.count + 1) * half.units) continue;
    // a / c > a' / c', compared as a · c' > a' · c.
    if (
      best === null ||
      units * BigInt(best.count) > best.holding.amount.units * BigInt(part.count)
    ) {
      best = part;
    }
  }
  return best;
}

/** The self-transfers a plan asks for: one per piece but the last of each split. */
export function selfTransfersOf(plan: HoldingsPlan): number {
  return plan.splits.reduce((sum, split) => sum + split.pieces.length - 1, 0);
}
