/**
 * The devnet endpoints of the local ledger (docs/spec/ledger.md#devnet-endpoints): parties, faucet,
 * signed transfers and offers, the clock, the Amulet price and fault injection. Registered under
 * `/devnet` only in devnet mode with the local ledger.
 *
 * Calls that act for a party carry `X-Party-Signature`: an Ed25519 signature, by one of the
 * party's registered signing keys, of `METHOD + " " + path + "\n" + rawBody` (core
 * devnet-signing.ts), and their body carries `validUntil`, checked against the ledger clock.
 *
 * The control endpoints (`POST /devnet/clock`, `/oracle`, `/faults`) move the whole devnet for
 * everyone, so a browser page of another site must not drive them: a request with an `Origin`
 * other than the service's own or a configured one is refused 403 `origin_not_allowed`, and their
 * CORS answers name only those origins. Requests without `Origin` (curl, scripts, Node) pass.
 *
 * The faucet is limited per client address (`DEFAULT_RATE_LIMITS.faucetMintsPerMin`, a bucket of
 * its own beside the login attempts' one): it mints out of nothing, and every mint stays in the
 * ledger's journal.
 *
 * Choices made here:
 * - holdings are summed per instrument; `amount` is what the party can spend, `locked` what is
 *   held for its pending offers;
 * - a symbol that exists under several admins, given without `admin`, is a 400 `validation_error`
 *   listing the admins in `admins` (`ambiguous_pool_pair` speaks of pools and carries pool ids);
 * - accept and reject derive their command id from offer, party and action, so a retry after a
 *   timeout is deduplicated by the ledger instead of failing as "offer not found".
 */
import { createHash } from 'node:crypto';
import {
  Amount,
  checkValidUntil,
  DevnetBalancesSchema,
  DevnetClockAdvanceSchema,
  DevnetClockSchema,
  DevnetCreatePartySchema,
  DevnetFaucetRequestSchema,
  DevnetFaucetResultSchema,
  type DevnetFaults,
  DevnetFaultsSchema,
  type DevnetHolding,
  type DevnetOffer,
  DevnetOfferActionResultSchema,
  DevnetOfferActionSchema,
  DevnetOffersSchema,
  DevnetOracleSchema,
  DevnetPartySchema,
  DevnetTransferRequestSchema,
  DevnetTransferResultSchema,
  decodePublicKey,
  decodeSignature,
  devnetSigningMessage,
  type ErrorCode,
  encodeBase64,
  generateKeyPair,
  type Instrument,
  inline,
  OfferIdParamsSchema,
  PartyIdParamsSchema,
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
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { clientAddressLimitHook, DEFAULT_RATE_LIMITS } from '../authenticate.js';
import { controlOriginAllowed } from '../devnet-cors.js';
import type { App } from '../fastify.js';
import {
  DEVNET_CLOCK_ADVANCE_EXAMPLE,
  DEVNET_CLOCK_EXAMPLE,
  DEVNET_CREATE_PARTY_EXAMPLE,
  DEVNET_FAUCET_EXAMPLE,
  DEVNET_FAUCET_RESULT_EXAMPLE,
  DEVNET_FAULTS_EXAMPLE,
  DEVNET_FAULTS_IN_FORCE_EXAMPLE,
  DEVNET_HOLDINGS_EXAMPLE,
  DEVNET_OFFER_ACTION_EXAMPLE,
  DEVNET_OFFER_ACTION_RESULT_EXAMPLE,
  DEVNET_OFFERS_EXAMPLE,
  DEVNET_ORACLE_EXAMPLE,
  DEVNET_PARTY_EXAMPLE,
  DEVNET_TRANSFER_EXAMPLE,
  DEVNET_TRANSFER_RESULT_EXAMPLE,
} from '../openapi-examples.js';
import { ownOrigin } from '../origins.js';
import { ApiError, requestTarget } from '../problem.js';
import {
  BODY_PROBLEMS,
  errorResponses,
  type ProblemNotes,
  SECURITY,
  TAG,
  withExamples,
} from '../route-docs.js';
import { type RouteHooks, registerRoutes, routeOf } from '../route-table.js';
import type { BucketStore } from '../token-bucket.js';

export interface DevnetDeps {
  readonly ledger: LocalLedger;
  /**
   * Per-client-address buckets that limit the faucet to `DEFAULT_RATE_LIMITS.faucetMintsPerMin`.
   * Absent: not limited (the devnet ledger server, which stands in for a participant on the
   * operator's own machine and funds whole test clusters from one address).
   */
  readonly buckets?: BucketStore;
  /** Browser origins besides the service's own that may call the control endpoints. */
  readonly controlOrigins: readonly string[];
  /** Lets the service clock follow the ledger clock after `POST /devnet/clock`. */
  readonly onClockAdvanced?: () => Promise<void>;
}

// --- ledger errors ------------------------------------------------------------------------

/**
 * What each ledger refusal means to a client. `not_authorized` is a well-signed request the
 * ledger does not allow (a transfer to oneself, accepting someone else's offer): the catalogue has
 * no 403 for that, and the signature itself is fine, so it is a 400. An expired offer is `gone`.
 */
export const LEDGER_ERROR_PROBLEMS: Readonly<Record<LedgerErrorCode, ErrorCode>> = Object.freeze({
  unknown_party: 'not_found',
  unknown_instrument: 'token_not_found',
  insufficient_holdings: 'validation_error',
  invalid_amount: 'validation_error',
  metadata_limit_exceeded: 'validation_error',
  offer_not_found: 'not_found',
  offer_expired: 'gone',
  not_authorized: 'validation_error',
  rejected: 'ledger_unavailable',
  timeout: 'ledger_unavailable',
  stream_dropped: 'ledger_unavailable',
  closed: 'ledger_unavailable',
});

export function problemOfLedgerError(error: LedgerError): ApiError {
  const detail =
    error.code === 'timeout'
      ? `${error.message}; the command may have committed: retry with the same commandId`
      : error.message;
  return new ApiError(LEDGER_ERROR_PROBLEMS[error.code], detail, { ledgerError: error.code });
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
    throw new ApiError('token_not_found', `No token ${token}${under}.`);
  }
  const admins = matches.map((i) => i.admin);
  throw new ApiError(
    'validation_error',
    `Token ${token} exists under several admins; pass admin, one of: ${admins.join(', ')}.`,
    { admins },
  );
}

export interface HoldingBalance extends DevnetHolding {
  /** Held for the party's own pending offers; not spendable until they end. */
  readonly locked: string;
}

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

export function offerToWire(offer: TransferOffer): DevnetOffer {
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

const SIGNATURE_HEADER = 'x-party-signature';

const SignedHeadersSchema = Type.Object({
  [SIGNATURE_HEADER]: Type.Optional(
    Type.String({
      description:
        "Base64 Ed25519 signature, by the acting party's key, of `METHOD + ' ' + path + '\\n' + rawBody`.",
    }),
  ),
});

/** Exact body bytes of each request, kept because the signature covers them, not the JSON. */
const rawBodies = new WeakMap<FastifyRequest, Uint8Array>();

function headerOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

function refuseSignature(detail: string): ApiError {
  return new ApiError('invalid_party_signature', detail);
}

/**
 * The request is signed by a key of `partyId` over its method, path and body, and its
 * `validUntil` has not passed on the ledger clock nor lies more than 1 h ahead of it.
 */
async function requirePartySignature(
  ledger: LocalLedger,
  request: FastifyRequest,
  partyId: string,
  validUntil: string,
): Promise<void> {
  const header = headerOf(request, SIGNATURE_HEADER);
  if (header === undefined) throw refuseSignature('The X-Party-Signature header is missing.');
  const signature = decodeSignature(header);
  if (!signature.ok) throw refuseSignature(`X-Party-Signature: ${signature.message}.`);
  const body = new TextDecoder().decode(rawBodies.get(request) ?? new Uint8Array());
  const message = devnetSigningMessage(request.method, request.url, body);
  const keys = await ledger.signingKeysOf(partyId);
  if (!keys.some((key) => verifyEd25519(message, signature.bytes, key))) {
    const target = requestTarget(request);
    throw refuseSignature(
      `X-Party-Signature is not a signature of ${target} and its body by a signing key of ${partyId}.`,
    );
  }
  const now = await ledger.now();
  const check = checkValidUntil(new Date(validUntil), now);
  if (check.ok) return;
  if (check.reason === 'expired') {
    throw new ApiError('signature_expired', check.detail, { ledgerTime: now.toISOString() });
  }
  throw new ApiError('validation_error', check.detail, { ledgerTime: now.toISOString() });
}

// --- control endpoints ------------------------------------------------------------------------

function requireControlOrigin(request: FastifyRequest, allowed: readonly string[]): void {
  const origin = headerOf(request, 'origin');
  if (controlOriginAllowed(origin, ownOrigin(request), allowed)) return;
  throw new ApiError(
    'origin_not_allowed',
    `${requestTarget(request)} does not take requests from the browser origin ${origin}; list it in POOLPARTY_DEVNET_CONTROL_ORIGINS to allow it.`,
  );
}

// --- routes -----------------------------------------------------------------------------------

/** A party asked for again: only a given key can name an existing party, so no private key. */
const { privateKey: _generatedOnly, ...EXISTING_PARTY_EXAMPLE } = DEVNET_PARTY_EXAMPLE;

/** Every devnet operation: public (devnet only), in the devnet tag. */
const DEVNET = { tags: [TAG.devnet], security: SECURITY.none } as const;

/** How the ledger's refusals read in the devnet operations' problem responses. */
const LEDGER_NOTES: ProblemNotes = {
  validation_error:
    'a malformed request, or one the ledger refuses (insufficient holdings, a transfer to oneself, an ambiguous token symbol: `admins` lists its admins)',
  not_found: 'no such party (or offer)',
  token_not_found: 'no such token under this admin',
  ledger_unavailable:
    'the ledger refused or timed out (fault injection); retry with the same command',
  gone: 'the offer expired',
  invalid_party_signature:
    '`X-Party-Signature` is missing, or not a signature of this method, path and body by a key of the acting party',
  signature_expired: '`validUntil` has passed on the ledger clock; sign the request again',
  origin_not_allowed:
    "a browser page of another origin (only the service's own and `POOLPARTY_DEVNET_CONTROL_ORIGINS` may)",
  rate_limited: 'too many mints from this client address',
};

const devnetErrors = (codes: readonly ErrorCode[]) => errorResponses(codes, LEDGER_NOTES);

/** Answered inline, as it always was: not a component of the document. */
const HoldingBalancesSchema = inline(DevnetBalancesSchema);

const PendingOffersSchema = inline(DevnetOffersSchema, {
  description: 'Offers pending to the party (it is the receiver).',
});

async function requireParty(ledger: LocalLedger, partyId: string): Promise<void> {
  if (!(await ledger.getParty(partyId))) throw new ApiError('not_found', `No party ${partyId}.`);
}

function offerCommandId(action: 'accept' | 'reject', offerId: string, partyId: string): string {
  const digest = createHash('sha256').update(`${action}\n${offerId}\n${partyId}`).digest('hex');
  return `devnet-${action}-${digest.slice(0, 32)}`;
}

function registerRawJsonBodies(app: App): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    rawBodies.set(request, new Uint8Array(bytes));
    parseJson(request, bytes.toString('utf8'), done);
  });
}

/** What the devnet routes share: the module's dependencies and the fault settings in force. */
interface DevnetRouteDeps extends DevnetDeps {
  /** Changed by `POST /devnet/faults`, which answers them. */
  readonly faults: { current: FaultSettings };
}

const devnetRoute = routeOf<DevnetRouteDeps>();
const FAUCET_MINTS_PER_MIN = DEFAULT_RATE_LIMITS.faucetMintsPerMin;

/** The hooks of the control endpoints: only allowed browser origins may call them. */
const controlOnly = ({ controlOrigins }: DevnetRouteDeps): RouteHooks => ({
  onRequest: async (request: FastifyRequest) => requireControlOrigin(request, controlOrigins),
});

const createDevnetParty = devnetRoute({
  method: 'POST',
  url: '/parties',
  schema: {
    operationId: 'createDevnetParty',
    summary: 'Create a party',
    description:
      'A new external party with an Ed25519 key: the given public key, or a generated pair ' +
      'whose private key is in this answer only. It pre-approves incoming transfers unless ' +
      '`preapproval` is false. 201 when this request created the party; 200, with the same ' +
      'body, when the party of this hint and key exists already (a retried request), and ' +
      'then as it was created: `preapproval` is not changed.',
    ...DEVNET,
    body: withExamples(DevnetCreatePartySchema, DEVNET_CREATE_PARTY_EXAMPLE),
    response: {
      200: withExamples(
        inline(DevnetPartySchema, {
          description: 'The party existed already: the same hint and public key.',
        }),
        EXISTING_PARTY_EXAMPLE,
      ),
      201: withExamples(DevnetPartySchema, DEVNET_PARTY_EXAMPLE),
    },
    problems: devnetErrors([...BODY_PROBLEMS, 'ledger_unavailable']),
  },
  handler: async ({ ledger }, request, reply) => {
    const { partyHint, publicKey, preapproval } = request.body;
    const generated = publicKey === undefined ? generateKeyPair() : undefined;
    const key = generated?.publicKey ?? decodeGivenKey(publicKey);
    const { partyId, created } = await ledger
      .createParty({
        hint: partyHint,
        publicKey: key,
        preapprovals: preapproval === false ? [] : 'all',
      })
      .catch(refuseRangeError);
    reply.code(created ? 201 : 200);
    return {
      partyId,
      publicKey: encodeBase64(key),
      ...(generated ? { privateKey: encodeBase64(generated.privateKey) } : {}),
    };
  },
});

const mintDevnetTokens = devnetRoute({
  method: 'POST',
  url: '/faucet',
  hooks: ({ buckets }) =>
    buckets ? { onRequest: clientAddressLimitHook(buckets, FAUCET_MINTS_PER_MIN, 'faucet') } : {},
  schema: {
    operationId: 'mintDevnetTokens',
    summary: 'Mint tokens to a party (faucet)',
    description: `Limited per client address: ${FAUCET_MINTS_PER_MIN} mints at once, then one every ${60 / FAUCET_MINTS_PER_MIN} s.`,
    ...DEVNET,
    body: withExamples(DevnetFaucetRequestSchema, DEVNET_FAUCET_EXAMPLE),
    response: {
      200: withExamples(DevnetFaucetResultSchema, DEVNET_FAUCET_RESULT_EXAMPLE),
    },
    problems: devnetErrors([
      ...BODY_PROBLEMS,
      'not_found',
      'token_not_found',
      'rate_limited',
      'ledger_unavailable',
    ]),
  },
  handler: async ({ ledger }, request) => {
    const { partyId, token, admin, amount } = request.body;
    const instrument = resolveInstrument(await ledger.listInstruments(), token, admin);
    const minted = Amount.parse(amount);
    const { holdingId } = await ledger.mint({ owner: partyId, instrument, amount: minted });
    return { holdingId, amount: minted.toString() };
  },
});

const getDevnetHoldings = devnetRoute({
  method: 'GET',
  url: '/parties/:partyId/holdings',
  schema: {
    operationId: 'getDevnetHoldings',
    summary: "Get a party's balances",
    ...DEVNET,
    params: PartyIdParamsSchema,
    response: {
      200: withExamples(HoldingBalancesSchema, DEVNET_HOLDINGS_EXAMPLE),
    },
    problems: devnetErrors(['validation_error', 'not_found', 'ledger_unavailable']),
  },
  handler: async ({ ledger }, request) => {
    const { partyId } = request.params;
    await requireParty(ledger, partyId);
    return { holdings: balancesOf(await ledger.getHoldings(partyId)) };
  },
});

const submitDevnetTransfer = devnetRoute({
  method: 'POST',
  url: '/transfers',
  schema: {
    operationId: 'submitDevnetTransfer',
    summary: 'Transfer tokens, signed by the sender',
    description:
      'A token-standard transfer: `direct` when the receiver pre-approved the token, else an ' +
      'offer the receiver accepts or rejects. `commandId` deduplicates retries.',
    ...DEVNET,
    body: withExamples(DevnetTransferRequestSchema, DEVNET_TRANSFER_EXAMPLE),
    headers: SignedHeadersSchema,
    response: {
      200: withExamples(DevnetTransferResultSchema, DEVNET_TRANSFER_RESULT_EXAMPLE),
    },
    problems: devnetErrors([
      ...BODY_PROBLEMS,
      'invalid_party_signature',
      'signature_expired',
      'not_found',
      'token_not_found',
      'ledger_unavailable',
    ]),
  },
  handler: async ({ ledger }, request) => {
    const { sender, receiver, token, admin, amount, reason, commandId, validUntil } = request.body;
    await requireParty(ledger, sender);
    await requirePartySignature(ledger, request, sender, validUntil);
    const outcome = await ledger.submitTransfer({
      commandId,
      sender,
      receiver,
      instrument: resolveInstrument(await ledger.listInstruments(), token, admin),
      amount: Amount.parse(amount),
      meta: reason === undefined ? {} : { [REASON_META_KEY]: reason },
    });
    return outcome.kind === 'offer'
      ? { updateId: outcome.updateId, kind: outcome.kind, offerId: outcome.offerId }
      : { updateId: outcome.updateId, kind: outcome.kind };
  },
});

const listDevnetOffers = devnetRoute({
  method: 'GET',
  url: '/parties/:partyId/offers',
  schema: {
    operationId: 'listDevnetOffers',
    summary: 'List the offers pending to a party',
    ...DEVNET,
    params: PartyIdParamsSchema,
    response: {
      200: withExamples(PendingOffersSchema, DEVNET_OFFERS_EXAMPLE),
    },
    problems: devnetErrors(['validation_error', 'not_found', 'ledger_unavailable']),
  },
  handler: async ({ ledger }, request) => {
    const { partyId } = request.params;
    await requireParty(ledger, partyId);
    const offers = await ledger.getPendingOffers(partyId);
    return { offers: offers.filter((o) => o.receiver === partyId).map(offerToWire) };
  },
});

/** `POST /offers/{offerId}/accept` or `/reject`, signed by the receiver. */
function offerActionRoute(action: 'accept' | 'reject') {
  return devnetRoute({
    method: 'POST',
    url: `/offers/:offerId/${action}`,
    schema: {
      operationId: `${action}DevnetOffer`,
      summary: `${action === 'accept' ? 'Accept' : 'Reject'} a transfer offer, signed by the receiver`,
      ...DEVNET,
      params: OfferIdParamsSchema,
      body: withExamples(DevnetOfferActionSchema, DEVNET_OFFER_ACTION_EXAMPLE),
      headers: SignedHeadersSchema,
      response: {
        200: withExamples(DevnetOfferActionResultSchema, DEVNET_OFFER_ACTION_RESULT_EXAMPLE),
      },
      problems: devnetErrors([
        ...BODY_PROBLEMS,
        'invalid_party_signature',
        'signature_expired',
        'not_found',
        'gone',
        'ledger_unavailable',
      ]),
    },
    handler: async ({ ledger }, request) => {
      const { offerId } = request.params;
      const { partyId, validUntil } = request.body;
      await requireParty(ledger, partyId);
      await requirePartySignature(ledger, request, partyId, validUntil);
      const command = {
        commandId: offerCommandId(action, offerId, partyId),
        offerId,
        actor: partyId,
      };
      const result =
        action === 'accept' ? await ledger.acceptOffer(command) : await ledger.rejectOffer(command);
      return { offerId, updateId: result.updateId };
    },
  });
}

const getDevnetClock = devnetRoute({
  method: 'GET',
  url: '/clock',
  schema: {
    operationId: 'getDevnetClock',
    summary: 'Read the ledger clock',
    description:
      'Signed requests set `validUntil` from this time: at most 1 h ahead of it. It differs ' +
      'from real time once the clock has been moved.',
    ...DEVNET,
    response: {
      200: withExamples(
        inline(DevnetClockSchema, { description: 'The ledger clock now.' }),
        DEVNET_CLOCK_EXAMPLE,
      ),
    },
    problems: devnetErrors(['ledger_unavailable']),
  },
  handler: async ({ ledger }) => ({ now: (await ledger.now()).toISOString() }),
});

const advanceDevnetClock = devnetRoute({
  method: 'POST',
  url: '/clock',
  hooks: controlOnly,
  schema: {
    operationId: 'advanceDevnetClock',
    summary: 'Move the ledger clock forward',
    description: 'Mining rounds advance with it; the service clock follows.',
    ...DEVNET,
    body: withExamples(DevnetClockAdvanceSchema, DEVNET_CLOCK_ADVANCE_EXAMPLE),
    response: {
      200: withExamples(DevnetClockSchema, DEVNET_CLOCK_EXAMPLE),
    },
    problems: devnetErrors([...BODY_PROBLEMS, 'origin_not_allowed', 'ledger_unavailable']),
  },
  handler: async ({ ledger, onClockAdvanced }, request) => {
    const now = await ledger.advanceClock(request.body.advanceMs);
    await onClockAdvanced?.();
    return { now: now.toISOString() };
  },
});

const setDevnetAmuletPrice = devnetRoute({
  method: 'POST',
  url: '/oracle',
  hooks: controlOnly,
  schema: {
    operationId: 'setDevnetAmuletPrice',
    summary: 'Set the Amulet USD price',
    description: 'The price the next mining rounds carry; it must be positive.',
    ...DEVNET,
    body: withExamples(DevnetOracleSchema, DEVNET_ORACLE_EXAMPLE),
    response: {
      200: withExamples(DevnetOracleSchema, DEVNET_ORACLE_EXAMPLE),
    },
    problems: devnetErrors([...BODY_PROBLEMS, 'origin_not_allowed', 'ledger_unavailable']),
  },
  handler: async ({ ledger }, request) => {
    const price = Amount.parse(request.body.amuletPriceUsd);
    // Fees are converted through this price; zero would make every conversion divide by zero.
    if (price.isZero()) throw new ApiError('validation_error', 'amuletPriceUsd must be positive.');
    await ledger.setAmuletPrice(price);
    return { amuletPriceUsd: price.toString() };
  },
});

const setDevnetFaults = devnetRoute({
  method: 'POST',
  url: '/faults',
  hooks: controlOnly,
  schema: {
    operationId: 'setDevnetFaults',
    summary: 'Set fault injection',
    description:
      'Changes the settings named in the body and keeps the others; answers the settings now ' +
      'in force.',
    ...DEVNET,
    body: withExamples(DevnetFaultsSchema, DEVNET_FAULTS_EXAMPLE),
    response: {
      200: withExamples(DevnetFaultsSchema, DEVNET_FAULTS_IN_FORCE_EXAMPLE),
    },
    problems: devnetErrors([...BODY_PROBLEMS, 'origin_not_allowed']),
  },
  handler: async ({ ledger, faults }, request) => {
    const next = mergeFaults(faults.current, request.body);
    ledger.setFaults(next);
    faults.current = next;
    return faults.current;
  },
});

const DEVNET_ROUTES = [
  createDevnetParty,
  mintDevnetTokens,
  getDevnetHoldings,
  submitDevnetTransfer,
  listDevnetOffers,
  offerActionRoute('accept'),
  offerActionRoute('reject'),
  getDevnetClock,
  advanceDevnetClock,
  setDevnetAmuletPrice,
  setDevnetFaults,
];

export async function devnetRoutes(app: App, deps: DevnetDeps): Promise<void> {
  registerRawJsonBodies(app);
  // Ledger refusals become problems here; the parent handler then answers them.
  app.setErrorHandler((error) => {
    throw error instanceof LedgerError ? problemOfLedgerError(error) : error;
  });
  registerRoutes(app, { ...deps, faults: { current: FAULTS_OFF } }, DEVNET_ROUTES);
}

function decodeGivenKey(publicKey: string | undefined): Uint8Array {
  const decoded = decodePublicKey(publicKey);
  if (!decoded.ok) throw new ApiError('validation_error', `publicKey: ${decoded.message}.`);
  return decoded.bytes;
}

/** The ledger checks hints more strictly than the wire schema (no `:`); that is still a 400. */
function refuseRangeError(error: unknown): never {
  if (error instanceof RangeError) throw new ApiError('validation_error', error.message);
  throw error;
}
