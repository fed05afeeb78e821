/**
 * The holdings each sender's transfers in this process have named and not yet ended. A Token
 * Standard transfer names its inputs (`inputHoldingCids`), read from the sender's active set just
 * before it is submitted; two transfers of one sender naming the same holding would see the second
 * refused for inputs the first spent. So a transfer names only holdings no other has claimed, and
 * transfers naming disjoint holdings run side by side. When a sender's free holdings do not cover
 * a transfer while others of its transfers are under way, it waits for one of them to end (its
 * change is then a holding again) rather than be refused. Holdings a committed transfer spent are
 * remembered a while, so a read of the active set that still lists them does not name them again.
 * Other processes are not seen: a refusal and a retry cover those.
 *
 * Holdings an atomic swap's output leg will name are set aside for it the same way, from the
 * moment they are picked until the swap's execution ends (spent or not) or its deadline passes:
 * no transfer of this process names them meanwhile, and a swap picks none a transfer is spending.
 */
import { keepRecent } from '@poolparty/core';
import { LedgerError } from '../port.js';

/** Transfers of one sender waiting for another to end, at most: past it, one is refused. */
export const CLAIM_WAITERS_MAX = 1_000;
/** Rounds of waiting for another transfer of the sender to end, at most, before going on short. */
export const CLAIM_ROUNDS_MAX = 100;
/** Senders whose count of ended transfers is kept (a stale count only costs one more read). */
export const SENDERS_KEPT = 10_000;
/** How many spent holdings are remembered (the active set catches up within moments). */
export const SPENT_HOLDINGS_KEPT = 10_000;
/** Holdings set aside for atomic swaps at once, at most: past it, the oldest set aside go first. */
export const SET_ASIDE_HOLDINGS_MAX = 10_000;

interface SetAside {
  readonly sender: string;
  /** Wall-clock time from which the holding is no longer aside (the swap's deadline passed). */
  readonly untilMs: number;
}

export class HoldingClaims {
  private readonly claimed = new Map<string, Set<string>>();
  private readonly waiting = new Map<string, (() => void)[]>();
  private readonly spent = new Map<string, true>();
  private readonly aside = new Map<string, SetAside>();
  /** Claims each sender's transfers ended so far: a read begun before one ended may be stale. */
  private readonly released = new Map<string, number>();

  releases(sender: string): number {
    return this.released.get(sender) ?? 0;
  }

  /** Whether another transfer of this process named the holding, or spent it, or a swap holds it. */
  taken(sender: string, holdingId: string, nowMs: number = Date.now()): boolean {
    return (
      this.claimed.get(sender)?.has(holdingId) === true ||
      this.spent.has(holdingId) ||
      this.isAside(sender, holdingId, nowMs)
    );
  }

  private isAside(sender: string, holdingId: string, nowMs: number): boolean {
    const aside = this.aside.get(holdingId);
    if (aside === undefined || aside.sender !== sender) return false;
    if (aside.untilMs > nowMs) return true;
    this.aside.delete(holdingId);
    return false;
  }

  /** Sets the holdings aside for a swap until `untilMs` (see the module's note). */
  setAside(sender: string, holdingIds: readonly string[], untilMs: number): void {
    for (const id of holdingIds)
      keepRecent(this.aside, id, { sender, untilMs }, SET_ASIDE_HOLDINGS_MAX);
  }

  /** Ends what was set aside for a swap: spent (its execution committed), or free again. */
  endAside(holdingIds: readonly string[], spent: boolean): void {
    for (const id of holdingIds) {
      if (!this.aside.delete(id)) continue;
      if (spent) keepRecent(this.spent, id, true, SPENT_HOLDINGS_KEPT);
    }
  }

  /** Whether any transfer of `sender` in this process holds claims now. */
  busy(sender: string): boolean {
    return (this.claimed.get(sender)?.size ?? 0) > 0;
  }

  claim(sender: string, holdingIds: readonly string[]): void {
    const mine = this.claimed.get(sender) ?? new Set<string>();
    for (const id of holdingIds) mine.add(id);
    this.claimed.set(sender, mine);
  }

  /** Ends a transfer's claims; `spent` when it committed. Wakes the sender's waiting transfers. */
  release(sender: string, holdingIds: readonly string[], spent: boolean): void {
    const mine = this.claimed.get(sender);
    for (const id of holdingIds) {
      mine?.delete(id);
      if (spent) keepRecent(this.spent, id, true, SPENT_HOLDINGS_KEPT);
    }
    if (mine?.size === 0) this.claimed.delete(sender);
    keepRecent(this.released, sender, this.releases(sender) + 1, SENDERS_KEPT);
    const waiters = this.waiting.get(sender) ?? [];
    this.waiting.delete(sender);
    for (const wake of waiters) wake();
  }

  /** Resolves when a transfer of `sender` ends its claims. */
  nextRelease(sender: string): Promise<void> {
    const waiters = this.waiting.get(sender) ?? [];
    if (waiters.length >= CLAIM_WAITERS_MAX) {
      throw new LedgerError(
        'rejected',
        `${CLAIM_WAITERS_MAX} transfers of ${sender} are waiting for holdings already; try again`,
      );
    }
    this.waiting.set(sender, waiters);
    return new Promise((resolve) => waiters.push(resolve));
  }
}
