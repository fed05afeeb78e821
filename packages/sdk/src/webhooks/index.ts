/**
 * @poolparty/sdk/webhooks: checks that a webhook request comes from PoolParty and reads its event,
 * with WebCrypto only, so it runs on Node ≥ 20, Deno, Bun, browsers and edge runtimes; and
 * `withWebhooks(portal)`, which gives a developer portal `portal.webhooks` to manage endpoints. An
 * entry of its own: a receiver needs none of the client, and an app that only swaps none of this.
 *
 * @example
 * // webhooks from this entry; rawBody the request's body exactly as received
 * const event = await webhooks.verify(rawBody, request.headers['poolparty-signature'], secret);
 * if (event.type === 'swap.completed') fulfil(event.data.object.intentId);
 */
import { portalSenderOf } from '../client-parts.js';
import type { DeveloperPortal } from '../portal.js';
import { PortalWebhooks } from './portal-webhooks.js';
import { sign, verify } from './verify.js';

export { PoolPartyError, ValidationError } from '../errors.js';
export type {
  ApiKeyWebhookEvent,
  AtomicSwapWebhookEvent,
  CollectionWebhookEvent,
  LiquidityIntentWebhookEvent,
  LiquidityWithdrawalWebhookEvent,
  SwapWebhookEvent,
  TestWebhookEvent,
  WebhookEvent,
  WebhookEventType,
} from './events.js';
export type {
  CreateWebhookParams,
  PortalWebhooks,
  RotateWebhookSecretParams,
  UpdateWebhookParams,
  WebhookDeliveriesParams,
  WebhookFilterParams,
} from './portal-webhooks.js';
export { WebhookSignatureError, type WebhookSignatureErrorCode } from './signature-error.js';
export {
  type SignWebhookOptions,
  sign,
  type VerifyWebhookOptions,
  verify,
  WEBHOOK_SECRETS_MAX,
  WEBHOOK_TOLERANCE_SECONDS_DEFAULT,
  type WebhookPayload,
  type WebhookSecret,
} from './verify.js';

/** The request headers the service sends with every webhook, lowercase as Node gives them. */
export const WEBHOOK_HEADERS = {
  signature: 'poolparty-signature',
  eventId: 'poolparty-event-id',
  eventType: 'poolparty-event-type',
  deliveryAttempt: 'poolparty-delivery-attempt',
} as const;

/** `webhooks.verify` and `webhooks.sign`, as one object. */
export const webhooks = { verify, sign } as const;

export type * from './wire-types.js';

/** A developer portal with `webhooks`: what `withWebhooks` returns. */
export type WithWebhooks<Portal extends DeveloperPortal = DeveloperPortal> = Portal & {
  /** Webhook endpoints: register, list, change, delete, rotate secrets, deliveries, resend, test. */
  readonly webhooks: PortalWebhooks;
};

/**
 * Gives a developer portal a `webhooks` property — over the portal's own session, `fetch`,
 * timeouts and retries — and returns the same portal, typed with it. Calling it again returns it
 * unchanged. Throws `ValidationError` for anything that is not a `DeveloperPortal`.
 */
export function withWebhooks<Portal extends DeveloperPortal>(portal: Portal): WithWebhooks<Portal> {
  const sender = portalSenderOf(portal);
  if (!Object.hasOwn(portal, 'webhooks')) {
    const webhooks = new PortalWebhooks(sender);
    Object.defineProperty(portal, 'webhooks', { value: webhooks, enumerable: true });
  }
  return portal as WithWebhooks<Portal>;
}
