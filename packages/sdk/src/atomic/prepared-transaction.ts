/**
 * Reading the legs of a prepared transaction (Canton's `PreparedTransaction`, protobuf) without
 * a protobuf library: the SDK has no runtime dependencies, and a wallet must see what it signs.
 *
 * The reader walks the protobuf wire format generically and collects every Daml record that has
 * the fields of a token-standard transfer (`sender`, `receiver`, `amount`, `instrumentId`):
 * each `TransferFactory_Transfer` exercise's `transfer` argument is one. Daml values are the
 * Ledger API's `Value` message: `numeric` is field 6, `party` 7, `text` 8, `record` 14; a
 * record's fields are its field 2, each a label (1) and a value (2).
 *
 * What it does not do: recompute the transaction's hash (Canton's hashing scheme is a library of
 * its own; `verify` takes one as `hashPreparedTransaction`), or make sense of nodes other than
 * transfers.
 */

/** The most nested messages read: a two-leg swap is about 15 deep. */
const DEPTH_MAX = 64;
/** Fields of one message read at most. */
const FIELDS_MAX = 100_000;

const WIRE_VARINT = 0;
const WIRE_I64 = 1;
const WIRE_LEN = 2;
const WIRE_I32 = 5;

const VALUE_NUMERIC = 6;
const VALUE_PARTY = 7;
const VALUE_TEXT = 8;
const VALUE_RECORD = 14;

interface Field {
  readonly no: number;
  readonly wire: number;
  /** A length-delimited field's payload. */
  readonly bytes: Uint8Array | null;
}

/** A transfer the transaction holds, as its Daml record states it. */
export interface PreparedTransfer {
  readonly sender: string;
  readonly receiver: string;
  readonly amount: string;
  readonly instrument: { readonly admin: string; readonly id: string };
}

function varint(bytes: Uint8Array, at: number): [number, number] | null {
  let value = 0;
  let scale = 1;
  for (let i = at; i < bytes.length && i < at + 8; i++) {
    const byte = bytes[i] as number;
    value += (byte & 0x7f) * scale;
    if ((byte & 0x80) === 0) return [value, i + 1];
    scale *= 128;
  }
  return null;
}

/** The message's fields, or null when the bytes are not a well-formed message. */
function fieldsOf(bytes: Uint8Array): Field[] | null {
  const fields: Field[] = [];
  let at = 0;
  while (at < bytes.length) {
    if (fields.length >= FIELDS_MAX) return null;
    const key = varint(bytes, at);
    if (key === null) return null;
    const [tag, next] = key;
    const no = Math.floor(tag / 8);
    const wire = tag % 8;
    if (no === 0) return null;
    if (wire === WIRE_VARINT) {
      const skipped = varint(bytes, next);
      if (skipped === null) return null;
      fields.push({ no, wire, bytes: null });
      at = skipped[1];
    } else if (wire === WIRE_I64 || wire === WIRE_I32) {
      at = next + (wire === WIRE_I64 ? 8 : 4);
      if (at > bytes.length) return null;
      fields.push({ no, wire, bytes: null });
    } else if (wire === WIRE_LEN) {
      const length = varint(bytes, next);
      if (length === null || length[1] + length[0] > bytes.length) return null;
      fields.push({ no, wire, bytes: bytes.subarray(length[1], length[1] + length[0]) });
      at = length[1] + length[0];
    } else {
      return null;
    }
  }
  return fields;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function text(bytes: Uint8Array | null): string | null {
  if (bytes === null) return null;
  try {
    return decoder.decode(bytes);
  } catch {
    return null;
  }
}

/** The one length-delimited field `no` of a Daml `Value`, as text. */
function valueText(value: Uint8Array | undefined, no: number): string | null {
  if (value === undefined) return null;
  const fields = fieldsOf(value);
  const field = fields?.length === 1 ? fields[0] : undefined;
  return field?.no === no && field.wire === WIRE_LEN ? text(field.bytes) : null;
}

/** A Daml record's fields by label, from a record message. */
function recordFields(record: readonly Field[]): Map<string, Uint8Array> | null {
  const labelled = new Map<string, Uint8Array>();
  for (const field of record) {
    if (field.wire !== WIRE_LEN || (field.no !== 1 && field.no !== 2)) return null;
    if (field.no === 1) continue;
    const parts = fieldsOf(field.bytes ?? new Uint8Array());
    const label = text(parts?.find((p) => p.no === 1)?.bytes ?? null);
    const value = parts?.find((p) => p.no === 2)?.bytes;
    if (label === null || value === null || value === undefined) return null;
    labelled.set(label, value);
  }
  return labelled;
}

/** The record a Daml `Value` holds, by label; null for any other value. */
function recordOfValue(value: Uint8Array | undefined): Map<string, Uint8Array> | null {
  if (value === undefined) return null;
  const fields = fieldsOf(value);
  const record = fields?.length === 1 && fields[0]?.no === VALUE_RECORD ? fields[0].bytes : null;
  const inner = record === null ? null : fieldsOf(record);
  return inner === null ? null : recordFields(inner);
}

function transferOf(record: Map<string, Uint8Array>): PreparedTransfer | null {
  const instrument = recordOfValue(record.get('instrumentId'));
  const sender = valueText(record.get('sender'), VALUE_PARTY);
  const receiver = valueText(record.get('receiver'), VALUE_PARTY);
  const amount = valueText(record.get('amount'), VALUE_NUMERIC);
  const admin = valueText(instrument?.get('admin'), VALUE_PARTY);
  const id = valueText(instrument?.get('id'), VALUE_TEXT);
  if (sender === null || receiver === null || amount === null || admin === null || id === null) {
    return null;
  }
  return { sender, receiver, amount, instrument: { admin, id } };
}

function walk(bytes: Uint8Array, depth: number, found: PreparedTransfer[]): void {
  if (depth > DEPTH_MAX) return;
  const fields = fieldsOf(bytes);
  if (fields === null) return;
  const record = recordFields(fields);
  if (record?.has('sender') && record.has('receiver') && record.has('amount')) {
    const transfer = transferOf(record);
    if (transfer !== null) found.push(transfer);
  }
  for (const field of fields) {
    if (field.bytes !== null && field.bytes.length > 1) walk(field.bytes, depth + 1, found);
  }
}

export function decodeBase64(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Every transfer the prepared transaction (base64) holds, in the order it holds them. */
export function transfersOf(preparedTransaction: string): PreparedTransfer[] {
  const found: PreparedTransfer[] = [];
  walk(decodeBase64(preparedTransaction), 0, found);
  return found;
}
