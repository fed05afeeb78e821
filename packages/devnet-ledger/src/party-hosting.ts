/**
 * Which parties this participant hosts. Every party of the devnet ledger lives on its one
 * participant; a party marked hosted elsewhere stands for a party of another participant of the
 * same synchronizer, such as a trader whose wallet runs its own validator.
 *
 * The smallest model that makes a pool's participant blind to such a party's holdings:
 * - Reads (active contracts, a contract's events, contract by id, the updates' ACS delta) show
 *   no holding it owns, to any user: a participant stores only what its own parties are
 *   stakeholders of. The ledger-effects shape still shows what a party hosted here witnesses.
 *   The devnet hosts the instrument admins too, which a pool's participant does not (they are
 *   on their registry's), so a holding counts as here by its owner alone.
 * - A prepare that names such a holding needs it among `disclosedContracts`, as a participant
 *   needs a contract it does not store (`disclosed-contracts.ts`).
 * - Executing commits on the one ledger as ever: the party's own participant confirming its side
 *   is not modelled beyond the party's own signature, which the execution checks.
 * - Its own participant's reads are `disclosedHoldingsOf`: its holdings as disclosed contracts,
 *   what its wallet would read there with `includeCreatedEventBlob`.
 */
import type { LocalLedger } from '@poolparty/ledger';

export class PartyHosting {
  private readonly elsewhere = new Set<string>();

  constructor(private readonly ledger: LocalLedger) {}

  /** Marks an external party (one with a signing key of its own) as hosted elsewhere. */
  async hostElsewhere(partyId: string): Promise<void> {
    if ((await this.ledger.getParty(partyId)) === null) {
      throw new RangeError(`the ledger knows no party ${partyId}`);
    }
    if ((await this.ledger.signingKeysOf(partyId)).length === 0) {
      throw new RangeError(`${partyId} is no external party: the participant's own stay here`);
    }
    this.elsewhere.add(partyId);
  }

  isHostedHere(partyId: string): boolean {
    return !this.elsewhere.has(partyId);
  }
}
