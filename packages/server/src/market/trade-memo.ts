/**
 * Priced trades remembered between quotes. Pricing a trade (fees, constant-product output, rates,
 * and their decimal strings on the wire) depends only on the pool book's read, the ledger's prices
 * and the discounts that won, none of which changes from one quote to the next: they change when
 * the book is re-read (≥ 1 s apart) or the prices are (≥ 5 s apart). So a trade is priced once per
 * such change and the same request reuses it. What depends on the moment — which discounts are in
 * force, and the settlement-safety guard — is still worked out on every quote.
 *
 * An entry is used only while every input it was priced from is the very same object (the book's
 * pool list and the pool's snapshot, the traffic parameters, the mining round) and the same discounts won: a re-read
 * replaces those objects, so nothing stale can be answered. Entries are bounded; when full, the
 * memo starts over.
 */
import type {
  AppliedDiscount,
  PricedTrade,
  SelectedDiscounts,
  TradeBelowMinimum,
  WireQuote,
} from '@poolparty/core';
import type { MiningRound, TrafficParameters } from '@poolparty/ledger';

const TRADE_MEMO_ENTRIES_MAX = 4_096;

/** What a trade was priced from, compared by identity (or by value for the discounts). */
export interface TradeInputs {
  /** The pool book's list the USD prices were found in, and the pool's snapshot priced. */
  readonly book: object;
  readonly snapshot: object;
  readonly poolId: string;
  readonly inputSide: 'tokenA' | 'tokenB';
  /** The deposit as asked for, before parsing. */
  readonly amountText: string;
  readonly traffic: TrafficParameters;
  readonly round: MiningRound;
  readonly discounts: SelectedDiscounts;
}

/** A priced trade with its quote's wire fields, all but the settlement-safety verdict. */
export interface RememberedTrade {
  readonly trade: PricedTrade | TradeBelowMinimum;
  /** `assembleQuote(trade, null)` for a priced trade; null below the minimum. */
  readonly wire: WireQuote | null;
}

interface Entry extends RememberedTrade {
  readonly inputs: TradeInputs;
}

export class TradeMemo {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly entriesMax = TRADE_MEMO_ENTRIES_MAX) {}

  /** The trade priced from `inputs`, priced by `price` unless it already was. */
  priced(inputs: TradeInputs, price: () => RememberedTrade): RememberedTrade {
    const key = `${inputs.poolId}\u0000${inputs.inputSide}\u0000${inputs.amountText}`;
    const entry = this.entries.get(key);
    if (entry !== undefined && sameInputs(entry.inputs, inputs)) return entry;
    const remembered = price();
    if (entry === undefined && this.entries.size >= this.entriesMax) this.entries.clear();
    this.entries.set(key, { ...remembered, inputs });
    return remembered;
  }
}

function sameInputs(a: TradeInputs, b: TradeInputs): boolean {
  return (
    a.book === b.book &&
    a.snapshot === b.snapshot &&
    a.traffic === b.traffic &&
    a.round === b.round &&
    sameDiscount(a.discounts.network, b.discounts.network) &&
    sameDiscount(a.discounts.platform, b.discounts.platform)
  );
}

function sameDiscount(a: AppliedDiscount | null, b: AppliedDiscount | null): boolean {
  if (a === null || b === null) return a === b;
  return a.targetType === b.targetType && a.targetId === b.targetId && a.chargeBps === b.chargeBps;
}
