/**
 * The webhooks page's decisions (webhooks.tsx): what the event field means, how an endpoint's
 * state reads, and the overlaps a rotation offers. Pure, so they are tested without a browser.
 */
import type { WebhookEndpoint } from '@poolparty/sdk/webhooks';

/** Patterns the field takes at most, as the service keeps at most. */
export const EVENT_PATTERNS_MAX = 64;

/**
 * The event field as patterns: separated by commas, spaces or new lines, each once, in the order
 * typed. Empty means every event.
 */
export function parseEventPatterns(text: string): string[] {
  const patterns = text
    .split(/[\s,]+/)
    .map((pattern) => pattern.trim())
    .filter((pattern) => pattern !== '');
  return [...new Set(patterns)].slice(0, EVENT_PATTERNS_MAX);
}

/** The patterns as the field shows them. */
export function formatEventPatterns(patterns: readonly string[]): string {
  return patterns.join(', ');
}

/** What is sent, in words. */
export function describeEvents(patterns: readonly string[]): string {
  return patterns.length === 0 ? 'Every event' : patterns.join(', ');
}

/** An endpoint's state in words: sending, failing, or disabled and why (by you, or after failures). */
export function endpointState(endpoint: WebhookEndpoint): string {
  if (!endpoint.enabled) {
    return endpoint.disabledReason === null ? 'Disabled' : `Disabled (${endpoint.disabledReason})`;
  }
  return endpoint.failingSince === null ? 'Active' : 'Active, failing';
}

/** The overlaps a rotation offers: how long the old secret still signs beside the new one. */
export const OVERLAP_CHOICES = [
  { seconds: 0, label: 'none: the old secret stops now' },
  { seconds: 3_600, label: '1 hour' },
  { seconds: 86_400, label: '1 day (the default)' },
  { seconds: 604_800, label: '7 days (the longest)' },
] as const;

export const OVERLAP_DEFAULT_SECONDS = 86_400;
