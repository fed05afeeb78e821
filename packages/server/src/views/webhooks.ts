/** What a developer reads of a webhook endpoint (never its secrets) and of a delivery. */
import type { WebhookDelivery, WebhookEndpoint } from '@poolparty/core';
import type { WebhookDeliveryRecord, WebhookEndpointRecord } from '@poolparty/store';

export function endpointView(endpoint: WebhookEndpointRecord): WebhookEndpoint {
  return {
    id: endpoint.endpointId,
    url: endpoint.url,
    events: [...endpoint.events],
    apiKeyIds: endpoint.apiKeyIds === null ? null : [...endpoint.apiKeyIds],
    description: endpoint.description,
    enabled: endpoint.enabled,
    disabledReason: endpoint.disabledReason,
    disabledAt: endpoint.disabledAt?.toISOString() ?? null,
    createdAt: endpoint.createdAt.toISOString(),
    updatedAt: endpoint.updatedAt.toISOString(),
    secretRotatedAt: endpoint.secretRotatedAt?.toISOString() ?? null,
    failingSince: endpoint.failingSince?.toISOString() ?? null,
  };
}

export function deliveryView(delivery: WebhookDeliveryRecord): WebhookDelivery {
  return {
    id: delivery.deliveryId,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    state: delivery.state,
    attempts: delivery.attempts.map((attempt) => ({ ...attempt })),
    nextAttemptAt: delivery.nextAttemptAt?.toISOString() ?? null,
    createdAt: delivery.createdAt.toISOString(),
  };
}
