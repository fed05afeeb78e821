/**
 * Prepared transactions for the SDK's unit tests, in the protobuf wire format Canton's
 * `PreparedTransaction` uses: nodes whose exercise argument is a Daml record with a `transfer`
 * record (sender, receiver, amount, instrumentId), as a `TransferFactory_Transfer` has.
 */
function varint(value: number): number[] {
  const out: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    out.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
  return out;
}

function len(no: number, payload: Uint8Array): Uint8Array {
  return new Uint8Array([...varint(no * 8 + 2), ...varint(payload.length), ...payload]);
}

const utf8 = (value: string) => new TextEncoder().encode(value);
const concat = (...parts: Uint8Array[]) => new Uint8Array(parts.flatMap((p) => [...p]));

const party = (id: string) => len(7, utf8(id));
const numeric = (amount: string) => len(6, utf8(amount));
const text = (value: string) => len(8, utf8(value));
function record(fields: Record<string, Uint8Array>): Uint8Array {
  const entries = Object.entries(fields).map(([label, value]) =>
    len(2, concat(len(1, utf8(label)), len(2, value))),
  );
  return len(14, concat(...entries));
}

export interface TestTransfer {
  readonly sender: string;
  readonly receiver: string;
  readonly amount: string;
  readonly admin: string;
  readonly id: string;
}

/** A transaction of `transfers`, each an exercise node, base64 as the service answers it. */
export function preparedTransactionOf(transfers: readonly TestTransfer[]): string {
  const nodes = transfers.map((t, n) => {
    const argument = record({
      expectedAdmin: party(t.admin),
      transfer: record({
        sender: party(t.sender),
        receiver: party(t.receiver),
        amount: numeric(t.amount),
        instrumentId: record({ admin: party(t.admin), id: text(t.id) }),
      }),
    });
    // node { node_id: "n", v1 { exercise { choice_id, chosen_value } } }
    const exercise = concat(len(9, utf8('TransferFactory_Transfer')), len(10, argument));
    return len(5, concat(len(1, utf8(String(n))), len(1000, len(2, exercise))));
  });
  const transaction = len(1, concat(len(1, utf8('2.1')), ...nodes));
  return Buffer.from(transaction).toString('base64');
}
