/**
 * What a chaos run does and when, decided up front from one seed: which swaps go through which
 * pool in which direction and how each is set up, after how many finished swaps a worker is
 * killed, and which atomic swaps and liquidity rounds run beside the swaps. Pure: the same seed and
 * sizes give the same plan, so a failing run can be repeated.
 */
import { seededRandom } from '@poolparty/ledger';

/**
 * How a swap is set up:
 * - `exact`: the deposit is exactly the quoted amount, with room for the usual slippage;
 * - `tight`: the least slippage tolerance a client may ask (0.1 %), so a pool that moved in
 *   between refunds it;
 * - `wrong-amount`: the wallet sends 1 % more than quoted, which no
 *   intent takes: the deposit must come back (a refund, or the offer rejected), and the trader
 *   cancels the intent it left unfunded.
 */
export type SwapSetup = 'exact' | 'tight' | 'wrong-amount';

export interface PlannedSwap {
  readonly index: number;
  /** Index into the pools. */
  readonly pool: number;
  /** True: token A (Amulet, a one-step deposit) in; false: token B (an offer) in. */
  readonly aIn: boolean;
  readonly setup: SwapSetup;
  /** Multiplies the base amount, so that amounts differ (1 to 2). */
  readonly size: number;
}

/** Shares of the setups; the rest are `exact`. */
export const TIGHT_SHARE = 0.04;
export const WRONG_AMOUNT_SHARE = 0.02;

/** `swaps` swaps spread evenly over the pools and both directions, setups drawn by share. */
export function planSwaps(swaps: number, pools: number, seed: number): PlannedSwap[] {
  const random = seededRandom(seed ^ 0x5a5a);
  const plan: PlannedSwap[] = [];
  for (let index = 0; index < swaps; index += 1) {
    const draw = random();
    const setup: SwapSetup =
      draw < WRONG_AMOUNT_SHARE
        ? 'wrong-amount'
        : draw < WRONG_AMOUNT_SHARE + TIGHT_SHARE
          ? 'tight'
          : 'exact';
    plan.push({
      index,
      // Round-robin over pools and directions keeps every pair covered even in a small run.
      pool: Math.floor(index / 2) % pools,
      aIn: index % 2 === 0,
      setup,
      size: 1 + Math.round(random() * 100) / 100,
    });
  }
  return plan;
}

export interface PlannedKill {
  /** The kill happens once this many swaps have ended. */
  readonly afterSwaps: number;
  /** Index of the worker process to kill. */
  readonly worker: number;
}

/**
 * `kills` kills spread over the run: the run is cut into `kills` equal stretches and each kill
 * falls at a random point of its own stretch (none in the last 2 % of the run, so that the
 * restarted worker still has work to recover). The points are distinct and ascending.
 */
export function planKills(
  swaps: number,
  kills: number,
  workers: number,
  seed: number,
): PlannedKill[] {
  const random = seededRandom(seed ^ 0xc0ffee);
  return spreadOver(swaps, kills, random, () => ({ worker: Math.floor(random() * workers) }));
}

export interface PlannedDrop {
  /** Every store session of the deployment is ended once this many swaps have ended. */
  readonly afterSwaps: number;
}

/** `drops` moments to end the deployment's store sessions, spread over the run as kills are. */
export function planDrops(swaps: number, drops: number, seed: number): PlannedDrop[] {
  return spreadOver(swaps, drops, seededRandom(seed ^ 0xd0d0), () => ({}));
}

/**
 * `count` points of a run of `swaps`, each at a random place in its own equal stretch, none in
 * the last 2 % of the run; distinct and ascending. `extra` adds what each point carries.
 */
function spreadOver<T extends object>(
  swaps: number,
  count: number,
  random: () => number,
  extra: () => T,
): (T & { readonly afterSwaps: number })[] {
  if (count === 0) return [];
  const span = Math.max(1, Math.floor(swaps * 0.98));
  const stretch = span / count;
  const plan: (T & { afterSwaps: number })[] = [];
  let previous = 0;
  for (let k = 0; k < count; k += 1) {
    const from = Math.floor(k * stretch);
    const to = Math.floor((k + 1) * stretch);
    const point = Math.max(previous + 1, from + 1 + Math.floor(random() * Math.max(1, to - from)));
    plan.push({ afterSwaps: point, ...extra() });
    previous = point;
  }
  return plan;
}

/**
 * How an atomic swap is set up:
 * - `signed`: the wallet checks the prepared transaction and signs it at once, with room for
 *   the usual slippage;
 * - `tight`: signed likewise at the least slippage tolerance a client may ask (0.1 %), so that a
 *   pool that moved before it executes ends it `price_moved`, nothing moved;
 * - `cancelled`: the wallet cancels it instead of signing, which releases the pool's holdings.
 */
export type AtomicSetup = 'signed' | 'tight' | 'cancelled';

export interface PlannedAtomicSwap {
  readonly index: number;
  /** The swap is prepared once this many deposit-flow swaps have ended. */
  readonly afterSwaps: number;
  /** Index into the atomic traders. */
  readonly trader: number;
  /** Index into the pools; token A (Amulet) in, the pool's swap party takes it pre-approved. */
  readonly pool: number;
  readonly setup: AtomicSetup;
  /** Multiplies the base amount, so that amounts differ (1 to 2). */
  readonly size: number;
}

/** Shares of the atomic setups; the rest are `signed`. */
export const ATOMIC_TIGHT_SHARE = 0.1;
export const ATOMIC_CANCELLED_SHARE = 0.1;

/**
 * `count` atomic swaps spread over a run of `swaps` as kills are, round-robin over the traders
 * and then the pools (so that a small run still trades every pool), setups drawn by share.
 */
export function planAtomicSwaps(
  swaps: number,
  count: number,
  traders: number,
  pools: number,
  seed: number,
): PlannedAtomicSwap[] {
  const random = seededRandom(seed ^ 0xa70b);
  return spreadOver(swaps, count, random, () => ({})).map(({ afterSwaps }, index) => {
    const draw = random();
    const setup: AtomicSetup =
      draw < ATOMIC_CANCELLED_SHARE
        ? 'cancelled'
        : draw < ATOMIC_CANCELLED_SHARE + ATOMIC_TIGHT_SHARE
          ? 'tight'
          : 'signed';
    return {
      index,
      afterSwaps,
      trader: index % traders,
      // Each trader in turn, then the next pool: every trader trades every pool.
      pool: Math.floor(index / traders) % pools,
      setup,
      size: 1 + Math.round(random() * 100) / 100,
    };
  });
}

/**
 * A deposit to an LP party that nobody asked for:
 * - `no-reference`: no reason at all, from a provider with no open intent for the pool;
 * - `made-up-reference`: a reference no intent has;
 * - `other-reference`: the reference of another provider's intent;
 * - `untraded-token`: a token the pool does not trade.
 */
export type StrayKind = 'no-reference' | 'made-up-reference' | 'other-reference' | 'untraded-token';

export const STRAY_KINDS: readonly StrayKind[] = [
  'no-reference',
  'made-up-reference',
  'other-reference',
  'untraded-token',
];

/** A stray deposit: its kind and a draw in [0, 1) that picks its token (and whose reference). */
export interface StrayRound {
  readonly kind: 'stray';
  readonly stray: StrayKind;
  readonly pick: number;
}

/**
 * A liquidity intent, one side's deposit and a cancel raced against it: the cancel goes
 * `cancelOffsetMs` after the deposit committed, or, when negative, that long before the deposit is
 * sent.
 */
export interface RaceRound {
  readonly kind: 'cancel-race';
  readonly side: 'a' | 'b';
  readonly cancelOffsetMs: number;
}

export interface PlannedLiquidityRound {
  readonly index: number;
  /** The round starts once this many swaps have ended. */
  readonly afterSwaps: number;
  /** Index into the providers. */
  readonly provider: number;
  /** Index into the pools. */
  readonly pool: number;
  /** Multiplies the base amount, so that amounts differ (1 to 2). */
  readonly size: number;
  readonly round: StrayRound | RaceRound;
}

/** How far from the deposit a cancel is sent, either way. */
export const CANCEL_OFFSET_MAX_MS = 150;

/**
 * `rounds` liquidity rounds spread over a run of `swaps` as kills are. Rounds go round-robin over
 * the providers, and each provider alternates a cancel race and a stray deposit, so that every
 * provider runs both, races first: a stray that borrows another provider's reference then finds
 * one. The strays' kinds come in shuffled blocks of every kind, so that a small run still has
 * each. Pools, tokens, sides and cancel offsets are drawn.
 */
export function planLiquidity(
  swaps: number,
  rounds: number,
  providers: number,
  pools: number,
  seed: number,
): PlannedLiquidityRound[] {
  const random = seededRandom(seed ^ 0x11b0);
  const points = spreadOver(swaps, rounds, random, () => ({}));
  const strayKinds: StrayKind[] = [];
  return points.map(({ afterSwaps }, index): PlannedLiquidityRound => {
    const provider = index % providers;
    const stray = Math.floor(index / providers) % 2 === 1;
    if (stray && strayKinds.length === 0) strayKinds.push(...shuffled(STRAY_KINDS, random));
    const round: StrayRound | RaceRound = stray
      ? { kind: 'stray', stray: strayKinds.shift() as StrayKind, pick: random() }
      : {
          kind: 'cancel-race',
          side: random() < 0.5 ? 'a' : 'b',
          cancelOffsetMs: Math.round((random() * 2 - 1) * CANCEL_OFFSET_MAX_MS),
        };
    return {
      index,
      afterSwaps,
      provider,
      pool: Math.floor(random() * pools),
      size: 1 + Math.round(random() * 100) / 100,
      round,
    };
  });
}

/** A copy of `items` in a random order (Fisher–Yates). */
function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}
