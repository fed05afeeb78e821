/**
 * Every kind of intent's lifecycle as the same data (docs/spec/lifecycle.md#transitions,
 * docs/spec/liquidity.md#intents): its states, which are terminal, and the edges between them.
 * The store writes an intent's state only along these edges: it checks each step of a write
 * against this table before any statement, and the database refuses, by a trigger, any change of
 * state that no path of listed edges connects (`reachablePairs`).
 *
 * A third kind of intent adds one more `IntentLifecycle` here; the store's state writer, its
 * database check and the test that proves no path writes an unlisted edge serve it unchanged.
 */
import { ATOMIC_SWAP_LIFECYCLE } from './atomic-swap.js';
import { BaseError } from './base-error.js';
import { EDGES } from './lifecycle.js';
import {
  LIQUIDITY_STATES,
  LIQUIDITY_TERMINAL_STATES,
  type LiquidityState,
} from './schemas/liquidity.js';
import { SWAP_STATES, type SwapState, TERMINAL_STATES } from './swap-state.js';

export const INTENT_KINDS = ['swap', 'liquidity', 'atomic_swap'] as const;
export type IntentKind = (typeof INTENT_KINDS)[number];

export interface IntentLifecycle<S extends string = string> {
  readonly kind: IntentKind;
  readonly states: readonly S[];
  readonly terminal: readonly S[];
  /** `[from, to]`: one step the engine may take. */
  readonly edges: readonly (readonly [S, S])[];
}

export const SWAP_LIFECYCLE: IntentLifecycle<SwapState> = Object.freeze({
  kind: 'swap',
  states: SWAP_STATES,
  terminal: TERMINAL_STATES,
  edges: Object.freeze(EDGES.map((edge) => Object.freeze([edge.from, edge.to] as const))),
});

/**
 * A liquidity intent: `pending` → `partial` (one side in) → `joining` (both in, being forwarded)
 * → `completed`; `refunding` → `refunded` (or `refund_failed`, an operator's) from `partial` or
 * `joining`; `expired` and `cancelled` only before any side arrived.
 */
const LIQUIDITY_EDGES: readonly (readonly [LiquidityState, LiquidityState])[] = [
  ['pending', 'partial'],
  ['pending', 'expired'],
  ['pending', 'cancelled'],
  ['partial', 'joining'],
  ['partial', 'refunding'],
  ['joining', 'completed'],
  ['joining', 'refunding'],
  ['refunding', 'refunded'],
  ['refunding', 'refund_failed'],
];

export const LIQUIDITY_LIFECYCLE: IntentLifecycle<LiquidityState> = Object.freeze({
  kind: 'liquidity',
  states: LIQUIDITY_STATES,
  terminal: LIQUIDITY_TERMINAL_STATES,
  edges: Object.freeze(LIQUIDITY_EDGES.map((edge) => Object.freeze(edge))),
});

export const INTENT_LIFECYCLES: Readonly<Record<IntentKind, IntentLifecycle>> = Object.freeze({
  swap: SWAP_LIFECYCLE,
  liquidity: LIQUIDITY_LIFECYCLE,
  atomic_swap: ATOMIC_SWAP_LIFECYCLE,
});

/** A step or a path the lifecycle of its kind does not list: a bug, never a state to store. */
export class IllegalPathError extends BaseError<'illegal_transition'> {
  override readonly name = 'IllegalPathError';

  constructor(
    readonly kind: IntentKind,
    readonly from: string,
    readonly through: readonly string[],
  ) {
    super('illegal_transition', `illegal ${kind} intent path ${[from, ...through].join(' → ')}`);
  }
}

export function canMoveBetween<S extends string>(
  lifecycle: IntentLifecycle<S>,
  from: S,
  to: S,
): boolean {
  return lifecycle.edges.some(([a, b]) => a === from && b === to);
}

/**
 * Refuses a path unless every step of `from → through[0] → … → through.at(-1)` is an edge; an
 * empty path is refused too, since a state write must change the state.
 */
export function assertPath<S extends string>(
  lifecycle: IntentLifecycle<S>,
  from: S,
  through: readonly S[],
): void {
  let at = from;
  for (const next of through) {
    if (!canMoveBetween(lifecycle, at, next)) {
      throw new IllegalPathError(lifecycle.kind, from, through);
    }
    at = next;
  }
  if (through.length === 0) throw new IllegalPathError(lifecycle.kind, from, through);
}

/**
 * Every `[from, to]` that some path of listed edges connects, sorted: what one write may change
 * a state from and to (a one-step deposit goes `pending` → `deposit_received` in one write, by
 * way of `matched`). The database's check holds exactly these pairs.
 */
export function reachablePairs<S extends string>(lifecycle: IntentLifecycle<S>): [S, S][] {
  const pairs: [S, S][] = [];
  for (const from of lifecycle.states) {
    const seen = new Set<S>();
    let frontier: S[] = [from];
    // A path visits each state at most once, so the walk ends within `states.length` rounds.
    for (let round = 0; round < lifecycle.states.length && frontier.length > 0; round++) {
      frontier = frontier.flatMap((state) =>
        lifecycle.edges.filter(([a, b]) => a === state && !seen.has(b)).map(([, b]) => b),
      );
      for (const state of frontier) seen.add(state);
    }
    for (const to of [...seen].sort()) pairs.push([from, to]);
  }
  return pairs;
}
