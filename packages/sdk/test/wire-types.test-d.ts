/**
 * Type test, checked by `tsc -p tsconfig.json` at the repository root: each wire type the SDK
 * declares is exactly the type of the service's schema, so the published declarations need
 * nothing from @poolparty/core and still cannot drift from it.
 */
import type * as core from '@poolparty/core';
import type { Static } from '@sinclair/typebox';
import { expectTypeOf } from 'vitest';
import type * as sdk from '../src/index.js';
import type * as liquidity from '../src/liquidity/index.js';
import type * as webhooks from '../src/webhooks/index.js';

expectTypeOf<sdk.Token>().toEqualTypeOf<core.Token>();
expectTypeOf<sdk.TokenList>().toEqualTypeOf<core.TokenList>();
expectTypeOf<sdk.PoolSide>().toEqualTypeOf<core.PoolSide>();
expectTypeOf<sdk.PoolGuard>().toEqualTypeOf<core.PoolGuard>();
expectTypeOf<sdk.Pool>().toEqualTypeOf<core.Pool>();
expectTypeOf<sdk.PoolList>().toEqualTypeOf<core.PoolList>();
expectTypeOf<sdk.AprMeta>().toEqualTypeOf<core.AprMeta>();
expectTypeOf<sdk.PoolStats>().toEqualTypeOf<core.PoolStats>();
expectTypeOf<sdk.Ticker>().toEqualTypeOf<core.Ticker>();
expectTypeOf<sdk.SettlementSafety>().toEqualTypeOf<Static<typeof core.SettlementSafetySchema>>();
expectTypeOf<sdk.NetworkFeePolicy>().toEqualTypeOf<core.NetworkFeePolicy>();
expectTypeOf<sdk.PlatformFeePolicy>().toEqualTypeOf<core.PlatformFeePolicy>();
expectTypeOf<sdk.EstimatedTrafficCost>().toEqualTypeOf<core.EstimatedTrafficCost>();
expectTypeOf<sdk.QuoteUsd>().toEqualTypeOf<core.QuoteUsd>();
expectTypeOf<sdk.Quote>().toEqualTypeOf<core.Quote>();
expectTypeOf<sdk.SwapInstructions>().toEqualTypeOf<core.SwapInstructions>();
expectTypeOf<sdk.SwapIntent>().toEqualTypeOf<core.SwapIntent>();
expectTypeOf<sdk.AtomicSwap>().toEqualTypeOf<core.AtomicSwap>();
expectTypeOf<sdk.AtomicSwapState>().toEqualTypeOf<core.AtomicSwapState>();
expectTypeOf<sdk.AtomicSwapHistoryEntry>().toEqualTypeOf<core.AtomicSwapHistoryEntry>();
expectTypeOf<sdk.AtomicSwapStatus>().toEqualTypeOf<core.AtomicSwapStatus>();
expectTypeOf<sdk.SwapKind>().toEqualTypeOf<core.SwapKind>();
expectTypeOf<sdk.FailureReason>().toEqualTypeOf<core.FailureReason>();
expectTypeOf<sdk.DepositFact>().toEqualTypeOf<core.DepositFact>();
expectTypeOf<sdk.Leg>().toEqualTypeOf<core.Leg>();
expectTypeOf<sdk.RefundLeg>().toEqualTypeOf<core.RefundLeg>();
expectTypeOf<sdk.LegState>().toEqualTypeOf<core.LegState>();
expectTypeOf<sdk.LegEventName>().toEqualTypeOf<core.LegEventName>();
expectTypeOf<sdk.HistoryEntry>().toEqualTypeOf<core.HistoryEntry>();
expectTypeOf<sdk.SwapStatus>().toEqualTypeOf<core.SwapStatus>();
expectTypeOf<sdk.CancelResult>().toEqualTypeOf<core.CancelResult>();
expectTypeOf<sdk.TrackResult>().toEqualTypeOf<core.TrackResult>();
expectTypeOf<sdk.Challenge>().toEqualTypeOf<core.Challenge>();
expectTypeOf<sdk.WalletToken>().toEqualTypeOf<core.WalletToken>();
expectTypeOf<sdk.AmbiguousCandidate>().toEqualTypeOf<core.AmbiguousCandidate>();
expectTypeOf<sdk.SwapState>().toEqualTypeOf<core.SwapState>();
expectTypeOf<sdk.TerminalState>().toEqualTypeOf<core.TerminalState>();
expectTypeOf<sdk.SettlementSafetyCode>().toEqualTypeOf<core.SettlementSafetyCode>();

// The parameters the SDK sends fit the server's request schemas.
expectTypeOf<Omit<sdk.CreateSwapParams, 'idempotencyKey'>>().toExtend<core.CreateSwapBody>();
expectTypeOf<sdk.QuoteParams>().toEqualTypeOf<Readonly<core.QuoteQuery>>();
expectTypeOf<sdk.VerifyChallengeParams>().toEqualTypeOf<Readonly<core.VerifyRequest>>();
expectTypeOf<sdk.DeveloperSession>().toEqualTypeOf<core.DeveloperSession>();
expectTypeOf<sdk.ApiKeyListEntry>().toEqualTypeOf<core.ApiKeyListEntry>();
expectTypeOf<sdk.ApiKeyCreated>().toEqualTypeOf<core.ApiKeyCreated>();
expectTypeOf<sdk.ApiKeyList>().toEqualTypeOf<core.ApiKeyList>();
expectTypeOf<sdk.PortalPeriod>().toEqualTypeOf<core.PortalPeriod>();
expectTypeOf<sdk.EarningsLine>().toEqualTypeOf<core.EarningsLine>();
expectTypeOf<sdk.EarningsPoint>().toEqualTypeOf<core.EarningsPoint>();
expectTypeOf<sdk.Earnings>().toEqualTypeOf<core.Earnings>();
expectTypeOf<sdk.UsagePoint>().toEqualTypeOf<core.UsagePoint>();
expectTypeOf<sdk.KeyUsage>().toEqualTypeOf<core.KeyUsage>();
expectTypeOf<sdk.Usage>().toEqualTypeOf<core.Usage>();
expectTypeOf<sdk.Collection>().toEqualTypeOf<core.Collection>();
expectTypeOf<sdk.CollectionList>().toEqualTypeOf<core.CollectionList>();
expectTypeOf<sdk.SignedOut>().toEqualTypeOf<core.SignedOut>();

// Liquidity, an extension beside the swap interface (`@poolparty/sdk/liquidity`).
expectTypeOf<liquidity.LiquidityState>().toEqualTypeOf<core.LiquidityState>();
expectTypeOf<liquidity.LiquidityIntent>().toEqualTypeOf<core.LiquidityIntent>();
expectTypeOf<liquidity.Withdrawal>().toEqualTypeOf<core.Withdrawal>();
expectTypeOf<liquidity.Position>().toEqualTypeOf<core.Position>();
expectTypeOf<liquidity.CreateLiquidityParams>().toEqualTypeOf<
  Readonly<core.CreateLiquidityIntentBody>
>();
expectTypeOf<liquidity.WithdrawParams>().toEqualTypeOf<Readonly<core.CreateWithdrawalBody>>();
// withLiquidity keeps the client's type and adds `liquidity`; a client alone has none.
expectTypeOf<liquidity.WithLiquidity>().toMatchTypeOf<sdk.PoolParty>();
expectTypeOf<liquidity.WithLiquidity['liquidity']>().toEqualTypeOf<liquidity.Liquidity>();
expectTypeOf<sdk.PoolParty>().not.toHaveProperty('liquidity');

// Webhooks (`@poolparty/sdk/webhooks`): the endpoint and delivery types, and what the portal sends.
expectTypeOf<webhooks.WebhookEndpoint>().toEqualTypeOf<core.WebhookEndpoint>();
expectTypeOf<webhooks.WebhookDelivery>().toEqualTypeOf<core.WebhookDelivery>();
expectTypeOf<webhooks.WebhookEndpointCreated>().toEqualTypeOf<
  Static<typeof core.WebhookEndpointCreatedSchema>
>();
expectTypeOf<webhooks.WebhookEndpointList>().toEqualTypeOf<
  Static<typeof core.WebhookEndpointListSchema>
>();
expectTypeOf<webhooks.WebhookSecretRotated>().toEqualTypeOf<
  Static<typeof core.WebhookSecretRotatedSchema>
>();
expectTypeOf<webhooks.WebhookDeliveryList>().toEqualTypeOf<
  Static<typeof core.WebhookDeliveryListSchema>
>();
expectTypeOf<webhooks.WebhookDeliveryAccepted>().toEqualTypeOf<
  Static<typeof core.WebhookDeliveryAcceptedSchema>
>();
expectTypeOf<Readonly<Omit<webhooks.CreateWebhookParams, 'events' | 'apiKeyIds'>>>().toExtend<
  Omit<core.WebhookEndpointCreate, 'events' | 'apiKeyIds'>
>();
expectTypeOf<webhooks.RotateWebhookSecretParams>().toEqualTypeOf<
  Readonly<core.WebhookSecretRotate>
>();
// The event a webhook carries has the mode of a service's environment.
expectTypeOf<webhooks.WebhookEvent['mode']>().toEqualTypeOf<core.Environment>();
// Every type an endpoint can be sent is one the union names, and no other.
expectTypeOf<Exclude<webhooks.WebhookEventType, 'webhook.test'>>().toEqualTypeOf<
  | `swap.${core.SwapState}`
  | `atomic_swap.${core.AtomicSwapState}`
  | `liquidity_intent.${core.LiquidityState}`
  | `liquidity_withdrawal.${(typeof core.WITHDRAWAL_STATES)[number]}`
  | 'collection.paid'
  | 'api_key.revoked'
>();
