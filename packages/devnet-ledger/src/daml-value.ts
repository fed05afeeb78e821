/**
 * A choice argument as a Daml value and back. A participant types a command's JSON by the Daml
 * package that defines the choice; the devnet ledger has no Daml packages, so it types the value
 * by the JSON's own shape: an object is a record with its keys as labels (in order), an array a
 * list, a string text, an integer an Int64, another number a Numeric, a boolean a Bool, null an
 * empty Optional. The mapping is exact both ways, so the command the party signed is the command
 * that runs.
 */
import type { Value } from '@canton-network/core-ledger-proto';
import { invalidArgument } from './canton-errors.js';
import { NESTING_MAX } from './transaction-hash.js';

/** How many fields, elements and nested values one argument may hold in all. */
const VALUE_ITEMS_MAX = 10_000;

class Budget {
  private left = VALUE_ITEMS_MAX;
  spend(): void {
    this.left -= 1;
    if (this.left < 0)
      throw invalidArgument(`a choice argument holds over ${VALUE_ITEMS_MAX} values`);
  }
}

function jsonToValue(json: unknown, depth: number, budget: Budget): Value {
  budget.spend();
  if (depth > NESTING_MAX)
    throw invalidArgument(`a choice argument nests deeper than ${NESTING_MAX}`);
  const nested = (item: unknown) => jsonToValue(item, depth + 1, budget);
  if (json === null) return { sum: { oneofKind: 'optional', optional: {} } };
  if (Array.isArray(json)) {
    return { sum: { oneofKind: 'list', list: { elements: json.map(nested) } } };
  }
  switch (typeof json) {
    case 'string':
      return { sum: { oneofKind: 'text', text: json } };
    case 'boolean':
      return { sum: { oneofKind: 'bool', bool: json } };
    case 'number':
      return Number.isSafeInteger(json)
        ? { sum: { oneofKind: 'int64', int64: String(json) } }
        : { sum: { oneofKind: 'numeric', numeric: String(json) } };
    case 'object': {
      const fields = Object.entries(json as object).map(([label, item]) => ({
        label,
        value: nested(item),
      }));
      return { sum: { oneofKind: 'record', record: { fields } } };
    }
    default:
      throw invalidArgument(`a choice argument holds a ${typeof json}, which JSON does not`);
  }
}

/** A command's JSON choice argument as the Daml value the prepared transaction carries. */
export function damlValueOf(json: unknown): Value {
  return jsonToValue(json, 0, new Budget());
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
    case 'text':
      return sum.text;
    case 'bool':
      return sum.bool;
    case 'int64':
      return Number(sum.int64);
    case 'numeric':
      return Number(sum.numeric);
    case 'record':
      return Object.fromEntries(sum.record.fields.map((f) => [f.label, nested(f.value)]));
    default:
      throw invalidArgument(
        `the prepared transaction holds a ${String(sum.oneofKind)} value, which this participant does not prepare`,
      );
  }
}

/** The JSON choice argument a prepared transaction's value stands for. */
export function jsonOfDamlValue(value: Value | undefined): unknown {
  return valueToJson(value, 0, new Budget());
}
