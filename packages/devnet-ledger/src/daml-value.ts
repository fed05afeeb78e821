/**
 * A choice or contract argument as a Daml value and back. The JSON is typed by the Daml type
 * `daml-types` declares for it, the way a participant types a command by its package: parties,
 * numerics (`Numeric 10`, every decimal written out), timestamps (microseconds since the epoch),
 * contract ids, records (fields in declared order, a missing field only where it is optional),
 * lists, optionals, text maps and variants (`{tag, value}`). A field the type does not declare is
 * refused, as Canton refuses it.
 *
 * Back to JSON, a value is read by its own kind, in the JSON API's forms (a numeric, an Int64 and
 * a time as strings), so the command read back from a prepared transaction is the command whose
 * typed value the party signed.
 */
import type { Value } from '@canton-network/core-ledger-proto';
import { invalidArgument } from './canton-errors.js';
import type { DamlType } from './daml-types.js';
import { NESTING_MAX } from './transaction-hash.js';

/** How many fields, elements and nested values one argument may hold in all. */
const VALUE_ITEMS_MAX = 10_000;
/** Daml's `Numeric 10`: ten decimals. */
const NUMERIC_SCALE = 10;
const MICROS_PER_MS = 1000n;
const MS_PER_DAY = 86_400_000;

class Budget {
  private left = VALUE_ITEMS_MAX;
  spend(): void {
    this.left -= 1;
    if (this.left < 0) throw invalidArgument(`an argument holds over ${VALUE_ITEMS_MAX} values`);
  }
}

const mistyped = (path: string, what: string) =>
  invalidArgument(`${path} must be ${what}`, { field: path });

function textOf(json: unknown, path: string, what: string): string {
  if (typeof json !== 'string') throw mistyped(path, what);
  return json;
}

function numericOf(json: unknown, path: string): string {
  const written = typeof json === 'number' && Number.isFinite(json) ? String(json) : json;
  const match = typeof written === 'string' ? /^(-?\d+)(?:\.(\d+))?$/.exec(written) : null;
  const fraction = match?.[2] ?? '';
  if (match === null || fraction.length > NUMERIC_SCALE) throw mistyped(path, 'a Numeric 10');
  return `${match[1]}.${fraction.padEnd(NUMERIC_SCALE, '0')}`;
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,6})\d*)?(Z|[+-]\d{2}:\d{2})$/i;

/** A Daml `Time` as microseconds since the epoch (Daml's precision). */
function timestampOf(json: unknown, path: string): string {
  const match = typeof json === 'string' ? RFC3339.exec(json) : null;
  const seconds = match === null ? Number.NaN : Date.parse(`${match[1]}${match[3]}`);
  if (match === null || Number.isNaN(seconds)) throw mistyped(path, 'an RFC 3339 timestamp');
  const micros = BigInt((match[2] ?? '').padEnd(6, '0'));
  return String(BigInt(seconds) * MICROS_PER_MS + micros);
}

function dateOf(json: unknown, path: string): number {
  const day = typeof json === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(json) ? Date.parse(json) : NaN;
  if (Number.isNaN(day)) throw mistyped(path, 'a date (YYYY-MM-DD)');
  return day / MS_PER_DAY;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function int64Of(json: unknown, path: string): string {
  const written = typeof json === 'number' && Number.isSafeInteger(json) ? String(json) : json;
  if (typeof written !== 'string' || !/^-?\d{1,19}$/.test(written)) {
    throw mistyped(path, 'an Int64');
  }
  const int = BigInt(written);
  if (int < INT64_MIN || int > INT64_MAX) throw mistyped(path, 'an Int64');
  return String(int);
}

function objectOf(json: unknown, path: string): Readonly<Record<string, unknown>> {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw mistyped(path, 'an object');
  }
  return json as Readonly<Record<string, unknown>>;
}

/** Types JSON, one level at a time, within the nesting and size limits. */
class Typing {
  private readonly budget = new Budget();

  value(json: unknown, type: DamlType, path: string, depth: number): Value {
    this.budget.spend();
    if (depth > NESTING_MAX) throw invalidArgument(`${path} nests deeper than ${NESTING_MAX}`);
    switch (type.kind) {
      case 'party':
        return { sum: { oneofKind: 'party', party: textOf(json, path, 'a party') } };
      case 'text':
        return { sum: { oneofKind: 'text', text: textOf(json, path, 'text') } };
      case 'contractId':
        return {
          sum: { oneofKind: 'contractId', contractId: textOf(json, path, 'a contract id') },
        };
      case 'numeric':
        return { sum: { oneofKind: 'numeric', numeric: numericOf(json, path) } };
      case 'timestamp':
        return { sum: { oneofKind: 'timestamp', timestamp: timestampOf(json, path) } };
      case 'date':
        return { sum: { oneofKind: 'date', date: dateOf(json, path) } };
      case 'int64':
        return { sum: { oneofKind: 'int64', int64: int64Of(json, path) } };
      case 'bool':
        if (typeof json !== 'boolean') throw mistyped(path, 'a boolean');
        return { sum: { oneofKind: 'bool', bool: json } };
      case 'unit':
        return { sum: { oneofKind: 'unit', unit: {} } };
      default:
        return this.container(json, type, path, depth + 1);
    }
  }

  private container(json: unknown, type: DamlType, path: string, depth: number): Value {
    switch (type.kind) {
      case 'optional':
        if (json === null || json === undefined)
          return { sum: { oneofKind: 'optional', optional: {} } };
        return {
          sum: {
            oneofKind: 'optional',
            optional: { value: this.value(json, type.of, path, depth) },
          },
        };
      case 'list': {
        if (!Array.isArray(json)) throw mistyped(path, 'a list');
        const elements = json.map((item, i) => this.value(item, type.of, `${path}[${i}]`, depth));
        return { sum: { oneofKind: 'list', list: { elements } } };
      }
      case 'textMap': {
        const entries = Object.entries(objectOf(json, path)).map(([key, item]) => ({
          key,
          value: this.value(item, type.of, `${path}.${key}`, depth),
        }));
        return { sum: { oneofKind: 'textMap', textMap: { entries } } };
      }
      case 'record':
        return this.record(objectOf(json, path), type.fields, path, depth);
      case 'variant': {
        const { tag, value } = objectOf(json, path);
        const of = typeof tag === 'string' ? type.constructors[tag] : undefined;
        if (of === undefined) throw mistyped(`${path}.tag`, 'a constructor of the variant');
        const inner = this.value(value, of, `${path}.value`, depth);
        return {
          sum: { oneofKind: 'variant', variant: { constructor: tag as string, value: inner } },
        };
      }
      default:
        throw mistyped(path, `a ${type.kind}`);
    }
  }

  private record(
    json: Readonly<Record<string, unknown>>,
    declared: readonly (readonly [string, DamlType])[],
    path: string,
    depth: number,
  ): Value {
    const labels = new Set(declared.map(([label]) => label));
    const unknown = Object.keys(json).find((key) => !labels.has(key));
    if (unknown !== undefined) {
      throw invalidArgument(`${path} has no field ${unknown}`, { field: `${path}.${unknown}` });
    }
    const fields = declared.map(([label, type]) => {
      const item = json[label];
      if (item === undefined && type.kind !== 'optional') {
        throw invalidArgument(`${path}.${label} is missing`, { field: `${path}.${label}` });
      }
      return { label, value: this.value(item, type, `${path}.${label}`, depth) };
    });
    return { sum: { oneofKind: 'record', record: { fields } } };
  }
}

/** JSON as the Daml value of type `type`; `path` names it in refusals. */
export function damlValueOf(json: unknown, type: DamlType, path: string): Value {
  return new Typing().value(json, type, path, 0);
}

function timeText(micros: string): string {
  const total = BigInt(micros);
  const ms = total / MICROS_PER_MS - (total % MICROS_PER_MS < 0n ? 1n : 0n);
  const rest = total - ms * MICROS_PER_MS;
  const iso = new Date(Number(ms)).toISOString();
  return rest === 0n ? iso : iso.replace('Z', `${String(rest).padStart(3, '0')}Z`);
}

function valueToJson(value: Value | undefined, depth: number, budget: Budget): unknown {
  budget.spend();
  if (value === undefined) throw invalidArgument('the prepared transaction lacks a value');
  if (depth > NESTING_MAX) throw invalidArgument(`a value nests deeper than ${NESTING_MAX}`);
  const nested = (item: Value | undefined) => valueToJson(item, depth + 1, budget);
  const { sum } = value;
  switch (sum.oneofKind) {
    case 'optional':
      return sum.optional.value === undefined ? null : nested(sum.optional.value);
    case 'list':
      return sum.list.elements.map(nested);
    case 'textMap':
      return Object.fromEntries(sum.textMap.entries.map((e) => [e.key, nested(e.value)]));
    case 'record':
      return Object.fromEntries(sum.record.fields.map((f) => [f.label, nested(f.value)]));
    case 'variant':
      return { tag: sum.variant.constructor, value: nested(sum.variant.value) };
    case 'party':
      return sum.party;
    case 'text':
      return sum.text;
    case 'contractId':
      return sum.contractId;
    case 'numeric':
      return sum.numeric;
    case 'int64':
      return sum.int64;
    case 'timestamp':
      return timeText(sum.timestamp);
    case 'date':
      return new Date(sum.date * MS_PER_DAY).toISOString().slice(0, 10);
    case 'bool':
      return sum.bool;
    case 'unit':
      return {};
    default:
      throw invalidArgument(
        `the prepared transaction holds a ${String(sum.oneofKind)} value, which this participant does not prepare`,
      );
  }
}

/** The JSON a prepared transaction's value stands for. */
export function jsonOfDamlValue(value: Value | undefined): unknown {
  return valueToJson(value, 0, new Budget());
}
