/**
 * Rules both ledger adapters hold to, beside the port they implement: the Token Standard's limits
 * on a transfer's metadata, checked before anything is submitted; what a split of a holding may
 * split and what its update shows; and the size of a typical transfer, which
 * `trafficParameters().transferBytes` reports whichever ledger answers.
 */
import { Amount } from '@poolparty/core';
import {
  type CommandResult,
  type Holding,
  LedgerError,
  META_CHARS_MAX,
  META_ENTRIES_MAX,
  type Meta,
  type SplitHoldingCommand,
  type SplitOutcome,
} from './port.js';

/**
 * `trafficParameters().transferBytes`: the traffic of one token-standard transfer with a short
 * reason, the figure the network fee is estimated with (docs/spec/amounts-and-fees.md#network-fee).
 */
export const TYPICAL_TRANSFER_BYTES = 20_000;

/** Refuses metadata beyond the Token Standard's limits with `metadata_limit_exceeded`. */
export function checkMeta(meta: Meta): void {
  const entries = Object.entries(meta);
  const chars = entries.reduce((total, [key, value]) => total + key.length + value.length, 0);
  if (entries.length > META_ENTRIES_MAX || chars > META_CHARS_MAX) {
    throw new LedgerError(
      'metadata_limit_exceeded',
      `metadata has ${entries.length} entries and ${chars} characters; at most ${META_ENTRIES_MAX} and ${META_CHARS_MAX}`,
    );
  }
}

/**
 * The holding a split divides, or the refusal: `invalid_amount` for an amount that is not a
 * positive `Amount` less than the holding's, `invalid_inputs` for a holding that is not an active
 * unlocked holding of the owner (`holding` is what the ledger has under the id, if anything).
 */
export function checkSplit(command: SplitHoldingCommand, holding: Holding | undefined): Holding {
  const { amount, owner, holdingId } = command;
  if (!(amount instanceof Amount) || !amount.isPositive()) {
    throw new LedgerError(
      'invalid_amount',
      `a split's amount must be a positive Amount, not ${amount}`,
    );
  }
  checkMeta(command.meta ?? {});
  if (holding === undefined)
    throw new LedgerError('invalid_inputs', `holding ${holdingId} is not active`);
  if (holding.owner !== owner)
    throw new LedgerError('invalid_inputs', `holding ${holdingId} is not ${owner}'s`);
  if (holding.lock !== null)
    throw new LedgerError('invalid_inputs', `holding ${holdingId} is locked`);
  if (amount.gte(holding.amount)) {
    throw new LedgerError(
      'invalid_amount',
      `a split of holding ${holdingId} (${holding.amount}) gives less than it holds, not ${amount}`,
    );
  }
  return holding;
}

/**
 * What a committed split made, read from the holdings its update created: the owner's unlocked
 * holding of the amount and the one of the rest. An update that shows no such pair (another
 * command under the id) leaves the outcome unknown: `timeout`, resolved through `lookupCommand`.
 */
export function splitOutcomeOf(
  result: CommandResult,
  command: SplitHoldingCommand,
  created: readonly Holding[],
): SplitOutcome {
  const mine = created.filter((h) => h.owner === command.owner && h.lock === null);
  const at = mine.findIndex((h) => h.amount.eq(command.amount));
  const holding = mine[at];
  const change = mine.find((_, i) => i !== at);
  if (at < 0 || holding === undefined || change === undefined) {
    throw new LedgerError(
      'timeout',
      `update ${result.updateId} of ${command.commandId} shows no split of ${command.holdingId}; see lookupCommand`,
    );
  }
  return { updateId: result.updateId, offset: result.offset, holding, change };
}
