/**
 * Webhook endpoints and their delivery log (docs/spec/webhooks.md#routes), under `/api/sdk` beside
 * the key routes and behind the same developer session; a cookie-authenticated write must come
 * from the service's own pages or `POOLPARTY_PORTAL_ORIGINS` (portal.ts). Another developer's
 * endpoint or delivery answers 404 like one that does not exist. A secret is in the answers of a
 * creation and a rotation only, never in a list.
 */
import {
  inline,
  WebhookDeliveryAcceptedSchema,
  WebhookDeliveryIdSchema,
  WebhookDeliveryListSchema,
  WebhookDeliveryQuerySchema,
  WebhookEndpointCreatedSchema,
  WebhookEndpointCreateSchema,
  WebhookEndpointIdSchema,
  WebhookEndpointListSchema,
  WebhookEndpointSchema,
  WebhookEndpointUpdateSchema,
  WebhookSecretRotatedSchema,
  WebhookSecretRotateSchema,
} from '@poolparty/core';
import { listWebhookEndpoints } from '@poolparty/store';
import { Type } from '@sinclair/typebox';
import { deliveryView, endpointView } from '../../views/webhooks.js';
import {
  changeEndpoint,
  createEndpoint,
  deliveryPage,
  removeEndpoint,
  resend,
  rotateSecret,
  sendTestEvent,
  WEBHOOK_ENDPOINTS_MAX,
  type WebhookContext,
} from '../../webhooks/endpoints.js';
import {
  WEBHOOK_DELIVERY_EXAMPLE,
  WEBHOOK_ENDPOINT_CREATE_EXAMPLE,
  WEBHOOK_ENDPOINT_CREATED_EXAMPLE,
  WEBHOOK_ENDPOINT_EXAMPLE,
  WEBHOOK_SECRET_ROTATED_EXAMPLE,
} from '../openapi-examples.js';
import {
  BODY_PROBLEMS,
  PORTAL_SESSION,
  sessionResponses,
  sessionWriteResponses,
  withExamples,
} from '../route-docs.js';
import { routeOf } from '../route-table.js';
import { type PortalDeps, sessionOnly, sessionOnlyBodyOptional } from './portal-earnings.js';

const webhookRoute = routeOf<PortalDeps>();

const EndpointParamsSchema = Type.Object(
  { endpointId: inline(WebhookEndpointIdSchema) },
  { description: 'Path parameters naming a webhook endpoint.', additionalProperties: false },
);
const DeliveryParamsSchema = Type.Object(
  { endpointId: inline(WebhookEndpointIdSchema), deliveryId: inline(WebhookDeliveryIdSchema) },
  { description: 'Path parameters naming a delivery of an endpoint.', additionalProperties: false },
);

const URL_PROBLEMS = ['webhook_url_invalid', 'webhook_url_not_allowed'] as const;
const FILTER_PROBLEMS = ['webhook_event_unknown', 'webhook_api_key_unknown'] as const;
const URL_NOTES = {
  webhook_url_invalid:
    'not an absolute http(s) URL, a user name or fragment in it, or a host that does not resolve',
  webhook_url_not_allowed:
    'plain http:// other than to a loopback host on devnet, or (on mainnet) a host that is or resolves to a private, loopback, link-local, CGNAT or unique-local address',
  webhook_event_unknown: 'a pattern that is no event type (`swap.completed`) or kind (`swap.*`)',
  webhook_api_key_unknown: 'an id in `apiKeyIds` that is not one of your keys',
} as const;
const NOT_FOUND = { not_found: 'no such endpoint among yours' } as const;

function contextOf({ ctx }: PortalDeps): WebhookContext {
  return { db: ctx.db, now: ctx.clock.now(), settings: ctx.settings };
}

const createWebhookEndpoint = webhookRoute({
  method: 'POST',
  url: '/webhooks',
  hooks: sessionOnly,
  schema: {
    operationId: 'createWebhookEndpoint',
    summary: 'Register a webhook endpoint',
    description: `Events are POSTed to the URL, signed with the secret answered here only (docs/spec/webhooks.md). At most ${WEBHOOK_ENDPOINTS_MAX} endpoints per developer.`,
    ...PORTAL_SESSION,
    body: withExamples(WebhookEndpointCreateSchema, WEBHOOK_ENDPOINT_CREATE_EXAMPLE),
    response: { 201: withExamples(WebhookEndpointCreatedSchema, WEBHOOK_ENDPOINT_CREATED_EXAMPLE) },
    problems: sessionWriteResponses(
      [...BODY_PROBLEMS, ...URL_PROBLEMS, ...FILTER_PROBLEMS, 'webhook_endpoint_limit'],
      {
        ...URL_NOTES,
        webhook_endpoint_limit: `you have ${WEBHOOK_ENDPOINTS_MAX} endpoints already`,
      },
    ),
  },
  handler: async (deps, request, reply) => {
    const made = await createEndpoint(contextOf(deps), deps.developerOf(request), request.body);
    reply.code(201);
    return { endpoint: endpointView(made.endpoint), secret: made.secret };
  },
});

const listWebhookEndpointsRoute = webhookRoute({
  method: 'GET',
  url: '/webhooks',
  hooks: sessionOnly,
  schema: {
    operationId: 'listWebhookEndpoints',
    summary: "List the developer's webhook endpoints",
    description: 'Oldest first, disabled ones included; secrets are never listed.',
    ...PORTAL_SESSION,
    response: {
      200: withExamples(WebhookEndpointListSchema, { endpoints: [WEBHOOK_ENDPOINT_EXAMPLE] }),
    },
    problems: sessionResponses(),
  },
  handler: async ({ ctx, developerOf }, request) => {
    const endpoints = await listWebhookEndpoints(ctx.db, developerOf(request));
    return { endpoints: endpoints.map(endpointView) };
  },
});

const updateWebhookEndpointRoute = webhookRoute({
  method: 'PATCH',
  url: '/webhooks/:endpointId',
  hooks: sessionOnly,
  schema: {
    operationId: 'updateWebhookEndpoint',
    summary: 'Change a webhook endpoint',
    description:
      'Only the members sent change. `enabled: true` re-enables an endpoint turned off after failures, and forgets them.',
    ...PORTAL_SESSION,
    params: EndpointParamsSchema,
    body: withExamples(WebhookEndpointUpdateSchema, { enabled: true }),
    response: { 200: withExamples(WebhookEndpointSchema, WEBHOOK_ENDPOINT_EXAMPLE) },
    problems: sessionWriteResponses(
      [...BODY_PROBLEMS, ...URL_PROBLEMS, ...FILTER_PROBLEMS, 'not_found'],
      { ...URL_NOTES, ...NOT_FOUND },
    ),
  },
  handler: async (deps, request) => {
    const { endpointId } = request.params;
    const changed = await changeEndpoint(
      contextOf(deps),
      deps.developerOf(request),
      endpointId,
      request.body,
    );
    return endpointView(changed);
  },
});

const deleteWebhookEndpointRoute = webhookRoute({
  method: 'DELETE',
  url: '/webhooks/:endpointId',
  hooks: sessionOnly,
  schema: {
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete a webhook endpoint',
    description: 'Nothing more is sent to it; its delivery log goes with it.',
    ...PORTAL_SESSION,
    params: EndpointParamsSchema,
    response: { 204: Type.Null({ description: 'Deleted.' }) },
    problems: sessionWriteResponses(['validation_error', 'not_found'], { ...NOT_FOUND }),
  },
  handler: async ({ ctx, developerOf }, request, reply) => {
    await removeEndpoint(ctx.db, developerOf(request), request.params.endpointId);
    return reply.code(204).send(null);
  },
});

const rotateWebhookSecretRoute = webhookRoute({
  method: 'POST',
  url: '/webhooks/:endpointId/rotate-secret',
  hooks: sessionOnlyBodyOptional,
  schema: {
    operationId: 'rotateWebhookSecret',
    summary: "Rotate a webhook endpoint's signing secret",
    description:
      'The new secret signs from now on; the previous one signs beside it (a second `v1=`) for the overlap, a day unless asked.',
    ...PORTAL_SESSION,
    params: EndpointParamsSchema,
    body: withExamples(WebhookSecretRotateSchema, { overlapSeconds: 3600 }),
    response: { 200: withExamples(WebhookSecretRotatedSchema, WEBHOOK_SECRET_ROTATED_EXAMPLE) },
    problems: sessionWriteResponses([...BODY_PROBLEMS, 'not_found'], { ...NOT_FOUND }),
  },
  handler: async (deps, request) => {
    const { endpointId } = request.params;
    const rotated = await rotateSecret(
      contextOf(deps),
      deps.developerOf(request),
      endpointId,
      request.body.overlapSeconds,
    );
    return {
      secret: rotated.secret,
      previousSecretExpiresAt: rotated.previousSecretExpiresAt.toISOString(),
    };
  },
});

const listWebhookDeliveriesRoute = webhookRoute({
  method: 'GET',
  url: '/webhooks/:endpointId/deliveries',
  hooks: sessionOnly,
  schema: {
    operationId: 'listWebhookDeliveries',
    summary: "List a webhook endpoint's deliveries",
    description:
      'Newest first, with every attempt; kept 30 days after they end. Page with `before`.',
    ...PORTAL_SESSION,
    params: EndpointParamsSchema,
    querystring: WebhookDeliveryQuerySchema,
    response: {
      200: withExamples(WebhookDeliveryListSchema, {
        deliveries: [WEBHOOK_DELIVERY_EXAMPLE],
        next: null,
      }),
    },
    problems: sessionResponses(['validation_error', 'not_found'], {
      not_found: 'no such endpoint among yours, or `before` is none of its deliveries',
    }),
  },
  handler: async ({ ctx, developerOf }, request) => {
    const page = await deliveryPage(
      ctx.db,
      developerOf(request),
      request.params.endpointId,
      request.query,
    );
    return { deliveries: page.deliveries.map(deliveryView), next: page.next };
  },
});

const resendWebhookDeliveryRoute = webhookRoute({
  method: 'POST',
  url: '/webhooks/:endpointId/deliveries/:deliveryId/resend',
  hooks: sessionOnly,
  schema: {
    operationId: 'resendWebhookDelivery',
    summary: 'Send a delivered or failed event again',
    description:
      'A new delivery of the same event (same event id and body), sent at once and retried on the schedule; after earlier open deliveries of its subject.',
    ...PORTAL_SESSION,
    params: DeliveryParamsSchema,
    response: {
      202: withExamples(WebhookDeliveryAcceptedSchema, { delivery: WEBHOOK_DELIVERY_EXAMPLE }),
    },
    problems: sessionWriteResponses(['validation_error', 'not_found'], {
      not_found: 'no such endpoint among yours, or no such delivery of it',
    }),
  },
  handler: async (deps, request, reply) => {
    const { endpointId, deliveryId } = request.params;
    const made = await resend(contextOf(deps), deps.developerOf(request), endpointId, deliveryId);
    reply.code(202);
    return { delivery: deliveryView(made) };
  },
});

const testWebhookEndpointRoute = webhookRoute({
  method: 'POST',
  url: '/webhooks/:endpointId/test',
  hooks: sessionOnly,
  schema: {
    operationId: 'testWebhookEndpoint',
    summary: 'Send a test event to a webhook endpoint',
    description:
      'A `webhook.test` event carrying the endpoint, signed and retried like any other; sent once the endpoint is enabled.',
    ...PORTAL_SESSION,
    params: EndpointParamsSchema,
    response: {
      202: withExamples(WebhookDeliveryAcceptedSchema, { delivery: WEBHOOK_DELIVERY_EXAMPLE }),
    },
    problems: sessionWriteResponses(['validation_error', 'not_found'], { ...NOT_FOUND }),
  },
  handler: async (deps, request, reply) => {
    const made = await sendTestEvent(
      contextOf(deps),
      deps.developerOf(request),
      request.params.endpointId,
    );
    reply.code(202);
    return { delivery: deliveryView(made) };
  },
});

/** The webhook routes, registered with the portal's (portal.ts). */
export const WEBHOOK_ROUTES = [
  createWebhookEndpoint,
  listWebhookEndpointsRoute,
  updateWebhookEndpointRoute,
  deleteWebhookEndpointRoute,
  rotateWebhookSecretRoute,
  listWebhookDeliveriesRoute,
  resendWebhookDeliveryRoute,
  testWebhookEndpointRoute,
];
