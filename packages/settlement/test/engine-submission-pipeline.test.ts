/**
 * Submissions go on beside the work loop: while one payout's submission waits on the ledger, the
 * engine still executes the swaps ingested meanwhile, and both pay out once the ledger answers.
 */
import { type LedgerPort, REASON_META_KEY } from '@poolparty/ledger';
import { describe, expect, it } from 'vitest';
import { type EngineHarness, useEngineWorld } from '../testing/engine.js';
import { ledgerWith } from '../testing/faults.js';

const world = useEngineWorld();

/** The harness's ledger, holding the submission of the transfer with `reason` until released. */
function holdingBack(h: EngineHarness, reason: () => string | null) {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held = false;
  const ledger: LedgerPort = ledgerWith(h.ledger, {
    submitTransfer: async (command) => {
      if (command.meta?.[REASON_META_KEY] === reason()) {
        held = true;
        await released;
      }
      return h.ledger.submitTransfer(command);
    },
  });
  return { ledger, release, isHeld: () => held };
}

describe('submissions beside the work loop', () => {
  it("executes a swap ingested while the last payout's submission waits on the ledger", async () => {
    const h = await world.harness();
    const { alice, amulet, usdcx } = h;
    let firstPayout: string | null = null;
    const ledger = holdingBack(h, () => firstPayout);
    await h.startEngine({ ledger: ledger.ledger });

    const first = await h.createIntent(alice, amulet, '100');
    firstPayout = `payout:${first.intentId}`;
    const second = await (async () => {
      try {
        await h.deposit(alice, amulet, '100', { reference: first.depositReference });
        await h.waitForStatus(first.intentId, 'sending_output');
        await expect.poll(ledger.isHeld).toBe(true);

        const bob = await h.newParty('bob', [amulet, usdcx], [[amulet, '1000']]);
        const intent = await h.createIntent(bob, amulet, '100');
        await h.deposit(bob, amulet, '100', { reference: intent.depositReference });
        // Executed, and its payout sent, while the first payout is still held back.
        await h.waitForStatus(intent.intentId, 'completed');
        expect((await h.intent(first.intentId)).status).toBe('sending_output');
        return intent;
      } finally {
        // Stopping the engine waits for the held submission: it is let go whatever happened.
        ledger.release();
      }
    })();

    await h.waitForStatus(first.intentId, 'completed');
    expect(await h.transfersWithReason(`payout:${first.intentId}`)).toBe(1);
    expect(await h.transfersWithReason(`payout:${second.intentId}`)).toBe(1);
    await h.booksMatchLedger();
  });
});
