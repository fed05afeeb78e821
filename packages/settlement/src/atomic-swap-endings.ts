/**
 * The ways an atomic swap ends before it is signed (docs/spec/atomic-swaps.md#states): the
 * trader cancels it, or nobody signs it by `expiresAt`. Either releases the reservation of the
 * pool's holdings (the database does, as the swap leaves `prepared`); a cancel also lets go at
 * once of what the port set aside for it (the expiry comes when that lapses anyway).
 */
import { DomainError } from '@poolparty/core';
import type { AtomicSwapPort } from '@poolparty/ledger';
import {
  type AtomicSwapRecord,
  type Database,
  dueAtomicSwaps,
  getAtomicSwapForParty,
  transitionAtomicSwap,
} from '@poolparty/store';
import { endSetAside } from './atomic-swap-prepare.js';

/**
 * Cancels the trader's prepared swap; a swap signed already is the ledger's, and one that ended is
 * over: both `intent_not_cancellable`, with the state it is in.
 */
export async function cancelAtomicSwap(
  db: Database,
  request: { readonly atomicSwapId: string; readonly trader: string; readonly now: Date },
  /** The ledger's port, which lets go of the holdings it set aside for the swap. */
  atomicSwaps: Pick<AtomicSwapPort, 'endSetAside'> | null = null,
): Promise<AtomicSwapRecord> {
  const { atomicSwapId, trader, now } = request;
  const swap = await getAtomicSwapForParty(db, atomicSwapId, trader);
  if (swap === null) throw new DomainError('not_found', `No atomic swap ${atomicSwapId}.`);
  // A compare-and-set on `prepared`: a signature accepted meanwhile wins, and this is refused.
  const moved = await transitionAtomicSwap(db, {
    atomicSwapId,
    from: ['prepared'],
    to: 'cancelled',
    at: now,
    failure: { code: 'cancelled', message: 'cancelled by the trader before signing' },
  });
  if (moved !== null) {
    endSetAside({ atomicSwaps }, moved);
    return moved;
  }
  const current = (await getAtomicSwapForParty(db, atomicSwapId, trader)) ?? swap;
  throw new DomainError(
    'intent_not_cancellable',
    `Atomic swap ${atomicSwapId} is ${current.status}; only a prepared swap can be cancelled.`,
    { intentStatus: current.status },
  );
}

/** Expires one bounded batch of prepared swaps past `expiresAt`; returns how many expired. */
export async function expireAtomicSwaps(db: Database, now: Date, limit: number): Promise<number> {
  let expired = 0;
  for (const swap of await dueAtomicSwaps(db, now, limit)) {
    const moved = await transitionAtomicSwap(db, {
      atomicSwapId: swap.atomicSwapId,
      from: ['prepared'],
      to: 'expired',
      at: now,
      failure: { code: 'atomic_swap_expired', message: 'no signature before expiresAt' },
    });
    if (moved !== null) expired += 1;
  }
  return expired;
}
