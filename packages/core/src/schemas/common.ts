/**
 * Building blocks of the wire schemas: scalar formats (amounts, party ids, ids, timestamps), the
 * closed enumerations shared with the domain, and the two helpers every composite schema uses.
 *
 * Conventions of the whole `schemas/` folder (one source for server validation, serialization,
 * the OpenAPI document and the SDK's types):
 * - every exported schema has a PascalCase `$id` and a `description`;
 * - request bodies, query strings and path parameters are closed (`additionalProperties: false`),
 *   so a misspelt parameter is a 400 instead of being silently ignored;
 * - responses are open (no `additionalProperties`): `/v1` only ever adds fields
 *   (docs/spec/protocol.md#versioning), and a client validating a response must accept a newer
 *   server's additions. The server's serializer emits declared properties only, so internal fields
 *   still cannot leak;
 * - a schema used inside another is embedded with `inline()`, without its `$id`, so that each
 *   wire schema is self-contained and no `$id` appears twice in one document (Ajv refuses that).
 */
import {
  FormatRegistry,
  type SchemaOptions,
  type Static,
  type TLiteral,
  type TNull,
  type TSchema,
  type TUnion,
  Type,
} from '@sinclair/typebox';
import { AMOUNT_DECIMALS, AMOUNT_INTEGER_DIGITS_MAX } from '../amount.js';
import { PARTY_HINT_LENGTH_MAX, PARTY_ID_LENGTH_MAX } from '../party-id.js';
import { SETTLEMENT_SAFETY_CODES } from '../settlement-safety.js';
import { SWAP_STATES } from '../swap-state.js';

// RFC 3339 `date-time`; the calendar check below rejects impossible days such as 02-30.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

function isDateTime(value: string): boolean {
  const match = DATE_TIME.exec(value);
  if (!match || Number.isNaN(Date.parse(value))) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const calendar = new Date(Date.UTC(2000, month - 1, day));
  calendar.setUTCFullYear(year);
  return calendar.getUTCMonth() === month - 1 && calendar.getUTCDate() === day;
}

/**
 * TypeBox's own checker (`Value`, `TypeCompiler`) refuses formats it does not know; Ajv in the
 * server brings its own. Registering here keeps `Value.Check` meaningful wherever the schemas are
 * imported. Idempotent, and it leaves a checker someone registered first in place.
 */
function registerWireFormats(): void {
  if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', isDateTime);
}
registerWireFormats();

/** A copy of a named schema for use inside another: without `$id`, with optional overrides. */
export function inline<T extends TSchema>(schema: T, overrides: SchemaOptions = {}): T {
  const { $id: _id, ...rest } = schema;
  return { ...rest, ...overrides } as T;
}

/** An amount in a body or answer, described for its place (the one AmountString, inlined). */
export function amountField(description: string) {
  return inline(AmountStringSchema, { description });
}

/** A timestamp in a body or answer, described for its place (the one Timestamp, inlined). */
export function timestampField(description: string) {
  return inline(TimestampSchema, { description });
}

/** A decimal in a body or answer, described for its place (the one DecimalString, inlined). */
export function decimalField(description: string) {
  return inline(DecimalStringSchema, { description });
}

/** `T | null`, the spelling of "known to be absent": such keys are always present. */
export function nullable<T extends TSchema>(
  schema: T,
  overrides: SchemaOptions = {},
): TUnion<[T, TNull]> {
  return Type.Union([inline(schema), Type.Null()], overrides);
}

function literals<const V extends readonly string[]>(values: V): TLiteral<V[number]>[] {
  return values.map((value) => Type.Literal(value)) as TLiteral<V[number]>[];
}

/** A closed set of strings as a schema. */
export function enumOf<const V extends readonly string[]>(
  values: V,
  options: SchemaOptions,
): TUnion<TLiteral<V[number]>[]> {
  return Type.Union(literals(values), options);
}

export const AmountStringSchema = Type.String({
  $id: 'AmountString',
  description:
    'A token amount as a plain decimal string (Daml Numeric 10): at most 28 integer and 10 ' +
    'fractional digits, no sign, exponent or spaces.',
  pattern: `^\\d{1,${AMOUNT_INTEGER_DIGITS_MAX}}(\\.\\d{1,${AMOUNT_DECIMALS}})?$`,
  examples: ['100', '0.0000000001'],
});

export const DecimalStringSchema = Type.String({
  $id: 'DecimalString',
  description:
    'An exact decimal that is not a token amount (a rate, a fraction, a USD value); a leading ' +
    '`-` only where a value can fall, no exponent.',
  pattern: '^-?\\d{1,40}(\\.\\d{1,40})?$',
  examples: ['0.145', '0.0123', '-0.02'],
});

/**
 * The hint is what party-id.ts accepts: the party-id alphabet, no `::` and no trailing `:`
 * (a colon must be followed by a hint character).
 */
const PARTY_HINT = '(?:[A-Za-z0-9_-]|:(?=[A-Za-z0-9_-]))+';

export const PartyIdSchema = Type.String({
  $id: 'PartyId',
  description:
    'A Canton party id `<hint>::<fingerprint>`: at most 255 characters of A-Z a-z 0-9 : _ -, ' +
    'a non-empty hint and a fingerprint of `1220` + 64 lowercase hex digits.',
  maxLength: PARTY_ID_LENGTH_MAX,
  pattern: `^${PARTY_HINT}::1220[0-9a-f]{64}$`,
  examples: ['alice::1220035a791d845bbb8195615e7eccd7a57c2ec4075c2e88695f194bab4e0194a889'],
});

export const PartyHintSchema = Type.String({
  $id: 'PartyHint',
  description: 'The readable part of a party id, before `::`.',
  minLength: 1,
  maxLength: PARTY_HINT_LENGTH_MAX,
  pattern: `^${PARTY_HINT}$`,
});

export const TimestampSchema = Type.String({
  $id: 'Timestamp',
  description: 'An instant as an ISO 8601 / RFC 3339 string, e.g. `2026-11-22T13:40:00.000Z`.',
  format: 'date-time',
});

export const TokenSymbolSchema = Type.String({
  $id: 'TokenSymbol',
  description: 'A token symbol (instrument id), e.g. `Amulet`, `USDCx`.',
  minLength: 1,
  maxLength: 128,
});

export const PoolIdSchema = Type.String({
  $id: 'PoolId',
  description: 'A pool id; URL-safe so that it can stand in a path without escaping.',
  pattern: '^[A-Za-z0-9._~-]{1,128}$',
});

export const IntentIdSchema = Type.String({
  $id: 'IntentId',
  description: 'A swap intent id.',
  pattern: '^[A-Za-z0-9_-]{1,64}$',
});

export const UpdateIdSchema = Type.String({
  $id: 'UpdateId',
  description: 'The id of the ledger update (transaction) that carried a transfer.',
  minLength: 1,
  maxLength: 255,
});

export const SlippageToleranceSchema = Type.Number({
  $id: 'SlippageTolerance',
  description: 'Accepted shortfall of the output, as a fraction: 0.001 (0.1 %) to 0.05 (5 %).',
  minimum: 0.001,
  maximum: 0.05,
});

/** The type is `SwapState` of swap-state.ts; no second name is exported for it. */
export const SwapStateSchema = enumOf(SWAP_STATES, {
  $id: 'SwapState',
  description:
    'A swap state (docs/spec/lifecycle.md#states); the event names are the same strings.',
});

/** The type is `SettlementSafety` of settlement-safety.ts; no second name is exported for it. */
export const SettlementSafetySchema = Type.Object(
  {
    code: enumOf(SETTLEMENT_SAFETY_CODES, { description: 'The guard rule that blocks.' }),
    reason: Type.String({ description: 'Stable machine-readable detail, e.g. `share=0.14`.' }),
    message: Type.String({ description: 'For people.' }),
    deviation: Type.Optional(
      inline(DecimalStringSchema, {
        description:
          "With the price-deviation codes: the deviation the pool's price would end at, rounded up.",
      }),
    ),
    limit: Type.Optional(
      inline(DecimalStringSchema, { description: 'With the price-deviation codes: the limit.' }),
    ),
  },
  {
    $id: 'SettlementSafety',
    description:
      'Why a swap of this size or timing would be blocked at settlement (docs/spec/guard.md).',
  },
);

export const TokenSchema = Type.Object(
  {
    name: inline(TokenSymbolSchema),
    admin: inline(PartyIdSchema, { description: "The token's admin party." }),
  },
  {
    $id: 'Token',
    description: 'A token: a symbol can exist under more than one admin.',
  },
);
export type Token = Static<typeof TokenSchema>;

export const PoolIdParamsSchema = Type.Object(
  { poolId: inline(PoolIdSchema) },
  {
    $id: 'PoolIdParams',
    description: 'Path parameters naming a pool.',
    additionalProperties: false,
  },
);

export const IntentIdParamsSchema = Type.Object(
  { intentId: inline(IntentIdSchema) },
  {
    $id: 'IntentIdParams',
    description: 'Path parameters naming a swap intent.',
    additionalProperties: false,
  },
);

export const PartyIdParamsSchema = Type.Object(
  { partyId: inline(PartyIdSchema) },
  {
    $id: 'PartyIdParams',
    description: 'Path parameters naming a party.',
    additionalProperties: false,
  },
);
export type PartyIdParams = Static<typeof PartyIdParamsSchema>;

export const COMMON_SCHEMAS = [
  AmountStringSchema,
  DecimalStringSchema,
  PartyIdSchema,
  PartyHintSchema,
  TimestampSchema,
  TokenSymbolSchema,
  PoolIdSchema,
  IntentIdSchema,
  UpdateIdSchema,
  SlippageToleranceSchema,
  SwapStateSchema,
  SettlementSafetySchema,
  TokenSchema,
  PoolIdParamsSchema,
  IntentIdParamsSchema,
  PartyIdParamsSchema,
] as const;
