/**
 * One entry point for every change: `applyEntry` is what the live ledger runs and what a replay
 * of the persisted entries runs, so both always agree.
 */
import { BaseError } from '@poolparty/core';
import { applyAllocate, applyAllocationRelease, applyExecuteSettlement } from './allocations.js';
import type { ChangeEntry, LedgerEntry } from './entries.js';
import {
  applyAddSigningKey,
  applyCreateInstrument,
  applyCreateParty,
  applyPreapprovalCommand,
  applySetPreapproval,
} from './parties.js';
import { applyAdvanceClock, applySetAmuletPrice, applySettle } from './schedule.js';
import { createLedgerState, type LedgerState, type StoredResult } from './state.js';
import { applyTransfers } from './transfer-batch.js';
import { applyBurn, applyMint, applyOfferAction, applyTransfer } from './transfers.js';

/** Applies one change; returns the command's result for commands, undefined otherwise. */
export function applyEntry(state: LedgerState, entry: ChangeEntry): StoredResult | undefined {
  switch (entry.op) {
    case 'createParty':
      applyCreateParty(state, entry);
      return undefined;
    case 'addSigningKey':
      applyAddSigningKey(state, entry);
      return undefined;
    case 'createInstrument':
      applyCreateInstrument(state, entry);
      return undefined;
    case 'setPreapproval':
      applySetPreapproval(state, entry);
      return undefined;
    case 'preapprove':
      return applyPreapprovalCommand(state, entry);
    case 'setAmuletPrice':
      applySetAmuletPrice(state, entry);
      return undefined;
    case 'advanceClock':
      applyAdvanceClock(state, entry);
      return undefined;
    case 'settle':
      applySettle(state, entry);
      return undefined;
    case 'transfer':
      return applyTransfer(state, entry);
    case 'transfers':
      return applyTransfers(state, entry);
    case 'acceptOffer':
    case 'rejectOffer':
    case 'withdrawOffer':
      return applyOfferAction(state, entry);
    case 'mint':
      return applyMint(state, entry);
    case 'burn':
      return applyBurn(state, entry);
    case 'allocate':
      return applyAllocate(state, entry);
    case 'executeSettlement':
      return applyExecuteSettlement(state, entry);
    case 'cancelAllocation':
    case 'withdrawAllocation':
      return applyAllocationRelease(state, entry);
  }
}

export class ReplayError extends BaseError<'ledger_replay_failed'> {
  override readonly name = 'ReplayError';
  constructor(message: string, options: { readonly cause?: unknown } = {}) {
    super('ledger_replay_failed', message, options);
  }
}

/** Rebuilds the state from a genesis entry and the changes after it. */
export function replayEntries(entries: readonly LedgerEntry[]): LedgerState {
  const [genesis, ...changes] = entries;
  if (genesis?.op !== 'genesis') throw new ReplayError('the first entry must be the genesis');
  const state = createLedgerState(genesis);
  changes.forEach((entry, index) => {
    if (entry.op === 'genesis') throw new ReplayError(`entry ${index + 2} is a second genesis`);
    try {
      applyEntry(state, entry);
    } catch (error) {
      throw new ReplayError(
        `entry ${index + 2} (${entry.op}) cannot be applied: ${String(error)}`,
        {
          cause: error,
        },
      );
    }
  });
  return state;
}
