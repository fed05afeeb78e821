/**
 * Wallet authentication (docs/spec/auth.md#wallet-challenge): a party asks for a challenge, its
 * wallet signs it, and the signed challenge buys a short-lived wallet token. Both steps are behind
 * the API key (the `/v1` scope) and a per-client-address limit, so nonces cannot be farmed.
 */
import {
  type ChallengePurpose,
  ChallengeRequestSchema,
  ChallengeSchema,
  VerifyRequestSchema,
  WalletTokenSchema,
} from '@poolparty/core';
import { issueChallenge, verifyChallenge } from '../../auth/challenges.js';
import type { ServiceContext } from '../../context.js';
import { clientAddressLimitHook, DEFAULT_RATE_LIMITS } from '../authenticate.js';
import type { App } from '../fastify.js';
import {
  CHALLENGE_REQUEST_EXAMPLE,
  challengeExample,
  SIGNED_CHALLENGE_EXAMPLE,
  WALLET_TOKEN_EXAMPLE,
} from '../openapi-examples.js';
import {
  API_KEY_PROBLEMS,
  BODY_PROBLEMS,
  errorResponses,
  SECURITY,
  TAG,
  withExamples,
} from '../route-docs.js';
import { registerRoutes, routeOf } from '../route-table.js';
import type { BucketStore } from '../token-bucket.js';

const PURPOSE: ChallengePurpose = 'swap wallet authentication';

/** What wallet authentication uses: the challenges' store and ledger, and the token signer. */
export type WalletAuthContext = Pick<
  ServiceContext,
  'db' | 'settings' | 'clock' | 'ledger' | 'walletTokens'
>;

/** What the wallet-auth routes share. */
interface WalletAuthDeps {
  readonly ctx: WalletAuthContext;
  /** The per-client-address limit of both steps. */
  readonly limitLogins: ReturnType<typeof clientAddressLimitHook>;
}

const walletAuthRoute = routeOf<WalletAuthDeps>();
const limitedPerClientAddress = ({ limitLogins }: WalletAuthDeps) => ({ onRequest: limitLogins });

const requestWalletChallenge = walletAuthRoute({
  method: 'POST',
  url: '/wallet-auth/challenge',
  hooks: limitedPerClientAddress,
  schema: {
    operationId: 'requestWalletChallenge',
    summary: 'Request a wallet challenge',
    description:
      'A single-use message for the wallet to sign, valid for 5 minutes. Limited per client ' +
      'address as well as per API key.',
    tags: [TAG.walletAuth],
    security: SECURITY.apiKey,
    body: withExamples(ChallengeRequestSchema, CHALLENGE_REQUEST_EXAMPLE),
    response: {
      200: withExamples(ChallengeSchema, challengeExample(PURPOSE)),
    },
    problems: errorResponses([...API_KEY_PROBLEMS, ...BODY_PROBLEMS]),
  },
  handler: async ({ ctx }, request) => issueChallenge(ctx, request.body.partyId, PURPOSE),
});

const verifyWalletChallenge = walletAuthRoute({
  method: 'POST',
  url: '/wallet-auth/verify',
  hooks: limitedPerClientAddress,
  schema: {
    operationId: 'verifyWalletChallenge',
    summary: 'Exchange a signed challenge for a wallet token',
    description:
      'The token is a 15-minute JWT for the party; send it as a bearer token. The nonce is ' +
      'consumed by this call, also when it fails.',
    tags: [TAG.walletAuth],
    security: SECURITY.apiKey,
    body: withExamples(VerifyRequestSchema, SIGNED_CHALLENGE_EXAMPLE),
    response: {
      200: withExamples(WalletTokenSchema, WALLET_TOKEN_EXAMPLE),
    },
    problems: errorResponses(
      [
        ...API_KEY_PROBLEMS,
        ...BODY_PROBLEMS,
        'invalid_nonce',
        'invalid_signature',
        'ledger_unavailable',
      ],
      {
        ledger_unavailable:
          "the ledger could not be asked whether the key acts for the party (a party in a participant's namespace)",
      },
    ),
  },
  handler: async ({ ctx }, request) => {
    const partyId = await verifyChallenge(ctx, request.body, PURPOSE);
    const issued = await ctx.walletTokens.issue(partyId, ctx.clock.now());
    return { partyId, token: issued.token, expiresAt: issued.expiresAt.toISOString() };
  },
});

const WALLET_AUTH_ROUTES = [requestWalletChallenge, verifyWalletChallenge];

/** The wallet authentication routes, a plugin registered with their context and the buckets. */
export async function walletAuthRoutes(
  app: App,
  { ctx, buckets }: { readonly ctx: WalletAuthContext; readonly buckets: BucketStore },
): Promise<void> {
  const limitLogins = clientAddressLimitHook(buckets, DEFAULT_RATE_LIMITS.loginAttemptsPerMin);
  registerRoutes(app, { ctx, limitLogins }, WALLET_AUTH_ROUTES);
}
