/**
 * The webhook delivery loop of a worker (docs/spec/webhooks.md#delivery), apart from settlement:
 * it has its own timer, its own store transactions and its own bounds, so a slow or dead endpoint
 * holds only its own slots — never the engine, the event streams, or another endpoint's slots.
 *
 * A round fans queued events out into deliveries, then claims due deliveries up to the free
 * slots (`webhookConcurrency` in all, `webhookPerEndpoint` per endpoint), each with a lease that
 * outlasts the request. An attempt's outcome is recorded with core's decision (delivered, retried
 * at the schedule's time, or given up) and the endpoint's failure run (`endpointHealthAfter`),
 * which may turn it off. A worker killed mid-request leaves its leases to run out; the next claim
 * after that, by any worker, sends again: at least once.
 */

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import {
  type DeliveryAfterAttempt,
  type DestinationPolicy,
  deliveryAfterAttempt,
  type Environment,
  endpointHealthAfter,
  retryAfterMs,
  WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES,
  webhookSignatureHeader,
} from '@poolparty/core';
import type { ServiceClock } from '@poolparty/settlement';
import {
  type ClaimedWebhookDelivery,
  claimWebhookDeliveries,
  type Database,
  lockWebhookEndpoint,
  type Queryable,
  recordWebhookAttempt,
  signingSecrets,
  writeWebhookEndpointHealth,
} from '@poolparty/store';
import { FAN_OUT_BATCH, fanOutWebhookEvents } from './fan-out.js';
import { sendWebhook, type WebhookResponse } from './sender.js';

/** How often a worker looks for queued events and due deliveries when nothing wakes it. */
export const WEBHOOK_POLL_MS = 500;
/** Fan-outs one round runs at most before it claims: a backlog is worked off over rounds. */
const FAN_OUTS_PER_ROUND = 10;
/** A lease outlasts the request by this: recording the attempt after the answer takes time too. */
const LEASE_MARGIN_MS = 30_000;
/** Due deliveries one claim looks at, beyond those it takes: room to skip busy endpoints. */
const CLAIM_SCAN_MAX = 1_000;
export const WEBHOOK_USER_AGENT = 'PoolParty-Webhooks/1';

export interface WebhookDispatcherSettings {
  readonly mode: Environment;
  readonly allowPrivate: boolean;
  readonly timeoutMs: number;
  readonly concurrency: number;
  readonly perEndpoint: number;
}

export interface WebhookDispatcherDeps {
  readonly db: Database;
  readonly clock: ServiceClock;
  readonly settings: WebhookDispatcherSettings;
  readonly log: {
    readonly warn: (details: Record<string, unknown>, message: string) => void;
    readonly info: (details: Record<string, unknown>, message: string) => void;
  };
}

export class WebhookDispatcher {
  /** Names this process's leases; unique per start, so a restarted worker's are not its own. */
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly inFlight = new Map<string, number>();
  private readonly attempts = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private round: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(private readonly deps: WebhookDispatcherDeps) {}

  start(): void {
    this.timer = setInterval(() => this.poke(), WEBHOOK_POLL_MS);
    this.timer.unref();
    this.poke();
  }

  /** Runs a round now, or right after the one running. */
  poke(): void {
    if (this.stopped) return;
    if (this.round !== null) {
      this.again = true;
      return;
    }
    this.round = this.runRound()
      .catch((error: unknown) =>
        this.deps.log.warn({ err: error }, 'a webhook round failed; trying again at the next'),
      )
      .finally(() => {
        this.round = null;
        if (this.again) {
          this.again = false;
          this.poke();
        }
      });
  }

  /** Stops claiming, and waits for the requests in flight (each ends within the timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.round;
    await Promise.allSettled([...this.attempts]);
  }

  private get busy(): number {
    let total = 0;
    for (const count of this.inFlight.values()) total += count;
    return total;
  }

  private async runRound(): Promise<void> {
    const { db, clock, settings } = this.deps;
    for (let n = 0; n < FAN_OUTS_PER_ROUND; n += 1) {
      const moved = await fanOutWebhookEvents(db, { now: clock.now(), mode: settings.mode });
      if (moved < FAN_OUT_BATCH) break;
    }
    const free = settings.concurrency - this.busy;
    if (free <= 0 || this.stopped) return;
    const now = clock.now();
    const claimed = await claimWebhookDeliveries(db, {
      owner: this.owner,
      now,
      leaseUntil: new Date(now.getTime() + settings.timeoutMs + LEASE_MARGIN_MS),
      limit: free,
      perEndpoint: settings.perEndpoint,
      busy: Object.fromEntries(this.inFlight),
      scanMax: CLAIM_SCAN_MAX,
    });
    for (const delivery of claimed) this.launch(delivery);
  }

  private launch(delivery: ClaimedWebhookDelivery): void {
    const { endpointId } = delivery;
    this.inFlight.set(endpointId, (this.inFlight.get(endpointId) ?? 0) + 1);
    const attempt = this.attempt(delivery)
      .catch((error: unknown) =>
        this.deps.log.warn(
          { err: error, deliveryId: delivery.deliveryId, endpointId },
          'recording a webhook attempt failed; the delivery is tried again when its lease ends',
        ),
      )
      .finally(() => {
        const left = (this.inFlight.get(endpointId) ?? 1) - 1;
        if (left === 0) this.inFlight.delete(endpointId);
        else this.inFlight.set(endpointId, left);
        this.attempts.delete(attempt);
        this.poke();
      });
    this.attempts.add(attempt);
  }

  private async attempt(delivery: ClaimedWebhookDelivery): Promise<void> {
    const { clock, settings } = this.deps;
    const sentAt = clock.now();
    const response = await sendWebhook(requestOf(delivery, sentAt), {
      timeoutMs: settings.timeoutMs,
      policy: this.policy,
    });
    const now = clock.now();
    const after = deliveryAfterAttempt(response.statusCode, {
      attempts: delivery.attemptCount + 1,
      firstAttemptAt: delivery.firstAttemptAt ?? sentAt,
      now,
      retryAfterMs: retryAfterMs(response.retryAfter, now),
      random: Math.random(),
    });
    await this.deps.db.transaction((tx) => this.record(tx, delivery, sentAt, response, after));
    this.deps.log.info(
      {
        deliveryId: delivery.deliveryId,
        endpointId: delivery.endpointId,
        eventId: delivery.eventId,
        statusCode: response.statusCode,
        state: after.state,
      },
      'webhook attempt',
    );
  }

  private get policy(): DestinationPolicy {
    return { mode: this.deps.settings.mode, allowPrivate: this.deps.settings.allowPrivate };
  }

  private async record(
    tx: Queryable,
    delivery: ClaimedWebhookDelivery,
    sentAt: Date,
    response: WebhookResponse,
    after: DeliveryAfterAttempt,
  ): Promise<void> {
    const now = this.deps.clock.now();
    const recorded = await recordWebhookAttempt(tx, {
      deliveryId: delivery.deliveryId,
      owner: this.owner,
      attempt: {
        at: sentAt.toISOString(),
        statusCode: response.statusCode,
        latencyMs: response.latencyMs,
        error:
          response.error ??
          (after.state === 'delivered' ? null : `answered ${response.statusCode}`),
        responseExcerpt: response.responseExcerpt,
      },
      state: after.state,
      nextAttemptAt: after.state === 'retrying' ? after.at : null,
      now,
    });
    // Another worker took the delivery over after our lease ran out: its attempt counts.
    if (!recorded) return;
    // A delivery to an endpoint with no failures changes nothing: no write, no lock.
    const { endpoint: seen } = delivery;
    if (after.outcome === 'delivered' && seen.failedInRow === 0 && seen.failingSince === null) {
      return;
    }
    const endpoint = await lockWebhookEndpoint(tx, delivery.endpointId);
    if (endpoint === null) return;
    const health = endpointHealthAfter(endpoint, after.outcome, now);
    await writeWebhookEndpointHealth(tx, {
      endpointId: endpoint.endpointId,
      failedInRow: health.failedInRow,
      failingSince: health.failingSince,
      disabledReason: health.disable
        ? `${WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES} deliveries in a row failed after every retry`
        : null,
      now,
    });
  }
}

/** The signed request of one attempt: signed when sent, with every secret valid then. */
function requestOf(delivery: ClaimedWebhookDelivery, sentAt: Date) {
  const timestamp = Math.floor(sentAt.getTime() / 1000);
  return {
    url: delivery.endpoint.url,
    body: delivery.body,
    headers: {
      'content-type': 'application/json',
      'user-agent': WEBHOOK_USER_AGENT,
      'poolparty-event-id': delivery.eventId,
      'poolparty-event-type': delivery.eventType,
      'poolparty-delivery-attempt': String(delivery.attemptCount + 1),
      'poolparty-signature': webhookSignatureHeader(
        signingSecrets(delivery.endpoint, sentAt),
        timestamp,
        delivery.body,
      ),
    },
  };
}
