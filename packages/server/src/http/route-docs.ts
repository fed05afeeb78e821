/**
 * What the OpenAPI document says about each operation beyond its wire schemas: tags, security
 * requirements, problem responses and examples. Routes declare these through the helpers here so
 * that every operation documents the same things the same way, and `openapi.ts` lists the tags
 * and security schemes they refer to.
 *
 * A route's problem responses go in `schema.problems`, not in `schema.response`: Fastify compiles
 * a serializer for every response schema when the route is registered, and a few hundred of them
 * (one per status and route) cost the service about a second of start-up for no gain. Problem
 * bodies are serialized as they are; `openapi.ts` merges `problems` into the documented responses.
 */
import { ERROR_CATALOGUE, type ErrorCode } from '@poolparty/core';
import { PROBLEM_CONTENT_TYPE } from '@poolparty/core/problems';
import { problemExample } from './openapi-examples.js';

declare module 'fastify' {
  interface FastifySchema {
    /** The operation's problem responses by status, for the OpenAPI document only. */
    problems?: ProblemResponses;
  }
}

/** The `$id` of the shared problem schema, `components.schemas.Problem` in the document. */
export const PROBLEM_SCHEMA_ID = 'Problem';

// --- tags -------------------------------------------------------------------------------------

/** The tag of each group of operations; the document lists them in this order. */
export const TAG = {
  walletAuth: 'Wallet auth',
  tokens: 'Tokens',
  pools: 'Pools',
  quotes: 'Quotes',
  swaps: 'Swaps',
  atomicSwaps: 'Atomic swaps',
  liquidity: 'Liquidity',
  portal: 'Developer portal',
  operations: 'Operations',
  devnet: 'Devnet',
} as const;

export type Tag = (typeof TAG)[keyof typeof TAG];

export const TAG_DESCRIPTIONS: Readonly<Record<Tag, string>> = {
  'Wallet auth':
    "Prove control of a Canton party: the wallet signs a single-use challenge with the party's " +
    'key and gets a 15-minute wallet token for the swap endpoints (docs/spec/auth.md).',
  Tokens: 'The tokens some pool trades.',
  Pools: 'Constant-product pools with their effective reserves, statistics and USD ticker.',
  Quotes: 'The price of a swap before it is made: fees, output, price impact and safety verdict.',
  Swaps:
    "Swap intents of the wallet token's party: create, follow (status or Server-Sent Events), " +
    "cancel and list. Another party's intent answers 404, so intent ids cannot be probed.",
  'Atomic swaps':
    "Swaps in one ledger transaction the wallet signs: the trader's input and the pool's output " +
    'settle together or not at all, so the pool never holds the input unpaid ' +
    '(docs/spec/atomic-swaps.md). Prepare, decode and sign, follow, cancel before signing.',
  Liquidity:
    "Liquidity of the wallet token's party, an extension beside the swap interface: intents " +
    'that deposit both tokens of a pool for units, withdrawals that burn units for both tokens, ' +
    'and positions (docs/spec/liquidity.md).',
  'Developer portal':
    "Developer sign-in with a Canton wallet, the developer's API keys, and their " +
    'earnings, usage and collections of earnings (docs/spec/portal.md).',
  Operations:
    'Liveness, readiness and Prometheus metrics for orchestrators and monitoring; served without ' +
    'authentication, also by worker processes.',
  Devnet:
    "The local devnet ledger's controls: parties, faucet, signed transfers and offers, the " +
    'ledger clock, the Amulet price and fault injection (docs/spec/ledger.md#devnet-endpoints). ' +
    'These operations exist only when the service runs in devnet mode with the local ledger; ' +
    'elsewhere their paths answer 404 and this document does not list them.',
};

// --- security -----------------------------------------------------------------------------------

/** The security schemes the operations refer to, by the names used in `SECURITY`. */
export const SECURITY_SCHEMES = {
  apiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description:
      "The developer's API key from the developer portal: `pp_live_…` on mainnet, `pp_test_…` " +
      'on devnet. Every `/v1` call needs one; a key of the other environment is refused.',
  },
  walletToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'A wallet token from `POST /v1/wallet-auth/verify`: an EdDSA JWT for one party, valid ' +
      '15 minutes, sent as `Authorization: Bearer <token>` next to the API key.',
  },
  developerSession: {
    type: 'http',
    scheme: 'bearer',
    description:
      'A developer session token from `POST /api/sdk/wallet-login` (12 hours), for scripts.',
  },
  developerSessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'pp_session',
    description:
      'The same developer session as the HttpOnly cookie the login sets; browsers send it by ' +
      'themselves. It wins when both the cookie and a bearer token are sent. A write with it ' +
      "(POST, DELETE) must name, in `Origin` or else `Referer`, the service's own origin or one " +
      'of `POOLPARTY_PORTAL_ORIGINS`; otherwise 403 `origin_not_allowed`.',
  },
} as const;

type SchemeName = keyof typeof SECURITY_SCHEMES;
type SecurityRequirement = Readonly<Partial<Record<SchemeName, readonly string[]>>>;

/** Each operation's `security`: alternatives, each a set of schemes needed together. */
export const SECURITY = {
  /** Public: explicitly no credentials. */
  none: [],
  apiKey: [{ apiKey: [] }],
  apiKeyAndWalletToken: [{ apiKey: [], walletToken: [] }],
  developerSession: [{ developerSessionCookie: [] }, { developerSession: [] }],
} as const satisfies Record<string, readonly SecurityRequirement[]>;

// --- problems -----------------------------------------------------------------------------------

/** What a missing, wrong or exhausted API key answers on every `/v1` operation. */
export const API_KEY_PROBLEMS = [
  'missing_api_key',
  'invalid_api_key',
  'api_key_revoked',
  'wrong_environment',
  'rate_limited',
] as const satisfies readonly ErrorCode[];

const WALLET_TOKEN_PROBLEMS = [
  'missing_wallet_token',
  'invalid_wallet_token',
] as const satisfies readonly ErrorCode[];

/** What a `/v1` operation with a wallet token can answer before it looks at anything else. */
export const WALLET_AUTH_PROBLEMS = [...API_KEY_PROBLEMS, ...WALLET_TOKEN_PROBLEMS] as const;

/** What an operation naming one of the wallet party's intents can answer before its own. */
export const INTENT_PROBLEMS = [...WALLET_AUTH_PROBLEMS, 'validation_error', 'not_found'] as const;

export const SESSION_PROBLEMS = [
  'missing_session',
  'invalid_session',
] as const satisfies readonly ErrorCode[];

/** A portal write behind the session: also the origin check of a cookie-authenticated one. */
export const SESSION_WRITE_PROBLEMS = [
  ...SESSION_PROBLEMS,
  'origin_not_allowed',
] as const satisfies readonly ErrorCode[];

/** What `origin_not_allowed` means on a portal write. */
export const SESSION_WRITE_NOTES: ProblemNotes = {
  origin_not_allowed:
    "sent with the session cookie from a page of another origin, or naming no `Origin` (nor `Referer`): only the service's own pages and `POOLPARTY_PORTAL_ORIGINS` may; a bearer token is not checked",
};

/** What any operation with a JSON request body can answer about the body itself. */
export const BODY_PROBLEMS = [
  'validation_error',
  'payload_too_large',
  'unsupported_media_type',
] as const satisfies readonly ErrorCode[];

/** A code's line in a response description; routes may say more about their own case. */
export type ProblemNotes = Readonly<Partial<Record<ErrorCode, string>>>;

interface HeaderDoc {
  readonly description: string;
  readonly type: 'integer';
  readonly minimum: number;
}

interface ProblemExample {
  readonly summary: string;
  readonly value: object;
}

export interface ProblemResponse {
  readonly description: string;
  readonly headers?: Readonly<Record<string, HeaderDoc>>;
  readonly content: {
    readonly [PROBLEM_CONTENT_TYPE]: {
      readonly schema: { readonly $ref: string };
      readonly examples: Readonly<Record<string, ProblemExample>>;
    };
  };
}

const PROBLEM_REF = { $ref: `${PROBLEM_SCHEMA_ID}#` } as const;

/** What a 429 tells the client about where it stands (docs/spec/protocol.md#rate-limits). */
const RATE_LIMIT_HEADERS: Readonly<Record<string, HeaderDoc>> = {
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    type: 'integer',
    minimum: 0,
  },
  'RateLimit-Limit': {
    description: 'Requests allowed per minute in this bucket.',
    type: 'integer',
    minimum: 0,
  },
  'RateLimit-Remaining': {
    description: 'Requests left in the current window.',
    type: 'integer',
    minimum: 0,
  },
  'RateLimit-Reset': {
    description:
      'Seconds until the quota grows by one request (0: the bucket is full); on a 429 the same as `Retry-After`.',
    type: 'integer',
    minimum: 0,
  },
};

/**
 * The problem responses of an operation, one per HTTP status, for the codes it can answer. Each
 * status lists its codes with their meaning and has an example body per code; a 429 also
 * documents the rate-limit headers.
 */
function problemResponses(
  codes: readonly ErrorCode[],
  notes: ProblemNotes = {},
): Record<number, ProblemResponse> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const { status } = ERROR_CATALOGUE[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<number, ProblemResponse> = {};
  for (const [status, group] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[status] = {
      description: group
        .map((code) => `\`${code}\`: ${notes[code] ?? ERROR_CATALOGUE[code].title}.`)
        .join(' '),
      ...(status === 429 && { headers: RATE_LIMIT_HEADERS }),
      content: {
        [PROBLEM_CONTENT_TYPE]: {
          schema: PROBLEM_REF,
          examples: Object.fromEntries(
            group.map((code) => [
              code,
              { summary: ERROR_CATALOGUE[code].title, value: problemExample(code) },
            ]),
          ),
        },
      },
    };
  }
  return responses;
}

export type ProblemResponses = Readonly<Record<number | 'default', ProblemResponse>>;

/**
 * Any other failure: the service's own fault (500 `internal_error`), or its store out of reach
 * for a moment (503 `store_unavailable`, which any operation can meet). Every operation declares
 * it as its `default` response, so clients know the body of an error they did not plan for.
 */
function unexpectedProblem(): { default: ProblemResponse } {
  return {
    default: {
      description:
        'Any other error, such as `internal_error` (500): the service failed to handle the ' +
        'request; or `store_unavailable` (503, with `Retry-After`): the service lost its ' +
        'store connection and is reconnecting. The body is a problem document like every error.',
      content: {
        [PROBLEM_CONTENT_TYPE]: {
          schema: PROBLEM_REF,
          examples: {
            internal_error: {
              summary: ERROR_CATALOGUE.internal_error.title,
              value: problemExample('internal_error'),
            },
            store_unavailable: {
              summary: ERROR_CATALOGUE.store_unavailable.title,
              value: problemExample('store_unavailable'),
            },
          },
        },
      },
    },
  };
}

/**
 * A route's `schema.problems` with more codes among them, each under its status beside the codes
 * already there; a code the route documents already keeps its own note.
 */
export function withProblems(
  problems: ProblemResponses | undefined,
  codes: readonly ErrorCode[],
  notes: ProblemNotes = {},
): ProblemResponses {
  const merged: Record<number | 'default', ProblemResponse> = {
    ...unexpectedProblem(),
    ...problems,
  };
  const documented = (status: number) =>
    Object.keys(merged[status]?.content[PROBLEM_CONTENT_TYPE].examples ?? {});
  const added = codes.filter((code) => !documented(ERROR_CATALOGUE[code].status).includes(code));
  for (const [status, response] of Object.entries(problemResponses(added, notes))) {
    const existing = merged[Number(status)];
    merged[Number(status)] = existing === undefined ? response : joined(existing, response);
  }
  return merged;
}

function joined(first: ProblemResponse, second: ProblemResponse): ProblemResponse {
  const [a, b] = [first, second].map((each) => each.content[PROBLEM_CONTENT_TYPE]);
  return {
    ...first,
    description: `${first.description} ${second.description}`,
    content: {
      [PROBLEM_CONTENT_TYPE]: {
        schema: PROBLEM_REF,
        examples: { ...a?.examples, ...b?.examples },
      },
    },
  };
}

/** `problemResponses` plus the `default` response: a route's `schema.problems`. */
export function errorResponses(
  codes: readonly ErrorCode[],
  notes: ProblemNotes = {},
): ProblemResponses {
  return { ...problemResponses(codes, notes), ...unexpectedProblem() };
}

// --- examples -----------------------------------------------------------------------------------

/**
 * The schema with example values. The OpenAPI document shows one as the media type's `example`,
 * several as its `examples`; validation and serialization ignore them.
 */
export function withExamples<T extends object>(schema: T, ...examples: readonly unknown[]): T {
  return { ...schema, examples };
}
