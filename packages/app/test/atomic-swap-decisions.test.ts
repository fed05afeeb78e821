/**
 * The pure decisions behind the card's atomic swaps: which way a swap goes and the line saying
 * why it goes by deposit, the time left to sign on the service's clock, what the review says of
 * the legs, and each ending's words with the way on.
 */
import type { AtomicSwap } from '@poolparty/sdk/atomic';
import { describe, expect, it } from 'vitest';
import { atomicOutcome, legLines, signingDeadline, timeLeft } from '../src/atomic-swap-model.js';
import { DEPOSIT_ONLY_SERVICE, swapPath, TRANSFER_ONLY_WALLET } from '../src/swap-path.js';
import { atomicStateTitle, toastText } from '../src/swap-state-titles.js';

describe('swapPath', () => {
  it('swaps atomically with a wallet that signs hashes on a service that prepares them', () => {
    expect(swapPath({ walletSignsHashes: true, serviceDepositOnly: false })).toEqual({
      kind: 'atomic',
    });
  });

  it('goes by deposit for a wallet that can only transfer, saying so', () => {
    expect(swapPath({ walletSignsHashes: false, serviceDepositOnly: false })).toEqual({
      kind: 'deposit',
      note: TRANSFER_ONLY_WALLET,
    });
  });

  it('goes by deposit once the service answered that it prepares no atomic swaps', () => {
    for (const walletSignsHashes of [true, false]) {
      expect(swapPath({ walletSignsHashes, serviceDepositOnly: true })).toEqual({
        kind: 'deposit',
        note: DEPOSIT_ONLY_SERVICE,
      });
    }
  });

  it('says nothing before a wallet is connected', () => {
    expect(swapPath({ walletSignsHashes: null, serviceDepositOnly: false })).toEqual({
      kind: 'deposit',
      note: null,
    });
  });
});

describe('signingDeadline and timeLeft', () => {
  /** A swap prepared at 12:00:00 on a service clock hours ahead of the browser's, for 60 s. */
  const prepared = { updatedAt: '2030-01-01T12:00:00.000Z', expiresAt: '2030-01-01T12:01:00.000Z' };

  it('counts the window the service left from when its answer arrived, whatever the browser date', () => {
    const arrived = 5_000;
    const deadline = signingDeadline(prepared, arrived);
    expect(timeLeft(deadline, arrived)).toEqual({ seconds: 60, text: '1:00' });
    expect(timeLeft(deadline, arrived + 17_500)).toEqual({ seconds: 43, text: '0:43' });
    expect(timeLeft(deadline, arrived + 59_001)).toEqual({ seconds: 1, text: '0:01' });
    expect(timeLeft(deadline, arrived + 60_000)).toEqual({ seconds: 0, text: '0:00' });
    expect(timeLeft(deadline, arrived + 90_000).seconds).toBe(0);
  });

  it('counts a swap prepared again from its new write, not its first', () => {
    const again = { updatedAt: '2030-01-01T12:00:40.000Z', expiresAt: '2030-01-01T12:01:40.000Z' };
    expect(timeLeft(signingDeadline(again, 0), 0).seconds).toBe(60);
  });

  it('leaves no time when the service already passed the expiry, or the times cannot be read', () => {
    const late = { updatedAt: '2030-01-01T12:02:00.000Z', expiresAt: '2030-01-01T12:01:00.000Z' };
    expect(timeLeft(signingDeadline(late, 100), 100).seconds).toBe(0);
    expect(timeLeft(signingDeadline({ updatedAt: 'x', expiresAt: 'y' }, 100), 100).seconds).toBe(0);
  });

  it('writes minutes of a long window', () => {
    expect(timeLeft(600_000, 0).text).toBe('10:00');
  });
});

describe('legLines', () => {
  it('names the exact input to the pool and the signed output, the quote less the slippage limit', () => {
    const lines = legLines(
      {
        input: { amount: '100.0000000000', token: 'Amulet' },
        output: { amount: '0.0012345000', token: 'CBTC' },
      },
      '0.00124697',
      100,
    );
    expect(lines.send).toBe('You send exactly 100 Amulet to the pool');
    expect(lines.receive).toBe('You receive 0.0012345 CBTC');
    expect(lines.receiveDetail).toContain(
      "The quote's 0.00124697 CBTC less your 1 % slippage limit",
    );
  });
});

function ended(status: AtomicSwap['status'], facts: Partial<AtomicSwap> = {}) {
  return {
    status,
    excess: null,
    failure: null,
    output: {
      sender: 'pool',
      receiver: 'trader',
      token: 'CBTC',
      tokenAdmin: 'admin',
      amount: '0.0012345',
    },
    ...facts,
  };
}

describe('atomicOutcome', () => {
  it('says a completed swap settled both legs, and the excess that stays with the LPs', () => {
    const done = atomicOutcome(ended('completed', { excess: '0.0000012' }));
    expect(done).toMatchObject({ title: 'Completed', tone: 'good', next: null });
    expect(done.excess).toBe(
      "The pool's curve paid 0.0000012 CBTC more, which stays with the LPs.",
    );
  });

  it('leaves out an excess of nothing', () => {
    expect(atomicOutcome(ended('completed', { excess: '0.0000000000' })).excess).toBeNull();
    expect(atomicOutcome(ended('completed')).excess).toBeNull();
  });

  it('offers a new price after the price moved, and preparing again after expiry', () => {
    const moved = atomicOutcome(ended('price_moved'));
    expect(moved.next).toEqual({ kind: 'prepare', label: 'Get a new price' });
    expect(moved.detail).toContain('nothing left your party');
    const expired = atomicOutcome(ended('expired'));
    expect(expired.next).toEqual({ kind: 'prepare', label: 'Prepare again' });
    expect(expired.tone).toBe('bad');
  });

  it("gives a refusal's reason once, with nothing moved", () => {
    const refused = atomicOutcome(
      ended('rejected', {
        failure: { code: 'pool_paused', message: 'Pool amulet-cbtc is paused.' },
      }),
    );
    expect(refused.detail).toBe('Pool amulet-cbtc is paused. Nothing left your party.');
    expect(refused.next).toBeNull();
  });

  it('names every state for the lists and toasts', () => {
    expect(toastText(atomicStateTitle('price_moved'), '100', 'Amulet', 'CBTC')).toBe(
      'Swap not executed: the price moved: 100 Amulet → CBTC',
    );
    expect(toastText(atomicStateTitle('completed'), '1000.5', 'Amulet', 'CBTC')).toBe(
      'Swap completed: 1,000.5 Amulet → CBTC',
    );
  });
});
