/**
 * The ledger port conformance suite on the `canton` adapter talking to the devnet ledger server
 * over real HTTP and WebSocket, every request, answer and stream frame checked against Canton's
 * documents by the wire proxy in between; then the network's faults, injected by the proxy.
 */
import { type LedgerUpdate, REASON_META_KEY } from '@poolparty/ledger';
import {
  allocationConformanceSuite,
  amount,
  balanceOf,
  expectRefused,
  ledgerConformanceSuite,
  publicKeyFor,
  readToEnd,
  refusal,
  SAFETY_NET_MS,
} from '@poolparty/ledger/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { AUDIENCE } from '../support/localnet.js';
import {
  type CantonHarnessLedger,
  type CantonWorld,
  openCantonHarnessLedger,
  startCantonWorld,
} from './support/canton-harness.js';
import { assertNoWireMismatches } from './support/wire-proxy.js';

/** Worlds opened by the current test; closed, and their traffic judged, after it. */
const worlds: CantonWorld[] = [];

afterEach(async () => {
  const opened = worlds.splice(0);
  try {
    for (const world of opened) assertNoWireMismatches(world.proxy);
  } finally {
    await Promise.all(opened.map((world) => world.close()));
  }
});

async function openWorld(...args: Parameters<typeof startCantonWorld>): Promise<CantonWorld> {
  const world = await startCantonWorld(...args);
  worlds.push(world);
  return world;
}

ledgerConformanceSuite({
  name: 'canton adapter -> wire proxy -> devnet ledger server',
  open: async () => openCantonHarnessLedger(await openWorld()),
  // A restart of the service's process: a new adapter, the same participant.
  reopen: (previous) => openCantonHarnessLedger((previous as CantonHarnessLedger).world),
  faults: true,
  soleWriter: true,
  addedKeysVisible: false,
  // The harness holds the key of every external party it creates, and signs for it.
  actsForExternalParties: true,
});

allocationConformanceSuite({
  name: 'canton adapter -> wire proxy -> devnet ledger server',
  open: async () => openCantonHarnessLedger(await openWorld()),
  soleWriter: true,
});

// Traders with keys of their own: every allocation is signed by its sender's key, and a
// settlement by both traders' keys in one interactive submission beside the venue's rights.
allocationConformanceSuite({
  name: 'canton adapter -> wire proxy -> devnet ledger server',
  open: async () => openCantonHarnessLedger(await openWorld()),
  soleWriter: true,
  externalTraders: true,
});

type SenderKind = 'external' | 'internal';
const SENDER_KINDS: readonly SenderKind[] = ['external', 'internal'];
/** The request that carries a submission and waits for its outcome, per sender kind. */
const SUBMISSION: Record<SenderKind, RegExp> = {
  external: /^\/v2\/interactive-submission\/execute/,
  internal: /^\/v2\/commands\/submit-and-wait/,
};

/** A short submit timeout, so a held completion outlasts it without a long test. */
const SUBMIT_TIMEOUT_MS = 3_000;

/**
 * Reads the update stream from `from` to `end` as a reader that resumes from its checkpoint does,
 * at most `attemptsMax` times: every update seen (by offset, so a repeat counts once) and the code
 * of every error that ended a stream.
 */
async function resumeToEnd(
  ledger: CantonHarnessLedger,
  range: { readonly from: number; readonly end: number },
  attemptsMax: number,
): Promise<{ readonly seen: LedgerUpdate[]; readonly dropCodes: (string | undefined)[] }> {
  const seen = new Map<number, LedgerUpdate>();
  const drops: unknown[] = [];
  let checkpoint = range.from;
  for (let attempt = 0; checkpoint < range.end && attempt < attemptsMax; attempt++) {
    try {
      for await (const update of ledger.updates(checkpoint, {
        signal: AbortSignal.timeout(SAFETY_NET_MS),
      })) {
        seen.set(update.offset, update);
        checkpoint = update.offset;
        if (checkpoint >= range.end) break;
      }
    } catch (error) {
      drops.push(error);
    }
  }
  const dropCodes = drops.map((e) => (e as { code?: string }).code);
  return { seen: [...seen.values()], dropCodes };
}

describe('wire faults between the canton adapter and the participant', () => {
  /**
   * Alice holds 100 USD; Bob pre-approves USD. An external Alice submits through prepare and
   * execute (signed), an internal one through submit-and-wait.
   */
  async function funded(
    sender: SenderKind = 'external',
    adapter: Parameters<typeof startCantonWorld>[0] = {},
  ) {
    const world = await openWorld(adapter);
    const ledger = await openCantonHarnessLedger(world);
    const hint = (label: string) => `${label}-${Math.random().toString(36).slice(2, 8)}`;
    const admin = (await ledger.createParty({ hint: hint('registry') })).partyId;
    const usd = { admin, id: 'USD' };
    await ledger.createInstrument(usd);
    const key = sender === 'external' ? { publicKey: publicKeyFor(3) } : {};
    const alice = (await ledger.createParty({ hint: hint('alice'), ...key })).partyId;
    const bob = (await ledger.createParty({ hint: hint('bob'), preapprovals: [usd] })).partyId;
    await ledger.mint({ owner: alice, instrument: usd, amount: amount('100') });
    let sequence = 0;
    const pay = (commandId = `pay-${++sequence}`, wire = '1') =>
      ledger.submitTransfer({
        commandId,
        sender: alice,
        receiver: bob,
        instrument: usd,
        amount: amount(wire),
        meta: { [REASON_META_KEY]: commandId },
      });
    return { world, ledger, usd, alice, bob, pay };
  }

  it('a socket dropped mid-stream: the reader resumes from its checkpoint and sees every update once', async () => {
    const { world, ledger, pay } = await funded();
    const before = await ledger.ledgerEnd();
    for (let i = 0; i < 4; i++) await pay();
    const expected = await readToEnd(ledger, before);
    expect(expected).toHaveLength(4);
    const end = await ledger.ledgerEnd();

    world.proxy.dropNextStreamAfter(2);
    const { seen, dropCodes } = await resumeToEnd(ledger, { from: before, end }, 5);
    expect(dropCodes).toEqual(['stream_dropped']);
    expect(seen).toEqual(expected);
    expect(
      world.proxy.streams.filter((s) => s.path.startsWith('/v2/updates')).map((s) => s.dropped),
    ).toContain(true);
  });

  it('a frame delivered twice: deduplicating by offset sees each update once', async () => {
    const { world, ledger, pay } = await funded();
    const before = await ledger.ledgerEnd();
    for (let i = 0; i < 3; i++) await pay();
    const expected = await readToEnd(ledger, before);
    world.proxy.duplicateServerFrames(1, (message) => {
      const tx = (message as { update?: { Transaction?: { value: { offset: number } } } }).update
        ?.Transaction;
      return tx?.value.offset === expected[1]?.offset;
    });
    const deliveries: LedgerUpdate[] = [];
    for await (const update of ledger.updates(before, {
      signal: AbortSignal.timeout(SAFETY_NET_MS),
    })) {
      deliveries.push(update);
      if (deliveries.length === expected.length + 1) break;
    }
    expect(deliveries.map((u) => u.offset)).toEqual([
      expected[0]?.offset,
      expected[1]?.offset,
      expected[1]?.offset,
      expected[2]?.offset,
    ]);
    expect([...new Map(deliveries.map((u) => [u.offset, u])).values()]).toEqual(expected);
  });

  it.each(SENDER_KINDS)(
    'a completion held past the submit timeout (%s sender): timeout, and lookupCommand then finds it',
    async (sender) => {
      const { world, ledger, pay, bob, usd } = await funded(sender, {
        adapter: { submitTimeoutMs: SUBMIT_TIMEOUT_MS },
      });
      const before = await ledger.ledgerEnd();
      // The submission commits; its answer comes too late.
      world.proxy.delayAnswers(
        { method: 'POST', path: SUBMISSION[sender] },
        SUBMIT_TIMEOUT_MS * 10,
      );
      const timedOut = await expectRefused(pay('held', '7'), 'timeout');
      expect(timedOut.retryable).toBe(true);
      // The participant did answer (it committed); only the answer never reached the adapter.
      const held = world.proxy.exchanges.filter(
        (e) => e.serverStatus !== null && e.status === null,
      );
      expect(held.map((e) => [SUBMISSION[sender].test(e.path), e.serverStatus])).toEqual([
        [true, 200],
      ]);
      world.proxy.clearFaults();
      const completion = await ledger.lookupCommand('held');
      expect(completion).not.toBeNull();
      const updates = await readToEnd(ledger, before);
      expect(updates.filter((u) => u.commandId === 'held').map((u) => u.updateId)).toEqual([
        completion?.updateId,
      ]);
      expect((await balanceOf(ledger, bob, usd)).total).toBe('7');
    },
  );

  it.each(SENDER_KINDS)(
    'the same command id twice (%s sender): the second answer is the first outcome, nothing moves again',
    async (sender) => {
      const { world, ledger, pay, alice, bob, usd } = await funded(sender);
      const first = await pay('twice', '5');
      expect(await pay('twice', '5')).toEqual(first);
      // A restarted adapter remembers nothing: the participant's deduplication answers.
      const restarted = await openCantonHarnessLedger(world);
      try {
        const again = await restarted.submitTransfer({
          commandId: 'twice',
          sender: alice,
          receiver: bob,
          instrument: usd,
          amount: amount('5'),
          meta: { [REASON_META_KEY]: 'twice' },
        });
        expect(again).toEqual(first);
      } finally {
        await restarted.close();
      }
      expect((await balanceOf(ledger, bob, usd)).total).toBe('5');
      expect((await readToEnd(ledger, 0)).filter((u) => u.commandId === 'twice')).toHaveLength(1);
      // The participant refused the resubmission as a duplicate (409); the answer is its first commit.
      expect(world.proxy.exchanges.filter((e) => e.status === 409).length).toBeGreaterThan(0);
    },
  );

  it.each(SENDER_KINDS)(
    'a 5xx on submit (%s sender): a retryable refusal that changes nothing, and the retry commits once',
    async (sender) => {
      const { world, ledger, pay, bob, usd } = await funded(sender);
      const before = await ledger.ledgerEnd();
      world.proxy.failRequests({ method: 'POST', path: SUBMISSION[sender] }, 1, 503);
      const refused = await expectRefused(pay('unavailable', '3'), 'rejected');
      expect(refused.retryable).toBe(true);
      expect(await ledger.ledgerEnd()).toBe(before);
      expect(await ledger.lookupCommand('unavailable')).toBeNull();
      const retried = await pay('unavailable', '3');
      expect(retried.kind).toBe('direct');
      expect((await balanceOf(ledger, bob, usd)).total).toBe('3');
      expect(world.proxy.exchanges.filter((e) => e.injected)).toHaveLength(1);
    },
  );

  it('the HTTP transport: paging POST /v2/updates reads what the WebSocket reads', async () => {
    const { world, ledger, pay } = await funded();
    const before = await ledger.ledgerEnd();
    for (let i = 0; i < 3; i++) await pay();
    const overWebSocket = await readToEnd(ledger, before);
    const streamsBefore = world.proxy.streams.length;
    const pagesBefore = world.proxy.exchanges.filter((e) =>
      e.path.startsWith('/v2/updates'),
    ).length;
    const http = await openCantonHarnessLedger(world, { transport: 'http' });
    try {
      expect(await readToEnd(http, before)).toEqual(overWebSocket);
    } finally {
      await http.close();
    }
    expect(world.proxy.streams).toHaveLength(streamsBefore);
    const pages = world.proxy.exchanges.filter((e) => e.path.startsWith('/v2/updates'));
    expect(pages.length).toBeGreaterThan(pagesBefore);
  });

  it('the HTTP transport: a 5xx page drops the stream, and resuming reads every update once', async () => {
    const { world, ledger, pay } = await funded();
    const before = await ledger.ledgerEnd();
    for (let i = 0; i < 3; i++) await pay();
    const expected = await readToEnd(ledger, before);
    const end = await ledger.ledgerEnd();
    const http = await openCantonHarnessLedger(world, { transport: 'http' });
    try {
      world.proxy.failRequests({ method: 'POST', path: '/v2/updates' }, 1, 503);
      const { seen, dropCodes } = await resumeToEnd(http, { from: before, end }, 3);
      expect(dropCodes).toEqual(['stream_dropped']);
      expect(seen).toEqual(expected);
    } finally {
      await http.close();
    }
  });

  it('a 5xx on the read behind the ledger clock: the clock keeps its last reading', async () => {
    const { world, ledger, pay } = await funded();
    await pay();
    const reading = await ledger.now();
    world.proxy.failRequests({ method: 'POST', path: '/v2/updates' }, 1, 503);
    expect((await ledger.now()).getTime()).toBe(reading.getTime());
    // The participant answers again: the clock reads the ledger's latest record time again.
    await pay();
    expect((await ledger.now()).getTime()).toBeGreaterThanOrEqual(reading.getTime());
  });

  it('a token the participant refuses: not_authorized, answered in Canton error shapes', async () => {
    const world = await openWorld();
    const auth = {
      kind: 'hs256',
      secret: 'not-the-participant-secret',
      audience: AUDIENCE,
    } as const;
    const refused = await refusal(
      openCantonHarnessLedger(world, { auth }).then(async (ledger) => {
        try {
          return await ledger.ledgerEnd();
        } finally {
          await ledger.close();
        }
      }),
    );
    expect(refused.code).toBe('not_authorized');
    expect(world.proxy.exchanges.map((e) => e.status)).toContain(401);
  });
});
