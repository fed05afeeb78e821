/**
 * Canton's own TypeScript clients (`@canton-network/core-ledger-client` and
 * `core-asyncapi-client`, `core-splice-client` 1.8.0) against the devnet ledger server, through the wire proxy: they
 * read the ledger end, the active contracts and the updates without error, and what they read is
 * what the local ledger holds. A client written by Canton's authors is the second opinion on
 * whether the server speaks the protocol, beyond our own adapter.
 */
import { WebSocketClient } from '@canton-network/core-asyncapi-client';
import { LedgerClient } from '@canton-network/core-ledger-client';
import { ScanProxyClient } from '@canton-network/core-splice-client';
import { Amount, type Instrument } from '@poolparty/core';
import {
  type DevnetLedgerServer,
  PARTICIPANT_ID,
  startDevnetLedgerServer,
} from '@poolparty/devnet-ledger';
import { type LocalLedger, openLocalLedger, type TransferOffer } from '@poolparty/ledger';
import {
  decodeHolding,
  decodeTransaction,
  decodeTransferInstruction,
  HOLDING_INTERFACE_ID,
  type JsGetUpdatesResponse,
  type JsTransaction,
  TRANSFER_INSTRUCTION_INTERFACE_ID,
} from '@poolparty/ledger/canton/wire';
import { SignJWT } from 'jose';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIENCE, SECRET, USER } from '../support/localnet.js';
import { assertNoWireMismatches, startWireProxy, type WireProxy } from './support/wire-proxy.js';

let local: LocalLedger;
let server: DevnetLedgerServer;
let proxy: WireProxy;
let client: LedgerClient;
let token: string;
let usd: Instrument;
let alice: string;
let bob: string;
let carol: string;
let offer: TransferOffer;

async function userToken(): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ scope: 'daml_ledger_api' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(USER)
    .setAudience(AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(new TextEncoder().encode(SECRET));
}

const tokens = {
  getAccessToken: async () => token,
  getAuthContext: async () => ({ userId: USER, accessToken: token }),
};

/** Interface filters for the Holding and TransferInstruction views, as a wallet asks. */
function eventFormat(parties: readonly string[]) {
  const cumulative = [HOLDING_INTERFACE_ID, TRANSFER_INSTRUCTION_INTERFACE_ID].map(
    (interfaceId) => ({
      identifierFilter: {
        InterfaceFilter: {
          value: { interfaceId, includeInterfaceView: true, includeCreatedEventBlob: false },
        },
      },
    }),
  );
  return {
    filtersByParty: Object.fromEntries(parties.map((party) => [party, { cumulative }])),
    verbose: false,
  };
}

function transactionsOf(items: readonly JsGetUpdatesResponse[]): JsTransaction[] {
  return items.flatMap((item) => {
    const update = item.update as { Transaction?: { value: JsTransaction } } | undefined;
    return update?.Transaction ? [update.Transaction.value] : [];
  });
}

beforeAll(async () => {
  const operatorNamespace = PARTICIPANT_ID.slice(PARTICIPANT_ID.lastIndexOf('::') + 2);
  local = await openLocalLedger({ operatorNamespace });
  const admin = (await local.createParty({ hint: 'bank' })).partyId;
  usd = { admin, id: 'USD' };
  await local.createInstrument(usd);
  alice = (await local.createParty({ hint: 'alice' })).partyId;
  bob = (await local.createParty({ hint: 'bob', preapprovals: [usd] })).partyId;
  carol = (await local.createParty({ hint: 'carol' })).partyId;
  await local.mint({ owner: alice, instrument: usd, amount: Amount.parse('100') });
  await local.submitTransfer({
    commandId: 'pay-bob',
    sender: alice,
    receiver: bob,
    instrument: usd,
    amount: Amount.parse('12.5'),
  });
  const outcome = await local.submitTransfer({
    commandId: 'offer-carol',
    sender: alice,
    receiver: carol,
    instrument: usd,
    amount: Amount.parse('30'),
  });
  if (outcome.kind !== 'offer') throw new Error('expected an offer to carol');
  [offer] = (await local.getPendingOffers(carol)) as [TransferOffer];
  server = await startDevnetLedgerServer({ ledger: local, port: 0, authSecret: SECRET });
  proxy = await startWireProxy({ target: server.url });
  token = await userToken();
  client = new LedgerClient({
    baseUrl: new URL(proxy.url),
    logger: pino({ level: 'silent' }),
    accessTokenProvider: tokens,
    version: '3.4',
  });
});

afterAll(async () => {
  await proxy?.close();
  await server?.close();
  await local?.close();
});

describe('core-ledger-client against the devnet ledger server', () => {
  it('reads the version it negotiates with', async () => {
    await client.init();
    expect(client.getCurrentClientVersion()).toBe('3.4');
    assertNoWireMismatches(proxy);
  });

  it('reads the ledger end the local ledger has', async () => {
    const end = await client.get('/v2/state/ledger-end');
    expect(end.offset).toBe(await local.ledgerEnd());
    assertNoWireMismatches(proxy);
  });

  it('finds the parties the local ledger knows', async () => {
    expect(await client.checkIfPartyExists(alice)).toBe(true);
    expect(await client.checkIfPartyExists(`nobody::${PARTICIPANT_ID.split('::')[1]}`)).toBe(false);
    assertNoWireMismatches(proxy);
  });

  it('reads the active holdings and instructions the local ledger has', async () => {
    const activeAtOffset = await local.ledgerEnd();
    const contracts = await client.post('/v2/state/active-contracts', {
      activeAtOffset,
      eventFormat: eventFormat([alice, carol]),
    });
    const created = contracts.flatMap((entry) => {
      const active = (entry.contractEntry as { JsActiveContract?: { createdEvent: never } })
        .JsActiveContract;
      return active ? [active.createdEvent] : [];
    });
    const holdings = created.flatMap((event) => decodeHolding(event) ?? []);
    const byId = (a: { holdingId: string }, b: { holdingId: string }) =>
      a.holdingId.localeCompare(b.holdingId);
    const expected = [...(await local.getHoldings(alice)), ...(await local.getHoldings(carol))];
    expect(holdings.sort(byId)).toEqual([...expected].sort(byId));
    const offers = created.flatMap((event) => decodeTransferInstruction(event) ?? []);
    expect(offers).toEqual([offer]);
    assertNoWireMismatches(proxy);
  });

  it('reads every update over HTTP as the local ledger committed it', async () => {
    const end = await local.ledgerEnd();
    const items = await client.post('/v2/updates', {
      beginExclusive: 0,
      endInclusive: end,
      updateFormat: {
        includeTransactions: {
          eventFormat: eventFormat([usd.admin, alice, bob, carol]),
          transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
        },
      },
    });
    const transactions = transactionsOf(items);
    const expected = [];
    for (let offset = 1; offset <= end; offset++) {
      const update = local.updateAt(offset);
      if (update) expected.push(update);
    }
    expect(transactions.map((tx) => [tx.offset, tx.updateId])).toEqual(
      expected.map((u) => [u.offset, u.updateId]),
    );
    expect(transactions.map((tx) => decodeTransaction(tx).events)).toEqual(
      expected.map((u) => u.events),
    );
    assertNoWireMismatches(proxy);
  });
});

describe('core-ledger-client: synchronizer and users', () => {
  it('names the synchronizer the transactions were committed on', async () => {
    const synchronizerId = await client.getSynchronizerId();
    const items = await client.post('/v2/updates', {
      beginExclusive: 0,
      endInclusive: await local.ledgerEnd(),
      updateFormat: {
        includeTransactions: {
          eventFormat: eventFormat([alice]),
          transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
        },
      },
    });
    const transactions = transactionsOf(items);
    expect(transactions.length).toBeGreaterThan(0);
    for (const tx of transactions) expect(tx.synchronizerId).toBe(synchronizerId);
    assertNoWireMismatches(proxy);
  });

  it('creates a user and grants it rights, as a wallet provider onboards one', async () => {
    const user = await client.createUser('wallet-user', alice);
    expect(user.id).toBe('wallet-user');
    expect(user.primaryParty).toBe(alice);
    await client.grantRights('wallet-user', { actAs: [alice], readAs: [carol] });
    const { rights } = await client.get('/v2/users/{user-id}/rights', {
      path: { 'user-id': 'wallet-user' },
    });
    const kinds = (rights ?? []).map((right) => right.kind as Record<string, unknown>);
    expect(kinds).toContainEqual({ CanActAs: { value: { party: alice } } });
    expect(kinds).toContainEqual({ CanReadAs: { value: { party: carol } } });
    assertNoWireMismatches(proxy);
  });
});

describe('core-splice-client ScanProxyClient against the devnet validator', () => {
  it('reads the open mining round and the amulet rules with the prices the local ledger set', async () => {
    const scan = new ScanProxyClient(
      new URL(proxy.proxied(server.scanProxyUrl)),
      pino({ level: 'silent' }),
      tokens,
    );
    const rounds = await scan.getOpenMiningRounds();
    expect(rounds.length).toBeGreaterThan(0);
    const round = await local.openMiningRound();
    const latest = rounds
      .map((contract) => contract.payload as { round: { number: string }; amuletPrice: string })
      .sort((a, b) => Number(b.round.number) - Number(a.round.number))[0];
    expect(Amount.parse(String(latest?.amuletPrice)).eq(round.amuletPriceUsd)).toBe(true);
    expect(await scan.isDevNet()).toBe(true);
    const rules = await scan.getAmuletRules();
    const fees = (
      rules.payload as {
        configSchedule: {
          initialValue: { decentralizedSynchronizer: { fees: { extraTrafficPrice: string } } };
        };
      }
    ).configSchedule.initialValue.decentralizedSynchronizer.fees;
    const traffic = await local.trafficParameters();
    expect(Amount.parse(fees.extraTrafficPrice).eq(traffic.extraTrafficPriceUsdPerMb)).toBe(true);
    assertNoWireMismatches(proxy);
  });
});

describe('core-asyncapi-client against the devnet ledger server', () => {
  it('streams the updates of a party over WebSocket as the local ledger committed them', async () => {
    const end = await local.ledgerEnd();
    const ws = new WebSocketClient({
      baseUrl: proxy.url.replace('http', 'ws'),
      accessTokenProvider: tokens,
      version: '3.4',
    });
    const items: JsGetUpdatesResponse[] = [];
    for await (const item of ws.streamUpdates({
      beginExclusive: 0,
      endInclusive: end,
      interfaceIds: [HOLDING_INTERFACE_ID],
      partyId: bob,
    })) {
      items.push(item as JsGetUpdatesResponse);
    }
    const received = transactionsOf(items).map((tx) => tx.updateId);
    const expected = [];
    for (let offset = 1; offset <= end; offset++) {
      const update = local.updateAt(offset);
      if (update?.events.some((e) => 'receiver' in e && e.receiver === bob)) {
        expected.push(update.updateId);
      }
    }
    expect(expected).toHaveLength(1);
    expect(received).toEqual(expected);
    assertNoWireMismatches(proxy);
  });
});
