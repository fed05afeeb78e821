/**
 * Batches of what a stream has already delivered: a backlog goes in bounded batches, a lone item
 * is handed over alone at once, nothing is lost or repeated, and a failure follows the items
 * delivered before it.
 */
import { describe, expect, it } from 'vitest';
import { batchesOf } from '../src/update-batches.js';

/** A stream fed by hand: `push` delivers an item, `fail` ends it with an error, `end` finishes. */
function feed<T>() {
  const items: T[] = [];
  let failure: unknown = null;
  let ended = false;
  let wake: (() => void) | null = null;
  const notify = () => {
    wake?.();
    wake = null;
  };
  async function* stream(): AsyncGenerator<T> {
    for (;;) {
      const item = items.shift();
      if (item !== undefined) {
        yield item;
        continue;
      }
      if (failure !== null) throw failure;
      if (ended) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  }
  return {
    stream: stream(),
    push(...more: T[]) {
      items.push(...more);
      notify();
    },
    fail(error: unknown) {
      failure = error;
      notify();
    },
    end() {
      ended = true;
      notify();
    },
  };
}

/** Lets the stream deliver what it can, as a store transaction's I/O would meanwhile. */
const meanwhile = () => new Promise((resolve) => setImmediate(resolve));

describe('batches of delivered updates', () => {
  it('takes what arrived while the previous batch was applied, at most the bound, each once', async () => {
    const source = feed<number>();
    source.push(...Array.from({ length: 10 }, (_, i) => i));
    source.end();
    const batches: number[][] = [];
    for await (const batch of batchesOf(source.stream, 4)) {
      batches.push(batch);
      await meanwhile();
    }
    expect(batches).toEqual([[0], [1, 2, 3, 4], [5, 6, 7, 8], [9]]);
  });

  it('hands over a lone item without waiting for more, then what came after it', async () => {
    const source = feed<string>();
    const batches = batchesOf(source.stream, 256);
    source.push('first');
    expect((await batches.next()).value).toEqual(['first']);
    source.push('second', 'third');
    await meanwhile();
    expect((await batches.next()).value).toEqual(['second', 'third']);
    source.end();
    expect((await batches.next()).done).toBe(true);
  });

  it('hands over what arrived before a failure, then the failure', async () => {
    const source = feed<number>();
    source.push(1, 2, 3);
    source.fail(new Error('stream dropped'));
    const items: number[] = [];
    const read = async () => {
      for await (const batch of batchesOf(source.stream, 256)) {
        items.push(...batch);
        await meanwhile();
      }
    };
    await expect(read()).rejects.toThrow('stream dropped');
    expect(items).toEqual([1, 2, 3]);
  });

  it('refuses a bound below one', async () => {
    const batches = batchesOf(feed<number>().stream, 0);
    await expect(batches.next()).rejects.toThrow(RangeError);
  });
});
