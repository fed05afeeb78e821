/**
 * The devnet endpoints of a PoolParty service in devnet mode
 * (docs/spec/ledger.md#devnet-endpoints): parties, the faucet, holdings, signed transfers and the
 * offers a party without pre-approval accepts or rejects. They stand in for a Canton wallet on the
 * local devnet; they take no API key.
 *
 * Calls that act for a party are signed by its key (`X-Party-Signature`); `devnetSigningMessage`
 * says over which bytes. Their body carries `validUntil`: unless the caller sets it, it is the
 * ledger clock as the service reports it (`GET /devnet/clock`) plus `signatureValidityMs`. The
 * ledger clock, not the local one, because a devnet clock that was moved forward runs ahead of
 * real time, and the service judges `validUntil` by it.
 */
import { errorFromResponse } from '../error-mapping.js';
import { ValidationError } from '../errors.js';
import { noResponse } from '../http/no-response.js';
import type { FetchLike } from '../http/request-sender.js';
import { REQUEST_ID_HEADER, readBody } from '../http/response-body.js';
import { toBase64 } from './encoding.js';
import { createSigner, generatePrivateKey, type Signer, type SigningKey } from './signer.js';
import { devnetSigningMessage } from './signing-message.js';
import type {
  DevnetBalance,
  DevnetClock,
  DevnetCreateParty,
  DevnetFaucetRequest,
  DevnetFaucetResult,
  DevnetOffer,
  DevnetOfferActionResult,
  DevnetParty,
  DevnetTransferRequest,
  DevnetTransferResult,
} from './types.js';
import { DevnetWallet } from './wallet.js';

/** Options of `new Devnet(...)`. */
export interface DevnetOptions {
  /** The service's origin, e.g. `http://127.0.0.1:8787` (what `npm start` prints). */
  readonly baseUrl: string;
  /** The `fetch` to use. Default: the platform's `fetch`. */
  readonly fetch?: FetchLike;
  /**
   * How long a signed request stays usable after the ledger clock at signing, when the call does
   * not set `validUntil`. Default 10 minutes; the service accepts at most 1 hour.
   */
  readonly signatureValidityMs?: number;
}

/** Options of a signed call. */
export interface SignedCallOptions {
  /** ISO time until which the signed request may be used; default: see `signatureValidityMs`. */
  readonly validUntil?: string;
}

/**
 * A transfer to sign: the sender is the signer's party; `commandId` defaults to a new one and
 * `validUntil` to the ledger clock plus `signatureValidityMs`.
 */
export type TransferParams = Omit<DevnetTransferRequest, 'commandId' | 'validUntil'> & {
  readonly commandId?: string;
  readonly validUntil?: string;
};

/** Default `signatureValidityMs`: long enough for a slow network, far below the 1 h limit. */
export const DEFAULT_SIGNATURE_VALIDITY_MS = 10 * 60 * 1000;
/** The longest validity the service accepts: a `validUntil` more than an hour ahead is refused. */
export const MAX_SIGNATURE_VALIDITY_MS = 60 * 60 * 1000;

/** Parameters of `devnet.createWallet`. */
export interface CreateWalletParams {
  /** The readable part of the party id, before `::`. */
  readonly partyHint: string;
  /** False: the party pre-approves nothing, so payouts to it are offers it must accept. */
  readonly preapproval?: boolean;
  /** The party's key, in any form `createSigner` reads; omitted, a new one is made locally. */
  readonly key?: SigningKey;
}

/** The devnet endpoints of one service. */
export class Devnet {
  /** The service's origin. */
  readonly baseUrl: string;
  readonly #fetch: FetchLike;
  readonly #validityMs: number;

  /** @param options - The service's origin (or the options). */
  constructor(options: DevnetOptions | string) {
    const settled = typeof options === 'string' ? { baseUrl: options } : options;
    const problem = devnetOptionsProblem(settled);
    if (problem !== null) {
      throw new ValidationError(`Invalid devnet options: ${problem}`, { code: 'validation_error' });
    }
    const { baseUrl, fetch, signatureValidityMs } = settled;
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.#fetch = fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#validityMs = signatureValidityMs ?? DEFAULT_SIGNATURE_VALIDITY_MS;
  }

  /** The ledger clock, which signed requests' `validUntil` is judged by. */
  async clock(): Promise<Date> {
    const { now } = await this.#call<DevnetClock>('GET', '/devnet/clock');
    return new Date(now);
  }

  /** Registers a party; without `publicKey` the ledger generates the key pair and returns it. */
  createParty(params: DevnetCreateParty): Promise<DevnetParty> {
    return this.#call('POST', '/devnet/parties', JSON.stringify(params));
  }

  /**
   * A new party controlled by a key kept here (made locally unless `key` is given; the private
   * key never travels), as a wallet to sign with.
   */
  async createWallet(params: CreateWalletParams): Promise<DevnetWallet> {
    const signer = await createSigner(params.key ?? generatePrivateKey());
    const { partyId } = await this.createParty({
      partyHint: params.partyHint,
      publicKey: signer.publicKey,
      ...(params.preapproval !== undefined && { preapproval: params.preapproval }),
    });
    return new DevnetWallet(this, partyId, signer);
  }

  /** A wallet for an existing party, e.g. a seeded one: its id and the hex key of devnet.json. */
  async wallet(partyId: string, key: SigningKey): Promise<DevnetWallet> {
    return new DevnetWallet(this, partyId, await createSigner(key));
  }

  /** Mints a holding for a party. */
  faucet(params: DevnetFaucetRequest): Promise<DevnetFaucetResult> {
    return this.#call('POST', '/devnet/faucet', JSON.stringify(params));
  }

  /** A party's balances, one per instrument. */
  async holdings(partyId: string): Promise<DevnetBalance[]> {
    const path = `/devnet/parties/${encodeURIComponent(partyId)}/holdings`;
    const { holdings } = await this.#call<{ holdings: DevnetBalance[] }>('GET', path);
    return holdings;
  }

  /** The offers pending to a party (it is the receiver). */
  async offers(partyId: string): Promise<DevnetOffer[]> {
    const path = `/devnet/parties/${encodeURIComponent(partyId)}/offers`;
    const { offers } = await this.#call<{ offers: DevnetOffer[] }>('GET', path);
    return offers;
  }

  /** A transfer from `sender`, signed by `signer` (the sender's key). */
  transfer(
    signer: Signer,
    params: TransferParams & { readonly sender: string },
  ): Promise<DevnetTransferResult> {
    const { validUntil, ...rest } = params;
    const body: Omit<DevnetTransferRequest, 'validUntil'> = {
      ...rest,
      commandId: params.commandId ?? `devnet-${globalThis.crypto.randomUUID()}`,
    };
    return this.#signed(signer, '/devnet/transfers', body, validUntil);
  }

  /** Accepts an offer to `partyId`, signed by `signer` (the receiver's key). */
  acceptOffer(
    signer: Signer,
    offerId: string,
    partyId: string,
    options: SignedCallOptions = {},
  ): Promise<DevnetOfferActionResult> {
    const path = `/devnet/offers/${encodeURIComponent(offerId)}/accept`;
    return this.#signed(signer, path, { partyId }, options.validUntil);
  }

  /** Rejects an offer to `partyId`: the tokens go back to the sender. */
  rejectOffer(
    signer: Signer,
    offerId: string,
    partyId: string,
    options: SignedCallOptions = {},
  ): Promise<DevnetOfferActionResult> {
    const path = `/devnet/offers/${encodeURIComponent(offerId)}/reject`;
    return this.#signed(signer, path, { partyId }, options.validUntil);
  }

  /** Sends `payload` with its `validUntil` as the exact body that was signed. */
  async #signed<T>(
    signer: Signer,
    path: string,
    payload: object,
    validUntil: string | undefined,
  ): Promise<T> {
    const until =
      validUntil ?? new Date((await this.clock()).getTime() + this.#validityMs).toISOString();
    const body = JSON.stringify({ ...payload, validUntil: until });
    const signature = await signer.sign(devnetSigningMessage({ method: 'POST', path, body }));
    return this.#call('POST', path, body, { 'x-party-signature': toBase64(signature) });
  }

  async #call<T>(
    method: 'GET' | 'POST',
    path: string,
    body?: string,
    headers: Record<string, string> = {},
  ): Promise<T> {
    let response: Response;
    try {
      response = await this.#fetch(`${this.baseUrl}${path}`, {
        method,
        headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
        ...(body !== undefined && { body }),
      });
    } catch (error) {
      throw noResponse(method, `${this.baseUrl}${path}`, error);
    }
    const parsed = await readBody(response);
    if (!response.ok) {
      throw errorFromResponse({
        status: response.status,
        body: parsed,
        requestId: response.headers.get(REQUEST_ID_HEADER),
        retryAfter: null,
      });
    }
    return parsed as T;
  }
}

/**
 * What is wrong with the options, for the message, or null: the checks `PoolParty` makes of its
 * own, so a missing origin is named rather than failing later as a `TypeError`.
 */
function devnetOptionsProblem(options: DevnetOptions | null | undefined): string | null {
  if (typeof options !== 'object' || options === null) {
    return `expected the service's origin or { baseUrl }, got ${options === null ? 'null' : typeof options}`;
  }
  const { baseUrl, fetch, signatureValidityMs } = options;
  if (typeof baseUrl !== 'string' || baseUrl.length === 0) {
    return "baseUrl is required: the service's origin, e.g. http://127.0.0.1:8787";
  }
  if (fetch !== undefined && typeof fetch !== 'function') return 'fetch must be a function';
  if (typeof globalThis.fetch !== 'function' && fetch === undefined) {
    return 'no fetch: pass the `fetch` option on platforms without one';
  }
  const validityMs = signatureValidityMs ?? DEFAULT_SIGNATURE_VALIDITY_MS;
  if (!Number.isInteger(validityMs) || validityMs <= 0 || validityMs > MAX_SIGNATURE_VALIDITY_MS) {
    return `signatureValidityMs must be a whole number of milliseconds from 1 to ${MAX_SIGNATURE_VALIDITY_MS} (1 hour); got ${String(signatureValidityMs)}`;
  }
  return null;
}
