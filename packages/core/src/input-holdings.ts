/**
 * Which holdings an atomic swap's input leg spends, as the request names them
 * (docs/spec/atomic-swaps.md#input-holdings): by id (`inputHoldingIds`), which the pool's
 * participant must be able to read, or as disclosed contracts (`inputHoldings`), which a trader
 * hosted on another participant passes because the pool's participant cannot read them.
 *
 * Decisions:
 * - `inputHoldings` implies the ids: its contract ids, in the order given. Naming the ids as well
 *   is allowed and then must name exactly the same holdings; otherwise the request says two
 *   different things and is refused (`input_holdings_mismatch`) rather than one of them guessed.
 * - A holding disclosed twice alike is one holding; the same id disclosed with two different
 *   contracts is refused the same way: only one of them can be the contract.
 */

/** A contract as a participant hands it out for disclosure (Canton's `DisclosedContract`). */
export interface DisclosedHolding {
  readonly contractId: string;
  readonly templateId: string;
  /** Opaque to everyone but a participant, which reconstructs the contract from it. */
  readonly createdEventBlob: string;
  readonly synchronizerId?: string;
}

export type InputHoldings =
  | {
      readonly kind: 'named';
      /** The holdings the leg spends; absent: the ledger picks among the sender's. */
      readonly holdingIds?: readonly string[];
      /** The contracts to disclose to the pool's participant, one per holding id. */
      readonly disclosed: readonly DisclosedHolding[];
    }
  | { readonly kind: 'mismatch'; readonly message: string };

const sameDisclosure = (a: DisclosedHolding, b: DisclosedHolding) =>
  a.templateId === b.templateId &&
  a.createdEventBlob === b.createdEventBlob &&
  a.synchronizerId === b.synchronizerId;

/** The input leg's holdings as a prepare request names them (see the module's note). */
export function inputHoldingsOf(request: {
  readonly inputHoldingIds?: readonly string[];
  readonly inputHoldings?: readonly DisclosedHolding[];
}): InputHoldings {
  const { inputHoldingIds, inputHoldings } = request;
  if (inputHoldings === undefined || inputHoldings.length === 0) {
    return {
      kind: 'named',
      ...(inputHoldingIds !== undefined && { holdingIds: inputHoldingIds }),
      disclosed: [],
    };
  }
  const byId = new Map<string, DisclosedHolding>();
  for (const holding of inputHoldings) {
    const seen = byId.get(holding.contractId);
    if (seen !== undefined && !sameDisclosure(seen, holding)) {
      return {
        kind: 'mismatch',
        message: `inputHoldings discloses ${holding.contractId} twice, as two different contracts.`,
      };
    }
    byId.set(holding.contractId, holding);
  }
  const implied = [...byId.keys()];
  if (inputHoldingIds !== undefined && inputHoldingIds.length > 0) {
    const named = new Set(inputHoldingIds);
    const differ = named.size !== implied.length || implied.some((id) => !named.has(id));
    if (differ) {
      return {
        kind: 'mismatch',
        message:
          'inputHoldingIds and inputHoldings name different holdings; give inputHoldings alone (it implies the ids) or both naming the same.',
      };
    }
  }
  return { kind: 'named', holdingIds: implied, disclosed: [...byId.values()] };
}
