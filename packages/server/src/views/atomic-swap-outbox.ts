/**
 * The atomic swaps' outbox, `atomic_swap_events` (docs/spec/atomic-swaps.md#states), as a client
 * reads it: each event's `data` is the AtomicSwap as of that event — its state and failure then,
 * the update id and excess once completed. Every row is a state change.
 */
import { type AtomicSwap, isAtomicSwapState, isAtomicSwapTerminal } from '@poolparty/core';
import {
  type AtomicSwapEventRecord,
  type AtomicSwapRecord,
  getAtomicSwap,
  getPool,
  listAtomicSwapEvents,
  type PoolRecord,
} from '@poolparty/store';
import { atomicSwapView } from './atomic-swap.js';
import type { OutboxKind } from './outbox.js';

export interface AtomicSwapFacts {
  readonly swap: AtomicSwapRecord;
  readonly pool: PoolRecord;
}

function isTerminal(status: string): boolean {
  return isAtomicSwapState(status) && isAtomicSwapTerminal(status);
}

function failureOf(payload: Readonly<Record<string, unknown>>) {
  const { failure } = payload as { failure?: { code?: unknown; message?: unknown } };
  if (typeof failure?.code !== 'string') return null;
  return {
    code: failure.code,
    message: typeof failure.message === 'string' ? failure.message : '',
  };
}

/** The swap as of `event`: the record itself for its latest event, else its state then. */
function atomicSwapAtEvent(
  { swap, pool }: AtomicSwapFacts,
  events: readonly AtomicSwapEventRecord[],
  event: AtomicSwapEventRecord,
): AtomicSwap {
  const view = atomicSwapView(swap, pool);
  if (events.at(-1)?.seq === event.seq && swap.status === event.status) return view;
  const failure = failureOf(event.payload);
  const completed = event.status === 'completed';
  return {
    ...view,
    status: event.status,
    failure,
    updateId: completed ? view.updateId : null,
    excess: completed ? view.excess : null,
    updatedAt: event.at.toISOString(),
  };
}

/** Its notifications name the swap as `atomicSwapId` (migration 0021's trigger). */
export const ATOMIC_SWAP_OUTBOX: OutboxKind<AtomicSwapEventRecord, AtomicSwapFacts> = {
  channel: { name: 'atomic_swap_events', subjectField: 'atomicSwapId' },
  read: async (db, atomicSwapId) => {
    const events = await listAtomicSwapEvents(db, atomicSwapId);
    const swap = await getAtomicSwap(db, atomicSwapId);
    const pool = swap === null ? null : await getPool(db, swap.poolId);
    if (swap === null || pool === null) return { events, subject: null };
    return { events, subject: { swap, pool } };
  },
  isTerminal,
  viewAt: atomicSwapAtEvent,
};
