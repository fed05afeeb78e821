/**
 * What the end of a chaos run is judged on, read from both sides independently: the store (the
 * deposits the service recorded, swaps' and liquidity's, the atomic swaps and how they ended, the
 * flags it raised, each pool's books, what joined the pools) and the ledger (every transfer and
 * offer that reached or left a swap party, the updates under the atomic swaps' command ids, each
 * swap party's holdings, and for every party of the run what was minted to it, what its
 * transfers burned and what it holds).
 *
 * `assembleEvidence` is pure: it joins the two readings deposit by deposit and party by party.
 * The readers next to it do the I/O.
 */
import { Amount, instrumentKey } from '@poolparty/core';
import {
  type LedgerEvent,
  type LedgerPort,
  type LedgerUpdate,
  REASON_META_KEY,
} from '@poolparty/ledger';
import { atomicSwapCommandId } from '@poolparty/settlement';
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

/** A deposit to an LP party as the store recorded it, with its intent's state. */
export interface StoredLiquidityDeposit {
  readonly depositId: string;
  readonly poolId: string;
  readonly sender: string;
  readonly intentId: string | null;
  /** The state of the intent that took it; null when none did. */
  readonly intentStatus: string | null;
  /** `accepting`, `forwarding`, `forwarded`, `returning`, `returned` or `flagged`. */
  readonly status: string;
  readonly unmatchedReason: string | null;
}

/** An atomic swap as the store recorded it. */
export interface StoredAtomicSwap {
  readonly atomicSwapId: string;
  readonly status: string;
  /** The command ids of every preparation it had (`atomic-<id>-1` …). */
  readonly commandIds: readonly string[];
  /** The update it completed in; null unless `completed`. */
  readonly updateId: string | null;
}

/** An update the ledger committed under an atomic swap's command id. */
export interface LedgerAtomicUpdate {
  readonly commandId: string;
  readonly updateId: string;
  /** Its transfers: an atomic swap's are its two legs. */
  readonly transfers: number;
}

/** One atomic swap against what the ledger committed under its command ids. */
export interface AtomicEvidence {
  readonly atomicSwapId: string;
  readonly status: string;
  readonly updateId: string | null;
  /** The updates under its command ids, with their transfers. */
  readonly onLedger: readonly { readonly updateId: string; readonly transfers: number }[];
}

/** An operator flag not yet resolved. */
export interface OpenFlag {
  readonly id: number;
  readonly kind: string;
}

/** What joined the pools from one provider, of one instrument (completed intents). */
export interface Joined {
  readonly provider: string;
  /** `<id>@<admin>`. */
  readonly instrument: string;
  readonly amount: string;
}

/** The parties of a run, by what the final checks expect of them. */
export interface RunParties {
  readonly swap: readonly string[];
  readonly lp: readonly string[];
  readonly providers: readonly string[];
  /** Every other party of the run: traders, the seeded developer, users and treasury. */
  readonly others: readonly string[];
}

/** One party's figures of one instrument on the ledger, from its start. */
export interface LedgerAccount {
  readonly party: string;
  /** `<id>@<admin>`. */
  readonly instrument: string;
  readonly minted: string;
  readonly burned: string;
  /** What its transfers burned beyond their amounts. */
  readonly feesBurned: string;
  /** Its holdings now, locked ones included. */
  readonly holdings: string;
}

/** A transfer between a party of the run and one outside it. */
export interface CrossingTransfer {
  readonly updateId: string;
  readonly sender: string;
  readonly receiver: string;
  readonly instrument: string;
  readonly amount: string;
  readonly reason: string | null;
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
  readonly parties: RunParties;
  /** Per party of the run and instrument it ever had. */
  readonly accounts: readonly LedgerAccount[];
  /** Transfers into or out of the run's parties: none is expected. */
  readonly crossings: readonly CrossingTransfer[];
  /** Updates under the stored atomic swaps' command ids; their legs are no deposits. */
  readonly atomicUpdates: readonly LedgerAtomicUpdate[];
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

/** A provider's instrument: what was minted to it against where it went. */
export interface ProviderBalance {
  readonly party: string;
  readonly instrument: string;
  readonly minted: string;
  /** Holdings now + what joined pools + what its transfers burned + what was burned of it. */
  readonly accounted: string;
}

/** One instrument over every party of the run. */
export interface InstrumentTotal {
  readonly instrument: string;
  /** Minted to the run's parties, plus what came in from outside them. */
  readonly minted: string;
  /** Held now, plus what transfers burned, what was burned, and what went to outside parties. */
  readonly accounted: string;
}

export interface LiquidityEvidence {
  readonly deposits: readonly StoredLiquidityDeposit[];
  readonly lpParties: readonly string[];
  /** LP parties' holdings that are not zero. */
  readonly lpHoldings: readonly LedgerAccount[];
  /** Open flags of an update or a swap set aside. */
  readonly setAside: readonly OpenFlag[];
  readonly providers: readonly ProviderBalance[];
  readonly totals: readonly InstrumentTotal[];
  readonly crossings: readonly CrossingTransfer[];
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
  readonly liquidity: LiquidityEvidence;
  readonly atomic: readonly AtomicEvidence[];
  /** Open reconciliation mismatch flags: pools the service's own check blocked. */
  readonly mismatches: readonly OpenFlag[];
}

export interface StoreReading {
  readonly deposits: readonly StoredDeposit[];
  readonly flags: readonly StoredFlag[];
  readonly liquidityDeposits: readonly StoredLiquidityDeposit[];
  readonly openFlags: readonly OpenFlag[];
  readonly joined: readonly Joined[];
  readonly atomicSwaps: readonly StoredAtomicSwap[];
}

/** The flags of work the service set aside after it kept failing. */
export const SET_ASIDE_KINDS: readonly string[] = ['update_set_aside', 'execution_set_aside'];
/** The flag the service's own reconciliation raises, blocking a pool until an operator acts. */
export const MISMATCH_KIND = 'reconciliation_mismatch';

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
  const liquidity = liquidityEvidence(store, ledger);
  const atomic = atomicEvidence(store.atomicSwaps, ledger.atomicUpdates);
  const mismatches = store.openFlags.filter((f) => f.kind === MISMATCH_KIND);
  return {
    deposits,
    unrecorded,
    missingOnLedger,
    payoutsWithoutDeposit,
    pools,
    liquidity,
    atomic,
    mismatches,
  };
}

/** Each atomic swap with the updates under its command ids. */
function atomicEvidence(
  swaps: readonly StoredAtomicSwap[],
  updates: readonly LedgerAtomicUpdate[],
): AtomicEvidence[] {
  const byCommand = new Map<string, LedgerAtomicUpdate[]>();
  for (const u of updates) byCommand.set(u.commandId, [...(byCommand.get(u.commandId) ?? []), u]);
  return swaps.map((swap) => ({
    atomicSwapId: swap.atomicSwapId,
    status: swap.status,
    updateId: swap.updateId,
    onLedger: swap.commandIds
      .flatMap((commandId) => byCommand.get(commandId) ?? [])
      .map(({ updateId, transfers }) => ({ updateId, transfers })),
  }));
}

const sumOf = (amounts: readonly string[]) => Amount.sum(amounts.map((a) => Amount.parse(a)));

/** The liquidity side of the evidence: deposits, LP parties, providers, totals. */
function liquidityEvidence(store: StoreReading, ledger: LedgerReading): LiquidityEvidence {
  const lp = new Set(ledger.parties.lp);
  const providers = new Set(ledger.parties.providers);
  const joined = (party: string, instrument: string) =>
    store.joined.filter((j) => j.provider === party && j.instrument === instrument);
  const providerBalances = ledger.accounts
    .filter((a) => providers.has(a.party))
    .map((a) => ({
      party: a.party,
      instrument: a.instrument,
      minted: a.minted,
      accounted: sumOf([
        a.holdings,
        a.feesBurned,
        a.burned,
        ...joined(a.party, a.instrument).map((j) => j.amount),
      ]).toString(),
    }));
  return {
    deposits: store.liquidityDeposits,
    lpParties: ledger.parties.lp,
    lpHoldings: ledger.accounts.filter(
      (a) => lp.has(a.party) && Amount.parse(a.holdings).isPositive(),
    ),
    setAside: store.openFlags.filter((f) => SET_ASIDE_KINDS.includes(f.kind)),
    providers: providerBalances,
    totals: instrumentTotals(ledger),
    crossings: ledger.crossings,
  };
}

/** Per instrument over every party of the run: what was minted or came in, and where it is. */
function instrumentTotals(ledger: LedgerReading): InstrumentTotal[] {
  const instruments = [...new Set(ledger.accounts.map((a) => a.instrument))].sort();
  const parties = new Set(Object.values(ledger.parties).flat());
  return instruments.map((instrument) => {
    const accounts = ledger.accounts.filter((a) => a.instrument === instrument);
    const crossing = ledger.crossings.filter((c) => c.instrument === instrument);
    const cameIn = crossing.filter((c) => parties.has(c.receiver)).map((c) => c.amount);
    const wentOut = crossing.filter((c) => parties.has(c.sender)).map((c) => c.amount);
    return {
      instrument,
      minted: sumOf([...accounts.map((a) => a.minted), ...cameIn]).toString(),
      accounted: sumOf([
        ...accounts.flatMap((a) => [a.holdings, a.feesBurned, a.burned]),
        ...wentOut,
      ]).toString(),
    };
  });
}

/** What the ledger shows of the swap parties, as it is read. */
interface SwapSide {
  readonly deposits: LedgerDeposit[];
  readonly transfersByReason: Record<string, number>;
  readonly rejectedOffers: Record<string, number>;
}

/**
 * Reads the ledger's side: every update of the run's parties up to the ledger's end now, and
 * every party's holdings after it. An update under one of `atomicCommands` (the stored atomic
 * swaps' command ids) is that swap's execution: its legs are no deposit, and it is read as such.
 */
export async function readLedger(
  ledger: LedgerPort,
  parties: RunParties,
  atomicCommands: ReadonlySet<string> = new Set(),
): Promise<LedgerReading> {
  const swap: SwapSide = { deposits: [], transfersByReason: {}, rejectedOffers: {} };
  const roles = { swap: new Set(parties.swap), lp: new Set(parties.lp) };
  const book = new AccountBook(parties);
  const atomicUpdates: LedgerAtomicUpdate[] = [];
  for (const update of await updatesOf(ledger, book.parties)) {
    const { commandId, updateId, events } = update;
    const atomic = commandId !== null && atomicCommands.has(commandId);
    if (atomic) {
      const transfers = events.filter((e) => e.kind === 'transfer').length;
      atomicUpdates.push({ commandId, updateId, transfers });
    }
    for (const [eventIndex, event] of events.entries()) {
      if (!atomic) readSwapEvent(swap, roles, updateId, eventIndex, event);
      book.add(updateId, event);
    }
  }
  const accounts = await book.accounts(ledger);
  return { ...swap, parties, accounts, crossings: book.crossings, atomicUpdates };
}

/** What one event shows of the swap parties: a deposit, a transfer by reason, a rejected offer. */
function readSwapEvent(
  { deposits, transfersByReason, rejectedOffers }: SwapSide,
  { swap, lp }: { readonly swap: ReadonlySet<string>; readonly lp: ReadonlySet<string> },
  updateId: string,
  eventIndex: number,
  event: LedgerEvent,
): void {
  // What an LP party sends a swap party is liquidity forwarded into the pool, not a deposit.
  const deposited = (e: { sender: string; receiver: string }) =>
    swap.has(e.receiver) && !lp.has(e.sender);
  switch (event.kind) {
    case 'transfer': {
      const reason = event.meta[REASON_META_KEY];
      if (swap.has(event.sender) && reason !== undefined) {
        transfersByReason[reason] = (transfersByReason[reason] ?? 0) + 1;
      }
      if (deposited(event) && event.offerId === null) {
        deposits.push({ updateId, eventIndex, ...depositParties(event) });
      }
      break;
    }
    case 'offer_created':
      if (deposited(event)) deposits.push({ updateId, eventIndex, ...depositParties(event) });
      break;
    case 'offer_rejected':
      if (swap.has(event.receiver)) {
        rejectedOffers[event.offerId] = (rejectedOffers[event.offerId] ?? 0) + 1;
      }
      break;
    default:
      break;
  }
}

/** Per party of the run and instrument: what was minted, burned and burned in fees. */
class AccountBook {
  readonly parties: readonly string[];
  readonly crossings: CrossingTransfer[] = [];
  private readonly members: ReadonlySet<string>;
  private readonly figures = new Map<string, { minted: Amount; burned: Amount; fees: Amount }>();

  constructor(parties: RunParties) {
    this.parties = [...new Set(Object.values(parties).flat())];
    this.members = new Set(this.parties);
  }

  add(updateId: string, event: LedgerEvent): void {
    switch (event.kind) {
      case 'mint':
      case 'burn': {
        if (!this.members.has(event.owner)) return;
        const figures = this.at(event.owner, event.instrument);
        if (event.kind === 'mint') figures.minted = figures.minted.add(event.amount);
        else figures.burned = figures.burned.add(event.amount);
        return;
      }
      case 'transfer': {
        const { sender, receiver, instrument, amount } = event;
        if (this.members.has(sender)) {
          const figures = this.at(sender, instrument);
          figures.fees = figures.fees.add(event.feesBurned);
        }
        if (this.members.has(sender) !== this.members.has(receiver)) {
          const reason = event.meta[REASON_META_KEY] ?? null;
          const key = instrumentKey(instrument);
          this.crossings.push({
            updateId,
            sender,
            receiver,
            instrument: key,
            amount: amount.toString(),
            reason,
          });
        }
        return;
      }
      default:
        return;
    }
  }

  /** Every party's figures with its holdings now, one row per instrument it ever had. */
  async accounts(ledger: LedgerPort): Promise<LedgerAccount[]> {
    const rows: LedgerAccount[] = [];
    for (const party of this.parties) {
      const held = new Map<string, Amount>();
      for (const holding of await ledger.getHoldings(party)) {
        const key = instrumentKey(holding.instrument);
        held.set(key, (held.get(key) ?? Amount.ZERO).add(holding.amount));
      }
      const keys = new Set([...held.keys(), ...this.keysOf(party)]);
      for (const instrument of [...keys].sort()) {
        const figures = this.figures.get(`${party}\n${instrument}`);
        rows.push({
          party,
          instrument,
          minted: (figures?.minted ?? Amount.ZERO).toString(),
          burned: (figures?.burned ?? Amount.ZERO).toString(),
          feesBurned: (figures?.fees ?? Amount.ZERO).toString(),
          holdings: (held.get(instrument) ?? Amount.ZERO).toString(),
        });
      }
    }
    return rows;
  }

  private keysOf(party: string): string[] {
    const prefix = `${party}\n`;
    return [...this.figures.keys()]
      .filter((k) => k.startsWith(prefix))
      .map((k) => k.slice(prefix.length));
  }

  private at(party: string, instrument: { id: string; admin: string }) {
    const key = `${party}\n${instrumentKey(instrument)}`;
    let figures = this.figures.get(key);
    if (figures === undefined) {
      figures = { minted: Amount.ZERO, burned: Amount.ZERO, fees: Amount.ZERO };
      this.figures.set(key, figures);
    }
    return figures;
  }
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
    const seen = new Set<string>();
    for await (const update of ledger.updates(0, {
      parties: [...parties],
      signal: controller.signal,
    })) {
      // A second delivery of an update is the stream's, not a second transfer.
      if (!seen.has(update.updateId)) updates.push(update);
      seen.add(update.updateId);
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
  const openFlags = await q.query<{ id: string; kind: string }>(
    'SELECT id::text AS id, kind FROM operator_flags WHERE resolved_at IS NULL ORDER BY id',
  );
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
    liquidityDeposits: await readLiquidityDeposits(q),
    openFlags: openFlags.map((f) => ({ id: Number(f.id), kind: f.kind })),
    joined: await readJoined(q),
    atomicSwaps: await readAtomicSwaps(q),
  };
}

/** Every atomic swap, with the command ids of all its preparations. */
async function readAtomicSwaps(q: Queryable): Promise<StoredAtomicSwap[]> {
  const rows = await q.query<{
    atomic_swap_id: string;
    status: string;
    preparations: number;
    update_id: string | null;
  }>(
    `SELECT atomic_swap_id, status, preparations, update_id
       FROM atomic_swaps ORDER BY created_at, atomic_swap_id`,
  );
  return rows.map((r) => ({
    atomicSwapId: r.atomic_swap_id,
    status: r.status,
    commandIds: Array.from({ length: Number(r.preparations) }, (_, n) =>
      atomicSwapCommandId(r.atomic_swap_id, n + 1),
    ),
    updateId: r.update_id,
  }));
}

/** The command ids of every preparation of the stored atomic swaps. */
export function atomicCommandsOf(store: StoreReading): Set<string> {
  return new Set(store.atomicSwaps.flatMap((swap) => swap.commandIds));
}

async function readLiquidityDeposits(q: Queryable): Promise<StoredLiquidityDeposit[]> {
  const rows = await q.query<{
    deposit_id: string;
    pool_id: string;
    sender: string;
    liquidity_intent_id: string | null;
    intent_status: string | null;
    status: string;
    unmatched_reason: string | null;
  }>(
    `SELECT d.deposit_id, d.pool_id, d.sender, d.liquidity_intent_id, i.status AS intent_status,
            d.status, d.unmatched_reason
       FROM liquidity_deposits d
       LEFT JOIN liquidity_intents i ON i.liquidity_intent_id = d.liquidity_intent_id
      ORDER BY d.ledger_offset, d.event_index`,
  );
  return rows.map((d) => ({
    depositId: d.deposit_id,
    poolId: d.pool_id,
    sender: d.sender,
    intentId: d.liquidity_intent_id,
    intentStatus: d.intent_status,
    status: d.status,
    unmatchedReason: d.unmatched_reason,
  }));
}

/** What joined the pools from each provider, per instrument: its completed intents' sides. */
async function readJoined(q: Queryable): Promise<Joined[]> {
  const rows = await q.query<{ provider: string; id: string; admin: string; amount: string }>(
    `SELECT i.provider_party AS provider, side.id, side.admin, sum(side.amount)::text AS amount
       FROM liquidity_intents i
       JOIN pools p ON p.pool_id = i.pool_id
       CROSS JOIN LATERAL (VALUES (p.token_a_id, p.token_a_admin, i.joined_a),
                                  (p.token_b_id, p.token_b_admin, i.joined_b))
         AS side (id, admin, amount)
      WHERE i.status = 'completed'
      GROUP BY 1, 2, 3
      ORDER BY 1, 2, 3`,
  );
  return rows.map((r) => ({
    provider: r.provider,
    instrument: instrumentKey({ id: r.id, admin: r.admin }),
    amount: Amount.parse(r.amount).toString(),
  }));
}
