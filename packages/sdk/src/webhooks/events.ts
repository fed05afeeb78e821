/**
 * What a webhook request carries: `{ id, type, createdAt, mode, data: { object } }`. The object is
 * what the status route answers for the subject: a swap, atomic swap or liquidity intent as of
 * the event (as the event stream's data is), a withdrawal, collection or API key as it stands
 * when the event is sent. Every delivery of one event, retries and resends included, has the same `id`: keep the
 * ids handled, and skip one seen before.
 */
import type { Environment } from '../environments.js';
import type { ApiKeyListEntry, Collection } from '../portal-types.js';
import type {
  AtomicSwap,
  AtomicSwapState,
  LiquidityIntent,
  LiquidityState,
  SwapState,
  SwapStatus,
  Withdrawal,
} from '../types.js';
import type { WebhookEndpoint } from './wire-types.js';

/** The part of every event beside its type and object. */
interface WebhookEventOf<Type extends string, Subject> {
  /** The event, `evt_…`: the same in every delivery of it. */
  readonly id: string;
  readonly type: Type;
  /** When it happened (ISO 8601). */
  readonly createdAt: string;
  /** Which network the service that sent it runs on. */
  readonly mode: Environment;
  readonly data: { readonly object: Subject };
}

/** A swap reached a state: `swap.completed`, `swap.slippage_failed`, … */
export type SwapWebhookEvent = WebhookEventOf<`swap.${SwapState}`, SwapStatus>;
/**
 * An atomic swap reached a state: `atomic_swap.completed`, `atomic_swap.price_moved`, …; the
 * object is the swap as `atomicSwaps.get` reads it, as of the event.
 */
export type AtomicSwapWebhookEvent = WebhookEventOf<`atomic_swap.${AtomicSwapState}`, AtomicSwap>;
/** A liquidity intent reached a state: `liquidity_intent.partial`, … */
export type LiquidityIntentWebhookEvent = WebhookEventOf<
  `liquidity_intent.${LiquidityState}`,
  LiquidityIntent
>;
/** A withdrawal reached a state: `liquidity_withdrawal.completed`, … */
export type LiquidityWithdrawalWebhookEvent = WebhookEventOf<
  `liquidity_withdrawal.${Withdrawal['status']}`,
  Withdrawal
>;
/** A collection of your earnings was paid. */
export type CollectionWebhookEvent = WebhookEventOf<'collection.paid', Collection>;
/** One of your API keys was revoked (or its rotation's grace period ended). */
export type ApiKeyWebhookEvent = WebhookEventOf<'api_key.revoked', ApiKeyListEntry>;
/** The event you asked for to try an endpoint (`portal.webhooks.test`); it carries the endpoint. */
export type TestWebhookEvent = WebhookEventOf<'webhook.test', WebhookEndpoint>;

/** Any event a PoolParty webhook carries; `type` tells them apart. */
export type WebhookEvent =
  | SwapWebhookEvent
  | AtomicSwapWebhookEvent
  | LiquidityIntentWebhookEvent
  | LiquidityWithdrawalWebhookEvent
  | CollectionWebhookEvent
  | ApiKeyWebhookEvent
  | TestWebhookEvent;

/** An event type: `swap.completed`, `collection.paid`, … */
export type WebhookEventType = WebhookEvent['type'];

const MODES: readonly string[] = ['devnet', 'mainnet'];
const EVENT_TYPE = /^[a-z_]+\.[a-z_]+$/;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Why `value` is not an event's envelope; null when it is. Only the envelope is checked: the
 * object's fields are the service's, and an event type added after this SDK still reads (its
 * `type` is then one the union does not name, so a `switch` on it falls to `default`).
 */
export function envelopeProblem(value: unknown): string | null {
  if (!isObject(value)) return 'the body is not a JSON object';
  if (typeof value.id !== 'string' || value.id === '') return 'no id';
  if (typeof value.type !== 'string' || !EVENT_TYPE.test(value.type))
    return 'no <kind>.<name> type';
  if (typeof value.createdAt !== 'string') return 'no createdAt';
  if (typeof value.mode !== 'string' || !MODES.includes(value.mode))
    return 'no devnet/mainnet mode';
  if (!isObject(value.data) || !isObject(value.data.object)) return 'no data.object';
  return null;
}
