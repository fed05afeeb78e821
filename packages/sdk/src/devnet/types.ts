/**
 * The wire types of the devnet endpoints, declared here so the published declarations
 * stand alone; `test/devnet-wire-types.test-d.ts` proves each equal to core's schema type.
 */

/** Body of `POST /devnet/parties`. */
export interface DevnetCreateParty {
  /** The readable part of the party id, before `::`. */
  partyHint: string;
  /** Base64 or hex of the raw 32-byte Ed25519 key; omitted, the ledger generates a pair. */
  publicKey?: string;
  /** Pre-approve incoming transfers of every token (default true); false: payouts are offers. */
  preapproval?: boolean;
}

/** A devnet party. */
export interface DevnetParty {
  partyId: string;
  /** Base64 of the raw 32-byte Ed25519 key. */
  publicKey: string;
  /** Base64 of the 32-byte seed; only when the ledger generated the pair. */
  privateKey?: string;
}

/** Body of `POST /devnet/faucet`. */
export interface DevnetFaucetRequest {
  partyId: string;
  token: string;
  /** Needed when the symbol exists under several admins. */
  admin?: string;
  amount: string;
}

/** The minted holding. */
export interface DevnetFaucetResult {
  holdingId: string;
  amount: string;
}

/** A party's balance of one instrument. */
export interface DevnetHolding {
  token: string;
  admin: string;
  /** What the party can spend. */
  amount: string;
}

/** A balance as `GET /devnet/parties/{partyId}/holdings` lists it. */
export interface DevnetBalance extends DevnetHolding {
  /** Held for the party's own pending offers. */
  locked: string;
}

/** Body of `POST /devnet/transfers`, signed by the sender. */
export interface DevnetTransferRequest {
  sender: string;
  receiver: string;
  token: string;
  /** Needed when the symbol exists under several admins. */
  admin?: string;
  amount: string;
  /** The transfer reason; a swap deposit carries its `depositReference`. */
  reason?: string;
  /** Deduplication key: a retry with the same id is the same transfer. */
  commandId: string;
  /**
   * Until when the signed request may be used (ISO time on the ledger clock, at most 1 h ahead
   * of it): a copy sent later is refused with `signature_expired`.
   */
  validUntil: string;
}

/** Body of `POST /devnet/offers/{offerId}/accept` or `/reject`, signed by the receiver. */
export interface DevnetOfferAction {
  partyId: string;
  /** As in `DevnetTransferRequest`. */
  validUntil: string;
}

/** The ledger clock, as `GET /devnet/clock` answers it. */
export interface DevnetClock {
  /** ISO time; it runs ahead of real time once the clock has been moved. */
  now: string;
}

/** Outcome of a devnet transfer. */
export interface DevnetTransferResult {
  updateId: string;
  /** `direct` with the receiver's pre-approval, else an offer the receiver must accept. */
  kind: 'direct' | 'offer';
  /** With `kind: 'offer'`. */
  offerId?: string;
}

/** A pending two-step transfer offer. */
export interface DevnetOffer {
  offerId: string;
  sender: string;
  receiver: string;
  token: string;
  admin: string;
  amount: string;
  /** Null when none; a swap's payout says `payout:<intentId>`, a refund `refund:<intentId>`. */
  reason: string | null;
  expiresAt: string;
}

/** The ledger update that settled an offer. */
export interface DevnetOfferActionResult {
  offerId: string;
  updateId: string;
}
