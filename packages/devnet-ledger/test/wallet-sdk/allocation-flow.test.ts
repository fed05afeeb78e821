/**
 * The Token Standard allocation flow of the official wallet SDK (0.20.0) against the devnet
 * ledger, with the devnet's internal parties: each of two parties allocates its leg of one
 * settlement through the SDK (registry factory, choice context, submission), the executor finds
 * both allocations through the SDK and takes each leg's `Allocation_ExecuteTransfer` from it, and
 * runs them in one transaction, which the SDK's transaction parser shows with both legs; a withdraw before the deadline and a cancel release the holdings;
 * execution after `settleBefore` is refused with nothing moved. Every exchange passes the wire
 * proxy's check against Canton's documents.
 *
 * The devnet has no settlement app (the example's trading-app package): the executor submits
 * the legs' choices itself, with the senders and receivers among the acting parties, where a
 * settlement app's choice would carry their authority.
 */
import type { WalletSDK } from '@canton-network/wallet-sdk';
import { Amount, type Instrument } from '@poolparty/core';
import type { LocalLedger } from '@poolparty/ledger';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertNoWireMismatches, type WireProxy } from '../canton/support/wire-proxy.js';
import { settlementInfoOf } from '../support/commands.js';
import { USER } from '../support/localnet.js';
import { call, tokenFor } from '../support/server.js';
import { walletSdk } from './support/sdk-0.js';
import { openWalletSdkWorld, type WalletSdkWorld } from './support/world.js';

const HOUR_MS = 60 * 60_000;

let world: WalletSdkWorld;
let ledger: LocalLedger;
let proxy: WireProxy;
let sdk: WalletSDK;
let token: string;
let amulet: Instrument;
let alice: string;
let bob: string;
let venue: string;

async function as(party: string): Promise<void> {
  await sdk.setPartyId(party);
}

function tokens() {
  const standard = sdk.tokenStandard;
  const user = sdk.userLedger;
  if (standard === undefined || user === undefined) throw new Error('not connected');
  return { standard, user };
}

async function settlementOf(ref: string, allocateInMs = HOUR_MS, settleInMs = 2 * HOUR_MS) {
  return settlementInfoOf(venue, await ledger.now(), ref, { allocateInMs, settleInMs });
}

type Settlement = Awaited<ReturnType<typeof settlementOf>>;

/** The sender allocates its leg through the SDK: registry factory, choice context, submission. */
async function allocateLeg(
  settlement: Settlement,
  transferLegId: string,
  leg: { sender: string; receiver: string; amount: string },
): Promise<void> {
  await as(leg.sender);
  const { standard, user } = tokens();
  const specification = {
    settlement,
    transferLegId,
    transferLeg: { ...leg, instrumentId: amulet, meta: { values: {} } },
  };
  const [command, disclosed] = await standard.createAllocationInstruction(
    specification,
    amulet.admin,
  );
  await user.submitCommand(
    command,
    `allocate-${settlement.settlementRef.id}-${transferLegId}`,
    disclosed,
  );
}

/** The executor's pending allocations of a settlement, as the SDK lists them. */
async function allocationsOf(ref: string) {
  await as(venue);
  const pending = await tokens().standard.fetchPendingAllocationView();
  return pending.filter((a) => a.interfaceViewValue.allocation.settlement.settlementRef.id === ref);
}

/** Submits commands as several parties at once: the devnet user acts for every internal party. */
async function submitAs(
  actAs: string[],
  commands: unknown[],
  disclosed: unknown[],
  commandId: string,
) {
  return call(
    proxy.url,
    'POST',
    '/v2/commands/submit-and-wait',
    { commands, commandId, actAs, disclosedContracts: disclosed },
    token,
  );
}

async function executeAll(ref: string, commandId: string) {
  const legs = await allocationsOf(ref);
  const built = [];
  for (const allocation of legs) {
    built.push(
      await tokens().standard.exerciseAllocationChoice(allocation.contractId, 'ExecuteTransfer'),
    );
  }
  const commands = built.map(([command]) => command);
  const disclosed = [
    ...new Map(built.flatMap(([, d]) => d).map((d) => [d.contractId, d])).values(),
  ];
  return { legs, answer: await submitAs([venue, alice, bob], commands, disclosed, commandId) };
}

async function unlocked(party: string): Promise<Amount> {
  const holdings = await ledger.getHoldings(party);
  return Amount.sum(holdings.filter((h) => h.lock === null).map((h) => h.amount));
}

beforeAll(async () => {
  world = await openWalletSdkWorld({
    populate: async (local, instrument) => {
      const party = async (hint: string) => (await local.createParty({ hint })).partyId;
      [alice, bob, venue] = [await party('alice'), await party('bob'), await party('venue')];
      for (const owner of [alice, bob]) {
        await local.mint({ owner, instrument, amount: Amount.of(200) });
      }
    },
    uncheckedPrefixes: ['/devnet/'],
  });
  ({ ledger, proxy, amulet } = world);
  token = await tokenFor(USER);
  sdk = walletSdk(proxy.url, { logger: pino({ level: 'silent' }), externalParties: false });
  await sdk.connect();
  tokens().standard.setTransferFactoryRegistryUrl(
    new URL(`${proxy.url}/api/validator/v0/scan-proxy`),
  );
});

afterAll(async () => {
  await world?.close();
});

describe('the wallet SDK’s allocation flow on the devnet ledger', () => {
  it('allocates both legs of one settlement and the executor executes them in one transaction', async () => {
    const settlement = await settlementOf('otc-1');
    await allocateLeg(settlement, 'leg0', { sender: alice, receiver: bob, amount: '100' });
    await allocateLeg(settlement, 'leg1', { sender: bob, receiver: alice, amount: '20' });
    expect((await unlocked(alice)).toString()).toBe('100');
    const { legs, answer } = await executeAll('otc-1', 'settle-otc-1');
    expect(legs.map((l) => l.interfaceViewValue.allocation.transferLegId).sort()).toEqual([
      'leg0',
      'leg1',
    ]);
    expect(answer.status).toBe(200);
    expect((await unlocked(alice)).toString()).toBe('120');
    expect((await unlocked(bob)).toString()).toBe('280');
    expect(await allocationsOf('otc-1')).toEqual([]);
    const update = await ledger.lookupCommand('settle-otc-1');
    const events = ledger.updateAt(update?.offset ?? 0)?.events ?? [];
    expect(events.map((e) => e.kind)).toEqual(['allocation_executed', 'allocation_executed']);
    // The SDK's own transaction parser shows both legs in the one update, from Alice's side.
    await as(alice);
    const parsed = await tokens().standard.getTransactionById(answer.body.updateId);
    const labels = parsed.events.map((e) => e.label as { type: string; sender?: string });
    expect(labels.map((l) => l.type)).toEqual(['TransferOut', 'TransferIn']);
    expect(labels[1]?.sender).toBe(bob);
    assertNoWireMismatches(proxy);
  });

  it('releases the holdings on a withdraw by the sender and on a cancel by all three', async () => {
    const settlement = await settlementOf('otc-2');
    await allocateLeg(settlement, 'leg0', { sender: alice, receiver: bob, amount: '10' });
    await allocateLeg(settlement, 'leg1', { sender: bob, receiver: alice, amount: '5' });
    const [first, second] = await allocationsOf('otc-2');
    if (first === undefined || second === undefined) throw new Error('expected two allocations');
    await as(alice);
    const [withdraw, withdrawDisclosed] = await tokens().standard.exerciseAllocationChoice(
      first.contractId,
      'Withdraw',
    );
    await tokens().user.submitCommand(withdraw, 'withdraw-otc-2', withdrawDisclosed);
    await as(venue);
    const [cancel, cancelDisclosed] = await tokens().standard.exerciseAllocationChoice(
      second.contractId,
      'Cancel',
    );
    const alone = await submitAs([venue], [cancel], cancelDisclosed, 'cancel-otc-2-alone');
    expect(alone.body.code).toBe('DAML_AUTHORIZATION_ERROR');
    const cancelled = await submitAs(
      [venue, alice, bob],
      [cancel],
      cancelDisclosed,
      'cancel-otc-2',
    );
    expect(cancelled.status).toBe(200);
    expect((await unlocked(alice)).toString()).toBe('120');
    expect((await unlocked(bob)).toString()).toBe('280');
    assertNoWireMismatches(proxy);
  });

  it('refuses execution after settleBefore with nothing moved', async () => {
    const settlement = await settlementOf('otc-3', 60_000, 120_000);
    await allocateLeg(settlement, 'leg0', { sender: alice, receiver: bob, amount: '10' });
    await allocateLeg(settlement, 'leg1', { sender: bob, receiver: alice, amount: '5' });
    await ledger.advanceClock(120_000);
    const end = await ledger.ledgerEnd();
    const { answer } = await executeAll('otc-3', 'settle-otc-3');
    expect(answer.body.context?.error_id).toBe('deadline_passed');
    expect(await ledger.ledgerEnd()).toBe(end);
    expect((await unlocked(alice)).toString()).toBe('110');
    expect((await unlocked(bob)).toString()).toBe('275');
    expect(await allocationsOf('otc-3')).toHaveLength(2);
    assertNoWireMismatches(proxy);
  });
});
