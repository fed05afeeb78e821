/**
 * External parties submit through interactive submission: prepare, sign the hash with the
 * party's key, execute. A wrong signature, a signature by another key or a changed prepared
 * transaction submits nothing. The prepared transaction is Canton's protobuf, and the official
 * wallet SDK recomputes the hash it is given.
 */
import { decodePreparedTransaction, TopologyController } from '@canton-network/wallet-sdk';
import { Amount, generateKeyPair } from '@poolparty/core';
import { decodeTransaction } from '@poolparty/ledger/canton/wire';
import { describe, expect, it } from 'vitest';
import { ledgerEffects, transferSubmission, walletTransferPrepare } from './support/commands.js';
import { expectCantonError, expectSchema, sharedWorld } from './support/server.js';
import { executeRequest, type Prepared, partySignature } from './support/signing.js';

const PREPARE = '/v2/interactive-submission/prepare';

describe('interactive submission', () => {
  const world = sharedWorld();

  const prepare = async (commandId: string, amount = '4') => {
    const answer = await world.post(PREPARE, walletTransferPrepare(world, commandId, { amount }));
    expect(answer.status).toBe(200);
    expectSchema('ledger', 'JsPrepareSubmissionResponse', answer.body);
    return answer.body as {
      preparedTransaction: string;
      preparedTransactionHash: string;
      hashingSchemeVersion: string;
    };
  };

  /** An execute request of the wallet party's transfer, its hash signed by `signer`'s key. */
  const executeBody = (
    prepared: Prepared,
    signer: { publicKey: Uint8Array; privateKey: Uint8Array },
    submissionId: string,
  ) => ({
    ...executeRequest(
      prepared,
      [partySignature(world.wallet.partyId, prepared.preparedTransactionHash, signer)],
      submissionId,
    ),
    userId: 'poolparty',
    transactionFormat: ledgerEffects([world.wallet.partyId]),
  });

  it('executes a transfer signed by the party’s key and answers the transaction', async () => {
    const prepared = await prepare('ext-transfer-1');
    const body = executeBody(prepared, world.wallet, 'sub-1');
    expectSchema('ledger', 'JsExecuteSubmissionAndWaitForTransactionRequest', body);
    const answer = await world.post(
      '/v2/interactive-submission/executeAndWaitForTransaction',
      body,
    );
    expect(answer.status).toBe(200);
    expectSchema('ledger', 'JsExecuteSubmissionAndWaitForTransactionResponse', answer.body);
    expect(decodeTransaction(answer.body.transaction).events).toMatchObject([
      { kind: 'transfer', sender: world.wallet.partyId, receiver: world.pool },
    ]);
    expect((await world.ledger.lookupCommand('ext-transfer-1'))?.offset).toBe(
      answer.body.transaction.offset,
    );
  });

  it('answers executeAndWait with the update id and offset, and refuses the same command again', async () => {
    const prepared = await prepare('ext-transfer-2');
    const answer = await world.post(
      '/v2/interactive-submission/executeAndWait',
      executeBody(prepared, world.wallet, 'sub-2'),
    );
    expectSchema('ledger', 'ExecuteSubmissionAndWaitResponse', answer.body);
    expect(answer.body.completionOffset).toBe(await world.ledger.ledgerEnd());
    const again = await world.post(
      '/v2/interactive-submission/execute',
      executeBody(prepared, world.wallet, 'sub-3'),
    );
    expectCantonError(again, 409, 'DUPLICATE_COMMAND');
    expect(again.body.context.completion_offset).toBe(String(answer.body.completionOffset));
  });

  it('reports the completion with its submission id to the submitting user only', async () => {
    const completions = (userId: string) =>
      world.post('/v2/commands/completions', {
        userId,
        parties: [world.wallet.partyId],
        beginExclusive: 0,
      });
    const mine = await completions('poolparty');
    const values = mine.body.map(
      (item: { completionResponse: { Completion: { value: unknown } } }) =>
        item.completionResponse.Completion.value,
    );
    expect(values).toContainEqual(
      expect.objectContaining({
        commandId: 'ext-transfer-2',
        submissionId: 'sub-2',
        userId: 'poolparty',
        actAs: [world.wallet.partyId],
      }),
    );
    for (const item of mine.body) expectSchema('ledger', 'CompletionStreamResponse', item);
    expect((await completions('someone-else')).body).toEqual([]);
  });

  it('refuses a signature by another key and submits nothing', async () => {
    const prepared = await prepare('ext-wrong-key');
    const end = await world.ledger.ledgerEnd();
    const answer = await world.post(
      '/v2/interactive-submission/execute',
      executeBody(prepared, generateKeyPair(), 'sub-4'),
    );
    expectCantonError(answer, 400, 'INVALID_ARGUMENT');
    expect(await world.ledger.ledgerEnd()).toBe(end);
    expect(await world.ledger.lookupCommand('ext-wrong-key')).toBeNull();
  });

  it('prepares Canton’s PreparedTransaction, whose V2 hash the wallet SDK recomputes', async () => {
    const prepared = await prepare('ext-recomputed', '2.5');
    const decoded = decodePreparedTransaction(prepared.preparedTransaction);
    expect(decoded.metadata?.submitterInfo).toEqual({
      actAs: [world.wallet.partyId],
      commandId: 'ext-recomputed',
    });
    const root = decoded.transaction?.nodes[0]?.versionedNode;
    expect(root?.oneofKind === 'v1' && root.v1.nodeType.oneofKind).toBe('exercise');
    expect(await TopologyController.createTransactionHash(prepared.preparedTransaction)).toBe(
      prepared.preparedTransactionHash,
    );
  });

  it('refuses a prepared transaction with one byte changed after signing', async () => {
    const prepared = await prepare('ext-tampered', '1.25');
    const signedBody = executeBody(prepared, world.wallet, 'sub-5');
    const bytes = Buffer.from(prepared.preparedTransaction, 'base64');
    const at = bytes.indexOf('1.25');
    expect(at).toBeGreaterThan(0);
    bytes[at] = '9'.charCodeAt(0);
    const answer = await world.post('/v2/interactive-submission/execute', {
      ...signedBody,
      preparedTransaction: bytes.toString('base64'),
    });
    expectCantonError(answer, 400, 'INVALID_ARGUMENT');
    expect(answer.body.cause).toContain('no valid signature');
    expect(await world.ledger.lookupCommand('ext-tampered')).toBeNull();
  });

  it('refuses a transaction whose listed holdings are no longer what it would spend', async () => {
    const prepared = await prepare('ext-stale', '1');
    // A larger holding arrives: the ledger would now spend it instead of the one listed.
    await world.ledger.mint({
      owner: world.wallet.partyId,
      instrument: world.amulet,
      amount: Amount.of(500),
    });
    const end = await world.ledger.ledgerEnd();
    const answer = await world.post(
      '/v2/interactive-submission/execute',
      executeBody(prepared, world.wallet, 'sub-stale'),
    );
    expectCantonError(answer, 404, 'CONTRACT_NOT_FOUND');
    expect(answer.body.cause).toContain('prepare it again');
    expect(await world.ledger.ledgerEnd()).toBe(end);
    const again = await prepare('ext-stale-again', '1');
    const retried = await world.post(
      '/v2/interactive-submission/execute',
      executeBody(again, world.wallet, 'sub-stale-again'),
    );
    expect(retried.status).toBe(200);
  });

  it('refuses a prepared transaction it did not prepare', async () => {
    const answer = await world.post('/v2/interactive-submission/execute', {
      ...executeBody(
        { preparedTransaction: 'bm90IG91cnM=', preparedTransactionHash: 'AAAA' },
        world.wallet,
        'sub-6',
      ),
    });
    expectCantonError(answer, 400, 'INVALID_ARGUMENT');
  });

  it('still refuses the external party on the plain submission path', async () => {
    const answer = await world.post(
      '/v2/commands/submit-and-wait-for-transaction',
      transferSubmission(world, 'ext-direct', { sender: world.wallet.partyId }),
    );
    expectCantonError(answer, 403, 'PERMISSION_DENIED');
  });
});
