/**
 * The live update stream of the local ledger: reads committed updates in offset order from any
 * offset, then waits for new ones. A subscription ends (the iterator finishes) when its signal
 * aborts or the ledger closes; starting one on a closed ledger throws `closed`.
 *
 * Filtering keeps whole updates: an update is delivered when one of its events names a
 * subscribed party as sender, receiver or owner. A filtered subscription skips the offsets of the
 * updates it does not deliver, as a participant's party-filtered stream does.
 */
import { LedgerError, type LedgerUpdate, type UpdateSubscription } from '../port.js';
import { concernsParties } from '../subscription.js';
import type { FaultInjector } from './faults.js';

export interface UpdateSource {
  /** The update at `offset`, or undefined when it has not committed yet. */
  updateAt(offset: number): LedgerUpdate | undefined;
  isClosed(): boolean;
  /** Resolves at the next commit, at close, or when the signal aborts. */
  nextChange(signal?: AbortSignal): Promise<void>;
}

/** Wakes every waiter at once; waiters re-check what they wait for. */
export class ChangeNotifier {
  private readonly waiters = new Set<() => void>();

  notify(): void {
    const woken = [...this.waiters];
    this.waiters.clear();
    for (const wake of woken) wake();
  }

  next(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const wake = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        this.waiters.delete(wake);
        resolve();
      };
      this.waiters.add(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

function checkOffset(fromOffset: number): void {
  if (!(Number.isSafeInteger(fromOffset) && fromOffset >= 0)) {
    throw new RangeError(`an offset is a non-negative integer, not ${fromOffset}`);
  }
}

export async function* streamUpdates(
  source: UpdateSource,
  fromOffset: number,
  subscription: UpdateSubscription,
  faults: FaultInjector,
): AsyncGenerator<LedgerUpdate, void, undefined> {
  checkOffset(fromOffset);
  if (source.isClosed()) throw new LedgerError('closed', 'the ledger is closed');
  const { parties, signal } = subscription;
  let next = fromOffset + 1;
  while (!signal?.aborted && !source.isClosed()) {
    const update = source.updateAt(next);
    if (!update) {
      await source.nextChange(signal);
      continue;
    }
    next += 1;
    if (!concernsParties(update, parties)) continue;
    await faults.delay();
    if (signal?.aborted || source.isClosed()) return;
    yield update;
    if (faults.duplicatesDelivery()) yield update;
    if (faults.dropsStream()) {
      throw new LedgerError(
        'stream_dropped',
        `the update stream dropped after offset ${update.offset}`,
      );
    }
  }
}
