/**
 * Wallet authentication and the developer portal's login and keys (docs/spec/auth.md).
 */
import { type Static, Type } from '@sinclair/typebox';
import { inline, nullable, PartyIdSchema, TimestampSchema, timestampField } from './common.js';

const NonceSchema = Type.String({
  $id: 'Nonce',
  description: 'A single-use challenge nonce, base64url.',
  pattern: '^[A-Za-z0-9_-]{1,128}$',
});

export const SignatureSchema = Type.String({
  $id: 'Signature',
  description: 'Ed25519 signature of the UTF-8 challenge message: base64 (or hex) of 64 bytes.',
  pattern: '^[A-Za-z0-9+/=_-]{1,256}$',
});

export const PublicKeySchema = Type.String({
  $id: 'PublicKey',
  description:
    'Ed25519 public key: base64 (or hex) of the raw 32 bytes, or base64 DER SubjectPublicKeyInfo.',
  pattern: '^[A-Za-z0-9+/=_-]{1,256}$',
});

export const ChallengeRequestSchema = Type.Object(
  { partyId: inline(PartyIdSchema) },
  {
    $id: 'ChallengeRequest',
    description: 'Body of `POST /v1/wallet-auth/challenge`.',
    additionalProperties: false,
  },
);

export const ChallengeSchema = Type.Object(
  {
    partyId: inline(PartyIdSchema),
    nonce: inline(NonceSchema),
    message: Type.String({ description: 'The text the wallet signs, as UTF-8 bytes.' }),
    expiresAt: timestampField('The nonce is refused after this time.'),
  },
  {
    $id: 'Challenge',
    description: 'A challenge for the wallet to sign (docs/spec/auth.md#wallet-challenge).',
  },
);
export type Challenge = Static<typeof ChallengeSchema>;

const signedAnswer = {
  partyId: inline(PartyIdSchema),
  nonce: inline(NonceSchema),
  signature: inline(SignatureSchema),
  publicKey: inline(PublicKeySchema),
} as const;

export const VerifyRequestSchema = Type.Object(signedAnswer, {
  $id: 'VerifyRequest',
  description: 'Body of `POST /v1/wallet-auth/verify`: the signed challenge.',
  additionalProperties: false,
});
export type VerifyRequest = Static<typeof VerifyRequestSchema>;

export const WalletTokenSchema = Type.Object(
  {
    partyId: inline(PartyIdSchema),
    token: Type.String({ minLength: 1, description: 'Send as `Authorization: Bearer <token>`.' }),
    expiresAt: timestampField('The token is refused after this time.'),
  },
  { $id: 'WalletToken', description: 'A short-lived wallet token for one party.' },
);
export type WalletToken = Static<typeof WalletTokenSchema>;

const WalletLoginStartSchema = Type.Object(
  { partyId: inline(PartyIdSchema) },
  {
    $id: 'WalletLoginStart',
    description: 'First step of `POST /api/sdk/wallet-login`: answered with a Challenge.',
    additionalProperties: false,
  },
);

const WalletLoginFinishSchema = Type.Object(signedAnswer, {
  $id: 'WalletLoginFinish',
  description: 'Second step of `POST /api/sdk/wallet-login`: answered with a DeveloperSession.',
  additionalProperties: false,
});

/**
 * The finishing step comes first: a validator that strips unknown properties while trying
 * branches (Ajv's `removeAdditional`) would otherwise shorten a finish body into a start body.
 */
export const WalletLoginRequestSchema = Type.Union(
  [inline(WalletLoginFinishSchema), inline(WalletLoginStartSchema)],
  { $id: 'WalletLoginRequest', description: 'Body of `POST /api/sdk/wallet-login`, either step.' },
);

export const DeveloperSessionSchema = Type.Object(
  {
    token: Type.String({
      minLength: 1,
      description: 'Also set as an HttpOnly cookie; send as a bearer token from scripts.',
    }),
    expiresAt: timestampField('The session ends at this time.'),
    partyId: inline(PartyIdSchema, { description: "The developer's party." }),
  },
  {
    $id: 'DeveloperSession',
    description: 'A developer portal session (docs/spec/auth.md#developer-portal-sessions).',
  },
);
export type DeveloperSession = Static<typeof DeveloperSessionSchema>;

export const WalletLoginResponseSchema = Type.Union(
  [inline(DeveloperSessionSchema), inline(ChallengeSchema)],
  { $id: 'WalletLoginResponse', description: 'Answer of `POST /api/sdk/wallet-login`.' },
);

export const ApiKeyIdSchema = Type.String({
  $id: 'ApiKeyId',
  description: 'The id of an API key (not the key itself).',
  pattern: '^[A-Za-z0-9_-]{1,64}$',
});

export const ApiKeyCreateSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'A label.' })),
    rotate: Type.Optional(
      inline(ApiKeyIdSchema, {
        description: 'Replace this key: it keeps working for a grace period, then is revoked.',
      }),
    ),
  },
  {
    $id: 'ApiKeyCreate',
    description: 'Body of `POST /api/sdk/keys`: create a key, or rotate one.',
    additionalProperties: false,
  },
);
export type ApiKeyCreate = Static<typeof ApiKeyCreateSchema>;

const keyListing = {
  keyId: inline(ApiKeyIdSchema),
  name: Type.Union([Type.String(), Type.Null()], { description: 'The label; null when none.' }),
  prefix: Type.String({ description: 'The first 12 characters of the key, for recognition.' }),
  createdAt: timestampField('When the key was created.'),
  lastUsedAt: nullable(TimestampSchema, { description: 'Last authenticated request.' }),
  revokedAt: nullable(TimestampSchema, {
    description: 'When the key stops (or stopped) working; in the future during a rotation.',
  }),
  requestCount: Type.Integer({ minimum: 0, description: 'Requests made with the key.' }),
  working: Type.Boolean({
    description:
      "Whether the key authenticates now, on the service's clock: active, or rotated and still in its grace period.",
  }),
} as const;

export const ApiKeyListEntrySchema = Type.Object(keyListing, {
  $id: 'ApiKeyListEntry',
  description: 'An API key as listed; the key itself is never shown again.',
});
export type ApiKeyListEntry = Static<typeof ApiKeyListEntrySchema>;

export const ApiKeyCreatedSchema = Type.Object(
  {
    ...keyListing,
    key: Type.String({
      pattern: '^pp_(live|test)_[A-Za-z0-9_-]+$',
      description: 'The full key, shown this once: send as `X-API-Key`.',
    }),
  },
  { $id: 'ApiKeyCreated', description: 'A new API key, with its secret.' },
);
export type ApiKeyCreated = Static<typeof ApiKeyCreatedSchema>;

export const ApiKeyListSchema = Type.Object(
  { keys: Type.Array(inline(ApiKeyListEntrySchema)) },
  { $id: 'ApiKeyList', description: "The developer's API keys, revoked ones included." },
);
export type ApiKeyList = Static<typeof ApiKeyListSchema>;

export const AUTH_SCHEMAS = [
  NonceSchema,
  SignatureSchema,
  PublicKeySchema,
  ChallengeRequestSchema,
  ChallengeSchema,
  VerifyRequestSchema,
  WalletTokenSchema,
  WalletLoginStartSchema,
  WalletLoginFinishSchema,
  WalletLoginRequestSchema,
  DeveloperSessionSchema,
  WalletLoginResponseSchema,
  ApiKeyIdSchema,
  ApiKeyCreateSchema,
  ApiKeyListEntrySchema,
  ApiKeyCreatedSchema,
  ApiKeyListSchema,
] as const;
