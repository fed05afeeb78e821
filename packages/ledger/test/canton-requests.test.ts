import { ed25519 } from '@noble/curves/ed25519.js';
import { Amount, fingerprint } from '@poolparty/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  INPUT_HOLDINGS_MAX,
  instructionCommand,
  jsCommands,
  selectInputHoldings,
  selectTransferInputs,
  transferChoiceArgument,
  transferCommand,
  transferOutcomeOf,
  withChoiceContext,
} from '../src/canton/commands.js';
import {
  activeContractsRequest,
  eventFormat,
  readScopeOfRights,
  updatesRequest,
} from '../src/canton/filters.js';
import { needsLockOffers, withLockOffers } from '../src/canton/holdings.js';
import { joinUrl } from '../src/canton/http.js';
import {
  executeRequest,
  prepareRequest,
  SIGNATURE_FORMAT,
  SIGNING_ALGORITHM,
  signersOf,
} from '../src/canton/interactive-submission.js';
import { namespaceOf, recordTimeOf } from '../src/canton/participant.js';
import { registryUrlOf, registryUrls } from '../src/canton/registry.js';
import { currentOpenRound, extraTrafficPriceOf } from '../src/canton/scan.js';
import { webSocketProtocols, webSocketUrl } from '../src/canton/update-stream.js';
import {
  encodeTransferInstructionCreated,
  HOLDING_INTERFACE_ID,
  TRANSFER_FACTORY_INTERFACE_ID,
  TRANSFER_INSTRUCTION_INTERFACE_ID,
} from '../src/canton/wire/index.js';
import type { Holding, LedgerUpdate } from '../src/port.js';
import { concernsParties } from '../src/subscription.js';

const usd = { admin: 'bank::1220aa', id: 'USD' };
const eur = { admin: 'bank::1220aa', id: 'EUR' };
const amount = (text: string) => Amount.parse(text);

describe('filters', () => {
  it('ask for the Holding and TransferInstruction views of the given parties', () => {
    const format = eventFormat({ kind: 'parties', parties: ['alice::1', 'bob::2'] });
    const filters = format.filtersByParty?.['alice::1']?.cumulative ?? [];
    expect(filters.map((f) => f.identifierFilter)).toEqual([
      {
        InterfaceFilter: {
          value: {
            interfaceId: HOLDING_INTERFACE_ID,
            includeInterfaceView: true,
            includeCreatedEventBlob: false,
          },
        },
      },
      {
        InterfaceFilter: {
          value: {
            interfaceId: TRANSFER_INSTRUCTION_INTERFACE_ID,
            includeInterfaceView: true,
            includeCreatedEventBlob: false,
          },
        },
      },
    ]);
    expect(Object.keys(format.filtersByParty ?? {})).toEqual(['alice::1', 'bob::2']);
    expect(format.filtersForAnyParty).toBeUndefined();
  });

  it('a user that reads as any party gets the wildcard filter', () => {
    const format = eventFormat({ kind: 'any' });
    expect(format.filtersByParty).toBeUndefined();
    expect(format.filtersForAnyParty?.cumulative).toHaveLength(2);
  });

  it('the updates request streams ledger effects from the offset, bounded when asked', () => {
    const request = updatesRequest(41, { kind: 'parties', parties: ['alice::1'] });
    expect(request.beginExclusive).toBe(41);
    expect(request.endInclusive).toBeUndefined();
    expect(request.updateFormat.includeTransactions?.transactionShape).toBe(
      'TRANSACTION_SHAPE_LEDGER_EFFECTS',
    );
    expect(updatesRequest(41, { kind: 'any' }, 50).endInclusive).toBe(50);
  });

  it('active contracts are read at an offset for one party and one interface', () => {
    const request = activeContractsRequest(
      7,
      { kind: 'parties', parties: ['alice::1'] },
      HOLDING_INTERFACE_ID,
    );
    expect(request.activeAtOffset).toBe(7);
    const filters = request.eventFormat.filtersByParty?.['alice::1']?.cumulative;
    expect(filters).toHaveLength(1);
  });

  it('the read scope of user rights: acting and reading parties, or any party', () => {
    expect(
      readScopeOfRights({
        rights: [
          { kind: { CanActAs: { value: { party: 'b::1' } } } },
          { kind: { CanReadAs: { value: { party: 'a::1' } } } },
          { kind: { CanActAs: { value: { party: 'a::1' } } } },
          { kind: { ParticipantAdmin: { value: {} } } },
        ],
      }),
    ).toEqual({ kind: 'parties', parties: ['a::1', 'b::1'] });
    expect(
      readScopeOfRights({
        rights: [
          { kind: { CanActAs: { value: { party: 'b::1' } } } },
          { kind: { CanReadAsAnyParty: { value: {} } } },
        ],
      }),
    ).toEqual({ kind: 'any' });
    expect(readScopeOfRights({})).toEqual({ kind: 'parties', parties: [] });
  });

  it('an update concerns the parties its events name as sender, receiver or owner', () => {
    const update: LedgerUpdate = {
      offset: 3,
      updateId: 'u',
      recordTime: new Date(0),
      commandId: null,
      trafficBytes: null,
      events: [{ kind: 'mint', owner: 'carol::1', instrument: usd, amount: amount('1') }],
    };
    expect(concernsParties(update, undefined)).toBe(true);
    expect(concernsParties(update, ['carol::1'])).toBe(true);
    // The instrument admin is a stakeholder on Canton, but not a party of the event.
    expect(concernsParties(update, [usd.admin])).toBe(false);
  });
});

function holding(
  id: string,
  owner: string,
  text: string,
  locked = false,
  instrument = usd,
): Holding {
  return {
    holdingId: id,
    owner,
    instrument,
    amount: amount(text),
    lock: locked ? { offerId: null, expiresAt: null, context: null } : null,
  };
}

describe('transfer commands', () => {
  /** Alice's free USD (h1 2, h2 5, h6 3), among holdings no USD transfer of hers may spend. */
  const mixed = () => [
    holding('h1', 'alice', '2'),
    holding('h2', 'alice', '5'),
    holding('h3', 'alice', '9', true),
    holding('h4', 'alice', '7', false, eur),
    holding('h5', 'bob', '100'),
    holding('h6', 'alice', '3'),
  ];

  it('spend every unlocked holding of the instrument, largest first', () => {
    const inputs = selectInputHoldings(mixed(), 'alice', usd);
    expect(inputs.holdingIds).toEqual(['h2', 'h6', 'h1']);
    expect(inputs.total.toString()).toBe('10');
  });

  it(`spend at most ${INPUT_HOLDINGS_MAX} holdings`, () => {
    const many = Array.from({ length: INPUT_HOLDINGS_MAX + 5 }, (_, i) =>
      holding(`h${i}`, 'alice', String(i + 1)),
    );
    const inputs = selectInputHoldings(many, 'alice', usd);
    expect(inputs.holdingIds).toHaveLength(INPUT_HOLDINGS_MAX);
    expect(inputs.holdingIds[0]).toBe(`h${INPUT_HOLDINGS_MAX + 4}`);
  });

  it('name the free holdings, largest first, until they cover twice the amount', () => {
    const holdings = [...mixed(), holding('h7', 'alice', '40')];
    const transfer = { sender: 'alice', instrument: usd, amount: amount('4') };
    const none = () => false;
    expect(selectTransferInputs(holdings, transfer, none).holdingIds).toEqual(['h7']);
    // h7 named by another transfer: the next largest until 8 is covered.
    const others = (id: string) => id === 'h7';
    expect(selectTransferInputs(holdings, transfer, others)).toEqual({
      holdingIds: ['h2', 'h6'],
      total: amount('8'),
    });
    // Short of twice the amount: every free holding.
    const big = { ...transfer, amount: amount('6') };
    expect(selectTransferInputs(holdings, big, others).holdingIds).toEqual(['h2', 'h6', 'h1']);
  });

  it('never name a holding another transfer named, and stop at the first prefix that covers', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 1_000 }), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 2_000 }),
        fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }),
        (sizes, wanted, takenFlags) => {
          const holdings = sizes.map((size, i) => holding(`h${i}`, 'alice', String(size)));
          const taken = (id: string) => takenFlags[Number(id.slice(1))] === true;
          const transfer = { sender: 'alice', instrument: usd, amount: amount(String(wanted)) };
          const { holdingIds, total } = selectTransferInputs(holdings, transfer, taken);
          expect(holdingIds.some(taken)).toBe(false);
          const chosen = holdingIds.map((id) => holdings.find((h) => h.holdingId === id));
          const sum = chosen.reduce((s, h) => s.add(h?.amount ?? amount('0')), amount('0'));
          expect(total).toEqual(sum);
          const cover = amount(String(2 * wanted));
          const free = holdings.filter((h) => !taken(h.holdingId));
          if (holdingIds.length < free.length) {
            expect(total.gte(cover)).toBe(true);
            const withoutLast = sum.sub(chosen.at(-1)?.amount ?? amount('0'));
            expect(withoutLast.lt(cover)).toBe(true);
          }
        },
      ),
    );
  });

  const argument = transferChoiceArgument({
    sender: 'alice::1',
    receiver: 'bob::2',
    instrument: usd,
    amount: amount('12.5'),
    meta: { 'splice.lfdecentralizedtrust.org/reason': 'order 7' },
    requestedAt: new Date('2030-01-01T00:00:00.000Z'),
    executeBefore: new Date('2030-01-02T00:00:00.000Z'),
    inputHoldingIds: ['h1', 'h2'],
  });

  it('TransferFactory_Transfer carries the transfer in the JSON API encoding', () => {
    expect(argument).toEqual({
      expectedAdmin: usd.admin,
      transfer: {
        sender: 'alice::1',
        receiver: 'bob::2',
        amount: '12.5000000000',
        instrumentId: { admin: usd.admin, id: 'USD' },
        requestedAt: '2030-01-01T00:00:00.000Z',
        executeBefore: '2030-01-02T00:00:00.000Z',
        inputHoldingCids: ['h1', 'h2'],
        meta: { values: { 'splice.lfdecentralizedtrust.org/reason': 'order 7' } },
      },
      extraArgs: { context: { values: {} }, meta: { values: {} } },
    });
  });

  it('the registry context goes into extraArgs, the command exercises the factory interface', () => {
    const context = {
      choiceContextData: { values: { 'amulet-rules': { tag: 'AV_ContractId', value: 'c1' } } },
      disclosedContracts: [],
    };
    const command = transferCommand('factory-1', withChoiceContext(argument, context));
    expect(command).toEqual({
      ExerciseCommand: {
        templateId: TRANSFER_FACTORY_INTERFACE_ID,
        contractId: 'factory-1',
        choice: 'TransferFactory_Transfer',
        choiceArgument: {
          ...argument,
          extraArgs: { context: context.choiceContextData, meta: { values: {} } },
        },
      },
    });
    const commands = jsCommands({
      command,
      commandId: 'cmd-1',
      actAs: 'alice::1',
      userId: 'poolparty',
      disclosedContracts: [],
    });
    expect(commands).toMatchObject({
      commandId: 'cmd-1',
      actAs: ['alice::1'],
      userId: 'poolparty',
    });
  });

  it('instruction choices exercise the TransferInstruction interface with their context', () => {
    const context = { choiceContextData: { values: {} }, disclosedContracts: [] };
    for (const [choice, name] of [
      ['accept', 'TransferInstruction_Accept'],
      ['reject', 'TransferInstruction_Reject'],
      ['withdraw', 'TransferInstruction_Withdraw'],
    ] as const) {
      expect(instructionCommand('offer-1', choice, context)).toEqual({
        ExerciseCommand: {
          templateId: TRANSFER_INSTRUCTION_INTERFACE_ID,
          contractId: 'offer-1',
          choice: name,
          choiceArgument: { extraArgs: { context: { values: {} }, meta: { values: {} } } },
        },
      });
    }
  });

  it('the outcome is an offer when the transaction created an instruction, else direct', () => {
    const base = {
      offset: 9,
      updateId: 'u9',
      recordTime: new Date(0),
      commandId: 'c',
      trafficBytes: null,
    };
    const offer = {
      offerId: 'ti-1',
      sender: 'alice::1',
      receiver: 'bob::2',
      instrument: usd,
      amount: amount('1'),
      meta: {},
      executeBefore: new Date(1),
    };
    expect(transferOutcomeOf({ ...base, events: [{ kind: 'offer_created', ...offer }] })).toEqual({
      kind: 'offer',
      updateId: 'u9',
      offset: 9,
      offerId: 'ti-1',
    });
    const transfer = {
      kind: 'transfer' as const,
      sender: 'alice::1',
      receiver: 'bob::2',
      instrument: usd,
      amount: amount('1'),
      meta: {},
      offerId: null,
      feesBurned: Amount.ZERO,
    };
    expect(transferOutcomeOf({ ...base, events: [transfer] })).toEqual({
      kind: 'direct',
      updateId: 'u9',
      offset: 9,
    });
    expect(() => transferOutcomeOf({ ...base, events: [] })).toThrow(/neither/);
  });
});

describe('external party submissions', () => {
  /** A party's signer holding the ed25519 key `secret`. */
  const signerOf = (secret: Uint8Array) => ({
    publicKey: ed25519.getPublicKey(secret),
    sign: async (message: Uint8Array) => ed25519.sign(message, secret),
  });
  /** The execute request of a transaction prepared with this hash, the service's user submitting. */
  const executeOf = (
    hash: Uint8Array,
    signers: Parameters<typeof executeRequest>[0]['signers'],
    submissionId?: string,
  ) =>
    executeRequest({
      prepared: {
        preparedTransaction: 'cHJlcGFyZWQ=',
        preparedTransactionHash: Buffer.from(hash).toString('base64'),
        hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
      },
      signers,
      userId: 'poolparty',
      transactionFormat: { eventFormat: {}, transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS' },
      ...(submissionId !== undefined && { submissionId }),
    });

  it('carry one signature per external acting party, each of the same hash by its own key', async () => {
    const keys = [5, 6].map((seed) => new Uint8Array(32).fill(seed));
    const signers = keys.map((secret, at) => ({
      party: `ext${at}::1220ab`,
      signer: signerOf(secret),
    }));
    const hash = new Uint8Array(32).fill(9);
    const request = await executeOf(hash, signers);
    const entries = request.partySignatures.signatures;
    expect(entries.map((e) => e.party)).toEqual(['ext0::1220ab', 'ext1::1220ab']);
    entries.forEach((entry, at) => {
      const [signature] = entry.signatures;
      const publicKey = ed25519.getPublicKey(keys[at] ?? new Uint8Array(32));
      expect(signature?.signedBy).toBe(fingerprint(publicKey));
      const bytes = Buffer.from(signature?.signature ?? '', 'base64');
      expect(ed25519.verify(bytes, hash, publicKey)).toBe(true);
    });
  });

  it('names only the acting parties whose key is held, each once', () => {
    const signer = { publicKey: new Uint8Array(32), sign: async () => new Uint8Array(64) };
    const held = new Map([['ext::1220ab', signer]]);
    expect(signersOf(['local::1220cd', 'ext::1220ab', 'ext::1220ab'], (p) => held.get(p))).toEqual([
      { party: 'ext::1220ab', signer },
    ]);
    expect(signersOf(['ext::1220ab'], undefined)).toEqual([]);
  });

  it('sign the prepared hash with the party key, named by its fingerprint', async () => {
    const signer = signerOf(new Uint8Array(32).fill(7));
    const { publicKey } = signer;
    const hash = new Uint8Array(32).fill(3);
    const request = await executeOf(hash, [{ party: 'ext::1220ab', signer }], 'sub-1');
    const [partySignatures] = request.partySignatures.signatures;
    expect(partySignatures?.party).toBe('ext::1220ab');
    const [signature] = partySignatures?.signatures ?? [];
    expect(signature).toMatchObject({
      format: SIGNATURE_FORMAT,
      signingAlgorithmSpec: SIGNING_ALGORITHM,
      signedBy: fingerprint(publicKey),
    });
    const bytes = Buffer.from(signature?.signature ?? '', 'base64');
    expect(ed25519.verify(bytes, hash, publicKey)).toBe(true);
    expect(request).toMatchObject({
      preparedTransaction: 'cHJlcGFyZWQ=',
      hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
      submissionId: 'sub-1',
      userId: 'poolparty',
    });
  });

  it('prepare carries the command, its parties and the disclosed contracts', () => {
    const command = instructionCommand('o', 'accept', {
      choiceContextData: {},
      disclosedContracts: [],
    });
    const disclosed = {
      templateId: 't',
      contractId: 'c',
      createdEventBlob: 'b',
      synchronizerId: 's',
    };
    expect(
      prepareRequest(
        jsCommands({
          command,
          commandId: 'x',
          actAs: 'ext::1',
          userId: 'u',
          disclosedContracts: [disclosed],
        }),
      ),
    ).toEqual({
      userId: 'u',
      commandId: 'x',
      commands: [command],
      actAs: ['ext::1'],
      disclosedContracts: [disclosed],
      verboseHashing: false,
    });
  });
});

describe('scan proxy prices', () => {
  const round = (number: number, price: string, opensAt: string) => ({
    contract: { payload: { round: { number: String(number) }, amuletPrice: price, opensAt } },
  });
  const rounds = [
    round(10, '0.0050000000', '2030-01-01T00:00:00Z'),
    round(11, '0.0060000000', '2030-01-01T00:10:00Z'),
    round(12, '0.0070000000', '2030-01-01T00:20:00Z'),
  ];

  it('the current round is the latest that has opened; before any, the first to open', () => {
    const now = new Date('2030-01-01T00:15:00Z');
    const current = currentOpenRound(rounds, now);
    expect(current.round).toBe(11);
    expect(current.amuletPriceUsd.toString()).toBe('0.006');
    expect(current.opensAt).toEqual(new Date('2030-01-01T00:10:00Z'));
    expect(currentOpenRound(rounds, new Date('2029-12-31T00:00:00Z')).round).toBe(10);
    expect(() => currentOpenRound([], now)).toThrow(/no open mining round/);
    expect(() => currentOpenRound([{ contract: { payload: {} } }], now)).toThrow(/unreadable/);
  });

  it('the extra traffic price is the configuration in force now', () => {
    const config = (price: string) => ({
      decentralizedSynchronizer: { fees: { extraTrafficPrice: price } },
    });
    const rules = {
      contract: {
        payload: {
          configSchedule: {
            initialValue: config('16.67'),
            futureValues: [
              { _1: '2030-06-01T00:00:00Z', _2: config('20') },
              { _1: '2030-03-01T00:00:00Z', _2: config('18') },
            ],
          },
        },
      },
    };
    expect(extraTrafficPriceOf(rules, new Date('2030-01-01T00:00:00Z')).toString()).toBe('16.67');
    expect(extraTrafficPriceOf(rules, new Date('2030-04-01T00:00:00Z')).toString()).toBe('18');
    expect(extraTrafficPriceOf(rules, new Date('2031-01-01T00:00:00Z')).toString()).toBe('20');
    expect(() => extraTrafficPriceOf({}, new Date())).toThrow(/unreadable/);
  });
});

describe('addresses', () => {
  it('registries by admin, else the default', () => {
    const registries = {
      defaultUrl: 'http://scan/registry',
      byAdmin: { 'bank::1': 'http://bank' },
    };
    expect(registryUrlOf(registries, 'bank::1')).toBe('http://bank');
    expect(registryUrlOf(registries, 'other::1')).toBe('http://scan/registry');
    expect(registryUrls(registries)).toEqual(['http://scan/registry', 'http://bank']);
  });

  it('paths join the base once, keeping its own path', () => {
    expect(joinUrl('http://h:2000/api/validator/', '/v0/scan-proxy/amulet-rules')).toBe(
      'http://h:2000/api/validator/v0/scan-proxy/amulet-rules',
    );
  });

  it('the WebSocket URL and the token subprotocols', () => {
    expect(webSocketUrl('http://h:2975', '/v2/updates')).toBe('ws://h:2975/v2/updates');
    expect(webSocketUrl('https://h/ledger/', '/v2/updates')).toBe('wss://h/ledger/v2/updates');
    expect(webSocketProtocols('abc')).toEqual(['jwt.token.abc', 'daml.ws.auth']);
    expect(webSocketProtocols(null)).toEqual(['daml.ws.auth']);
  });

  it('namespaces of party and participant ids', () => {
    expect(namespaceOf('alice::1220ab')).toBe('1220ab');
    expect(namespaceOf('PAR::participant1::1220cd')).toBe('1220cd');
    expect(namespaceOf('no-separator')).toBeNull();
  });

  it('the record time of an updates item', () => {
    expect(
      recordTimeOf({
        update: {
          OffsetCheckpoint: {
            value: {
              offset: 4,
              synchronizerTimes: [
                { synchronizerId: 'a', recordTime: '2030-01-01T00:00:01Z' },
                { synchronizerId: 'b', recordTime: '2030-01-01T00:00:03Z' },
              ],
            },
          },
        },
      }),
    ).toEqual(new Date('2030-01-01T00:00:03Z'));
    expect(recordTimeOf({})).toBeNull();
  });
});

describe('locked holdings', () => {
  it('a lock that does not name its offer gets it from the instruction naming the holding', () => {
    const locked = (id: string, offerId: string | null) => ({
      ...holding(id, 'alice::1', '5'),
      lock: { offerId, expiresAt: null, context: 'transfer to bob' },
    });
    const holdings = [
      holding('free', 'alice::1', '1'),
      locked('h-locked', null),
      locked('h-named', 'o-0'),
    ];
    expect(needsLockOffers(holdings)).toBe(true);
    expect(needsLockOffers([holdings[0] as Holding, holdings[2] as Holding])).toBe(false);
    const instruction = encodeTransferInstructionCreated(
      {
        offerId: 'o-1',
        sender: 'alice::1',
        receiver: 'bob::2',
        instrument: usd,
        amount: amount('5'),
        meta: {},
        executeBefore: new Date('2030-01-02T00:00:00Z'),
      },
      3,
      'sync::1',
      { lockedHoldingIds: ['h-locked'] },
    );
    const filled = withLockOffers(holdings, [instruction]);
    expect(filled.map((h) => h.lock?.offerId ?? null)).toEqual([null, 'o-1', 'o-0']);
    expect(filled[1]?.lock?.context).toBe('transfer to bob');
    expect(withLockOffers(holdings, [])[1]?.lock?.offerId).toBeNull();
  });
});
