/** A first start's progress: one line rewritten on a terminal, plain lines anywhere else. */
import { describe, expect, it } from 'vitest';
import { progressLine } from '../src/progress-line.js';

function capture(isTTY: boolean) {
  let text = '';
  return { isTTY, write: (chunk: string) => (text += chunk), text: () => text };
}

describe('progressLine', () => {
  it('writes one plain line per step when the output is not a terminal', () => {
    const out = capture(false);
    const progress = progressLine(out);
    progress.report('seeding devnet: pools 1/3');
    progress.report('seeding devnet: pools 2/3');
    progress.end();
    expect(out.text()).toBe('seeding devnet: pools 1/3\nseeding devnet: pools 2/3\n');
  });

  it('rewrites one line in place on a terminal and leaves the last step on it', () => {
    const out = capture(true);
    const progress = progressLine(out);
    progress.report('seeding devnet: pools 1/3');
    progress.report('seeding devnet: pools 2/3');
    progress.end();
    expect(out.text()).toBe(
      '\r\x1b[2Kseeding devnet: pools 1/3\r\x1b[2Kseeding devnet: pools 2/3\n',
    );
    expect(out.text().split('\n')).toHaveLength(2);
  });

  it('writes nothing at the end of a start that had no step to show', () => {
    const out = capture(true);
    progressLine(out).end();
    expect(out.text()).toBe('');
  });
});
