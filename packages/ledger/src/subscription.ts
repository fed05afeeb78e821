/**
 * The port's subscription rule (`UpdateSubscription.parties`), shared by every adapter: an update
 * concerns the parties when one of its events names one as sender, receiver or owner. Canton's
 * own filter is wider (an instrument admin is a stakeholder of every holding), so the `canton`
 * adapter applies this rule on top of it.
 */
import type { LedgerEvent, LedgerUpdate } from './port.js';

function partiesOf(event: LedgerEvent): readonly string[] {
  switch (event.kind) {
    case 'mint':
    case 'burn':
      return [event.owner];
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
