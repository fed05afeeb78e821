/**
 * CreateCommands as a wallet sends them: the Splice wallet's TransferPreapprovalProposal, which
 * the devnet's validator accepts at once (the receiver then pre-approves Amulet), and the
 * refusal, in Canton's shapes, of every template the devnet has no package of.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { expectCantonError, expectSchema, sharedWorld } from './support/server.js';

const SUBMIT = '/v2/commands/submit-and-wait';
const PROPOSAL = '#splice-wallet:Splice.Wallet.TransferPreapproval:TransferPreapprovalProposal';
const PING = '#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping';

function createSubmission(
  commandId: string,
  actAs: string[],
  templateId: string,
  createArguments: object,
) {
  return {
    commands: [{ CreateCommand: { templateId, createArguments } }],
    commandId,
    actAs,
    userId: 'poolparty',
  };
}

describe('create commands', () => {
  const world = sharedWorld();
  let operator: string;
  beforeAll(async () => {
    operator = (await world.get('/api/validator/v0/validator-user')).body.party_id;
  });

  const propose = (commandId: string, receiver: string, extra: object = {}, actAs = [receiver]) =>
    world.post(
      SUBMIT,
      createSubmission(commandId, actAs, PROPOSAL, {
        provider: operator,
        receiver,
        expectedDso: world.amulet.admin,
        ...extra,
      }),
    );

  it('names splice-wallet as a package, in a version whose proposal names the DSO', async () => {
    const answer = await world.get(
      '/v2/interactive-submission/preferred-package-version?package-name=splice-wallet',
    );
    expectSchema('ledger', 'GetPreferredPackageVersionResponse', answer.body);
    expect(answer.body.packagePreference.packageReference.packageVersion).toBe('0.1.11');
  });

  it('pre-approves Amulet for the receiver of a proposal, which the scan proxy then finds', async () => {
    const lookup = `/api/validator/v0/scan-proxy/transfer-preapprovals/by-party/${encodeURIComponent(world.treasury)}`;
    expect((await world.get(lookup)).status).toBe(404);
    const answer = await propose('preapprove-treasury', world.treasury);
    expect(answer.status).toBe(200);
    expectSchema('ledger', 'SubmitAndWaitResponse', answer.body);
    expect(answer.body.completionOffset).toBe(await world.ledger.ledgerEnd());
    expect(await world.ledger.preapproves(world.treasury, world.amulet)).toBe(true);
    const found = await world.get(lookup);
    expectSchema('scan', 'LookupTransferPreapprovalByPartyResponse', found.body);
    const completions = await world.post('/v2/commands/completions', {
      userId: 'poolparty',
      parties: [world.treasury],
      beginExclusive: 0,
    });
    for (const item of completions.body) expectSchema('ledger', 'CompletionStreamResponse', item);
    const ids = completions.body.map(
      (i: { completionResponse: { Completion?: { value: { commandId: string } } } }) =>
        i.completionResponse.Completion?.value.commandId,
    );
    expect(ids).toContain('preapprove-treasury');
    const again = await propose('preapprove-treasury', world.treasury);
    expectCantonError(again, 409, 'DUPLICATE_COMMAND');
  });

  it('answers the proposal’s transaction when asked for it, as submit-and-wait-for-transaction', async () => {
    const { commands, ...rest } = createSubmission('preapprove-pool', [world.pool], PROPOSAL, {
      provider: operator,
      receiver: world.pool,
    });
    const answer = await world.post('/v2/commands/submit-and-wait-for-transaction', {
      commands: { commands, ...rest },
    });
    expect(answer.status).toBe(200);
    expectSchema('ledger', 'JsSubmitAndWaitForTransactionResponse', answer.body);
    expect(answer.body.transaction.commandId).toBe('preapprove-pool');
  });

  it('refuses a proposal the devnet’s validator would never accept, changing nothing', async () => {
    const end = await world.ledger.ledgerEnd();
    const otherProvider = await propose('other-provider', world.pool, { provider: world.pool });
    expectCantonError(otherProvider, 400, 'INVALID_ARGUMENT');
    const otherDso = await propose('other-dso', world.pool, { expectedDso: world.pool });
    expectCantonError(otherDso, 400, 'DAML_FAILURE');
    const notSigned = await propose('not-signed', world.pool, {}, [world.treasury]);
    expectCantonError(notSigned, 400, 'DAML_AUTHORIZATION_ERROR');
    expect(await world.ledger.ledgerEnd()).toBe(end);
  });

  it('refuses templates it has no package of as a participant does, Canton’s ping included', async () => {
    const ping = await world.post(
      SUBMIT,
      createSubmission('ping', [world.treasury], PING, {
        id: 'ping-1',
        initiator: world.treasury,
        responder: world.pool,
      }),
    );
    expectCantonError(ping, 404, 'PACKAGE_NAMES_NOT_FOUND');
    expect(ping.body.cause).toContain('canton-builtin-admin-workflow-ping');
    const unknown = await world.post(
      SUBMIT,
      createSubmission(
        'unknown',
        [world.treasury],
        '#splice-wallet:Splice.Wallet.Nothing:Nothing',
        {},
      ),
    );
    expectCantonError(unknown, 404, 'TEMPLATES_OR_INTERFACES_NOT_FOUND');
  });

  it('says why it does not prepare a creation for external signing', async () => {
    const answer = await world.post('/v2/interactive-submission/prepare', {
      userId: 'poolparty',
      commandId: 'prepare-create',
      commands: [
        {
          CreateCommand: {
            templateId: PROPOSAL,
            createArguments: { provider: operator, receiver: world.wallet.partyId },
          },
        },
      ],
      actAs: [world.wallet.partyId],
    });
    expectCantonError(answer, 400, 'INVALID_ARGUMENT');
    expect(answer.body.cause).toContain('CreateCommand');
    expect(answer.body.cause).not.toContain('ExerciseCommand must be an object');
  });
});
