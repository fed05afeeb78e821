/**
 * A worker's webhook request slots (docs/spec/webhooks.md#delivery) and the turn to lease into
 * them. A delivery takes its slot when it is leased, not when its request starts: the fan-out,
 * the record rounds and the claims each lease in one statement, and whichever holds the turn
 * offers that statement the slots free then (core's `webhookSlotsFree`) and counts what it
 * leased before giving the turn back, so two statements never spend the same slot.
 */
import { type WebhookSlotLimits, type WebhookSlotsFree, webhookSlotsFree } from '@poolparty/core';

/**
 * Callers waiting for the turn at most: the claim and record loops, each one run at a time (the
 * fan-out only ever tries, inside its transaction, and never waits).
 */
const TURN_WAITERS_MAX = 2;

/** The turn to lease: the offer of the slots free now, given back by `taken` or `release`. */
export interface LeaseTurn {
  readonly offer: (endpointIds: Iterable<string>) => WebhookSlotsFree;
  /** Counts the deliveries leased in flight and gives the turn back. */
  readonly taken: (leased: Iterable<{ readonly endpointId: string }>) => void;
}

export class WebhookSlots {
  /** Per endpoint, deliveries leased and not yet answered. */
  private readonly inFlight = new Map<string, number>();
  private held = false;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limits: WebhookSlotLimits) {}

  /** In flight per endpoint, as the claim statement takes it. */
  get byEndpoint(): Record<string, number> {
    return Object.fromEntries(this.inFlight);
  }

  /** Whether some endpoint is at its bound: a claim may have left its deliveries behind. */
  get anyEndpointFull(): boolean {
    for (const count of this.inFlight.values()) if (count >= this.limits.perEndpoint) return true;
    return false;
  }

  /** The turn, once the statement holding it has answered. */
  async turn(): Promise<LeaseTurn> {
    if (this.held) {
      if (this.waiting.length >= TURN_WAITERS_MAX) throw new Error('too many waiting to lease');
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.held = true;
    return this.leaseTurn();
  }

  /** The turn if nobody holds it; null otherwise (the caller then leases nothing). */
  tryTurn(): LeaseTurn | null {
    if (this.held) return null;
    this.held = true;
    return this.leaseTurn();
  }

  /** A request ended: its slot is free. */
  free(endpointId: string): void {
    const left = (this.inFlight.get(endpointId) ?? 1) - 1;
    if (left <= 0) this.inFlight.delete(endpointId);
    else this.inFlight.set(endpointId, left);
  }

  private leaseTurn(): LeaseTurn {
    let given = false;
    return {
      offer: (endpointIds) => webhookSlotsFree(this.limits, this.inFlight, endpointIds),
      taken: (leased) => {
        if (given) return;
        given = true;
        for (const { endpointId } of leased) {
          this.inFlight.set(endpointId, (this.inFlight.get(endpointId) ?? 0) + 1);
        }
        this.giveBack();
      },
    };
  }

  private giveBack(): void {
    const next = this.waiting.shift();
    // Handed straight to the next waiter, so no `tryTurn` slips in between.
    if (next === undefined) this.held = false;
    else next();
  }
}
