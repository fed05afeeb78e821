/**
 * Swaps of both kinds as the status routes and `track` answer them (docs/spec/atomic-swaps.md,
 * "Status and track"): a deposit-flow intent as its SwapStatus, an atomic swap as its
 * AtomicSwapStatus, `kind` telling them apart. An id says its kind (`atm_…` is an atomic swap's).
 */
import type { AtomicSwapStatus, SwapStatus } from '@poolparty/core';
import {
  getAtomicSwap,
  getAtomicSwapForParty,
  listAtomicSwapHistories,
  listIntentHistories,
  type PartySwap,
  type Queryable,
} from '@poolparty/store';
import { atomicSwapStatusView } from './atomic-swap.js';
import { swapStatusView } from './swap-status.js';

/** A swap's status, of either kind. */
export type AnySwapStatus = SwapStatus | AtomicSwapStatus;

/**
 * The atomic swap `atomicSwapId` as a status; with `trader`, that party's only (another party's
 * is null, as an unknown id is, so ids cannot be probed).
 */
export async function atomicSwapStatusOf(
  q: Queryable,
  atomicSwapId: string,
  trader?: string,
): Promise<AtomicSwapStatus | null> {
  const swap =
    trader === undefined
      ? await getAtomicSwap(q, atomicSwapId)
      : await getAtomicSwapForParty(q, atomicSwapId, trader);
  if (swap === null) return null;
  const histories = await listAtomicSwapHistories(q, [atomicSwapId]);
  return atomicSwapStatusView(swap, histories.get(atomicSwapId) ?? []);
}

/** A page of a party's swaps as statuses, in the page's order: one history read per kind. */
export async function statusesOf(
  q: Queryable,
  page: readonly PartySwap[],
): Promise<AnySwapStatus[]> {
  const intentIds = page.flatMap((entry) =>
    entry.kind === 'deposit' ? [entry.intent.intentId] : [],
  );
  const atomicIds = page.flatMap((entry) =>
    entry.kind === 'atomic' ? [entry.swap.atomicSwapId] : [],
  );
  const intentHistories = await listIntentHistories(q, intentIds);
  const atomicHistories = await listAtomicSwapHistories(q, atomicIds);
  return page.map((entry) =>
    entry.kind === 'deposit'
      ? swapStatusView(entry.intent, intentHistories.get(entry.intent.intentId) ?? [])
      : atomicSwapStatusView(entry.swap, atomicHistories.get(entry.swap.atomicSwapId) ?? []),
  );
}
