/**
 * Malformed requests on every participant path that takes a body: a 4xx JsCantonError with a
 * stable code, never a server failure; registry paths answer their `{ error }` body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, call, expectSchema, startWorld, type World } from './support/server.js';

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
];

function expectClientCantonError(answer: Answer, context: string): void {
  expect({ context, status: answer.status >= 400 && answer.status < 500 }).toEqual({
    context,
    status: true,
  });
  expectSchema('ledger', 'JsCantonError', answer.body);
}

describe('malformed requests', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(() => world.close());

  it('are refused with a 4xx JsCantonError on every participant path', async () => {
    for (const path of PARTICIPANT_POSTS) {
      for (const body of MALFORMED) {
        const answer = await call(world.server.url, 'POST', path, body);
        if (answer.status === 200) continue; // e.g. `{}` grants no rights: a valid request
        expectClientCantonError(answer, `${path} ${JSON.stringify(body)}`);
      }
    }
  });

  it('are refused with a 400 `{ error }` on the registry paths', async () => {
    const base = new URL(world.server.registryUrl).pathname;
    for (const body of MALFORMED) {
      const answer = await call(
        world.server.url,
        'POST',
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
