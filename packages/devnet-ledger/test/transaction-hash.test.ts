/**
 * The devnet's hash of a prepared transaction (hashing scheme V2) against the official wallet
 * SDK's own implementation, on a transaction with every node type and every kind of Daml value,
 * and its refusal of transactions no participant prepares (a node its own child).
 */
import type { PreparedTransaction, Value } from '@canton-network/core-ledger-proto';
import { hashPreparedTransaction } from '@canton-network/core-tx-visualizer';
import { TopologyController } from '@canton-network/wallet-sdk';
import { describe, expect, it } from 'vitest';
import { preparedTransactionHash, UnhashableTransaction } from '../src/transaction-hash.js';

const ID = { packageId: 'ab'.repeat(32), moduleName: 'Splice.Amulet', entityName: 'Amulet' };
const CID = `00${'cd'.repeat(33)}`;
const text = (t: string): Value => ({ sum: { oneofKind: 'text', text: t } });

/** One value of every kind, nested in a record. */
const EVERY_VALUE: Value = {
  sum: {
    oneofKind: 'record',
    record: {
      recordId: ID,
      fields: [
        { label: 'unit', value: { sum: { oneofKind: 'unit', unit: {} } } },
        { label: 'bool', value: { sum: { oneofKind: 'bool', bool: true } } },
        { label: 'int64', value: { sum: { oneofKind: 'int64', int64: '-42' } } },
        { label: 'numeric', value: { sum: { oneofKind: 'numeric', numeric: '1.2500000000' } } },
        {
          label: 'time',
          value: { sum: { oneofKind: 'timestamp', timestamp: '1700000000000000' } },
        },
        { label: 'date', value: { sum: { oneofKind: 'date', date: 19_700 } } },
        { label: 'party', value: { sum: { oneofKind: 'party', party: 'alice::1220ab' } } },
        { label: '', value: text('unlabelled') },
        { label: 'cid', value: { sum: { oneofKind: 'contractId', contractId: CID } } },
        { label: 'none', value: { sum: { oneofKind: 'optional', optional: {} } } },
        {
          label: 'some',
          value: { sum: { oneofKind: 'optional', optional: { value: text('x') } } },
        },
        {
          label: 'list',
          value: { sum: { oneofKind: 'list', list: { elements: [text('a'), text('b')] } } },
        },
        {
          label: 'textMap',
          value: {
            sum: { oneofKind: 'textMap', textMap: { entries: [{ key: 'k', value: text('v') }] } },
          },
        },
        {
          label: 'genMap',
          value: {
            sum: {
              oneofKind: 'genMap',
              genMap: { entries: [{ key: text('k'), value: text('v') }] },
            },
          },
        },
        {
          label: 'variant',
          value: {
            sum: {
              oneofKind: 'variant',
              variant: { variantId: ID, constructor: 'Some', value: text('v') },
            },
          },
        },
        { label: 'enum', value: { sum: { oneofKind: 'enum', enum: { constructor: 'Red' } } } },
      ],
    },
  },
};

const create = {
  lfVersion: '2.1',
  contractId: CID,
  packageName: 'splice-amulet',
  templateId: ID,
  argument: EVERY_VALUE,
  signatories: ['alice::1220ab'],
  stakeholders: ['alice::1220ab', 'bob::1220cd'],
};

/** A version-1 node; the node types are checked by the hash, not by this helper. */
function node(nodeId: string, nodeType: unknown) {
  return { nodeId, versionedNode: { oneofKind: 'v1', v1: { nodeType } } } as never;
}

function transaction(children: string[] = ['1', '2', '3']): PreparedTransaction {
  const exercise = {
    ...create,
    actingParties: ['alice::1220ab'],
    interfaceId: { ...ID, entityName: 'Holding' },
    choiceId: 'Transfer',
    chosenValue: EVERY_VALUE,
    consuming: true,
    children,
    exerciseResult: text('done'),
    choiceObservers: ['carol::1220ef'],
  };
  const { argument: _argument, ...fetch } = { ...create, actingParties: ['alice::1220ab'] };
  return {
    transaction: {
      version: '2.1',
      roots: ['0'],
      nodes: [
        node('0', { oneofKind: 'exercise', exercise }),
        node('1', { oneofKind: 'create', create }),
        node('2', { oneofKind: 'fetch', fetch }),
        node('3', { oneofKind: 'rollback', rollback: { children: ['1'] } }),
      ],
      nodeSeeds: [
        { nodeId: 0, seed: new Uint8Array(32).fill(7) },
        { nodeId: 1, seed: new Uint8Array(32).fill(9) },
      ],
    },
    metadata: {
      submitterInfo: { actAs: ['alice::1220ab'], commandId: 'cmd-1' },
      synchronizerId: 'global-domain::1220ff',
      mediatorGroup: 0,
      transactionUuid: '6b0f6b0e-3c1e-4b1a-9f6c-2b7a1d3e4f50',
      preparationTime: 1_700_000_000_000_000n,
      minLedgerEffectiveTime: 1_699_999_999_000_000n,
      inputContracts: [
        {
          contract: { oneofKind: 'v1', v1: create },
          createdAt: 1_600_000_000_000_000n,
          eventBlob: new Uint8Array(),
        },
      ],
      globalKeyMapping: [],
    },
  };
}

/** The transaction with every node's contract id replaced. */
function withContractId(prepared: PreparedTransaction, contractId: string) {
  // Nodes hold only JSON values (seeds are beside them), so a JSON copy is exact.
  const nodes = (prepared.transaction?.nodes ?? []).map((node) =>
    JSON.parse(JSON.stringify(node, (_key, value) => (value === CID ? contractId : value))),
  );
  return { ...(prepared.transaction as NonNullable<PreparedTransaction['transaction']>), nodes };
}

describe('the V2 hash of a prepared transaction', () => {
  it('equals the wallet SDK’s on every node type and every kind of value', async () => {
    const prepared = transaction();
    const ours = Buffer.from(preparedTransactionHash(prepared)).toString('base64');
    expect(await TopologyController.createTransactionHash(prepared as never)).toBe(ours);
    expect(await hashPreparedTransaction(prepared as never)).toBe(ours);
  });

  it('reads a devnet contract id as the wallet SDK reads it: pair by pair, odd tail dropped', async () => {
    const devnetIds = [
      'holding-12-0a1b2c3d4e5f6789',
      'offer-7-ffee00112233aabb',
      'transfer-factory-9a',
    ];
    for (const contractId of devnetIds) {
      const base = transaction();
      const prepared = { ...base, transaction: withContractId(base, contractId) };
      const ours = Buffer.from(preparedTransactionHash(prepared)).toString('base64');
      expect(await TopologyController.createTransactionHash(prepared as never)).toBe(ours);
      expect(await hashPreparedTransaction(prepared as never)).toBe(ours);
    }
  });

  it('refuses a transaction whose node is its own child', () => {
    expect(() => preparedTransactionHash(transaction(['0']))).toThrow(UnhashableTransaction);
  });
});
