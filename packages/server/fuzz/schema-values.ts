/**
 * Values for a JSON schema (as the OpenAPI document states it), valid and invalid, as fast-check
 * arbitraries. Only the schema keywords the service's documents use are read; a pattern
 * fast-check cannot invert (look-aheads) falls back to the schema's examples and known values.
 */
import fc from 'fast-check';

export interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly examples?: readonly unknown[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly items?: JsonSchema;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
}

/** Real values seen on the service (pool ids, token symbols, parties), by member name. */
export type KnownValues = Readonly<Record<string, readonly string[]>>;

/** Strings a parser or a database might choke on. */
export const ODD_STRINGS: readonly string[] = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  '\uDFFF\uD800',
  '\u202Eevil',
  '\uFEFF100',
  'e\u0301\u0301\u0301',
  '🦄'.repeat(40),
  '١٢٣',
  '１００',
  '\r\n\t',
  '../../etc/passwd',
  '%00',
  '%',
  "'; DROP TABLE swaps; --",
  '<script>alert(1)</script>',
  '{"$gt":""}',
  '1e400',
  '-0',
  'NaN',
  'Infinity',
  '0x10',
  '99999999999999999999999999999999999999.99999999999',
  '__proto__',
  'constructor',
];

export const oddString = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom(...ODD_STRINGS),
    fc.string({ unit: 'binary', maxLength: 64 }),
    fc.string({ unit: 'grapheme', maxLength: 32 }),
  );

/** A huge string: past field limits, some past the 64 KiB body limit. */
export const hugeString = (): fc.Arbitrary<string> =>
  fc
    .tuple(fc.constantFrom('a', '9', 'é', '🦄', '%'), fc.constantFrom(300, 5_000, 70_000))
    .map(([unit, count]) => unit.repeat(count));

function typeOf(schema: JsonSchema): string | undefined {
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== 'null');
  if (typeof schema.type === 'string') return schema.type;
  if (schema.properties !== undefined) return 'object';
  return undefined;
}

function stringValue(schema: JsonSchema, known: readonly string[]): fc.Arbitrary<string> {
  const options: fc.Arbitrary<string>[] = [];
  if (known.length > 0) options.push(fc.constantFrom(...known));
  const examples = (schema.examples ?? []).filter((e): e is string => typeof e === 'string');
  if (examples.length > 0) options.push(fc.constantFrom(...examples));
  if (schema.pattern !== undefined) {
    try {
      const pattern = fc.stringMatching(new RegExp(schema.pattern));
      fc.sample(pattern, 1);
      const max = schema.maxLength;
      options.push(max === undefined ? pattern : pattern.filter((s) => s.length <= max));
    } catch {
      // A pattern fast-check cannot invert: the examples and known values stand in.
    }
  } else {
    options.push(
      fc.string({
        minLength: schema.minLength ?? 0,
        maxLength: Math.min(schema.maxLength ?? 40, 40),
      }),
    );
  }
  return options.length > 0 ? fc.oneof(...options) : fc.string({ maxLength: 16 });
}

/** A value the schema accepts (mostly: patterns with look-aheads rely on examples). */
export function validValue(
  schema: JsonSchema,
  known: KnownValues,
  name = '',
): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum !== undefined && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives !== undefined && alternatives.length > 0) {
    return fc.oneof(...alternatives.map((s) => validValue(s, known, name)));
  }
  switch (typeOf(schema)) {
    case 'string':
      return stringValue(schema, known[name] ?? []);
    case 'integer':
      return fc.integer({
        min: schema.minimum ?? -1_000_000,
        max: schema.maximum ?? 1_000_000,
      });
    case 'number':
      return fc.double({
        min: schema.minimum ?? -1e9,
        max: schema.maximum ?? 1e9,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(validValue(schema.items ?? {}, known, name), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 4, 4),
      });
    case 'object':
      return validObject(schema, known);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

export function validObject(
  schema: JsonSchema,
  known: KnownValues,
): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) {
    record[name] = validValue(property, known, name);
  }
  return fc.record(record, { requiredKeys: [...(schema.required ?? [])] }) as fc.Arbitrary<
    Record<string, unknown>
  >;
}

/** A value of another JSON type than the schema's. */
export function wrongType(schema: JsonSchema): fc.Arbitrary<unknown> {
  const type = typeOf(schema);
  const all: Record<string, fc.Arbitrary<unknown>> = {
    string: fc.string({ maxLength: 8 }),
    number: fc.oneof(fc.double(), fc.constantFrom(1e308, -0, 2 ** 53 + 1)),
    boolean: fc.boolean(),
    null: fc.constant(null),
    array: fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
    object: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }), {
      maxKeys: 3,
    }),
  };
  const others = Object.entries(all)
    .filter(([name]) => name !== type && !(type === 'integer' && name === 'number'))
    .map(([, value]) => value);
  return fc.oneof(...others);
}

/**
 * An object the schema refuses, from a valid one: a required member dropped, a member of the
 * wrong type, odd or huge, or an unknown member added.
 */
export function invalidObject(schema: JsonSchema, known: KnownValues): fc.Arbitrary<unknown> {
  const properties = Object.entries(schema.properties ?? {});
  const required = schema.required ?? [];
  const valid = validObject(schema, known);
  const mutations: fc.Arbitrary<unknown>[] = [
    valid.map((body) => ({ ...body, unexpectedMember: 1 })),
    fc.oneof(fc.constant(null), fc.array(fc.integer(), { maxLength: 2 }), fc.string(), fc.double()),
  ];
  if (required.length > 0) {
    mutations.push(
      fc.tuple(valid, fc.constantFrom(...required)).map(([body, name]) => {
        const { [name]: _dropped, ...rest } = body;
        return rest;
      }),
    );
  }
  if (properties.length > 0) {
    const member = fc.constantFrom(...properties);
    mutations.push(
      fc
        .tuple(valid, member)
        .chain(([body, [name, property]]) =>
          fc
            .oneof(wrongType(property), oddString(), hugeString())
            .map((value) => ({ ...body, [name]: value })),
        ),
    );
  }
  return fc.oneof(...mutations);
}
