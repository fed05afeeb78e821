/**
 * Webhook endpoints and their deliveries (`/api/sdk/webhooks…`, session-authenticated;
 * docs/spec/webhooks.md). A secret is in the answers of a creation and a rotation only.
 */
import { type Static, Type } from '@sinclair/typebox';
import { WEBHOOK_URL_CHARS_MAX } from '../webhook-destinations.js';
import { WEBHOOK_PATTERNS_MAX } from '../webhook-events.js';
import { ApiKeyIdSchema } from './auth.js';
import { enumOf, inline, nullable, TimestampSchema, timestampField } from './common.js';

/** Keys one endpoint may be narrowed to: a developer's working keys at most. */
export const WEBHOOK_API_KEYS_MAX = 25;
/** The longest description kept. */
export const WEBHOOK_DESCRIPTION_CHARS_MAX = 500;
/** A rotation's overlap: a day unless asked, a week at most. */
export const WEBHOOK_OVERLAP_SECONDS_DEFAULT = 86_400;
export const WEBHOOK_OVERLAP_SECONDS_MAX = 604_800;
/** Deliveries one page of the log lists at most, and unless asked. */
export const WEBHOOK_DELIVERIES_PAGE_MAX = 100;
export const WEBHOOK_DELIVERIES_PAGE_DEFAULT = 20;

export const WebhookEndpointIdSchema = Type.String({
  $id: 'WebhookEndpointId',
  description: 'A webhook endpoint id, `we_…`.',
  pattern: '^we_[A-Za-z0-9_-]{16,32}$',
});

export const WebhookDeliveryIdSchema = Type.String({
  $id: 'WebhookDeliveryId',
  description: 'A webhook delivery id, `wd_…`.',
  pattern: '^wd_[A-Za-z0-9_-]{16,32}$',
});

const url = Type.String({
  minLength: 1,
  maxLength: WEBHOOK_URL_CHARS_MAX,
  description: 'Where events are POSTed: https://, or http:// to a loopback host on devnet.',
});
const events = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  maxItems: WEBHOOK_PATTERNS_MAX,
  description:
    'Event types (`swap.completed`) or kinds (`swap.*`, `atomic_swap.*`, `liquidity_intent.*`, `liquidity_withdrawal.*`, `collection.*`, `api_key.*`); empty: every event.',
});
const apiKeyIds = Type.Union(
  [Type.Array(inline(ApiKeyIdSchema), { maxItems: WEBHOOK_API_KEYS_MAX }), Type.Null()],
  { description: 'Only intents created with these keys of yours; null: every key.' },
);
const description = Type.String({
  maxLength: WEBHOOK_DESCRIPTION_CHARS_MAX,
  description: 'A note of yours.',
});
const secret = Type.String({
  pattern: '^whsec_[A-Za-z0-9_-]{32,}$',
  description: 'The signing secret, shown in this answer only.',
});

export const WebhookEndpointSchema = Type.Object(
  {
    id: inline(WebhookEndpointIdSchema),
    url,
    events,
    apiKeyIds,
    description,
    enabled: Type.Boolean({ description: 'False: nothing is sent (by you, or after failures).' }),
    disabledReason: nullable(Type.String(), { description: 'Why it is disabled; null if not.' }),
    disabledAt: nullable(TimestampSchema, { description: 'When it was disabled.' }),
    createdAt: timestampField('When it was registered.'),
    updatedAt: timestampField('When it last changed.'),
    secretRotatedAt: nullable(TimestampSchema, { description: 'The last rotation, if any.' }),
    failingSince: nullable(TimestampSchema, {
      description: 'The first failed attempt since the last delivery that arrived; null when well.',
    }),
  },
  { $id: 'WebhookEndpoint', description: 'A webhook endpoint; its secret is never listed.' },
);
export type WebhookEndpoint = Static<typeof WebhookEndpointSchema>;

export const WebhookEndpointCreateSchema = Type.Object(
  {
    url,
    events: Type.Optional(events),
    apiKeyIds: Type.Optional(apiKeyIds),
    description: Type.Optional(description),
  },
  {
    $id: 'WebhookEndpointCreate',
    description: 'Body of `POST /api/sdk/webhooks`.',
    additionalProperties: false,
  },
);
export type WebhookEndpointCreate = Static<typeof WebhookEndpointCreateSchema>;

export const WebhookEndpointCreatedSchema = Type.Object(
  { endpoint: inline(WebhookEndpointSchema), secret },
  { $id: 'WebhookEndpointCreated', description: 'A new endpoint and its signing secret.' },
);

export const WebhookEndpointUpdateSchema = Type.Object(
  {
    url: Type.Optional(url),
    events: Type.Optional(events),
    apiKeyIds: Type.Optional(apiKeyIds),
    description: Type.Optional(description),
    enabled: Type.Optional(
      Type.Boolean({ description: 'True re-enables (forgetting past failures); false pauses.' }),
    ),
  },
  {
    $id: 'WebhookEndpointUpdate',
    description: 'Body of `PATCH /api/sdk/webhooks/{endpointId}`: what changes.',
    additionalProperties: false,
  },
);
export type WebhookEndpointUpdate = Static<typeof WebhookEndpointUpdateSchema>;

export const WebhookEndpointListSchema = Type.Object(
  { endpoints: Type.Array(inline(WebhookEndpointSchema)) },
  { $id: 'WebhookEndpointList', description: 'Your webhook endpoints, oldest first.' },
);

export const WebhookSecretRotateSchema = Type.Object(
  {
    overlapSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: WEBHOOK_OVERLAP_SECONDS_MAX,
        description: `How long the old secret still signs beside the new one (default ${WEBHOOK_OVERLAP_SECONDS_DEFAULT}).`,
      }),
    ),
  },
  {
    $id: 'WebhookSecretRotate',
    description: 'Body of `POST /api/sdk/webhooks/{endpointId}/rotate-secret`.',
    additionalProperties: false,
  },
);
export type WebhookSecretRotate = Static<typeof WebhookSecretRotateSchema>;

export const WebhookSecretRotatedSchema = Type.Object(
  {
    secret,
    previousSecretExpiresAt: timestampField('Until when the previous secret signs too.'),
  },
  { $id: 'WebhookSecretRotated', description: 'The new signing secret.' },
);

const WebhookAttemptSchema = Type.Object(
  {
    at: timestampField('When the request was sent.'),
    statusCode: nullable(Type.Integer(), { description: 'The answer; null when none came.' }),
    latencyMs: Type.Integer({ minimum: 0, description: 'Sending to the end of the answer.' }),
    error: nullable(Type.String(), { description: 'Why it failed, when it did.' }),
    responseExcerpt: nullable(Type.String(), { description: 'The answer body, capped.' }),
  },
  { description: 'One attempt of a delivery.' },
);

export const WebhookDeliverySchema = Type.Object(
  {
    id: inline(WebhookDeliveryIdSchema),
    eventId: Type.String({ description: 'The event, `evt_…`: the same in every delivery of it.' }),
    eventType: Type.String({ description: 'The event type, `swap.completed`, …' }),
    state: enumOf(['pending', 'delivered', 'retrying', 'failed'] as const, {
      description: '`failed`: given up after the retry schedule.',
    }),
    attempts: Type.Array(WebhookAttemptSchema, { description: 'Oldest first.' }),
    nextAttemptAt: nullable(TimestampSchema, { description: 'When it is tried next, if at all.' }),
    createdAt: timestampField('When the event was queued for the endpoint.'),
  },
  { $id: 'WebhookDelivery', description: 'An event on its way to one endpoint, and its attempts.' },
);
export type WebhookDelivery = Static<typeof WebhookDeliverySchema>;

export const WebhookDeliveryAcceptedSchema = Type.Object(
  { delivery: inline(WebhookDeliverySchema) },
  { $id: 'WebhookDeliveryAccepted', description: 'A delivery queued to be sent at once.' },
);

export const WebhookDeliveryListSchema = Type.Object(
  {
    deliveries: Type.Array(inline(WebhookDeliverySchema), { description: 'Newest first.' }),
    next: nullable(Type.String(), { description: 'Pass as `before` for the next page.' }),
  },
  {
    $id: 'WebhookDeliveryList',
    description: "An endpoint's deliveries, kept 30 days after they end.",
  },
);

export const WebhookDeliveryQuerySchema = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: WEBHOOK_DELIVERIES_PAGE_MAX,
        description: `Deliveries per page (default ${WEBHOOK_DELIVERIES_PAGE_DEFAULT}).`,
      }),
    ),
    before: Type.Optional(
      inline(WebhookDeliveryIdSchema, { description: 'Those after this one.' }),
    ),
  },
  {
    $id: 'WebhookDeliveryQuery',
    description: 'Query of the delivery log.',
    additionalProperties: false,
  },
);
export type WebhookDeliveryQuery = Static<typeof WebhookDeliveryQuerySchema>;

export const WEBHOOK_SCHEMAS = [
  WebhookEndpointIdSchema,
  WebhookDeliveryIdSchema,
  WebhookEndpointSchema,
  WebhookEndpointCreateSchema,
  WebhookEndpointCreatedSchema,
  WebhookEndpointUpdateSchema,
  WebhookEndpointListSchema,
  WebhookSecretRotateSchema,
  WebhookSecretRotatedSchema,
  WebhookDeliverySchema,
  WebhookDeliveryAcceptedSchema,
  WebhookDeliveryListSchema,
  WebhookDeliveryQuerySchema,
] as const;
