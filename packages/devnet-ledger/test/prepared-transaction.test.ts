/**
 * What a prepared transaction shows a wallet: the choice argument in its Daml value kinds, the
 * ledger's own contract ids, what the transfer creates and every contract it reads, and a hash
 * the wallet SDK recomputes from all of it.
 */
import type { PreparedTransaction, Value } from '@canton-network/core-ledger-proto';
import { decodePreparedTransaction, TopologyController } from '@canton-network/wallet-sdk';
import { Amount } from '@poolparty/core';
import { transferFactoryContractId } from '@poolparty/ledger/canton/wire';
import { beforeAll, describe, expect, it } from 'vitest';
import { transferCommand, walletTransferPrepare } from './support/commands.js';
import { sharedWorld } from './support/server.js';

const PREPARE = '/v2/interactive-submission/prepare';

/** A record's fields by label. */
function fieldsOf(value: Value | undefined): Record<string, Value> {
  if (value?.sum.oneofKind !== 'record') throw new Error('not a record');
  return Object.fromEntries(value.sum.record.fields.map((f) => [f.label, f.value as Value]));
}

function exerciseAt(prepared: PreparedTransaction, nodeId: string) {
  const node = prepared.transaction?.nodes.find((n) => n.nodeId === nodeId)?.versionedNode;
  const type = node?.oneofKind === 'v1' ? node.v1.nodeType : undefined;
  if (type?.oneofKind !== 'exercise') throw new Error(`node ${nodeId} is not an exercise`);
  return type.exercise;
}

function createsOf(prepared: PreparedTransaction) {
  return (prepared.transaction?.nodes ?? []).flatMap(({ versionedNode }) =>
    versionedNode.oneofKind === 'v1' && versionedNode.v1.nodeType.oneofKind === 'create'
      ? [versionedNode.v1.nodeType.create]
      : [],
  );
}

describe('a prepared Token Standard transfer', () => {
  const world = sharedWorld();
  let prepared: PreparedTransaction;
  let answer: { preparedTransaction: string; preparedTransactionHash: string };
  beforeAll(async () => {
    const response = await world.post(
      PREPARE,
      walletTransferPrepare(world, 'typed-1', { amount: '4.5', meta: { reason: 'rent' } }),
    );
    expect(response.status).toBe(200);
    answer = response.body;
    prepared = decodePreparedTransaction(answer.preparedTransaction) as PreparedTransaction;
  });

  it('carries the choice argument in its Daml kinds', () => {
    const exercise = exerciseAt(prepared, '0');
    const argument = fieldsOf(exercise.chosenValue);
    expect(argument.expectedAdmin?.sum).toEqual({ oneofKind: 'party', party: world.amulet.admin });
    const transfer = fieldsOf(argument.transfer);
    expect(Object.keys(transfer)).toEqual([
      'sender',
      'receiver',
      'amount',
      'instrumentId',
      'requestedAt',
      'executeBefore',
      'inputHoldingCids',
      'meta',
    ]);
    expect(transfer.sender?.sum).toEqual({ oneofKind: 'party', party: world.wallet.partyId });
    expect(transfer.receiver?.sum).toEqual({ oneofKind: 'party', party: world.pool });
    expect(transfer.amount?.sum).toEqual({ oneofKind: 'numeric', numeric: '4.5000000000' });
    expect(transfer.executeBefore?.sum.oneofKind).toBe('timestamp');
    expect(fieldsOf(transfer.instrumentId).id?.sum).toEqual({ oneofKind: 'text', text: 'Amulet' });
    expect(transfer.inputHoldingCids?.sum).toEqual({ oneofKind: 'list', list: { elements: [] } });
    const meta = fieldsOf(transfer.meta).values;
    expect(meta?.sum).toEqual({
      oneofKind: 'textMap',
      textMap: {
        entries: [{ key: 'reason', value: { sum: { oneofKind: 'text', text: 'rent' } } }],
      },
    });
  });

  it('names the transfer factory by its ledger contract id', () => {
    expect(exerciseAt(prepared, '0').contractId).toBe(
      transferFactoryContractId(world.amulet.admin),
    );
  });

  it('lists the factory and the holdings it spends as input contracts, with their arguments', async () => {
    const inputs = (prepared.metadata?.inputContracts ?? []).map((input) =>
      input.contract.oneofKind === 'v1' ? input.contract.v1 : undefined,
    );
    const [holding] = await world.ledger.getHoldings(world.wallet.partyId);
    expect(inputs.map((c) => c?.contractId)).toEqual([
      transferFactoryContractId(world.amulet.admin),
      holding?.holdingId,
    ]);
    expect(fieldsOf(inputs[1]?.argument).amount?.sum).toEqual({
      oneofKind: 'numeric',
      numeric: '100.0000000000',
    });
    for (const input of prepared.metadata?.inputContracts ?? []) {
      expect(input.createdAt).toBeGreaterThan(0n);
    }
  });

  it('creates the receiver’s holding of the amount, then the sender’s change', () => {
    const creates = createsOf(prepared).map((c) => fieldsOf(c.argument));
    expect(creates.map((c) => [c.owner?.sum, c.amount?.sum])).toEqual([
      [
        { oneofKind: 'party', party: world.pool },
        { oneofKind: 'numeric', numeric: '4.5000000000' },
      ],
      [
        { oneofKind: 'party', party: world.wallet.partyId },
        { oneofKind: 'numeric', numeric: '95.5000000000' },
      ],
    ]);
    expect(exerciseAt(prepared, '0').children).toEqual(['1', '2', '3']);
  });

  it('archives the holding it spends, as the committed transaction does', async () => {
    const [holding] = await world.ledger.getHoldings(world.wallet.partyId);
    const archive = exerciseAt(prepared, '1');
    expect(archive).toMatchObject({
      contractId: holding?.holdingId,
      choiceId: 'Archive',
      consuming: true,
      actingParties: [world.amulet.admin, world.wallet.partyId],
    });
  });

  it('has the hash the wallet SDK recomputes from all of it', async () => {
    expect(await TopologyController.createTransactionHash(answer.preparedTransaction)).toBe(
      answer.preparedTransactionHash,
    );
  });

  it('refuses a choice argument with a field the Daml type does not declare', async () => {
    const command = transferCommand({
      sender: world.wallet.partyId,
      receiver: world.pool,
      instrument: world.amulet,
      amount: '1',
    });
    const exercise = command.ExerciseCommand;
    const response = await world.post(PREPARE, {
      commandId: 'typed-extra',
      commands: [
        {
          ExerciseCommand: {
            ...exercise,
            choiceArgument: { ...exercise.choiceArgument, surplus: 'x' },
          },
        },
      ],
      actAs: [world.wallet.partyId],
    });
    expect(response.status).toBe(400);
    expect(response.body.cause).toContain('choiceArgument has no field surplus');
  });
});

describe('a prepared transfer that names its input holdings', () => {
  const world = sharedWorld();

  it('lists and archives exactly the holdings it names, not the ledger’s own choice', async () => {
    await world.ledger.mint({
      owner: world.wallet.partyId,
      instrument: world.amulet,
      amount: Amount.of(7),
    });
    const holdings = await world.ledger.getHoldings(world.wallet.partyId);
    const small = holdings.find((h) => h.amount.eq(Amount.of(7)));
    if (small === undefined) throw new Error('no small holding');
    const response = await world.post(
      PREPARE,
      walletTransferPrepare(world, 'named-1', { amount: '5', inputHoldingCids: [small.holdingId] }),
    );
    expect(response.status).toBe(200);
    const prepared = decodePreparedTransaction(
      response.body.preparedTransaction,
    ) as PreparedTransaction;
    const inputs = (prepared.metadata?.inputContracts ?? []).map((input) =>
      input.contract.oneofKind === 'v1' ? input.contract.v1.contractId : undefined,
    );
    expect(inputs).toEqual([transferFactoryContractId(world.amulet.admin), small.holdingId]);
    expect(exerciseAt(prepared, '1')).toMatchObject({
      contractId: small.holdingId,
      choiceId: 'Archive',
    });
    const change = createsOf(prepared).map((c) => fieldsOf(c.argument).amount?.sum);
    expect(change).toEqual([
      { oneofKind: 'numeric', numeric: '5.0000000000' },
      { oneofKind: 'numeric', numeric: '2.0000000000' },
    ]);
  });
});
