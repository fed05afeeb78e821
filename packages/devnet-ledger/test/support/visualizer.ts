/**
 * Reading a prepared transaction the way a wallet shows it: through `core-tx-visualizer`'s own
 * decoding (`parsePreparedTransaction`'s JSON), each root exercise with the transfer its choice
 * argument describes, or the instruction it acts on.
 */
import { parsePreparedTransaction } from '@canton-network/core-tx-visualizer';

interface JsonValue {
  sum: { oneofKind: string; [kind: string]: unknown };
}

interface JsonField {
  label: string;
  value: JsonValue;
}

function fields(value: JsonValue | undefined): Record<string, JsonValue> {
  const record = value?.sum.oneofKind === 'record' ? value.sum.record : undefined;
  const list = (record as { fields?: JsonField[] } | undefined)?.fields ?? [];
  return Object.fromEntries(list.map((f) => [f.label, f.value]));
}

/** The value's scalar as the visualizer decoded it, with its kind: `party:…`, `numeric:…`. */
function scalar(value: JsonValue | undefined): string | undefined {
  if (value === undefined) return undefined;
  return `${value.sum.oneofKind}:${String(value.sum[value.sum.oneofKind])}`;
}

export interface ShownLeg {
  readonly choiceId: string;
  readonly contractId: string;
  readonly actingParties: readonly string[];
  readonly sender?: string;
  readonly receiver?: string;
  readonly instrument?: string;
  readonly amount?: string;
  /** The first contract the leg creates: its owner and amount. */
  readonly creates?: { readonly owner?: string; readonly amount?: string };
}

interface JsonExercise {
  contractId: string;
  choiceId: string;
  actingParties: string[];
  chosenValue: JsonValue;
  children: string[];
}

interface JsonNode {
  nodeId: string;
  versionedNode: {
    v1: { nodeType: { exercise?: JsonExercise; create?: { argument: JsonValue } } };
  };
}

/** Every root exercise of a prepared transaction, as the visualizer decoded it. */
export function shownLegs(preparedTransaction: string): ShownLeg[] {
  const parsed = parsePreparedTransaction(preparedTransaction);
  const json = JSON.parse(parsed.jsonString ?? '{}');
  const nodes: JsonNode[] = json.transaction.nodes;
  const nodeType = (nodeId: string | undefined) =>
    nodes.find((n) => n.nodeId === nodeId)?.versionedNode.v1.nodeType;
  return (json.transaction.roots as string[]).map((rootId) => {
    const exercise = nodeType(rootId)?.exercise;
    if (exercise === undefined) throw new Error(`root ${rootId} is not an exercise`);
    const transfer = fields(fields(exercise.chosenValue).transfer);
    const instrument = fields(transfer.instrumentId);
    const firstCreate = exercise.children.map(nodeType).find((type) => type?.create !== undefined);
    const created = fields(firstCreate?.create?.argument);
    return {
      choiceId: exercise.choiceId,
      contractId: exercise.contractId,
      actingParties: exercise.actingParties,
      sender: scalar(transfer.sender),
      receiver: scalar(transfer.receiver),
      instrument: instrument.id && `${scalar(instrument.admin)} ${scalar(instrument.id)}`,
      amount: scalar(transfer.amount),
      creates: { owner: scalar(created.owner), amount: scalar(created.amount) },
    };
  });
}
