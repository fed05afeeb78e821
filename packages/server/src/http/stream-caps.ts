/**
 * Event streams per caller. A process serves a fixed number of streams (`EVENT_SUBSCRIBERS_MAX`);
 * without a share per caller, one wallet party or one API key could open all of them and every
 * other party's stream would be refused. Each open stream holds one slot of its wallet party and
 * one of its API key until the response closes, whichever way it closes.
 */
import { BaseError } from '@poolparty/core';

/** The limit a refused stream hit, as the problem's `limit` member names it. */
export type StreamLimit = 'streams_per_party' | 'streams_per_key';

export interface StreamCapSettings {
  readonly perParty: number;
  readonly perKey: number;
}

export class StreamCapReachedError extends BaseError<'stream_cap_reached'> {
  override readonly name = 'StreamCapReachedError';
  constructor(
    readonly limit: StreamLimit,
    readonly max: number,
  ) {
    super('stream_cap_reached', `${limit}: all ${max} streams are open`);
  }
}

/** Open slots by owner; an owner with none is forgotten, so the map holds only active callers. */
class SlotCounts {
  private readonly counts = new Map<string, number>();

  count(owner: string): number {
    return this.counts.get(owner) ?? 0;
  }

  add(owner: string): void {
    this.counts.set(owner, this.count(owner) + 1);
  }

  remove(owner: string): void {
    const left = this.count(owner) - 1;
    if (left <= 0) this.counts.delete(owner);
    else this.counts.set(owner, left);
  }

  get total(): number {
    let total = 0;
    for (const count of this.counts.values()) total += count;
    return total;
  }
}

export class StreamCaps {
  private readonly parties = new SlotCounts();
  private readonly keys = new SlotCounts();

  constructor(readonly settings: StreamCapSettings) {}

  /**
   * Takes a slot of `party` and of `keyId`; returns its release, which frees both once however
   * often it runs. Throws `StreamCapReachedError` naming the party's limit first (the narrower
   * caller), and takes nothing then.
   */
  take(party: string, keyId: string): () => void {
    if (this.parties.count(party) >= this.settings.perParty) {
      throw new StreamCapReachedError('streams_per_party', this.settings.perParty);
    }
    if (this.keys.count(keyId) >= this.settings.perKey) {
      throw new StreamCapReachedError('streams_per_key', this.settings.perKey);
    }
    this.parties.add(party);
    this.keys.add(keyId);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.parties.remove(party);
      this.keys.remove(keyId);
    };
  }

  /** The slots held now (each open stream holds one). */
  get held(): number {
    return this.parties.total;
  }
}
