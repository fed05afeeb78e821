/**
 * Malformed requests on every participant path that takes a body: a 4xx JsCantonError with a
 * stable code, never a server failure; registry paths answer their `{ error }` body.
 */
import { describe, expect, it } from 'vitest';
import { type Answer, expectSchema, sharedWorld } from './support/server.js';

const PARTICIPANT_POSTS = [
  '/v2/updates',
  '/v2/state/active-contracts',
  '/v2/events/events-by-contract-id',
  '/v2/commands/submit-and-wait-for-transaction',
  '/v2/commands/submit-and-wait',
  '/v2/commands/completions',
  '/v2/interactive-submission/prepare',
  '/v2/interactive-submission/execute',
  '/v2/interactive-submission/executeAndWait',
  '/v2/interactive-submission/executeAndWaitForTransaction',
  '/v2/users',
  '/v2/users/poolparty/rights',
  '/v2/parties',
  '/v2/parties/external/generate-topology',
  '/v2/parties/external/allocate',
  '/v2/updates/flats',
  '/v2/updates/update-by-id',
  '/v2/updates/update-by-offset',
  '/v2/updates/transaction-by-id',
  '/v2/updates/transaction-by-offset',
  '/v2/commands/async/submit',
  '/v2/contracts/contract-by-id',
];

const MALFORMED: readonly unknown[] = [
  [],
  'text',
  42,
  {},
  { beginExclusive: -1 },
  { beginExclusive: 'soon', updateFormat: {} },
  { activeAtOffset: 0, eventFormat: { filtersByParty: { p: { cumulative: [{}] } } } },
  { activeAtOffset: 0, eventFormat: { filtersByParty: { p: { cumulative: 'all' } } } },
  {
    activeAtOffset: 0,
    eventFormat: {
      filtersForAnyParty: {
        cumulative: [{ identifierFilter: { InterfaceFilter: { value: { interfaceId: 'nope' } } } }],
      },
    },
  },
  { contractId: '', eventFormat: {} },
  { commands: { commandId: 'c', actAs: ['p'], commands: [{ CreateCommand: {} }] } },
  {
    commands: {
      commandId: 'c',
      actAs: ['p'],
      commands: [
        {
          ExerciseCommand: {
            templateId:
              '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory',
            contractId: 'f',
            choice: 'TransferFactory_Transfer',
            choiceArgument: {
              transfer: {
                sender: 's',
                receiver: 'r',
                amount: 'lots',
                instrumentId: { admin: 'a', id: 'i' },
                executeBefore: 'later',
              },
            },
          },
        },
      ],
    },
  },
  { commandId: 'c', actAs: [], commands: [] },
  {
    preparedTransaction: '%%%',
    partySignatures: {},
    submissionId: 's',
    hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
  },
  { parties: 'p', userId: 'poolparty' },
  { user: { id: 'has spaces' } },
  { userId: 'poolparty', rights: [{ kind: { Nonsense: {} } }] },
  { partyIdHint: '' },
  {
    preparedTransaction: Buffer.from('not a protobuf at all').toString('base64'),
    partySignatures: { signatures: [] },
    submissionId: 's',
    hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
  },
  {
    synchronizer: 'global-domain::1220',
    partyHint: 'x',
    publicKey: {
      format: 'CRYPTO_KEY_FORMAT_RAW',
      keyData: 'AAAA',
      keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
    },
  },
  { synchronizer: 'nope', onboardingTransactions: [{ transaction: 'bm9wZQ==' }] },
  { synchronizer: 'nope', onboardingTransactions: 'all' },
  { updateId: 'update-99999-00', updateFormat: {} },
  { updateId: 'not-an-update', updateFormat: { includeTransactions: {} } },
  { offset: -3, updateFormat: { includeTransactions: 'yes' } },
  { updateId: 'x', requestingParties: [] },
  { contractId: 'none', queryingParties: 'p' },
];

function expectClientCantonError(answer: Answer, context: string): void {
  expect({ context, status: answer.status >= 400 && answer.status < 500 }).toEqual({
    context,
    status: true,
  });
  expectSchema('ledger', 'JsCantonError', answer.body);
}

describe('malformed requests', () => {
  const world = sharedWorld();

  it('are refused with a 4xx JsCantonError on every participant path', async () => {
    for (const path of PARTICIPANT_POSTS) {
      for (const body of MALFORMED) {
        const answer = await world.post(path, body);
        if (answer.status === 200) continue; // e.g. `{}` grants no rights: a valid request
        expectClientCantonError(answer, `${path} ${JSON.stringify(body)}`);
      }
    }
  });

  it('are refused with a 400 `{ error }` on the registry paths', async () => {
    const base = new URL(world.server.registryUrl).pathname;
    for (const body of MALFORMED) {
      const answer = await world.post(
        `${base}/registry/transfer-instruction/v1/transfer-factory`,
        body,
      );
      expect(answer.status).toBe(400);
      expectSchema('transfer', 'ErrorResponse', answer.body);
    }
  });

  it('refuses a body that is not JSON', async () => {
    const response = await fetch(`${world.server.url}/v2/state/active-contracts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(response.status).toBe(400);
    expectSchema('ledger', 'JsCantonError', await response.json());
  });
});
