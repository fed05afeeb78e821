/**
 * The devnet conveniences (docs/spec/ledger.md#devnet-endpoints) as operations on a local ledger:
 * parties, faucet, balances, signed transfers and offers, the clock, the Amulet price and fault
 * injection. Inputs are core's wire shapes (schemas/devnet.ts), results plain values; a refusal,
 * the ledger's included, is core's `DomainError` with its catalogue code. Both servers that serve
 * `/devnet` — the service in devnet mode and the devnet ledger server — register their own routes
 * over these, each with its own HTTP concerns.
 *
 * Calls that act for a party are signed: an Ed25519 signature (`X-Party-Signature`), by one of
 * the party's registered signing keys, of `METHOD + " " + path + "\n" + rawBody` (core
 * devnet-signing.ts), whose body carries `validUntil`, checked against the ledger clock.
 *
 * The control operations (the clock, the Amulet price, faults) move the whole devnet for
 * everyone, so a browser page of another site must not drive them: a request with an `Origin`
 * other than the server's own or an allowed one is refused `origin_not_allowed`. Requests
 * without `Origin` (curl, scripts, Node) pass.
 *
 * Choices made here:
 * - holdings are summed per instrument; `amount` is what the party can spend, `locked` what is
 *   held for its pending offers;
 * - a symbol that exists under several admins, given without `admin`, is a `validation_error`
 *   listing the admins in `admins` (`ambiguous_pool_pair` speaks of pools and carries pool ids);
 * - accept and reject derive their command id from offer, party and action, so a retry after a
 *   timeout is deduplicated by the ledger instead of failing as "offer not found".
 */
import { createHash } from 'node:crypto';
import {
  Amount,
  checkValidUntil,
  type DevnetBalances,
  type DevnetClock,
  type DevnetClockAdvance,
  type DevnetCreateParty,
  type DevnetFaucetRequest,
  type DevnetFaucetResult,
  type DevnetFaults,
  type DevnetOffer,
  type DevnetOfferAction,
  type DevnetOfferActionResult,
  type DevnetOffers,
  type DevnetOracle,
  type DevnetParty as DevnetPartyAnswer,
  type DevnetTransferRequest,
  type DevnetTransferResult,
  DomainError,
  decodePublicKey,
  decodeSignature,
  devnetSigningMessage,
  type ErrorCode,
  encodeBase64,
  generateKeyPair,
  type Instrument,
  verifyEd25519,
} from '@poolparty/core';
import {
  type Holding,
  LedgerError,
  type LedgerErrorCode,
  type LocalLedger,
  REASON_META_KEY,
  type TransferOffer,
} from '@poolparty/ledger';

// --- ledger errors ------------------------------------------------------------------------

/**
 * What each ledger refusal means to a client. `not_authorized` is a well-signed request the
 * ledger does not allow (a transfer to oneself, accepting someone else's offer): the catalogue has
 * no 403 for that, and the signature itself is fine, so it is a 400. An expired offer, and a
 * settlement past its deadline, are `gone`. Holdings that do not cover the amount are
 * `insufficient_funds`, a code of their own: a wallet tells its user to fund the party, not to
 * fix the request.
 */
const LEDGER_ERROR_PROBLEMS: Readonly<Record<LedgerErrorCode, ErrorCode>> = Object.freeze({
  unknown_party: 'not_found',
  unknown_instrument: 'token_not_found',
  insufficient_holdings: 'insufficient_funds',
  invalid_inputs: 'validation_error',
  unknown_contract: 'input_holdings_unknown',
  invalid_disclosure: 'invalid_input_holdings',
  invalid_amount: 'validation_error',
  metadata_limit_exceeded: 'validation_error',
  offer_not_found: 'not_found',
  offer_expired: 'gone',
  allocation_not_found: 'not_found',
  deadline_passed: 'gone',
  invalid_settlement: 'validation_error',
  not_authorized: 'validation_error',
  signature_invalid: 'invalid_transaction_signature',
  rejected: 'ledger_unavailable',
  timeout: 'ledger_unavailable',
  stream_dropped: 'ledger_unavailable',
  closed: 'ledger_unavailable',
});

export function problemOfLedgerError(error: LedgerError): DomainError {
  const detail =
    error.code === 'timeout'
      ? `${error.message}; the command may have committed: retry with the same commandId`
      : error.message;
  return new DomainError(
    LEDGER_ERROR_PROBLEMS[error.code],
    detail,
    { ledgerError: error.code },
    { cause: error },
  );
}

/** Runs `work`, a ledger refusal thrown as the problem it means to a client. */
async function refusalsAsProblems<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw error instanceof LedgerError ? problemOfLedgerError(error) : error;
  }
}

// --- instruments, holdings, offers ---------------------------------------------------------

/** The instrument a symbol (and optional admin) names, or the problem that it names none or many. */
export function resolveInstrument(
  instruments: readonly Instrument[],
  token: string,
  admin?: string,
): Instrument {
  const matches = instruments.filter((i) => i.id === token && (admin ?? i.admin) === i.admin);
  const [only] = matches;
  if (only && matches.length === 1) return only;
  if (matches.length === 0) {
    const under = admin === undefined ? '' : ` under admin ${admin}`;
    throw new DomainError('token_not_found', `No token ${token}${under}.`);
  }
  const admins = matches.map((i) => i.admin);
  throw new DomainError(
    'validation_error',
    `Token ${token} exists under several admins; pass admin, one of: ${admins.join(', ')}.`,
    { admins },
  );
}

export type HoldingBalance = DevnetBalances['holdings'][number];

/** Balances per instrument, ordered by symbol then admin. */
export function balancesOf(holdings: readonly Holding[]): HoldingBalance[] {
  const totals = new Map<string, { instrument: Instrument; free: Amount; locked: Amount }>();
  for (const { instrument, amount, lock } of holdings) {
    const key = `${instrument.id}\u0000${instrument.admin}`;
    const total = totals.get(key) ?? { instrument, free: Amount.ZERO, locked: Amount.ZERO };
    if (lock) total.locked = total.locked.add(amount);
    else total.free = total.free.add(amount);
    totals.set(key, total);
  }
  return [...totals.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, { instrument, free, locked }]) => ({
      token: instrument.id,
      admin: instrument.admin,
      amount: free.toString(),
      locked: locked.toString(),
    }));
}

function offerToWire(offer: TransferOffer): DevnetOffer {
  return {
    offerId: offer.offerId,
    sender: offer.sender,
    receiver: offer.receiver,
    token: offer.instrument.id,
    admin: offer.instrument.admin,
    amount: offer.amount.toString(),
    reason: offer.meta[REASON_META_KEY] ?? null,
    expiresAt: offer.executeBefore.toISOString(),
  };
}

async function requireParty(ledger: LocalLedger, partyId: string): Promise<void> {
  if (!(await ledger.getParty(partyId))) throw new DomainError('not_found', `No party ${partyId}.`);
}

function offerCommandId(action: OfferAction, offerId: string, partyId: string): string {
  const digest = createHash('sha256').update(`${action}\n${offerId}\n${partyId}`).digest('hex');
  return `devnet-${action}-${digest.slice(0, 32)}`;
}

function decodeGivenKey(publicKey: string | undefined): Uint8Array {
  const decoded = decodePublicKey(publicKey);
  if (!decoded.ok) throw new DomainError('validation_error', `publicKey: ${decoded.message}.`);
  return decoded.bytes;
}

/** The ledger checks hints more strictly than the wire schema (no `:`); that is still a 400. */
function refuseRangeError(error: unknown): never {
  if (error instanceof RangeError) throw new DomainError('validation_error', error.message);
  throw error;
}

// --- fault settings -------------------------------------------------------------------------

/** Every setting but the seed, which stays absent until one is set (the ledger has its own). */
export type FaultSettings = Required<Omit<DevnetFaults, 'seed'>> & Pick<DevnetFaults, 'seed'>;

export const FAULTS_OFF: FaultSettings = Object.freeze({
  latencyMs: 0,
  rejectRate: 0,
  timeoutAfterCommitRate: 0,
  dropStreamRate: 0,
  duplicateDeliveryRate: 0,
});

/** A request changes the settings it names and keeps the others. */
export function mergeFaults(current: FaultSettings, change: DevnetFaults): FaultSettings {
  const named = Object.entries(change).filter(([, value]) => value !== undefined);
  return { ...current, ...Object.fromEntries(named) };
}

// --- party signatures -----------------------------------------------------------------------

/** A request that acts for a party, as its signature covers it. */
export interface SignedRequest {
  readonly method: string;
  /** The request target as sent, query string included. */
  readonly url: string;
  /** The body's exact text, not its JSON: the signature covers the bytes. */
  readonly body: string;
  /** `X-Party-Signature`, when the request carries one. */
  readonly signature: string | undefined;
}

function refuseSignature(detail: string): DomainError {
  return new DomainError('invalid_party_signature', detail);
}

/**
 * The request is signed by a key of `partyId` over its method, path and body, and its
 * `validUntil` has not passed on the ledger clock nor lies more than 1 h ahead of it.
 */
async function requirePartySignature(
  ledger: LocalLedger,
  request: SignedRequest,
  partyId: string,
  validUntil: string,
): Promise<void> {
  if (request.signature === undefined) {
    throw refuseSignature('The X-Party-Signature header is missing.');
  }
  const signature = decodeSignature(request.signature);
  if (!signature.ok) throw refuseSignature(`X-Party-Signature: ${signature.message}.`);
  const message = devnetSigningMessage(request.method, request.url, request.body);
  const keys = await ledger.signingKeysOf(partyId);
  if (!keys.some((key) => verifyEd25519(message, signature.bytes, key))) {
    const target = `${request.method} ${request.url.split('?')[0]}`;
    throw refuseSignature(
      `X-Party-Signature is not a signature of ${target} and its body by a signing key of ${partyId}.`,
    );
  }
  const now = await ledger.now();
  const check = checkValidUntil(new Date(validUntil), now);
  if (check.ok) return;
  const ledgerTime = now.toISOString();
  if (check.reason === 'expired')
    throw new DomainError('signature_expired', check.detail, { ledgerTime });
  throw new DomainError('validation_error', check.detail, { ledgerTime });
}

// --- control operations ------------------------------------------------------------------------

/**
 * Whether a control request may come from `origin`: none (not a browser page), the server's own
 * origin (`own`, e.g. `http://127.0.0.1:8787`), or one of the `allowed` ones (never `*`).
 */
export function controlOriginAllowed(
  origin: string | undefined,
  own: string,
  allowed: readonly string[],
): boolean {
  return origin === undefined || origin === own || allowed.includes(origin);
}

/** A control request: `METHOD /path`, the page's `Origin` if any, and the server's own origin. */
export interface ControlRequest {
  readonly target: string;
  readonly origin: string | undefined;
  readonly own: string;
}

/** Refuses a control request from a browser page of an origin that is not allowed. */
export function requireControlOrigin(request: ControlRequest, allowed: readonly string[]): void {
  if (controlOriginAllowed(request.origin, request.own, allowed)) return;
  throw new DomainError(
    'origin_not_allowed',
    `${request.target} does not take requests from the browser origin ${request.origin}; list it in POOLPARTY_DEVNET_CONTROL_ORIGINS to allow it.`,
  );
}

// --- the operations ------------------------------------------------------------------------------

export type OfferAction = 'accept' | 'reject';

/** A party created, or found again for the same hint and key. */
export interface CreatedDevnetParty {
  /** False when the party of this hint and key existed already (a retried request). */
  readonly created: boolean;
  readonly party: DevnetPartyAnswer;
}

/**
 * The devnet conveniences on one ledger, with the fault settings they put in force (a server
 * keeps one instance: its `POST /devnet/faults` changes them and answers them).
 */
export class DevnetConveniences {
  private faults: FaultSettings = FAULTS_OFF;

  constructor(private readonly ledger: LocalLedger) {}

  /** A new external party with the given key, or a generated pair (its private key answered once). */
  createParty({ partyHint, publicKey, preapproval }: DevnetCreateParty) {
    return refusalsAsProblems(async (): Promise<CreatedDevnetParty> => {
      const generated = publicKey === undefined ? generateKeyPair() : undefined;
      const key = generated?.publicKey ?? decodeGivenKey(publicKey);
      const { partyId, created } = await this.ledger
        .createParty({
          hint: partyHint,
          publicKey: key,
          preapprovals: preapproval === false ? [] : 'all',
        })
        .catch(refuseRangeError);
      const party = {
        partyId,
        publicKey: encodeBase64(key),
        ...(generated ? { privateKey: encodeBase64(generated.privateKey) } : {}),
      };
      return { created, party };
    });
  }

  mint({ partyId, token, admin, amount }: DevnetFaucetRequest): Promise<DevnetFaucetResult> {
    return refusalsAsProblems(async () => {
      const instrument = resolveInstrument(await this.ledger.listInstruments(), token, admin);
      const minted = Amount.parse(amount);
      const { holdingId } = await this.ledger.mint({ owner: partyId, instrument, amount: minted });
      return { holdingId, amount: minted.toString() };
    });
  }

  balances(partyId: string): Promise<DevnetBalances> {
    return refusalsAsProblems(async () => {
      await requireParty(this.ledger, partyId);
      return { holdings: balancesOf(await this.ledger.getHoldings(partyId)) };
    });
  }

  /** A token-standard transfer signed by the sender: direct, or an offer to accept. */
  transfer(body: DevnetTransferRequest, signed: SignedRequest): Promise<DevnetTransferResult> {
    const { sender, receiver, token, admin, amount, reason, commandId, validUntil } = body;
    return refusalsAsProblems(async () => {
      await requireParty(this.ledger, sender);
      await requirePartySignature(this.ledger, signed, sender, validUntil);
      const outcome = await this.ledger.submitTransfer({
        commandId,
        sender,
        receiver,
        instrument: resolveInstrument(await this.ledger.listInstruments(), token, admin),
        amount: Amount.parse(amount),
        meta: reason === undefined ? {} : { [REASON_META_KEY]: reason },
      });
      return outcome.kind === 'offer'
        ? { updateId: outcome.updateId, kind: outcome.kind, offerId: outcome.offerId }
        : { updateId: outcome.updateId, kind: outcome.kind };
    });
  }

  /** The offers pending to `partyId` (it is the receiver). */
  offersTo(partyId: string): Promise<DevnetOffers> {
    return refusalsAsProblems(async () => {
      await requireParty(this.ledger, partyId);
      const offers = await this.ledger.getPendingOffers(partyId);
      return { offers: offers.filter((o) => o.receiver === partyId).map(offerToWire) };
    });
  }

  /** Accepts or rejects an offer, signed by its receiver. */
  actOnOffer(
    action: OfferAction,
    offerId: string,
    { partyId, validUntil }: DevnetOfferAction,
    signed: SignedRequest,
  ): Promise<DevnetOfferActionResult> {
    return refusalsAsProblems(async () => {
      await requireParty(this.ledger, partyId);
      await requirePartySignature(this.ledger, signed, partyId, validUntil);
      const command = {
        commandId: offerCommandId(action, offerId, partyId),
        offerId,
        actor: partyId,
      };
      const result =
        action === 'accept'
          ? await this.ledger.acceptOffer(command)
          : await this.ledger.rejectOffer(command);
      return { offerId, updateId: result.updateId };
    });
  }

  clock(): Promise<DevnetClock> {
    return refusalsAsProblems(async () => ({ now: (await this.ledger.now()).toISOString() }));
  }

  /** Moves the ledger clock forward; mining rounds advance with it. */
  advanceClock({ advanceMs }: DevnetClockAdvance): Promise<DevnetClock> {
    return refusalsAsProblems(async () => ({
      now: (await this.ledger.advanceClock(advanceMs)).toISOString(),
    }));
  }

  setAmuletPrice({ amuletPriceUsd }: DevnetOracle): Promise<DevnetOracle> {
    return refusalsAsProblems(async () => {
      const price = Amount.parse(amuletPriceUsd);
      // Fees are converted through this price; zero would make every conversion divide by zero.
      if (price.isZero()) {
        throw new DomainError('validation_error', 'amuletPriceUsd must be positive.');
      }
      await this.ledger.setAmuletPrice(price);
      return { amuletPriceUsd: price.toString() };
    });
  }

  /** Changes the fault settings a request names, keeps the others, and answers those in force. */
  setFaults(change: DevnetFaults): Promise<FaultSettings> {
    return refusalsAsProblems(async () => {
      const next = mergeFaults(this.faults, change);
      this.ledger.setFaults(next);
      this.faults = next;
      return this.faults;
    });
  }
}
