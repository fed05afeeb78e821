/**
 * What a webhook endpoint is sent (docs/spec/webhooks.md#event-types): the event types, the
 * patterns an endpoint subscribes with, and whether an endpoint wants an event.
 *
 * An intent's events are its state changes, `<kind>.<state>` with the lifecycle's states (an
 * atomic swap's are `atomic_swap.<state>`, its own lifecycle's); a leg
 * event of the SSE stream (`payout_offered`, …) is no webhook event: its state change around it is,
 * and the status object it carries shows the leg. The developer's own events are a collection
 * paid, a key revoked, and the test event a developer asks for.
 */
import { ATOMIC_SWAP_STATES } from './atomic-swap.js';
import { LIQUIDITY_STATES } from './schemas/liquidity.js';
import { SWAP_STATES } from './swap-state.js';

/** The kinds of webhook event: the part of a type before the dot. */
export const WEBHOOK_EVENT_KINDS = [
  'swap',
  'atomic_swap',
  'liquidity_intent',
  'liquidity_withdrawal',
  'collection',
  'api_key',
  'webhook',
] as const;
export type WebhookEventKind = (typeof WEBHOOK_EVENT_KINDS)[number];

/** A withdrawal's states as its view names them. */
export const WITHDRAWAL_STATES = ['paying', 'completed', 'flagged'] as const;

/** Every event type, by kind. */
export const WEBHOOK_EVENT_TYPES: Readonly<Record<WebhookEventKind, readonly string[]>> = {
  swap: SWAP_STATES.map((state) => `swap.${state}`),
  atomic_swap: ATOMIC_SWAP_STATES.map((state) => `atomic_swap.${state}`),
  liquidity_intent: LIQUIDITY_STATES.map((state) => `liquidity_intent.${state}`),
  liquidity_withdrawal: WITHDRAWAL_STATES.map((state) => `liquidity_withdrawal.${state}`),
  collection: ['collection.paid'],
  api_key: ['api_key.revoked'],
  webhook: ['webhook.test'],
};

/** The type of the event a developer asks for to try an endpoint; patterns never filter it. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

const ALL_TYPES: ReadonlySet<string> = new Set(Object.values(WEBHOOK_EVENT_TYPES).flat());

/** Patterns one endpoint subscribes with at most: every exact type fits, with room for kinds. */
export const WEBHOOK_PATTERNS_MAX = 64;

export function isWebhookEventType(type: string): boolean {
  return ALL_TYPES.has(type);
}

export type PatternsCheck =
  | { readonly ok: true; readonly patterns: readonly string[] }
  | { readonly ok: false; readonly code: 'webhook_event_unknown'; readonly pattern: string };

/**
 * The patterns as kept: each an exact type or `<kind>.*`, without repeats, in sorted order; the
 * first that is neither is refused. No pattern (empty or absent) subscribes to every event.
 */
export function checkEventPatterns(patterns: readonly string[]): PatternsCheck {
  for (const pattern of patterns) {
    if (!isEventPattern(pattern)) return { ok: false, code: 'webhook_event_unknown', pattern };
  }
  return { ok: true, patterns: [...new Set(patterns)].sort() };
}

function isEventPattern(pattern: string): boolean {
  if (ALL_TYPES.has(pattern)) return pattern !== WEBHOOK_TEST_EVENT;
  if (!pattern.endsWith('.*')) return false;
  const kind = pattern.slice(0, -2);
  return kind !== 'webhook' && (WEBHOOK_EVENT_KINDS as readonly string[]).includes(kind);
}

/** Whether `type` is among `patterns` (an exact type, or its kind's `*`); none means all. */
export function eventMatches(patterns: readonly string[], type: string): boolean {
  if (patterns.length === 0) return true;
  const kind = type.slice(0, type.indexOf('.'));
  return patterns.some((pattern) => pattern === type || pattern === `${kind}.*`);
}

/** What of an endpoint decides whether it wants an event. */
export interface EndpointFilter {
  readonly enabled: boolean;
  readonly events: readonly string[];
  /** Null: intents of every key of the developer. */
  readonly apiKeyIds: readonly string[] | null;
}

/** What of an event an endpoint's filter reads. */
export interface WebhookEventFacts {
  readonly type: string;
  /** The key an intent was created with; null for the developer's own events. */
  readonly apiKeyId: string | null;
}

/**
 * Whether an endpoint of the event's developer is sent it: enabled, subscribed to its type, and,
 * for an intent, subscribed to the key it was created with. `apiKeyIds` narrows intents only: a
 * collection or a revoked key is the developer's, of no key.
 */
export function endpointWants(endpoint: EndpointFilter, event: WebhookEventFacts): boolean {
  if (!endpoint.enabled || !eventMatches(endpoint.events, event.type)) return false;
  if (endpoint.apiKeyIds === null || event.apiKeyId === null) return true;
  return endpoint.apiKeyIds.includes(event.apiKeyId);
}
