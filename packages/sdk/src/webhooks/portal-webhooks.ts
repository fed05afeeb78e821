/**
 * `portal.webhooks`: registering webhook endpoints, rotating their secrets, reading their
 * delivery log, resending a delivery and sending a test event — the developer portal's routes under
 * `/api/sdk/webhooks`, behind the portal's session like its keys.
 *
 * Only reads and changes that come out the same when sent twice are retried: the service keeps no
 * idempotency key for these writes, so a lost answer to a creation, a rotation, a resend or a test
 * is a `NetworkError`, never a second endpoint, secret or delivery made behind your back.
 */
import { ValidationError } from '../errors.js';
import type { CallOptions, RequestSender } from '../http/request-sender.js';
import { segment } from '../resources/path.js';
import { checkText } from '../validation.js';
import type {
  WebhookDeliveryAccepted,
  WebhookDeliveryList,
  WebhookEndpoint,
  WebhookEndpointCreated,
  WebhookEndpointList,
  WebhookSecretRotated,
} from './wire-types.js';

/** What an endpoint is sent; each member as `create` and `update` take it. */
export interface WebhookFilterParams {
  /** Event types (`swap.completed`) or kinds (`swap.*`); empty or absent: every event. */
  readonly events?: readonly string[];
  /** Only intents created with these API keys of yours; null: every key. */
  readonly apiKeyIds?: readonly string[] | null;
  /** A note of yours. */
  readonly description?: string;
}

/** Parameters of `portal.webhooks.create`. */
export interface CreateWebhookParams extends WebhookFilterParams {
  /** Where events are POSTed: https://, or http:// to a loopback host on devnet. */
  readonly url: string;
}

/** Parameters of `portal.webhooks.update`: only the members given change. */
export interface UpdateWebhookParams extends WebhookFilterParams {
  readonly url?: string;
  /** False pauses the endpoint; true re-enables it, forgetting past failures. */
  readonly enabled?: boolean;
}

/** Parameters of `portal.webhooks.rotateSecret`. */
export interface RotateWebhookSecretParams {
  /** Seconds the old secret still signs beside the new one; the service's default is a day. */
  readonly overlapSeconds?: number;
}

/** Parameters of `portal.webhooks.deliveries`. */
export interface WebhookDeliveriesParams {
  /** Deliveries per page; the service's default is 20. */
  readonly limit?: number;
  /** The `next` of the page before: the deliveries older than that one. */
  readonly before?: string;
}

const BASE = '/api/sdk/webhooks';

/** `portal.webhooks`. */
export class PortalWebhooks {
  readonly #sender: RequestSender;

  /** @param sender - The portal's request sender. */
  constructor(sender: RequestSender) {
    this.#sender = sender;
  }

  /** Your endpoints, oldest first, disabled ones included; secrets are never listed. */
  async list(options?: CallOptions): Promise<WebhookEndpointList> {
    return this.#sender.send({
      method: 'GET',
      path: BASE,
      session: true,
      retrySafe: true,
      options,
    });
  }

  /** Registers an endpoint; its signing secret is in this answer only. */
  async create(
    params: CreateWebhookParams,
    options?: CallOptions,
  ): Promise<WebhookEndpointCreated> {
    checkText('url', params?.url);
    return this.#sender.send({
      method: 'POST',
      path: BASE,
      body: { url: params.url, ...filterBody(params) },
      session: true,
      retrySafe: false,
      options,
    });
  }

  /** Changes what is given of an endpoint: its URL, filters, description, or whether it is enabled. */
  async update(
    endpointId: string,
    params: UpdateWebhookParams,
    options?: CallOptions,
  ): Promise<WebhookEndpoint> {
    const path = endpointPath(endpointId);
    if (params?.url !== undefined) checkText('url', params.url);
    if (params?.enabled !== undefined && typeof params.enabled !== 'boolean') {
      throw invalid('enabled must be true or false');
    }
    const body = {
      ...(params.url !== undefined && { url: params.url }),
      ...filterBody(params),
      ...(params.enabled !== undefined && { enabled: params.enabled }),
    };
    if (Object.keys(body).length === 0) throw invalid('nothing to change');
    // Sending the same change twice leaves the endpoint as once does.
    return this.#sender.send({
      method: 'PATCH',
      path,
      body,
      session: true,
      retrySafe: true,
      options,
    });
  }

  /** Deletes an endpoint: nothing more is sent to it, and its log goes with it. */
  async delete(endpointId: string, options?: CallOptions): Promise<void> {
    const path = endpointPath(endpointId);
    // Not retried: a retry after a delete that went through would answer NotFoundError.
    await this.#sender.send({ method: 'DELETE', path, session: true, retrySafe: false, options });
  }

  /**
   * Makes a new secret, answered this once. The old one signs beside it for `overlapSeconds`
   * (each request then carries a `v1` of both), so receivers can move to the new one meanwhile.
   */
  async rotateSecret(
    endpointId: string,
    params: RotateWebhookSecretParams = {},
    options?: CallOptions,
  ): Promise<WebhookSecretRotated> {
    const path = `${endpointPath(endpointId)}/rotate-secret`;
    const { overlapSeconds } = params;
    if (
      overlapSeconds !== undefined &&
      !(Number.isInteger(overlapSeconds) && overlapSeconds >= 0)
    ) {
      throw invalid('overlapSeconds must be a whole number ≥ 0');
    }
    const body = overlapSeconds === undefined ? {} : { overlapSeconds };
    return this.#sender.send({
      method: 'POST',
      path,
      body,
      session: true,
      retrySafe: false,
      options,
    });
  }

  /** One page of an endpoint's deliveries, newest first, each with its attempts. */
  async deliveries(
    endpointId: string,
    params: WebhookDeliveriesParams = {},
    options?: CallOptions,
  ): Promise<WebhookDeliveryList> {
    const path = `${endpointPath(endpointId)}/deliveries`;
    const { limit, before } = params;
    if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1)) {
      throw invalid('limit must be a whole number ≥ 1');
    }
    if (before !== undefined) checkText('before', before);
    const query = { limit, before };
    return this.#sender.send({
      method: 'GET',
      path,
      query,
      session: true,
      retrySafe: true,
      options,
    });
  }

  /** Sends a delivery's event again now, as a new delivery with the same event id. */
  async resend(
    endpointId: string,
    deliveryId: string,
    options?: CallOptions,
  ): Promise<WebhookDeliveryAccepted> {
    const path = `${endpointPath(endpointId)}/deliveries/${segment('deliveryId', deliveryId)}/resend`;
    return this.#sender.send({ method: 'POST', path, session: true, retrySafe: false, options });
  }

  /** Sends the endpoint a `webhook.test` event now, whatever its filters. */
  async test(endpointId: string, options?: CallOptions): Promise<WebhookDeliveryAccepted> {
    const path = `${endpointPath(endpointId)}/test`;
    return this.#sender.send({ method: 'POST', path, session: true, retrySafe: false, options });
  }
}

function endpointPath(endpointId: string): string {
  return `${BASE}/${segment('endpointId', endpointId)}`;
}

/** The filter members given, checked; absent ones are left out of the body. */
function filterBody(params: WebhookFilterParams): Record<string, unknown> {
  const { events, apiKeyIds, description } = params;
  if (events !== undefined) checkTexts('events', events);
  if (apiKeyIds !== undefined && apiKeyIds !== null) checkTexts('apiKeyIds', apiKeyIds);
  if (description !== undefined && typeof description !== 'string') {
    throw invalid('description must be a string');
  }
  return {
    ...(events !== undefined && { events: [...events] }),
    ...(apiKeyIds !== undefined && { apiKeyIds: apiKeyIds === null ? null : [...apiKeyIds] }),
    ...(description !== undefined && { description }),
  };
}

function checkTexts(field: string, values: unknown): void {
  if (!Array.isArray(values)) throw invalid(`${field} must be an array of strings`);
  for (const [index, value] of values.entries()) checkText(`${field}[${index}]`, value);
}

function invalid(message: string): ValidationError {
  return new ValidationError(`Invalid webhook parameters: ${message}`, {
    code: 'validation_error',
  });
}
