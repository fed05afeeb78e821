/**
 * The network terms a decision prices with (the open round's Amulet price, the traffic
 * parameters) are read once for a second of service-clock time and shared within it.
 */
import { Amount } from '@poolparty/core';
import type { MiningRound, TrafficParameters } from '@poolparty/ledger';
import { describe, expect, it } from 'vitest';
import { NETWORK_TERMS_REUSE_MS, readPriceBook } from '../src/prices.js';

/** A ledger answering the terms, counting the reads; its price is what `price` says then. */
function termsLedger() {
  const counts = { rounds: 0, traffic: 0 };
  let price = '0.15';
  let failNext = false;
  const ledger = {
    async openMiningRound(): Promise<MiningRound> {
      counts.rounds += 1;
      if (failNext) {
        failNext = false;
        throw new Error('the scan proxy is away');
      }
      return { round: 1, amuletPriceUsd: Amount.parse(price), opensAt: new Date(0) };
    },
    async trafficParameters(): Promise<TrafficParameters> {
      counts.traffic += 1;
      return { extraTrafficPriceUsdPerMb: Amount.parse('60'), transferBytes: 20_000 };
    },
  };
  return {
    ledger,
    counts,
    setPrice: (next: string) => {
      price = next;
    },
    failNextRead: () => {
      failNext = true;
    },
  };
}

const at = (ms: number) => new Date(1_800_000_000_000 + ms);

describe('network terms of the price book', () => {
  it('are read once for decisions within a second of service time, and again after', async () => {
    const { ledger, counts, setPrice } = termsLedger();
    const first = await readPriceBook(ledger, [], at(0));
    setPrice('0.2');
    const within = await readPriceBook(ledger, [], at(NETWORK_TERMS_REUSE_MS - 1));
    expect(counts).toEqual({ rounds: 1, traffic: 1 });
    expect(within.amuletPriceUsd).toEqual(first.amuletPriceUsd);

    const after = await readPriceBook(ledger, [], at(NETWORK_TERMS_REUSE_MS));
    expect(counts).toEqual({ rounds: 2, traffic: 2 });
    expect(after.amuletPriceUsd.toString()).toBe('0.2');
  });

  it('are read again when the clock went back, and shared by decisions asking together', async () => {
    const { ledger, counts } = termsLedger();
    await Promise.all([readPriceBook(ledger, [], at(5_000)), readPriceBook(ledger, [], at(5_000))]);
    expect(counts.rounds).toBe(1);
    await readPriceBook(ledger, [], at(4_000));
    expect(counts.rounds).toBe(2);
  });

  it('are not kept when a read failed: the next decision asks again', async () => {
    const { ledger, counts, failNextRead } = termsLedger();
    failNextRead();
    await expect(readPriceBook(ledger, [], at(0))).rejects.toThrow('away');
    const book = await readPriceBook(ledger, [], at(1));
    expect(counts.rounds).toBe(2);
    expect(book.amuletPriceUsd.toString()).toBe('0.15');
  });
});
