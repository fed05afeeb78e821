/**
 * Signed atomic swaps waiting, in this process, for their pool's lock, so that the one request
 * that takes it executes the others' swaps with its own (docs/spec/atomic-swaps.md#execution-batches).
 * The first request for an idle pool becomes its leader: it runs batches, each chosen from the
 * queue by `pick`, until the queue is empty, and answers every request its batch carried. Requests
 * arriving meanwhile join the queue. Other processes' requests meet this one at the pool's lock in
 * the store, as before.
 */

/** What a batch answers for each of its swaps, in its order: the result, or what went wrong. */
export type BatchOutcome<R> = { readonly ok: R } | { readonly error: unknown };

/** Batches a leader runs before it lets the event loop turn; a long queue then goes on later. */
const BATCHES_PER_TURN = 8;

interface Waiting<T, R> {
  readonly item: T;
  readonly answer: (outcome: BatchOutcome<R>) => void;
}

export class PoolExecutionQueue<T, R> {
  readonly #byPool = new Map<string, Waiting<T, R>[]>();

  constructor(
    private readonly pick: (queued: readonly T[]) => { readonly batch: readonly T[] },
    private readonly run: (batch: readonly T[]) => Promise<readonly BatchOutcome<R>[]>,
  ) {}

  /** Queues the item for its pool; resolves with its outcome once a batch carried it. */
  submit(poolId: string, item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const answer = (outcome: BatchOutcome<R>) =>
        'ok' in outcome ? resolve(outcome.ok) : reject(outcome.error);
      const queue = this.#byPool.get(poolId);
      if (queue !== undefined) {
        queue.push({ item, answer });
        return;
      }
      this.#byPool.set(poolId, [{ item, answer }]);
      void this.#lead(poolId);
    });
  }

  /** How many swaps wait for a pool: its batch's members included, until they are answered. */
  waiting(poolId: string): number {
    return this.#byPool.get(poolId)?.length ?? 0;
  }

  async #lead(poolId: string): Promise<void> {
    for (let turn = 0; turn < BATCHES_PER_TURN; turn += 1) {
      const queue = this.#byPool.get(poolId) ?? [];
      if (queue.length === 0) {
        this.#byPool.delete(poolId);
        return;
      }
      const chosen = new Set(this.pick(queue.map((waiting) => waiting.item)).batch);
      const members = queue.filter((waiting) => chosen.has(waiting.item));
      const outcomes = await this.run(members.map((waiting) => waiting.item)).catch(
        (error: unknown) => members.map(() => ({ error })),
      );
      members.forEach((waiting, index) => {
        waiting.answer(outcomes[index] ?? { error: new Error('a batch answered too few') });
      });
      // The members leave the queue only once answered; what arrived meanwhile stays in it.
      const left = (this.#byPool.get(poolId) ?? []).filter((waiting) => !members.includes(waiting));
      this.#byPool.set(poolId, left);
    }
    setImmediate(() => void this.#lead(poolId));
  }
}
