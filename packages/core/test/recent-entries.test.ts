import { describe, expect, it } from 'vitest';
import { keepRecent } from '../src/recent-entries.js';

describe('keepRecent', () => {
  it('keeps at most `max` entries, dropping the least recently kept', () => {
    const map = new Map<string, number>();
    keepRecent(map, 'a', 1, 2);
    keepRecent(map, 'b', 2, 2);
    expect(keepRecent(map, 'a', 3, 2)).toBeUndefined(); // a is now the most recent
    // The entry dropped is answered, for what must be closed with it.
    expect(keepRecent(map, 'c', 4, 2)).toBe(2);
    expect([...map]).toEqual([
      ['a', 3],
      ['c', 4],
    ]);
  });
});
