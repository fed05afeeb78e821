/**
 * Which offer a locked holding is locked for. A Token Standard lock names its holders and a
 * context, not the instruction; Amulet names the holding it locked among the instruction's
 * `inputHoldingCids`, so a pending instruction naming a locked holding is that holding's offer.
 */
import type { Holding } from '../port.js';
import { type CreatedEvent, instructionInputHoldingIds } from './wire/index.js';

/** Whether some holding is locked without naming its offer (only then is the lookup needed). */
export function needsLockOffers(holdings: readonly Holding[]): boolean {
  return holdings.some((holding) => holding.lock !== null && holding.lock.offerId === null);
}

/** The holdings with the offers of their locks filled in from the pending instructions. */
export function withLockOffers(
  holdings: readonly Holding[],
  instructions: readonly CreatedEvent[],
): Holding[] {
  const offerOfHolding = new Map<string, string>();
  for (const event of instructions) {
    for (const holdingId of instructionInputHoldingIds(event) ?? []) {
      offerOfHolding.set(holdingId, event.contractId);
    }
  }
  return holdings.map((holding) => {
    const { lock } = holding;
    if (lock === null || lock.offerId !== null) return holding;
    const offerId = offerOfHolding.get(holding.holdingId);
    return offerId === undefined ? holding : { ...holding, lock: { ...lock, offerId } };
  });
}
