import { describe, expect, it } from 'vitest';
import { CompletionIndex, successfulCompletions } from '../src/canton/completions.js';
import type { CompletionStreamResponse } from '../src/canton/wire/index.js';

function completion(
  commandId: string,
  offset: number,
  options: { failed?: boolean; updateId?: string } = {},
): CompletionStreamResponse {
  return {
    completionResponse: {
      Completion: {
        value: {
          commandId,
          userId: 'poolparty',
          actAs: ['alice::1'],
          offset,
          synchronizerTime: {
            synchronizerId: 's',
            recordTime: `2030-01-01T00:00:${String(offset).padStart(2, '0')}Z`,
          },
          ...(options.failed
            ? { status: { code: 9, message: 'refused' } }
            : { updateId: options.updateId ?? `u-${offset}`, status: { code: 0, message: '' } }),
        },
      },
    },
  } as CompletionStreamResponse;
}

function checkpoint(offset: number): CompletionStreamResponse {
  return {
    completionResponse: { OffsetCheckpoint: { value: { offset, synchronizerTimes: [] } } },
  } as CompletionStreamResponse;
}

describe('completions', () => {
  it('keep the successful ones and the highest offset covered', () => {
    const { completions, lastOffset } = successfulCompletions([
      completion('a', 3),
      completion('b', 5, { failed: true }),
      checkpoint(8),
      completion('a', 6),
    ]);
    expect(completions.map((c) => [c.commandId, c.offset, c.updateId])).toEqual([
      ['a', 3, 'u-3'],
      ['a', 6, 'u-6'],
    ]);
    expect(completions[0]?.recordTime).toEqual(new Date('2030-01-01T00:00:03Z'));
    expect(lastOffset).toBe(8);
    expect(successfulCompletions([]).lastOffset).toBeNull();
  });

  it('are read from the begin once, then only what is new; another party set reads again', async () => {
    const stream = [completion('a', 1), completion('b', 2), completion('c', 3)];
    const reads: [number, string[]][] = [];
    // The participant answers at most two items a page, whatever the client asks for.
    const index = new CompletionIndex(async (begin, parties) => {
      reads.push([begin, [...parties]]);
      return stream
        .filter(
          (item) =>
            (item.completionResponse as { Completion: { value: { offset: number } } }).Completion
              .value.offset > begin,
        )
        .slice(0, 2);
    });

    expect((await index.lookup('c', ['alice::1']))?.updateId).toBe('u-3');
    // Pages until one covers nothing new.
    expect(reads).toEqual([
      [0, ['alice::1']],
      [2, ['alice::1']],
      [3, ['alice::1']],
    ]);
    expect(await index.lookup('z', ['alice::1'])).toBeNull();
    expect(reads.slice(3)).toEqual([[3, ['alice::1']]]);

    stream.push(completion('b', 4, { updateId: 'later' }));
    expect((await index.lookup('b', ['alice::1']))?.updateId).toBe('later');

    const before = reads.length;
    expect((await index.lookup('a', ['bob::2', 'alice::1']))?.offset).toBe(1);
    expect(reads[before]).toEqual([0, ['bob::2', 'alice::1']]);
    expect(await index.lookup('a', [])).toBeNull();
  });
});
