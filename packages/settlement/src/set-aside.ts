/**
 * Setting one failing item aside (docs/operations.md#items-set-aside): an update whose application
 * keeps failing is skipped — the stream's checkpoint moves past it — with an operator flag that
 * says what it was and why it failed, in one transaction; a swap whose execution keeps failing
 * is flagged and left out of the queue. Everything else goes on settling.
 * What the update meant (a deposit, a confirmation) is left for a person: the flag names the
 * ledger ids, and the reconciler reports any holdings the books do not account for.
 */
import type { LedgerEvent, LedgerUpdate } from '@poolparty/ledger';
import {
  causedByConnectionLoss,
  EXECUTION_SET_ASIDE,
  type IntentRecord,
  isRolledBackForAnother,
  raiseOperatorFlag,
} from '@poolparty/store';
import { type EngineContext, EngineCrash } from './context.js';
import { openCheckpoint } from './ingest.js';

/** The flag an update set aside raises. */
export const UPDATE_SET_ASIDE = 'update_set_aside';

/** How long a flag's error text may be: enough for a message and its cause. */
const ERROR_TEXT_MAX = 2_000;

/**
 * Whether `error` is the item's own failure, counted towards setting it aside: not a crash, not a
 * lost store connection, not a transaction the store rolled back in favour of another.
 */
export function isItemFailure(error: unknown): boolean {
  if (error instanceof EngineCrash) return false;
  return !causedByConnectionLoss(error) && !isRolledBackForAnother(error);
}

/** What a flag records of an update's events: enough to find and judge them by hand. */
function eventSummary(event: LedgerEvent): Record<string, unknown> {
  if (event.kind === 'mint' || event.kind === 'burn') {
    return {
      kind: event.kind,
      owner: event.owner,
      instrument: event.instrument,
      amount: event.amount.toString(),
    };
  }
  const summary: Record<string, unknown> = {
    kind: event.kind,
    sender: event.sender,
    receiver: event.receiver,
    instrument: event.instrument,
    amount: event.amount.toString(),
  };
  if ('offerId' in event && event.offerId !== null) summary.offerId = event.offerId;
  return summary;
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > ERROR_TEXT_MAX ? `${text.slice(0, ERROR_TEXT_MAX)}…` : text;
}

/**
 * Moves the checkpoint past `update` and flags it, in one transaction; false (nothing written)
 * when the checkpoint is past it already: another ingest applied or set it aside first.
 */
export async function setUpdateAside(
  ctx: EngineContext,
  update: LedgerUpdate,
  failure: { readonly error: unknown; readonly attempts: number },
): Promise<boolean> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const checkpoint = await openCheckpoint(tx, ctx, [update], now);
    if (update.offset <= checkpoint) return false;
    await raiseOperatorFlag(tx, {
      intentId: null,
      depositId: null,
      kind: UPDATE_SET_ASIDE,
      details: {
        stream: ctx.settings.stream,
        offset: update.offset,
        updateId: update.updateId,
        commandId: update.commandId,
        recordTime: update.recordTime.toISOString(),
        attempts: failure.attempts,
        error: errorText(failure.error),
        events: update.events.map(eventSummary),
      },
      createdAt: now,
    });
    return true;
  });
}

/**
 * Flags a swap whose execution kept failing; the queue passes over a swap with such an open flag
 * (`listQueuedIntents`), and takes it again once an operator resolves the flag. Its deposit stays
 * where it is, in the pool's swap party, named by the flag.
 */
export async function setSwapAside(
  ctx: EngineContext,
  intent: IntentRecord,
  failure: { readonly error: unknown; readonly attempts: number },
): Promise<void> {
  await raiseOperatorFlag(ctx.db, {
    intentId: intent.intentId,
    depositId: null,
    kind: EXECUTION_SET_ASIDE,
    details: {
      poolId: intent.poolId,
      status: intent.status,
      attempts: failure.attempts,
      error: errorText(failure.error),
    },
    createdAt: ctx.clock.now(),
  });
}
