/**
 * The swaps' event hub: wake-ups from the `intent_events` outbox, whose notifications name the
 * swap as `intentId` (the trigger of the initial migration). The hub itself is event-hub.ts.
 */
import {
  EventHub,
  type EventHubOptions,
  type NotificationSource,
  type OutboxChannel,
  subjectOfNotification,
} from './event-hub.js';

export type { NotificationSource, WakeUp } from './event-hub.js';
export { EVENT_SUBSCRIBERS_MAX, SubscribersFullError } from './event-hub.js';

export const INTENT_EVENTS_CHANNEL = 'intent_events';
export const INTENT_EVENTS: OutboxChannel = {
  name: INTENT_EVENTS_CHANNEL,
  subjectField: 'intentId',
};

export type IntentEventHubOptions = EventHubOptions;
export type IntentEventHub = EventHub;

export const IntentEventHub = {
  /** Listening before it returns, so nothing written after `open` goes unannounced. */
  open(source: NotificationSource, options: IntentEventHubOptions = {}): Promise<IntentEventHub> {
    return EventHub.listen(source, INTENT_EVENTS, options);
  },
};

/** The intent a notification names; null for anything that is not one of ours. */
export function intentIdOfNotification(payload: string): string | null {
  return subjectOfNotification(payload, INTENT_EVENTS.subjectField);
}
