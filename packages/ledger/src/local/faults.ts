/**
 * Fault injection of the local ledger (control.ts `LedgerFaults`). Every decision draws from one
 * seeded generator, so a test that sets a seed sees the same faults in the same places each run
 * (given the same sequence of calls).
 */
import type { InjectedFaults, LedgerFaults } from './control.js';

const DEFAULT_FAULT_SEED = 0x5eed;

/** mulberry32: a small, well-distributed 32-bit generator; enough for test faults. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const RATE_KEYS = [
  'rejectRate',
  'timeoutAfterCommitRate',
  'dropStreamRate',
  'duplicateDeliveryRate',
] as const;

/** Refuses rates outside [0, 1] and negative latency: a typo must not silently disable a fault. */
function checkFaults(faults: LedgerFaults): void {
  for (const key of RATE_KEYS) {
    const rate = faults[key];
    if (rate !== undefined && !(rate >= 0 && rate <= 1)) {
      throw new RangeError(`${key} must be a probability in [0, 1], not ${rate}`);
    }
  }
  const latency = faults.latencyMs;
  if (latency !== undefined && !(Number.isFinite(latency) && latency >= 0)) {
    throw new RangeError(`latencyMs must be a non-negative number, not ${latency}`);
  }
}

export class FaultInjector {
  private faults: LedgerFaults = {};
  private random = seededRandom(DEFAULT_FAULT_SEED);
  private readonly counts = {
    rejections: 0,
    timeoutsAfterCommit: 0,
    droppedStreams: 0,
    duplicateDeliveries: 0,
  };

  /** How many of each fault fired since the ledger opened (reconfiguring keeps the counts). */
  injected(): InjectedFaults {
    return { ...this.counts };
  }

  /** Replaces all settings and restarts the generator from the given (or default) seed. */
  configure(faults: LedgerFaults): void {
    checkFaults(faults);
    this.faults = { ...faults };
    this.random = seededRandom(faults.seed ?? DEFAULT_FAULT_SEED);
  }

  async delay(): Promise<void> {
    const latencyMs = this.faults.latencyMs ?? 0;
    if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
  }

  rejectsSubmission(): boolean {
    return this.count('rejections', this.draw(this.faults.rejectRate));
  }

  timesOutAfterCommit(): boolean {
    return this.count('timeoutsAfterCommit', this.draw(this.faults.timeoutAfterCommitRate));
  }

  dropsStream(): boolean {
    return this.count('droppedStreams', this.draw(this.faults.dropStreamRate));
  }

  duplicatesDelivery(): boolean {
    return this.count('duplicateDeliveries', this.draw(this.faults.duplicateDeliveryRate));
  }

  private count(kind: keyof InjectedFaults, fired: boolean): boolean {
    if (fired) this.counts[kind] += 1;
    return fired;
  }

  // A rate of 0 (or unset) draws nothing, so turning one fault on does not shift the others.
  private draw(rate: number | undefined): boolean {
    if (!rate) return false;
    return this.random() < rate;
  }
}
