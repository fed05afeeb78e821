/**
 * @poolparty/sdk/webhooks: checks that a webhook request comes from PoolParty and reads its event,
 * with WebCrypto only, so it runs on Node ≥ 20, Deno, Bun, browsers and edge runtimes. An entry of
 * its own: a receiver needs none of the client.
 *
 * @example
 * // webhooks from this entry; rawBody the request's body exactly as received
 * const event = await webhooks.verify(rawBody, request.headers['poolparty-signature'], secret);
 * if (event.type === 'swap.completed') fulfil(event.data.object.intentId);
 */
import { sign, verify } from './verify.js';

export { PoolPartyError, ValidationError } from '../errors.js';
export type {
  ApiKeyWebhookEvent,
  CollectionWebhookEvent,
  LiquidityIntentWebhookEvent,
  LiquidityWithdrawalWebhookEvent,
  SwapWebhookEvent,
  TestWebhookEvent,
  WebhookEvent,
  WebhookEventType,
} from './events.js';
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
