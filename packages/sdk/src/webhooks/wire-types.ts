/**
 * The wire types of webhook endpoints and their deliveries (`/api/sdk/webhooks…`, behind the
 * developer's session). Declared here, not imported, so the published declarations stand alone;
 * they are the service's schema types member for member.
 */

/** A registered webhook endpoint. Its secret is in the answers of a creation and a rotation only. */
export interface WebhookEndpoint {
  /** `we_…`. */
  id: string;
  /** Where events are POSTed: https://, or http:// to a loopback host on devnet. */
  url: string;
  /** Event types (`swap.completed`) or kinds (`swap.*`) it is sent; empty: every event. */
  events: string[];
  /** Only intents created with these API keys of yours; null: every key. */
  apiKeyIds: string[] | null;
  /** A note of yours. */
  description: string;
  /** False: nothing is sent (paused by you, or turned off after failures). */
  enabled: boolean;
  /** Why it is disabled; null if it is not. */
  disabledReason: string | null;
  disabledAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** The last rotation of its secret, if any. */
  secretRotatedAt: string | null;
  /** The first failed attempt since the last delivery that arrived; null when deliveries arrive. */
  failingSince: string | null;
}

/** Answer of `portal.webhooks.create`: the endpoint and its signing secret, shown this once. */
export interface WebhookEndpointCreated {
  endpoint: WebhookEndpoint;
  /** `whsec_…`: give it to `webhooks.verify`. */
  secret: string;
}

/** Answer of `portal.webhooks.list()`: your endpoints, oldest first, disabled ones included. */
export interface WebhookEndpointList {
  endpoints: WebhookEndpoint[];
}

/** Answer of `portal.webhooks.rotateSecret`. */
export interface WebhookSecretRotated {
  /** The new secret, shown this once; it signs every request from now on. */
  secret: string;
  /** Until when the previous secret signs too (each request then carries two `v1`). */
  previousSecretExpiresAt: string;
}

/** One attempt of a delivery. */
export interface WebhookDeliveryAttempt {
  /** When the request was sent. */
  at: string;
  /** The endpoint's answer; null when none came. */
  statusCode: number | null;
  /** From sending to the end of the answer. */
  latencyMs: number;
  /** Why it failed, when it did. */
  error: string | null;
  /** The start of the answer's body. */
  responseExcerpt: string | null;
}

/** Where a delivery is: `failed` has given up after the retry schedule. */
export type WebhookDeliveryState = 'pending' | 'delivered' | 'retrying' | 'failed';

/** An event on its way to one endpoint, and its attempts. */
export interface WebhookDelivery {
  /** `wd_…`. */
  id: string;
  /** The event, `evt_…`: the same in every delivery of it (its body's `id`). */
  eventId: string;
  eventType: string;
  state: WebhookDeliveryState;
  /** Oldest first. */
  attempts: WebhookDeliveryAttempt[];
  /** When it is tried next, if at all. */
  nextAttemptAt: string | null;
  /** When the event was queued for the endpoint. */
  createdAt: string;
}

/** Answer of `resend` and `test`: the delivery queued to be sent at once. */
export interface WebhookDeliveryAccepted {
  delivery: WebhookDelivery;
}

/** A page of an endpoint's deliveries, newest first; kept 30 days after they end. */
export interface WebhookDeliveryList {
  deliveries: WebhookDelivery[];
  /** Pass as `before` for the next page; null on the last. */
  next: string | null;
}
