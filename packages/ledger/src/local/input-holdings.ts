/**
 * Which holdings a transfer (or a burn) spends: the decision alone, over the holdings given, so
 * that it can be checked without a ledger.
 *
 * - Named inputs (`inputHoldingCids`): the Token Standard says a transfer that names its inputs
 *   archives exactly those. Each must be an active, unlocked holding of the sender of the
 *   transferred instrument, named once; together they must cover the amount.
 * - Otherwise the ledger picks: the owner's unlocked holdings of the instrument, largest first
 *   (ties: oldest first), until they cover the amount. That spends the fewest holdings.
 *
 * What the inputs hold beyond the amount comes back to the owner as one change holding.
 */
import { Amount, type Instrument, instrumentKey } from '@poolparty/core';
import { type Holding, LedgerError } from '../port.js';

/**
 * The most holdings one transfer may name: what the wallet SDK's merge puts into one transfer.
 * A transfer naming more is refused rather than archiving an unbounded set in one update.
 */
export const INPUT_HOLDINGS_MAX = 100;

export interface InputSelection {
  readonly inputs: readonly Holding[];
  /** What the inputs hold beyond the amount: the owner's change. */
  readonly change: Amount;
}

function covering(
  inputs: readonly Holding[],
  owner: string,
  instrument: Instrument,
  amount: Amount,
  named: boolean,
): InputSelection {
  const covered = inputs.reduce((total, h) => total.add(h.amount), Amount.ZERO);
  if (covered.lt(amount)) {
    // The wording wallets and the web pages read a short balance by: "holds X unlocked T, needs Y".
    const where = named ? ' in the inputs it names' : '';
    throw new LedgerError(
      'insufficient_holdings',
      `${owner} holds ${covered} unlocked ${instrument.id}${where}, needs ${amount}`,
    );
  }
  return { inputs, change: covered.sub(amount) };
}

/** Largest-first selection among the owner's holdings of the instrument (creation order). */
export function selectLargestFirst(
  holdings: readonly Holding[],
  owner: string,
  instrument: Instrument,
  amount: Amount,
): InputSelection {
  const spendable = holdings
    .filter((h) => h.lock === null)
    .sort((a, b) => b.amount.compare(a.amount));
  const inputs: Holding[] = [];
  let covered = Amount.ZERO;
  for (const holding of spendable) {
    if (covered.gte(amount)) break;
    inputs.push(holding);
    covered = covered.add(holding.amount);
  }
  return covering(inputs, owner, instrument, amount, false);
}

/** Why a named holding cannot be an input of the owner's transfer of the instrument, if it cannot. */
function unfitInput(
  id: string,
  holding: Holding | undefined,
  owner: string,
  instrument: Instrument,
): string | null {
  if (holding === undefined) return `holding ${id} is not active`;
  if (holding.owner !== owner) return `holding ${id} is not ${owner}'s`;
  if (instrumentKey(holding.instrument) !== instrumentKey(instrument)) {
    return `holding ${id} is ${holding.instrument.id} of ${holding.instrument.admin}, not the transferred instrument`;
  }
  if (holding.lock !== null) return `holding ${id} is locked`;
  return null;
}

/** Exactly the named holdings, checked; `find` looks an active holding up by id. */
export function selectNamed(
  ids: readonly string[],
  find: (holdingId: string) => Holding | undefined,
  owner: string,
  instrument: Instrument,
  amount: Amount,
): InputSelection {
  if (ids.length > INPUT_HOLDINGS_MAX) {
    throw new LedgerError(
      'invalid_inputs',
      `a transfer names at most ${INPUT_HOLDINGS_MAX} input holdings, not ${ids.length}`,
    );
  }
  if (new Set(ids).size !== ids.length) {
    throw new LedgerError('invalid_inputs', 'a transfer names each input holding once');
  }
  const inputs: Holding[] = [];
  for (const id of ids) {
    const holding = find(id);
    const unfit = unfitInput(id, holding, owner, instrument);
    if (unfit !== null || holding === undefined)
      throw new LedgerError('invalid_inputs', `${unfit}`);
    inputs.push(holding);
  }
  return covering(inputs, owner, instrument, amount, true);
}
