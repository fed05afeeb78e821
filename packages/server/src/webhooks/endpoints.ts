/**
 * A developer's webhook endpoints (docs/spec/webhooks.md#routes): registration within the cap,
 * changes, deletion, secret rotation, the delivery log, resends and test events. Another
 * developer's endpoint or delivery is refused exactly like one that does not exist.
 */
import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import {
  addressAllowed,
  checkEventPatterns,
  checkWebhookUrl,
  classifyAddress,
  type DestinationPolicy,
  DomainError,
  WEBHOOK_DELIVERIES_PAGE_DEFAULT,
  WEBHOOK_OVERLAP_SECONDS_DEFAULT,
  WEBHOOK_TEST_EVENT,
  type WebhookEndpointCreate,
  type WebhookEndpointUpdate,
} from '@poolparty/core';
import {
  type Database,
  deleteWebhookEndpoint,
  getWebhookDelivery,
  getWebhookEndpoint,
  insertWebhookDeliveries,
  insertWebhookEndpointWithinCap,
  listApiKeys,
  listWebhookDeliveries,
  rotateWebhookSecret,
  updateWebhookEndpoint,
  type WebhookDeliveryRecord,
  type WebhookEndpointRecord,
} from '@poolparty/store';
import type { Settings } from '../config.js';
import { endpointView } from '../views/webhooks.js';
import { webhookBody } from './event-bodies.js';
import { newDeliveryId } from './fan-out.js';

/** Endpoints one developer holds at most: one per app and environment, with room to spare. */
export const WEBHOOK_ENDPOINTS_MAX = 16;
/** A secret's random bytes: 192 bits, 32 characters of base64url after `whsec_`. */
const SECRET_BYTES = 24;
const ID_BYTES = 12;

export interface WebhookContext {
  readonly db: Database;
  readonly now: Date;
  readonly settings: Pick<Settings, 'environment' | 'webhookAllowPrivate'>;
}

function policyOf(settings: WebhookContext['settings']): DestinationPolicy {
  return { mode: settings.environment, allowPrivate: settings.webhookAllowPrivate };
}

function newSecret(): string {
  return `whsec_${randomBytes(SECRET_BYTES).toString('base64url')}`;
}

/**
 * The URL as kept, refused when the policy refuses it; on mainnet its host must resolve, to
 * public addresses only (the sender checks again before every request).
 */
export async function checkedUrl(text: string, policy: DestinationPolicy): Promise<string> {
  const checked = checkWebhookUrl(text, policy);
  if (!checked.ok) {
    throw new DomainError(checked.code, `The webhook URL ${text} is refused: ${checked.reason}.`);
  }
  const host = checked.host.replace(/^\[|\]$/g, '');
  // Every address is allowed there, or the host is an address core checked already.
  const anyAddress = policy.mode === 'devnet' || policy.allowPrivate;
  if (anyAddress || classifyAddress(host) !== 'not_an_address') {
    return checked.url;
  }
  const addresses = await lookup(host, { all: true }).catch(() => null);
  if (addresses === null || addresses.length === 0) {
    throw new DomainError(
      'webhook_url_invalid',
      `The webhook URL's host ${host} does not resolve.`,
    );
  }
  const refused = addresses.find((entry) => !addressAllowed(entry.address, policy));
  if (refused !== undefined) {
    throw new DomainError(
      'webhook_url_not_allowed',
      `The webhook URL ${text} is refused: ${host} resolves to ${refused.address}, which is not a public address.`,
    );
  }
  return checked.url;
}

function checkedPatterns(patterns: readonly string[]): readonly string[] {
  const checked = checkEventPatterns(patterns);
  if (!checked.ok) {
    throw new DomainError(
      'webhook_event_unknown',
      `${checked.pattern === '' ? 'An empty pattern' : checked.pattern} is no webhook event type or kind (swap.completed, swap.*, …).`,
      { pattern: checked.pattern },
    );
  }
  return checked.patterns;
}

async function checkedKeys(
  db: Database,
  developer: string,
  apiKeyIds: readonly string[] | null,
): Promise<readonly string[] | null> {
  if (apiKeyIds === null) return null;
  const own = new Set((await listApiKeys(db, developer)).map((key) => key.keyId));
  const unknown = apiKeyIds.find((keyId) => !own.has(keyId));
  if (unknown !== undefined) {
    throw new DomainError('webhook_api_key_unknown', `${unknown} is not one of your API keys.`, {
      apiKeyId: unknown,
    });
  }
  return [...new Set(apiKeyIds)].sort();
}

export async function createEndpoint(
  ctx: WebhookContext,
  developer: string,
  body: WebhookEndpointCreate,
): Promise<{ endpoint: WebhookEndpointRecord; secret: string }> {
  const url = await checkedUrl(body.url, policyOf(ctx.settings));
  const events = checkedPatterns(body.events ?? []);
  const apiKeyIds = await checkedKeys(ctx.db, developer, body.apiKeyIds ?? null);
  const secret = newSecret();
  const endpoint = await insertWebhookEndpointWithinCap(
    ctx.db,
    {
      endpointId: `we_${randomBytes(ID_BYTES).toString('base64url')}`,
      developerParty: developer,
      url,
      events,
      apiKeyIds,
      description: body.description ?? '',
      secret,
      createdAt: ctx.now,
    },
    WEBHOOK_ENDPOINTS_MAX,
  );
  if (endpoint === null) {
    throw new DomainError(
      'webhook_endpoint_limit',
      `You have ${WEBHOOK_ENDPOINTS_MAX} webhook endpoints, the most a developer may hold; delete one (DELETE /api/sdk/webhooks/{endpointId}) first.`,
      { limit: WEBHOOK_ENDPOINTS_MAX },
    );
  }
  return { endpoint, secret };
}

/** The developer's endpoint; anyone else's answers exactly like one that does not exist. */
export async function ownEndpoint(
  db: Database,
  developer: string,
  endpointId: string,
): Promise<WebhookEndpointRecord> {
  const endpoint = await getWebhookEndpoint(db, endpointId);
  if (endpoint === null || endpoint.developerParty !== developer) {
    throw new DomainError('not_found', `No webhook endpoint ${endpointId}.`);
  }
  return endpoint;
}

export async function changeEndpoint(
  ctx: WebhookContext,
  developer: string,
  endpointId: string,
  body: WebhookEndpointUpdate,
): Promise<WebhookEndpointRecord> {
  await ownEndpoint(ctx.db, developer, endpointId);
  const changes = {
    ...(body.url !== undefined && { url: await checkedUrl(body.url, policyOf(ctx.settings)) }),
    ...(body.events !== undefined && { events: checkedPatterns(body.events) }),
    ...(body.apiKeyIds !== undefined && {
      apiKeyIds: await checkedKeys(ctx.db, developer, body.apiKeyIds),
    }),
    ...(body.description !== undefined && { description: body.description }),
    ...(body.enabled !== undefined && { enabled: body.enabled }),
  };
  const updated = await updateWebhookEndpoint(ctx.db, {
    endpointId,
    developerParty: developer,
    changes,
    now: ctx.now,
  });
  if (updated === null) throw new DomainError('not_found', `No webhook endpoint ${endpointId}.`);
  return updated;
}

export async function removeEndpoint(
  db: Database,
  developer: string,
  endpointId: string,
): Promise<void> {
  if (!(await deleteWebhookEndpoint(db, endpointId, developer))) {
    throw new DomainError('not_found', `No webhook endpoint ${endpointId}.`);
  }
}

export async function rotateSecret(
  ctx: WebhookContext,
  developer: string,
  endpointId: string,
  overlapSeconds: number | undefined,
): Promise<{ secret: string; previousSecretExpiresAt: Date }> {
  const secret = newSecret();
  const overlapMs = (overlapSeconds ?? WEBHOOK_OVERLAP_SECONDS_DEFAULT) * 1000;
  const previousExpiresAt = new Date(ctx.now.getTime() + overlapMs);
  const rotated = await rotateWebhookSecret(ctx.db, {
    endpointId,
    developerParty: developer,
    secret,
    previousExpiresAt,
    now: ctx.now,
  });
  if (rotated === null) throw new DomainError('not_found', `No webhook endpoint ${endpointId}.`);
  return { secret, previousSecretExpiresAt: previousExpiresAt };
}

export async function deliveryPage(
  db: Database,
  developer: string,
  endpointId: string,
  query: { readonly limit?: number; readonly before?: string },
): Promise<{ deliveries: WebhookDeliveryRecord[]; next: string | null }> {
  await ownEndpoint(db, developer, endpointId);
  const limit = query.limit ?? WEBHOOK_DELIVERIES_PAGE_DEFAULT;
  const found = await listWebhookDeliveries(db, {
    endpointId,
    limit,
    before: query.before ?? null,
  });
  if (found === null) {
    throw new DomainError('not_found', `No delivery ${query.before} of endpoint ${endpointId}.`);
  }
  const next = found.length === limit ? (found.at(-1)?.deliveryId ?? null) : null;
  return { deliveries: found, next };
}

/** A new delivery of a delivery's event: the same event id and body, sent at once. */
export async function resend(
  ctx: WebhookContext,
  developer: string,
  endpointId: string,
  deliveryId: string,
): Promise<WebhookDeliveryRecord> {
  await ownEndpoint(ctx.db, developer, endpointId);
  const original = await getWebhookDelivery(ctx.db, endpointId, deliveryId);
  if (original === null) {
    throw new DomainError('not_found', `No delivery ${deliveryId} of endpoint ${endpointId}.`);
  }
  const [made] = await insertWebhookDeliveries(ctx.db, [
    {
      deliveryId: newDeliveryId(),
      endpointId,
      eventId: original.eventId,
      eventType: original.eventType,
      subjectId: original.subjectId,
      body: original.body,
      createdAt: ctx.now,
      resendOf: original.deliveryId,
    },
  ]);
  return made as WebhookDeliveryRecord;
}

/** A `webhook.test` event to the endpoint, carrying the endpoint as it stands. */
export async function sendTestEvent(
  ctx: WebhookContext,
  developer: string,
  endpointId: string,
): Promise<WebhookDeliveryRecord> {
  const endpoint = await ownEndpoint(ctx.db, developer, endpointId);
  const deliveryId = newDeliveryId();
  const eventId = `evt_test_${randomBytes(ID_BYTES).toString('base64url')}`;
  const head = { eventId, type: WEBHOOK_TEST_EVENT, at: ctx.now };
  const [made] = await insertWebhookDeliveries(ctx.db, [
    {
      deliveryId,
      endpointId,
      eventId,
      eventType: WEBHOOK_TEST_EVENT,
      subjectId: deliveryId,
      body: webhookBody(head, ctx.settings.environment, endpointView(endpoint)),
      createdAt: ctx.now,
    },
  ]);
  return made as WebhookDeliveryRecord;
}
