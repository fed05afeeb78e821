/**
 * The Daml types of the values the devnet puts in a prepared transaction: the arguments of the
 * Token Standard choices it runs (`TransferFactory_Transfer`, `TransferInstruction_Accept`,
 * `_Reject`, `_Withdraw`, `AllocationFactory_Allocate`, `Allocation_ExecuteTransfer`, `_Cancel`,
 * `_Withdraw`) and of the contracts it creates and reads (holdings, transfer instructions,
 * transfer factories, allocations), written as the Splice interface packages declare them.
 *
 * A participant types a command's JSON by the package that defines the choice; the devnet has
 * no Daml packages, so these declarations stand in for them. Record fields are listed in their
 * declared order, which is the order the hash encodes them in.
 */

export type DamlType =
  | { readonly kind: 'party' | 'text' | 'numeric' | 'timestamp' | 'date' }
  | { readonly kind: 'int64' | 'bool' | 'contractId' | 'unit' }
  | { readonly kind: 'list' | 'optional' | 'textMap'; readonly of: DamlType }
  | { readonly kind: 'record'; readonly fields: readonly (readonly [string, DamlType])[] }
  | { readonly kind: 'variant'; readonly constructors: Readonly<Record<string, DamlType>> };

const party: DamlType = { kind: 'party' };
const text: DamlType = { kind: 'text' };
const numeric: DamlType = { kind: 'numeric' };
const timestamp: DamlType = { kind: 'timestamp' };
const contractId: DamlType = { kind: 'contractId' };
const listOf = (of: DamlType): DamlType => ({ kind: 'list', of });
const optionalOf = (of: DamlType): DamlType => ({ kind: 'optional', of });
const textMapOf = (of: DamlType): DamlType => ({ kind: 'textMap', of });
const record = (...fields: (readonly [string, DamlType])[]): DamlType => ({
  kind: 'record',
  fields,
});

/** `Splice.Api.Token.MetadataV1.AnyValue`'s constructors: the values a choice context carries. */
const anyValueConstructors: Record<string, DamlType> = {
  AV_Text: text,
  AV_Int: { kind: 'int64' },
  AV_Decimal: numeric,
  AV_Bool: { kind: 'bool' },
  AV_Date: { kind: 'date' },
  AV_Time: timestamp,
  AV_RelTime: record(['microseconds', { kind: 'int64' }]),
  AV_Party: party,
  AV_ContractId: contractId,
};
const anyValue: DamlType = { kind: 'variant', constructors: anyValueConstructors };
// AnyValue is recursive: a list or map of AnyValues is itself one.
anyValueConstructors.AV_List = listOf(anyValue);
anyValueConstructors.AV_Map = textMapOf(anyValue);

const metadata = record(['values', textMapOf(text)]);
const extraArgs = record(['context', record(['values', textMapOf(anyValue)])], ['meta', metadata]);
const instrumentId = record(['admin', party], ['id', text]);

/** `Splice.Api.Token.TransferInstructionV1.Transfer`. */
const transfer = record(
  ['sender', party],
  ['receiver', party],
  ['amount', numeric],
  ['instrumentId', instrumentId],
  ['requestedAt', timestamp],
  ['executeBefore', timestamp],
  ['inputHoldingCids', listOf(contractId)],
  ['meta', metadata],
);

/** `Splice.Api.Token.HoldingV1.Lock`. */
const lock = record(
  ['holders', listOf(party)],
  ['expiresAt', optionalOf(timestamp)],
  ['expiresAfter', optionalOf(record(['microseconds', { kind: 'int64' }]))],
  ['context', optionalOf(text)],
);

/** `Splice.Api.Token.AllocationV1.AllocationSpecification`. */
const allocationSpecification = record(
  [
    'settlement',
    record(
      ['executor', party],
      ['settlementRef', record(['id', text], ['cid', optionalOf(contractId)])],
      ['requestedAt', timestamp],
      ['allocateBefore', timestamp],
      ['settleBefore', timestamp],
      ['meta', metadata],
    ),
  ],
  ['transferLegId', text],
  [
    'transferLeg',
    record(
      ['sender', party],
      ['receiver', party],
      ['amount', numeric],
      ['instrumentId', instrumentId],
      ['meta', metadata],
    ),
  ],
);

/** The argument of each choice the devnet runs, by choice name. */
export const CHOICE_ARGUMENT_TYPES: Readonly<Record<string, DamlType>> = {
  TransferFactory_Transfer: record(
    ['expectedAdmin', party],
    ['transfer', transfer],
    ['extraArgs', extraArgs],
  ),
  TransferInstruction_Accept: record(['extraArgs', extraArgs]),
  TransferInstruction_Reject: record(['extraArgs', extraArgs]),
  TransferInstruction_Withdraw: record(['extraArgs', extraArgs]),
  AllocationFactory_Allocate: record(
    ['expectedAdmin', party],
    ['allocation', allocationSpecification],
    ['requestedAt', timestamp],
    ['inputHoldingCids', listOf(contractId)],
    ['extraArgs', extraArgs],
  ),
  Allocation_ExecuteTransfer: record(['extraArgs', extraArgs]),
  Allocation_Cancel: record(['extraArgs', extraArgs]),
  Allocation_Withdraw: record(['extraArgs', extraArgs]),
};

/** The create arguments of the devnet's contracts (see the ledger's wire codec). */
export const CONTRACT_ARGUMENT_TYPES = {
  holding: record(
    ['admin', party],
    ['owner', party],
    ['instrumentId', instrumentId],
    ['amount', numeric],
    ['lock', optionalOf(lock)],
    ['meta', metadata],
  ),
  transferInstruction: record(['admin', party], ['transfer', transfer]),
  transferFactory: record(['admin', party]),
  allocation: record(
    ['admin', party],
    ['allocation', allocationSpecification],
    ['holdingCids', listOf(contractId)],
    ['meta', metadata],
  ),
} as const satisfies Readonly<Record<string, DamlType>>;
