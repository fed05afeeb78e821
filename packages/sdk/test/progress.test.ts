/** Which events an observed status releases: each once, in lifecycle order, none invented. */
import { describe, expect, it } from 'vitest';
import type { SwapState } from '../src/index.js';
import { advance, INITIAL_PROGRESS, type Progress } from '../src/swap/progress.js';
import { statusAfter } from './support/statuses.js';
import { TO_COMPLETED } from './support/test-client.js';

function run(observations: SwapState[][]): string[] {
  let progress: Progress = INITIAL_PROGRESS;
  const fired: string[] = [];
  for (const path of observations) {
    const step = advance(progress, statusAfter(path));
    progress = step.progress;
    fired.push(...step.events.map((event) => event.name));
  }
  return fired;
}

const FULL = TO_COMPLETED;

describe('advance', () => {
  it('fires each state once as it is observed', () => {
    const observations = FULL.map((_, index) => FULL.slice(0, index + 1));
    expect(run(observations)).toEqual(FULL);
  });

  it('ignores repeats and stale observations', () => {
    expect(run([['matched'], ['matched'], ['matched', 'deposit_received'], ['matched']])).toEqual([
      'matched',
      'deposit_received',
    ]);
  });

  it('fires skipped states from history, in lifecycle order, before the observed one', () => {
    expect(run([[], FULL])).toEqual(FULL);
    expect(run([['matched'], FULL])).toEqual(FULL);
  });

  it('does not invent states the history does not show', () => {
    const status = statusAfter(['matched', 'processing', 'completed']);
    const step = advance(INITIAL_PROGRESS, status);
    expect(step.events.map((event) => event.name)).toEqual(['matched', 'processing', 'completed']);
    expect(step.events.map((event) => event.at)).toEqual(status.history.slice(1).map((h) => h.at));
  });

  it('fires one terminal state and nothing after it', () => {
    expect(run([['cancelled'], ['matched'], ['matched', 'completed']])).toEqual(['cancelled']);
  });

  it('ignores a state it does not know', () => {
    expect(run([['matched', 'teleported' as SwapState]])).toEqual([]);
  });
});
