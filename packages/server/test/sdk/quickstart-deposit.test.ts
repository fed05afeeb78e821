/**
 * The complete swap example (`examples/quickstart.ts`) when its deposit fails: run as an
 * integrator runs it, for a party with no Amulet, it cancels the intent it made and says so, so
 * the party's next swap is not refused with `active_intent_exists`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExampleAs } from './support/example-run.js';
import { type Live, startLive } from './support/live.js';

/** One example process: tsx compiles it and the SDK's sources, then a handful of requests. */
const EXAMPLE_TIMEOUT_MS = 90_000;

let live: Live;

beforeAll(async () => {
  live = await startLive();
});

afterAll(() => live?.close());

describe('the quickstart example, when the deposit fails', () => {
  it(
    'cancels its intent and says why, so the next swap of the party is taken',
    async () => {
      const broke = await live.newParty('broke', '0');
      const run = await runExampleAs('quickstart', {
        url: live.t.url,
        apiKey: live.t.apiKey,
        party: broke,
        timeoutMs: EXAMPLE_TIMEOUT_MS,
      });
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr.trim()).toMatch(
        /^quickstart: failed — no deposit sent, intent \S+ cancelled: .*holds 0 unlocked Amulet, needs 100/,
      );
      const intentId = /intent (\S+) cancelled/.exec(run.stderr)?.[1];

      const pp = live.client({ walletToken: await live.walletToken(broke) });
      const status = await pp.swaps.getStatus(intentId ?? '');
      expect(status.status).toBe('cancelled');
      const next = await pp.swaps.create({
        fromToken: 'Amulet',
        toToken: 'USDCx',
        amount: '100',
        poolId: live.canonical.poolId,
      });
      expect(next.status).toBe('pending');
    },
    EXAMPLE_TIMEOUT_MS,
  );
});
