/**
 * The wire validator reads Canton's documents the way a participant's traffic needs: it accepts
 * the real `/v2/updates` transactions of the exchange-integration guide (once they carry what
 * 3.4.12 added), and refuses what a participant would not send or accept, saying where and what.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CANTON_SPEC_DIR,
  validateRequest,
  validateResponse,
  validateStreamMessage,
  type WireMismatch,
} from './support/wire-validator.js';

const GOLDEN = ['1-step-transfer', 'transfer-instruction-create', 'transfer-instruction-accept'];

type Json = Record<string, unknown>;

function golden(name: string): Json {
  return JSON.parse(readFileSync(`${CANTON_SPEC_DIR}/examples/${name}.json`, 'utf8')) as Json;
}

function eventsOf(item: Json): Json[] {
  const update = item.update as { Transaction: { value: { events: Json[] } } };
  return update.Transaction.value.events;
}

function texts(mismatches: readonly WireMismatch[]): string[] {
  return mismatches.map((m) => m.text);
}

/**
 * A golden item as a 3.4.12 participant serves it: the examples predate two members 3.4.12
 * requires. `acsDelta` is true for every event of a LEDGER_EFFECTS transaction that changes the
 * active contract set (creates and consuming exercises); `representativePackageId` is the
 * package of the created contract's template.
 */
function as3412(item: Json): Json {
  const copy = structuredClone(item);
  for (const event of eventsOf(copy)) {
    const created = event.CreatedEvent as Json | undefined;
    if (created) {
      created.acsDelta = true;
      created.representativePackageId = String(created.templateId).split(':')[0];
    }
    const exercised = event.ExercisedEvent as Json | undefined;
    if (exercised) exercised.acsDelta = exercised.consuming === true;
  }
  return copy;
}

function validCommands(): Json {
  return {
    commands: [
      {
        ExerciseCommand: {
          templateId:
            '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory',
          contractId: '00abc',
          choice: 'TransferFactory_Transfer',
          choiceArgument: { expectedAdmin: 'admin::1220' },
        },
      },
    ],
    commandId: 'swap-1-leg-1',
    actAs: ['pool::1220'],
    userId: 'poolparty',
  };
}

describe('golden /v2/updates transactions', () => {
  it.each(GOLDEN)('%s lacks exactly the members 3.4.12 added', (name) => {
    const item = golden(name);
    const expected = eventsOf(item).flatMap((event, index) => {
      const at = `/update/Transaction/value/events/${index}`;
      if (event.CreatedEvent) {
        return [
          `${at}/CreatedEvent must have required member 'representativePackageId'`,
          `${at}/CreatedEvent must have required member 'acsDelta'`,
        ];
      }
      if (event.ExercisedEvent)
        return [`${at}/ExercisedEvent must have required member 'acsDelta'`];
      return [];
    });
    expect(expected.length).toBeGreaterThan(0);
    const found = validateStreamMessage('/v2/updates', 'fromServer', item).map(
      (m) => `${m.location} ${m.message}`,
    );
    expect(found.sort()).toEqual(expected.sort());
  });

  it.each(GOLDEN)('%s in 3.4.12 shape is a valid stream item and HTTP answer', (name) => {
    const item = as3412(golden(name));
    expect(texts(validateStreamMessage('/v2/updates', 'fromServer', item))).toEqual([]);
    expect(texts(validateResponse('ledger-api', 'POST', '/v2/updates', 200, [item]))).toEqual([]);
  });

  it('null for an optional member is absent, for a required one it is a mismatch', () => {
    const item = as3412(golden('1-step-transfer'));
    const first = eventsOf(item)[0]?.ExercisedEvent as Json;
    expect(first.interfaceId).toBeNull();
    expect(texts(validateStreamMessage('/v2/updates', 'fromServer', item))).toEqual([]);
    first.choice = null;
    expect(texts(validateStreamMessage('/v2/updates', 'fromServer', item))).toEqual([
      "ws /v2/updates fromServer: body/update/Transaction/value/events/0/ExercisedEvent member 'choice' is null; it is required",
    ]);
  });

  it('members the document does not name are allowed', () => {
    const item = as3412(golden('transfer-instruction-create'));
    (eventsOf(item)[0]?.CreatedEvent as Json).somethingNewer = { x: 1 };
    expect(texts(validateStreamMessage('/v2/updates', 'fromServer', item))).toEqual([]);
  });
});

describe('stream messages', () => {
  const request = {
    beginExclusive: 0,
    updateFormat: {
      includeTransactions: {
        eventFormat: { filtersByParty: { 'alice::1220': { cumulative: [] } } },
        transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
      },
    },
  };

  it('accepts a GetUpdatesRequest, a checkpoint and an error', () => {
    expect(texts(validateStreamMessage('/v2/updates', 'fromClient', request))).toEqual([]);
    const checkpoint = {
      update: {
        OffsetCheckpoint: {
          value: {
            offset: 12,
            synchronizerTimes: [
              { synchronizerId: 'sync::1220', recordTime: '2030-01-01T00:00:00Z' },
            ],
          },
        },
      },
    };
    expect(texts(validateStreamMessage('/v2/updates', 'fromServer', checkpoint))).toEqual([]);
    const error = {
      code: 'PARTICIPANT_PRUNED_DATA_ACCESSED',
      cause: 'offset 3 is pruned',
      context: {},
      errorCategory: 9,
    };
    expect(texts(validateStreamMessage('/v2/updates', 'fromServer', error))).toEqual([]);
  });

  it('a request with the wrong type names the member', () => {
    const wrong = { ...request, beginExclusive: '0' };
    expect(texts(validateStreamMessage('/v2/updates', 'fromClient', wrong))).toEqual([
      'ws /v2/updates fromClient: body/beginExclusive must be integer',
    ]);
  });

  it('an error without its required members is refused as an error', () => {
    expect(
      texts(validateStreamMessage('/v2/updates', 'fromServer', { code: 'X', cause: 'y' })),
    ).toEqual([
      "ws /v2/updates fromServer: body must have required member 'context'",
      "ws /v2/updates fromServer: body must have required member 'errorCategory'",
    ]);
  });

  it('an update with an unknown variant names the variants', () => {
    expect(
      texts(validateStreamMessage('/v2/updates', 'fromServer', { update: { Flat: {} } })),
    ).toEqual([
      'ws /v2/updates fromServer: body/update must have exactly one of the members OffsetCheckpoint, Reassignment, TopologyTransaction, Transaction',
    ]);
  });

  it('a mismatch inside a variant names the member, not every variant', () => {
    const item = as3412(golden('transfer-instruction-create'));
    (eventsOf(item)[0]?.CreatedEvent as Json).offset = '77';
    expect(texts(validateStreamMessage('/v2/updates', 'fromServer', item))).toEqual([
      'ws /v2/updates fromServer: body/update/Transaction/value/events/0/CreatedEvent/offset must be integer',
    ]);
  });

  it('an unknown channel is a mismatch', () => {
    expect(texts(validateStreamMessage('/v2/nothing', 'fromClient', {}))).toEqual([
      "ws /v2/nothing fromClient: body no channel /v2/nothing in the ledger API's AsyncAPI document",
    ]);
  });
});

describe('HTTP requests and answers', () => {
  it('accepts a submit-and-wait-for-transaction request', () => {
    const body = { commands: validCommands() };
    expect(
      texts(
        validateRequest('ledger-api', 'POST', '/v2/commands/submit-and-wait-for-transaction', body),
      ),
    ).toEqual([]);
  });

  it('a missing required member and a wrong type are named by path', () => {
    const commands = validCommands();
    delete commands.commandId;
    commands.actAs = 'pool::1220';
    expect(
      texts(
        validateRequest('ledger-api', 'POST', '/v2/commands/submit-and-wait-for-transaction', {
          commands,
        }),
      ).sort(),
    ).toEqual(
      [
        "POST /v2/commands/submit-and-wait-for-transaction request: body/commands must have required member 'commandId'",
        'POST /v2/commands/submit-and-wait-for-transaction request: body/commands/actAs must be array',
      ].sort(),
    );
  });

  it('a command that is no known variant is refused', () => {
    const commands = validCommands();
    commands.commands = [{ ExerciseByKeyCommandX: {} }];
    expect(
      texts(validateRequest('ledger-api', 'POST', '/v2/commands/submit-and-wait', commands)),
    ).toEqual([
      'POST /v2/commands/submit-and-wait request: body/commands/0 must have exactly one of the members CreateAndExerciseCommand, CreateCommand, ExerciseByKeyCommand, ExerciseCommand',
    ]);
  });

  it('path templates match concrete paths, and a query string is ignored', () => {
    expect(
      texts(validateRequest('ledger-api', 'GET', '/v2/parties/alice%3A%3A1220', undefined)),
    ).toEqual([]);
    expect(
      texts(
        validateResponse(
          'ledger-api',
          'GET',
          '/v2/parties/alice::1220?identity-provider-id=',
          200,
          {
            partyDetails: [{ party: 'alice::1220', isLocal: true }],
          },
        ),
      ),
    ).toEqual([]);
    expect(
      texts(validateResponse('ledger-api', 'GET', '/v2/state/ledger-end', 200, { offset: 41 })),
    ).toEqual([]);
    expect(
      texts(validateResponse('ledger-api', 'GET', '/v2/state/ledger-end', 200, { offset: '41' })),
    ).toEqual(['GET /v2/state/ledger-end response 200: body/offset must be integer']);
  });

  it('an unknown path, an unknown method and a missing body are mismatches', () => {
    expect(texts(validateRequest('ledger-api', 'GET', '/v2/nowhere', undefined))).toEqual([
      'GET /v2/nowhere request: body no path of the ledger-api document matches /v2/nowhere',
    ]);
    expect(
      texts(validateRequest('ledger-api', 'DELETE', '/v2/state/ledger-end', undefined)),
    ).toEqual([
      'DELETE /v2/state/ledger-end request: body /v2/state/ledger-end has no DELETE operation in the ledger-api document',
    ]);
    expect(texts(validateRequest('ledger-api', 'POST', '/v2/updates', undefined))).toEqual([
      'POST /v2/updates request: body needs a body and has none',
    ]);
  });

  it('error answers are JsCantonError; an undocumented shape is named', () => {
    const error = { code: 'DUPLICATE_COMMAND', cause: 'dup', context: {}, errorCategory: 10 };
    expect(
      texts(validateResponse('ledger-api', 'POST', '/v2/commands/submit-and-wait', 409, error)),
    ).toEqual([]);
    expect(
      texts(
        validateResponse('ledger-api', 'POST', '/v2/commands/submit-and-wait', 500, {
          message: 'x',
        }),
      ),
    ).toEqual([
      "POST /v2/commands/submit-and-wait response 500: body must have required member 'code'",
      "POST /v2/commands/submit-and-wait response 500: body must have required member 'cause'",
      "POST /v2/commands/submit-and-wait response 500: body must have required member 'context'",
      "POST /v2/commands/submit-and-wait response 500: body must have required member 'errorCategory'",
    ]);
  });

  it('registry paths match under any base URL', () => {
    const base = '/api/validator/v0/scan-proxy';
    const context = { choiceContextData: { values: {} }, disclosedContracts: [] };
    for (const path of [
      '/registry/transfer-instruction/v1/00ab/choice-contexts/accept',
      '/registries/cbtc/registry/transfer-instruction/v1/00ab/choice-contexts/withdraw',
      `${base}/registry/transfer-instruction/v1/00ab/choice-contexts/reject`,
    ]) {
      expect(texts(validateResponse('registry', 'POST', path, 200, context))).toEqual([]);
    }
    expect(
      texts(
        validateResponse(
          'registry',
          'POST',
          '/registry/transfer-instruction/v1/00ab/choice-contexts/accept',
          200,
          {
            choiceContextData: { values: {} },
            disclosedContracts: [{ contractId: '00cd' }],
          },
        ),
      ),
    ).toEqual([
      "POST /registry/transfer-instruction/v1/00ab/choice-contexts/accept response 200: body/disclosedContracts/0 must have required member 'templateId'",
      "POST /registry/transfer-instruction/v1/00ab/choice-contexts/accept response 200: body/disclosedContracts/0 must have required member 'createdEventBlob'",
      "POST /registry/transfer-instruction/v1/00ab/choice-contexts/accept response 200: body/disclosedContracts/0 must have required member 'synchronizerId'",
    ]);
    expect(
      texts(
        validateResponse('registry', 'GET', '/registry/metadata/v1/instruments/CBTC', 200, {
          id: 'CBTC',
          name: 'Canton BTC',
          symbol: 'CBTC',
          decimals: 300,
          supportedApis: {},
        }),
      ),
    ).toEqual([
      'GET /registry/metadata/v1/instruments/CBTC response 200: body/decimals must match format "int8"',
    ]);
  });

  it('scan proxy paths match under the validator base', () => {
    const path = '/api/validator/v0/scan-proxy/open-and-issuing-mining-rounds';
    expect(
      texts(validateResponse('scan-proxy', 'GET', path, 200, { open_mining_rounds: [] })),
    ).toEqual([`GET ${path} response 200: body must have required member 'issuing_mining_rounds'`]);
  });

  it('documentFor sorts paths the way a participant and a validator serve them', async () => {
    const { wireValidator } = await import('./support/wire-validator.js');
    const v = wireValidator();
    expect(v.documentFor('/v2/updates')).toBe('ledger-api');
    expect(v.documentFor('/registry/metadata/v1/info')).toBe('registry');
    expect(v.documentFor('/api/validator/v0/scan-proxy/amulet-rules')).toBe('scan-proxy');
    expect(
      v.documentFor(
        '/api/validator/v0/scan-proxy/registry/transfer-instruction/v1/transfer-factory',
      ),
    ).toBe('registry');
    expect(v.documentFor('/devnet/parties')).toBeNull();
  });
});

describe('answers named by reference', () => {
  it('a registry 404 is an ErrorResponse from the shared responses', () => {
    const path = '/registry/transfer-instruction/v1/transfer-factory';
    expect(
      texts(validateResponse('registry', 'POST', path, 404, { error: 'no such admin' })),
    ).toEqual([]);
    expect(texts(validateResponse('registry', 'POST', path, 404, { message: 'x' }))).toEqual([
      `POST ${path} response 404: body must have required member 'error'`,
    ]);
  });
});

describe("the documents' own allowances", () => {
  const filter = { filtersByParty: { 'alice::1220': { cumulative: [] } } };
  const updateFormat = {
    includeTransactions: {
      eventFormat: filter,
      transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
    },
  };

  it('a GetUpdatesRequest has updateFormat or the legacy filter, never both nor neither', () => {
    for (const channel of ['/v2/updates', '/v2/updates/flats']) {
      expect(
        texts(validateStreamMessage(channel, 'fromClient', { filter, verbose: true })),
      ).toEqual([]);
      expect(texts(validateStreamMessage(channel, 'fromClient', { updateFormat }))).toEqual([]);
    }
    expect(
      texts(validateStreamMessage('/v2/updates', 'fromClient', { filter, updateFormat })),
    ).toEqual([
      "ws /v2/updates fromClient: body must not have 'updateFormat' together with the legacy 'filter'",
    ]);
    expect(
      texts(validateRequest('ledger-api', 'POST', '/v2/updates', { beginExclusive: 0 })),
    ).toEqual(["POST /v2/updates request: body must have required member 'updateFormat'"]);
  });

  it('a 400 is the decoder text or a JsCantonError', () => {
    const path = '/v2/state/active-contracts';
    expect(
      texts(validateResponse('ledger-api', 'POST', path, 400, 'Invalid value for: body')),
    ).toEqual([]);
    const refusal = { code: 'INVALID_ARGUMENT', cause: 'bad', context: {}, errorCategory: 8 };
    expect(texts(validateResponse('ledger-api', 'POST', path, 400, refusal))).toEqual([]);
    expect(texts(validateResponse('ledger-api', 'POST', path, 400, { cause: 'bad' }))).toEqual([
      `POST ${path} response 400: body must have required member 'code'`,
      `POST ${path} response 400: body must have required member 'context'`,
      `POST ${path} response 400: body must have required member 'errorCategory'`,
    ]);
  });
});

describe('path and query parameters', () => {
  const body = {
    beginExclusive: 0,
    updateFormat: {
      includeTransactions: {
        eventFormat: { filtersByParty: { 'alice::1220': { cumulative: [] } } },
        transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
      },
    },
  };

  it('documented query parameters of the right type pass', () => {
    expect(texts(validateRequest('ledger-api', 'POST', '/v2/updates?limit=200', body))).toEqual([]);
    expect(
      texts(
        validateRequest(
          'ledger-api',
          'GET',
          '/v2/parties/a::1?parties=b::1&parties=c::1',
          undefined,
        ),
      ),
    ).toEqual([]);
  });

  it('a query parameter of the wrong type or unknown name is named', () => {
    expect(texts(validateRequest('ledger-api', 'POST', '/v2/updates?limit=lots', body))).toEqual([
      "POST /v2/updates request: query parameter 'limit' must be integer",
    ]);
    expect(texts(validateRequest('ledger-api', 'POST', '/v2/updates?limt=5', body))).toEqual([
      "POST /v2/updates request: query parameter 'limt' is not a parameter of the operation",
    ]);
  });

  it('a required query parameter and a typed path parameter are checked', () => {
    expect(
      texts(
        validateRequest(
          'ledger-api',
          'GET',
          '/v2/interactive-submission/preferred-package-version',
          undefined,
        ),
      ),
    ).toEqual([
      "GET /v2/interactive-submission/preferred-package-version request: query parameter 'package-name' is required and missing",
    ]);
    expect(
      texts(
        validateRequest(
          'ledger-api',
          'GET',
          '/v2/updates/transaction-tree-by-offset/x12',
          undefined,
        ),
      ),
    ).toEqual([
      "GET /v2/updates/transaction-tree-by-offset/x12 request: path parameter 'offset' must be integer",
    ]);
  });
});
