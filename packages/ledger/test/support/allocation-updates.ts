/** Allocation updates of every kind on a local ledger, for the wire codec's tests. */
import { Amount, type Instrument } from '@poolparty/core';
import type { LocalLedger } from '../../src/local/control.js';
import type { Meta } from '../../src/port.js';

/**
 * A settlement of two legs between `alice` and `bob` that `venue` executes, then one more
 * allocation withdrawn and one cancelled: each kind of allocation update once or twice. Alice
 * sends 3 and 1, Bob 3 and 2, of `instrument`.
 */
export async function settleWithdrawAndCancel(
  ledger: LocalLedger,
  parties: { readonly alice: string; readonly bob: string; readonly venue: string },
  instrument: Instrument,
  settlementMeta: Meta = {},
): Promise<void> {
  const { alice, bob, venue } = parties;
  const now = (await ledger.now()).getTime();
  const settlement = {
    executor: venue,
    settlementRef: 'trade',
    requestedAt: new Date(now),
    allocateBefore: new Date(now + 60_000),
    settleBefore: new Date(now + 120_000),
    meta: settlementMeta,
  };
  const allocate = async (legId: string, sender: string, receiver: string, whole: number) =>
    (
      await ledger.allocate({
        commandId: `allocate-${legId}`,
        settlement,
        transferLegId: legId,
        leg: { sender, receiver, instrument, amount: Amount.of(whole), meta: {} },
      })
    ).allocationId;
  const actAs = [venue, alice, bob];
  const legs = [await allocate('a', alice, bob, 3), await allocate('b', bob, alice, 3)];
  await ledger.executeSettlement({ commandId: 'settle', allocationIds: legs, actAs });
  const withdrawn = await allocate('c', alice, bob, 1);
  await ledger.withdrawAllocation({ commandId: 'w', allocationId: withdrawn, actAs: [alice] });
  const cancelled = await allocate('d', bob, alice, 2);
  await ledger.cancelAllocation({ commandId: 'c', allocationId: cancelled, actAs });
}
