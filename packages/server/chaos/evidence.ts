/**
 * What the end of a chaos run is judged on, read from both sides independently: the store (the
 * deposits the service recorded, the flags it raised, each pool's books) and the ledger (every
 * transfer and offer that reached or left a swap party, each swap party's holdings).
 *
 * `assembleEvidence` is pure: it joins the two readings deposit by deposit. The readers next to
 * it do the I/O.
 */
import { type LedgerPort, type LedgerUpdate, REASON_META_KEY } from '@poolparty/ledger';
import { balanceOf, booksAndHoldings, type PoolBalance } from '@poolparty/settlement/testing';
import type { Queryable } from '@poolparty/store';

export { balanceOf, booksAndHoldings, type PoolBalance };

/** A deposit as the store recorded it. */
export interface StoredDeposit {
  readonly depositId: string;
  readonly updateId: string;
  readonly eventIndex: number;
  readonly poolId: string;
  readonly intentId: string | null;
  /** `attributed`, `unmatched`, `returned` or `flagged`. */
  readonly status: string;
  /** Set for a two-step deposit: the offer the service accepts or rejects. */
  readonly offerId: string | null;
}

export interface StoredFlag {
  readonly intentId: string | null;
  readonly depositId: string | null;
  readonly kind: string;
}

/** A transfer or offer from a trader to a swap party, as the ledger shows it. */
export interface LedgerDeposit {
  readonly updateId: string;
  readonly eventIndex: number;
  readonly receiver: string;
  readonly sender: string;
  readonly offerId: string | null;
}

/** What the ledger shows of the swap parties. */
export interface LedgerReading {
  readonly deposits: readonly LedgerDeposit[];
  /** Committed transfers by reason (`payout:<intentId>`, `refund:<intentId or depositId>`). */
  readonly transfersByReason: Readonly<Record<string, number>>;
  /** Offers a swap party rejected (returned deposits), by offer id. */
  readonly rejectedOffers: Readonly<Record<string, number>>;
}

/** One deposit and every outcome either side shows for it. */
export interface DepositEvidence {
  readonly depositId: string;
  readonly intentId: string | null;
  readonly storeStatus: string;
  /** Committed payout transfers of its intent. */
  readonly payouts: number;
  /** Committed refunds of it: refund transfers (by intent or deposit) and rejections of its offer. */
  readonly refunds: number;
  /** The store marked it, or its intent, for an operator. */
  readonly flagged: boolean;
}

export interface Evidence {
  readonly deposits: readonly DepositEvidence[];
  /** Deposits the ledger shows that the store never recorded (`<updateId>#<eventIndex>`). */
  readonly unrecorded: readonly string[];
  /** Deposits the traders made that the ledger does not show reaching a swap party. */
  readonly missingOnLedger: readonly string[];
  /** Payout transfers whose intent has no deposit in the store. */
  readonly payoutsWithoutDeposit: readonly string[];
  readonly pools: readonly PoolBalance[];
}

export interface StoreReading {
  readonly deposits: readonly StoredDeposit[];
  readonly flags: readonly StoredFlag[];
}

const PAYOUT = 'payout:';

export function assembleEvidence(
  store: StoreReading,
  ledger: LedgerReading,
  pools: readonly PoolBalance[],
  traderDepositUpdates: readonly string[],
): Evidence {
  const count = (reason: string) => ledger.transfersByReason[reason] ?? 0;
  const flaggedDeposits = new Set(store.flags.flatMap((f) => (f.depositId ? [f.depositId] : [])));
  const flaggedIntents = new Set(store.flags.flatMap((f) => (f.intentId ? [f.intentId] : [])));
  const deposits = store.deposits.map((d): DepositEvidence => {
    // Only an attributed deposit is paid out; an unmatched one is returned by its own id.
    const paidIntent = d.status === 'attributed' ? d.intentId : null;
    return {
      depositId: d.depositId,
      intentId: d.intentId,
      storeStatus: d.status,
      payouts: paidIntent ? count(`${PAYOUT}${paidIntent}`) : 0,
      refunds:
        (paidIntent ? count(`refund:${paidIntent}`) : 0) +
        count(`refund:${d.depositId}`) +
        (d.offerId ? (ledger.rejectedOffers[d.offerId] ?? 0) : 0),
      flagged:
        d.status === 'flagged' ||
        flaggedDeposits.has(d.depositId) ||
        (paidIntent !== null && flaggedIntents.has(paidIntent)),
    };
  });
  const recorded = new Set(store.deposits.map((d) => `${d.updateId}#${d.eventIndex}`));
  const unrecorded = ledger.deposits
    .map((d) => `${d.updateId}#${d.eventIndex}`)
    .filter((key) => !recorded.has(key));
  const onLedger = new Set(ledger.deposits.map((d) => d.updateId));
  const missingOnLedger = traderDepositUpdates.filter((updateId) => !onLedger.has(updateId));
  const paidIntents = new Set(deposits.flatMap((d) => (d.payouts > 0 ? [d.intentId] : [])));
  const payoutsWithoutDeposit = Object.keys(ledger.transfersByReason)
    .filter((reason) => reason.startsWith(PAYOUT))
    .map((reason) => reason.slice(PAYOUT.length))
    .filter((intentId) => !paidIntents.has(intentId));
  return { deposits, unrecorded, missingOnLedger, payoutsWithoutDeposit, pools };
}

/** Reads the ledger's side: every update of the swap parties up to the ledger's end now. */
export async function readLedger(
  ledger: LedgerPort,
  swapParties: readonly string[],
): Promise<LedgerReading> {
  const parties = new Set(swapParties);
  const deposits: LedgerDeposit[] = [];
  const transfersByReason: Record<string, number> = {};
  const rejectedOffers: Record<string, number> = {};
  for (const update of await updatesOf(ledger, swapParties)) {
    for (const [eventIndex, event] of update.events.entries()) {
      switch (event.kind) {
        case 'transfer': {
          const reason = event.meta[REASON_META_KEY];
          if (parties.has(event.sender) && reason !== undefined) {
            transfersByReason[reason] = (transfersByReason[reason] ?? 0) + 1;
          }
          if (parties.has(event.receiver) && event.offerId === null) {
            deposits.push({ updateId: update.updateId, eventIndex, ...depositParties(event) });
          }
          break;
        }
        case 'offer_created':
          if (parties.has(event.receiver)) {
            deposits.push({ updateId: update.updateId, eventIndex, ...depositParties(event) });
          }
          break;
        case 'offer_rejected':
          if (parties.has(event.receiver)) {
            rejectedOffers[event.offerId] = (rejectedOffers[event.offerId] ?? 0) + 1;
          }
          break;
        default:
          break;
      }
    }
  }
  return { deposits, transfersByReason, rejectedOffers };
}

function depositParties(event: {
  sender: string;
  receiver: string;
  offerId: string | null;
}): Omit<LedgerDeposit, 'updateId' | 'eventIndex'> {
  return { sender: event.sender, receiver: event.receiver, offerId: event.offerId };
}

/** The parties' updates from the ledger's start to its end now. */
async function updatesOf(ledger: LedgerPort, parties: readonly string[]): Promise<LedgerUpdate[]> {
  const end = await ledger.ledgerEnd();
  const updates: LedgerUpdate[] = [];
  if (end === 0) return updates;
  const controller = new AbortController();
  // A filtered stream skips other parties' offsets, so the last update these parties see may lie
  // before the end and the stream never reaches it: stop at the end or when the stream is quiet.
  const reading = (async () => {
    for await (const update of ledger.updates(0, {
      parties: [...parties],
      signal: controller.signal,
    })) {
      updates.push(update);
      if (update.offset >= end) break;
    }
  })();
  await Promise.race([reading, quiet(updates, controller.signal)]);
  controller.abort();
  await reading.catch(() => {});
  return updates;
}

/** Resolves once no update arrived for a few seconds (the history is delivered at once). */
async function quiet(updates: readonly LedgerUpdate[], signal: AbortSignal): Promise<void> {
  let seen = -1;
  while (!signal.aborted) {
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    if (updates.length === seen) return;
    seen = updates.length;
  }
}

/** Reads the store's side. */
export async function readStore(q: Queryable): Promise<StoreReading> {
  const deposits = await q.query<{
    deposit_id: string;
    update_id: string;
    event_index: number;
    pool_id: string;
    intent_id: string | null;
    status: string;
    offer_id: string | null;
  }>(
    `SELECT deposit_id, update_id, event_index, pool_id, intent_id, status, offer_id
       FROM deposits ORDER BY ledger_offset, event_index`,
  );
  const flags = await q.query<{
    intent_id: string | null;
    deposit_id: string | null;
    kind: string;
  }>('SELECT intent_id, deposit_id, kind FROM operator_flags ORDER BY id');
  return {
    deposits: deposits.map((d) => ({
      depositId: d.deposit_id,
      updateId: d.update_id,
      eventIndex: Number(d.event_index),
      poolId: d.pool_id,
      intentId: d.intent_id,
      status: d.status,
      offerId: d.offer_id,
    })),
    flags: flags.map((f) => ({ intentId: f.intent_id, depositId: f.deposit_id, kind: f.kind })),
  };
}
