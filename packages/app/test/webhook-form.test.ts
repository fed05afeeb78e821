/**
 * The webhooks page's decisions (webhook-form.ts): what the events field sends, and how an
 * endpoint's state reads.
 */
import type { WebhookEndpoint } from '@poolparty/sdk/webhooks';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  describeEvents,
  EVENT_PATTERNS_MAX,
  endpointState,
  formatEventPatterns,
  parseEventPatterns,
} from '../src/pages/developer/webhook-form.js';

describe('the events field', () => {
  it('reads patterns separated by commas, spaces or new lines, each once, in order', () => {
    expect(parseEventPatterns(' swap.completed,liquidity_intent.*\n swap.completed , ')).toEqual([
      'swap.completed',
      'liquidity_intent.*',
    ]);
    expect(parseEventPatterns('   ')).toEqual([]);
    expect(describeEvents([])).toBe('Every event');
  });

  it('gives back what it shows, at most as many as the service keeps', () => {
    const pattern = fc.stringMatching(/^[a-z_]{1,12}\.(\*|[a-z_]{1,12})$/);
    fc.assert(
      fc.property(fc.uniqueArray(pattern, { maxLength: 80 }), (patterns) => {
        const read = parseEventPatterns(formatEventPatterns(patterns));
        expect(read).toEqual(patterns.slice(0, EVENT_PATTERNS_MAX));
      }),
    );
  });
});

describe("an endpoint's state", () => {
  const endpoint: WebhookEndpoint = {
    id: 'we_0123456789abcdef',
    url: 'https://shop.example/hooks',
    events: [],
    apiKeyIds: null,
    description: '',
    enabled: true,
    disabledReason: null,
    disabledAt: null,
    createdAt: '2026-12-02T19:00:00.000Z',
    updatedAt: '2026-12-02T19:00:00.000Z',
    secretRotatedAt: null,
    failingSince: null,
  };

  it('says active, failing, or disabled and why', () => {
    expect(endpointState(endpoint)).toBe('Active');
    expect(endpointState({ ...endpoint, failingSince: '2026-12-02T19:01:00.000Z' })).toBe(
      'Active, failing',
    );
    expect(endpointState({ ...endpoint, enabled: false })).toBe('Disabled');
    expect(
      endpointState({
        ...endpoint,
        enabled: false,
        disabledReason: '5 deliveries failed in a row',
      }),
    ).toBe('Disabled (5 deliveries failed in a row)');
  });
});
