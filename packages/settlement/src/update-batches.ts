/**
 * Groups a stream's items into batches of what has already arrived. The stream is read ahead
 * into a buffer while the consumer works on the previous batch; each batch is everything buffered
 * (up to `max`), and only when nothing is buffered does the consumer wait, for one item. A lone
 * item is therefore handed over the moment it arrives, never held back to fill a batch, while a
 * backlog (a burst of deposits, a restart behind the ledger's end) goes in large steps.
 *
 * Reading ahead stops once `max` items are buffered, so a slow consumer bounds the buffer. A
 * failure of the stream is raised after the items that arrived before it. On early exit the read
 * under way is left to the stream's signal, which the caller aborts: an async generator cannot
 * be closed while one of its reads is pending.
 */
export async function* batchesOf<T>(
  source: AsyncIterable<T>,
  max: number,
): AsyncGenerator<T[], void, undefined> {
  if (!Number.isSafeInteger(max) || max < 1) throw new RangeError(`a batch holds 1.., not ${max}`);
  const iterator = source[Symbol.asyncIterator]();
  const buffer: T[] = [];
  let ended = false;
  const end: { failure: { readonly error: unknown } | null } = { failure: null };
  let stopped = false;
  const wake: {
    /** The consumer waiting for an item (or the end). */
    consumer: (() => void) | null;
    /** The reader waiting for room in the buffer. */
    reader: (() => void) | null;
  } = { consumer: null, reader: null };
  const wakeConsumer = () => {
    wake.consumer?.();
    wake.consumer = null;
  };
  const wakeReader = () => {
    wake.reader?.();
    wake.reader = null;
  };
  const readAhead = async () => {
    try {
      while (!stopped) {
        if (buffer.length >= max) {
          await new Promise<void>((resolve) => {
            wake.reader = resolve;
          });
          continue;
        }
        const next = await iterator.next();
        if (next.done) break;
        buffer.push(next.value);
        wakeConsumer();
      }
    } catch (error) {
      end.failure = { error };
    }
    ended = true;
    wakeConsumer();
  };
  void readAhead();

  try {
    for (;;) {
      if (buffer.length === 0) {
        if (ended) break;
        await new Promise<void>((resolve) => {
          wake.consumer = resolve;
        });
        continue;
      }
      const batch = buffer.splice(0, max);
      wakeReader();
      yield batch;
    }
    if (end.failure !== null) throw end.failure.error;
  } finally {
    stopped = true;
    wakeReader();
    // A read may be pending: closing the generator then waits for it, so it is not awaited.
    if (!ended) void iterator.return?.()?.catch(() => {});
  }
}
