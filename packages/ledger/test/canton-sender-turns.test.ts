import { describe, expect, it } from 'vitest';
import { SENDER_TURN_WAITERS_MAX, SenderTurns } from '../src/canton/sender-turns.js';
import { LedgerError } from '../src/port.js';

/** A task that ends when told to, recording when it started. */
function gate(log: string[], name: string) {
  let open: () => void = () => undefined;
  const ended = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    task: async () => {
      log.push(`start ${name}`);
      await ended;
      log.push(`end ${name}`);
      return name;
    },
    open: () => open(),
  };
}

describe('transfers of one sender taking turns', () => {
  it('runs one sender’s transfers one after another, in order, and another sender’s beside them', async () => {
    const turns = new SenderTurns();
    const log: string[] = [];
    const [a1, a2, b1] = [gate(log, 'a1'), gate(log, 'a2'), gate(log, 'b1')];
    const runs = [turns.take('a', a1.task), turns.take('a', a2.task), turns.take('b', b1.task)];
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(log).toEqual(['start a1', 'start b1']);
    a2.open();
    b1.open();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(log).toEqual(['start a1', 'start b1', 'end b1']);
    a1.open();
    expect(await Promise.all(runs)).toEqual(['a1', 'a2', 'b1']);
    expect(log.indexOf('start a2')).toBeGreaterThan(log.indexOf('end a1'));
  });

  it('gives the next its turn after a transfer that failed, and answers the failure to its caller', async () => {
    const turns = new SenderTurns();
    const failed = turns.take('a', async () => {
      throw new Error('refused');
    });
    const next = turns.take('a', async () => 'sent');
    await expect(failed).rejects.toThrow('refused');
    expect(await next).toBe('sent');
  });

  it('refuses a transfer past the waiting limit, to be retried, and takes one again once they ran', async () => {
    const turns = new SenderTurns();
    const log: string[] = [];
    const first = gate(log, 'first');
    const waiting = [turns.take('a', first.task)];
    for (let i = 1; i < SENDER_TURN_WAITERS_MAX; i += 1) {
      waiting.push(turns.take('a', async () => 'later'));
    }
    await expect(turns.take('a', async () => 'one too many')).rejects.toBeInstanceOf(LedgerError);
    first.open();
    await Promise.all(waiting);
    expect(await turns.take('a', async () => 'again')).toBe('again');
  });
});
