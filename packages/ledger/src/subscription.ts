/**
 * The port's subscription rule (`UpdateSubscription.parties`), shared by every adapter: an update
 * concerns the parties when one of its events names one as sender, receiver or owner (or, for an
 * allocation, its settlement's executor). Canton's
 * own filter is wider (an instrument admin is a stakeholder of every holding), so the `canton`
 * adapter applies this rule on top of it.
 */
import type { LedgerEvent, LedgerUpdate } from './port.js';

function partiesOf(event: LedgerEvent): readonly string[] {
  switch (event.kind) {
    case 'mint':
    case 'burn':
      return [event.owner];
    case 'allocation_created':
    case 'allocation_executed':
    case 'allocation_cancelled':
    case 'allocation_withdrawn':
      return [event.sender, event.receiver, event.allocation.settlement.executor];
    default:
      return [event.sender, event.receiver];
  }
}

export function concernsParties(
  update: LedgerUpdate,
  parties: readonly string[] | undefined,
): boolean {
  if (parties === undefined) return true;
  return update.events.some((event) => partiesOf(event).some((party) => parties.includes(party)));
}
