/**
 * The service's devnet endpoints (docs/spec/ledger.md#devnet-endpoints): parties, faucet, signed
 * transfers and offers, the clock, the Amulet price and fault injection. Registered under
 * `/devnet` only in devnet mode with the local ledger. Each endpoint, its path, wire schemas and
 * handler, is the devnet's own (`@poolparty/devnet-ledger/devnet`'s endpoints, which its server
 * serves too); this module adds the service's side: the documentation, the faucet's rate limit,
 * the origins the control endpoints take.
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
 */
import { type ErrorCode, inline } from '@poolparty/core';
import {
  DEVNET_ENDPOINTS,
  DevnetConveniences,
  type DevnetEndpoint,
  type DevnetEndpointName,
  keepRawJsonBodies,
  problemOfLedgerError,
  requireControlOrigin,
} from '@poolparty/devnet-ledger/devnet';
import { LedgerError, type LocalLedger } from '@poolparty/ledger';
import type { SchemaOptions, TSchema } from '@sinclair/typebox';
import type { FastifyRequest, FastifySchema } from 'fastify';
import { clientAddressLimitHook, DEFAULT_RATE_LIMITS } from '../authenticate.js';
import { type App, anyQueryString } from '../fastify.js';
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
import { requestTarget } from '../problem.js';
import {
  BODY_PROBLEMS,
  errorResponses,
  type ProblemNotes,
  SECURITY,
  TAG,
  withExamples,
} from '../route-docs.js';
import { type Route, type RouteHooks, registerRoutes } from '../route-table.js';
import type { BucketStore } from '../token-bucket.js';

export interface DevnetDeps {
  readonly ledger: LocalLedger;
  /**
   * Per-client-address buckets that limit the faucet to `DEFAULT_RATE_LIMITS.faucetMintsPerMin`.
   * Absent: not limited.
   */
  readonly buckets?: BucketStore;
  /** Browser origins besides the service's own that may call the control endpoints. */
  readonly controlOrigins: readonly string[];
  /** Lets the service clock follow the ledger clock after `POST /devnet/clock`. */
  readonly onClockAdvanced?: () => Promise<void>;
}

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

/** What the devnet routes share: the module's dependencies and the operations on the ledger. */
interface DevnetRouteDeps extends DevnetDeps {
  readonly devnet: DevnetConveniences;
}

const FAUCET_MINTS_PER_MIN = DEFAULT_RATE_LIMITS.faucetMintsPerMin;

/** What the service says of an operation, and adds to it, beyond its endpoint's wire schemas. */
interface OperationDocs {
  readonly summary: string;
  readonly description?: string;
  /** The example of the request body, and of the answer of each status. */
  readonly examples: { readonly body?: unknown; readonly [status: number]: unknown };
  /** Answers the document shows inline, as it always did, not as components: with these members. */
  readonly inline?: Readonly<Record<number, SchemaOptions>>;
  /** The problems it can answer, each described as `LEDGER_NOTES` says. */
  readonly problems: readonly ErrorCode[];
  /** Hooks of the service's own, such as the faucet's rate limit. */
  readonly hooks?: (deps: DevnetRouteDeps) => RouteHooks;
}

/** `Accept` or `Reject` a transfer offer: one of the two, as the receiver signs it. */
const offerActionDocs = (verb: 'Accept' | 'Reject'): OperationDocs => ({
  summary: `${verb} a transfer offer, signed by the receiver`,
  examples: { body: DEVNET_OFFER_ACTION_EXAMPLE, 200: DEVNET_OFFER_ACTION_RESULT_EXAMPLE },
  problems: [
    ...BODY_PROBLEMS,
    'invalid_party_signature',
    'signature_expired',
    'not_found',
    'gone',
    'ledger_unavailable',
  ],
});

const CONTROL_PROBLEMS = [...BODY_PROBLEMS, 'origin_not_allowed'] as const;

const DOCS: Readonly<Record<DevnetEndpointName, OperationDocs>> = {
  createDevnetParty: {
    summary: 'Create a party',
    description:
      'A new external party with an Ed25519 key: the given public key, or a generated pair ' +
      'whose private key is in this answer only. It pre-approves incoming transfers unless ' +
      '`preapproval` is false. 201 when this request created the party; 200, with the same ' +
      'body, when the party of this hint and key exists already (a retried request), and ' +
      'then as it was created: `preapproval` is not changed.',
    examples: {
      body: DEVNET_CREATE_PARTY_EXAMPLE,
      200: EXISTING_PARTY_EXAMPLE,
      201: DEVNET_PARTY_EXAMPLE,
    },
    inline: { 200: { description: 'The party existed already: the same hint and public key.' } },
    problems: [...BODY_PROBLEMS, 'ledger_unavailable'],
  },
  mintDevnetTokens: {
    summary: 'Mint tokens to a party (faucet)',
    description: `Limited per client address: ${FAUCET_MINTS_PER_MIN} mints at once, then one every ${60 / FAUCET_MINTS_PER_MIN} s.`,
    examples: { body: DEVNET_FAUCET_EXAMPLE, 200: DEVNET_FAUCET_RESULT_EXAMPLE },
    problems: [
      ...BODY_PROBLEMS,
      'not_found',
      'token_not_found',
      'rate_limited',
      'ledger_unavailable',
    ],
    hooks: ({ buckets }) =>
      buckets ? { onRequest: clientAddressLimitHook(buckets, FAUCET_MINTS_PER_MIN, 'faucet') } : {},
  },
  getDevnetHoldings: {
    summary: "Get a party's balances",
    examples: { 200: DEVNET_HOLDINGS_EXAMPLE },
    inline: { 200: {} },
    problems: ['validation_error', 'not_found', 'ledger_unavailable'],
  },
  submitDevnetTransfer: {
    summary: 'Transfer tokens, signed by the sender',
    description:
      'A token-standard transfer: `direct` when the receiver pre-approved the token, else an ' +
      'offer the receiver accepts or rejects. `commandId` deduplicates retries.',
    examples: { body: DEVNET_TRANSFER_EXAMPLE, 200: DEVNET_TRANSFER_RESULT_EXAMPLE },
    problems: [
      ...BODY_PROBLEMS,
      'invalid_party_signature',
      'signature_expired',
      'not_found',
      'token_not_found',
      'ledger_unavailable',
    ],
  },
  listDevnetOffers: {
    summary: 'List the offers pending to a party',
    examples: { 200: DEVNET_OFFERS_EXAMPLE },
    inline: { 200: { description: 'Offers pending to the party (it is the receiver).' } },
    problems: ['validation_error', 'not_found', 'ledger_unavailable'],
  },
  acceptDevnetOffer: offerActionDocs('Accept'),
  rejectDevnetOffer: offerActionDocs('Reject'),
  getDevnetClock: {
    summary: 'Read the ledger clock',
    description:
      'Signed requests set `validUntil` from this time: at most 1 h ahead of it. It differs ' +
      'from real time once the clock has been moved.',
    examples: { 200: DEVNET_CLOCK_EXAMPLE },
    inline: { 200: { description: 'The ledger clock now.' } },
    problems: ['ledger_unavailable'],
  },
  advanceDevnetClock: {
    summary: 'Move the ledger clock forward',
    description: 'Mining rounds advance with it; the service clock follows.',
    examples: { body: DEVNET_CLOCK_ADVANCE_EXAMPLE, 200: DEVNET_CLOCK_EXAMPLE },
    problems: [...CONTROL_PROBLEMS, 'ledger_unavailable'],
  },
  setDevnetAmuletPrice: {
    summary: 'Set the Amulet USD price',
    description: 'The price the next mining rounds carry; it must be positive.',
    examples: { body: DEVNET_ORACLE_EXAMPLE, 200: DEVNET_ORACLE_EXAMPLE },
    problems: [...CONTROL_PROBLEMS, 'ledger_unavailable'],
  },
  setDevnetFaults: {
    summary: 'Set fault injection',
    description:
      'Changes the settings named in the body and keeps the others; answers the settings now ' +
      'in force.',
    examples: { body: DEVNET_FAULTS_EXAMPLE, 200: DEVNET_FAULTS_IN_FORCE_EXAMPLE },
    problems: CONTROL_PROBLEMS,
  },
};

/** An endpoint's schema as the service documents it: its wire schemas with the docs around them. */
function documentedSchema({ name, schema }: DevnetEndpoint, docs: OperationDocs): FastifySchema {
  const { params, body, headers, response } = schema;
  const answers = Object.entries(response).map(([status, answer]) => {
    const overrides = docs.inline?.[Number(status)];
    const shown = overrides === undefined ? answer : inline(answer as TSchema, overrides);
    return [status, withExamples(shown, docs.examples[Number(status)])];
  });
  return {
    operationId: name,
    summary: docs.summary,
    ...(docs.description !== undefined && { description: docs.description }),
    ...DEVNET,
    // No devnet call reads a query, and one a proxy appends must break neither the party's
    // signature (which leaves it out) nor the call: these take any query.
    querystring: anyQueryString(),
    ...(params !== undefined && { params }),
    ...(body !== undefined && { body: withExamples(body, docs.examples.body) }),
    ...(headers !== undefined && { headers }),
    response: Object.fromEntries(answers),
    problems: errorResponses(docs.problems, LEDGER_NOTES),
  };
}

/** The hooks of the control endpoints: only allowed browser origins may call them. */
const controlOnly = ({ controlOrigins }: DevnetRouteDeps): RouteHooks => ({
  onRequest: async (request: FastifyRequest) =>
    requireControlOrigin(
      {
        target: requestTarget(request),
        origin: typeof request.headers.origin === 'string' ? request.headers.origin : undefined,
        own: ownOrigin(request),
      },
      controlOrigins,
    ),
});

/** An endpoint as the service serves it: documented, with its hooks and the control checks. */
function served(endpoint: DevnetEndpoint<DevnetEndpointName>): Route<DevnetRouteDeps> {
  const docs = DOCS[endpoint.name];
  return {
    method: endpoint.method,
    url: endpoint.url,
    schema: documentedSchema(endpoint, docs),
    hooks: endpoint.control ? controlOnly : docs.hooks,
    handler: endpoint.handler,
  };
}

export async function devnetRoutes(app: App, deps: DevnetDeps): Promise<void> {
  keepRawJsonBodies(app);
  // The operations answer ledger refusals as problems; the service clock's follow-up reads the
  // ledger too, and its refusals read the same. The parent handler then answers them.
  app.setErrorHandler((error) => {
    throw error instanceof LedgerError ? problemOfLedgerError(error) : error;
  });
  const routes = DEVNET_ENDPOINTS.map(served);
  registerRoutes(app, { ...deps, devnet: new DevnetConveniences(deps.ledger) }, routes);
}
