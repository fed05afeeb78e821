/**
 * The error body (docs/spec/protocol.md#errors, RFC 9457), shaped like `ProblemBody` of errors.ts.
 *
 * A settlement-safety refusal has the problem `code` `settlement_safety`; the guard's verdict
 * (its own `code`, `reason`, `message`) travels in the `settlementSafety` member, so the two
 * `code`s never collide. The schema is open: RFC 9457 allows further extension members.
 */
import { type Static, Type } from '@sinclair/typebox';
import {
  AmountStringSchema,
  IntentIdSchema,
  inline,
  PartyIdSchema,
  PoolIdSchema,
  SettlementSafetySchema,
} from './common.js';

const AmbiguousCandidateSchema = Type.Object(
  {
    poolId: inline(PoolIdSchema),
    fromAdmin: inline(PartyIdSchema, { description: 'Admin of the input token in this pool.' }),
    toAdmin: inline(PartyIdSchema, { description: 'Admin of the output token in this pool.' }),
  },
  {
    $id: 'AmbiguousCandidate',
    description: 'A pool an ambiguous token pair could mean, with what to pass to pick it.',
  },
);
export type AmbiguousCandidate = Static<typeof AmbiguousCandidateSchema>;

const ValidationIssueSchema = Type.Object(
  {
    path: Type.String({ description: 'JSON Pointer to the offending value; empty for the root.' }),
    message: Type.String({ description: 'What is wrong with it.' }),
  },
  { $id: 'ValidationIssue', description: 'One reason a request was invalid.' },
);

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: '`urn:poolparty:error:<code>`.' }),
    title: Type.String({ description: 'Stable per code.' }),
    status: Type.Integer({ minimum: 100, maximum: 599, description: 'The HTTP status.' }),
    detail: Type.String({ description: 'What went wrong this time, for people.' }),
    code: Type.String({
      pattern: '^[a-z][a-z0-9_]*$',
      description: 'Stable machine-readable error code; switch on this.',
    }),
    requestId: Type.String({ description: 'Also in the `X-Request-Id` header.' }),
    errors: Type.Optional(
      Type.Array(inline(ValidationIssueSchema), { description: 'With `validation_error`.' }),
    ),
    intentId: Type.Optional(
      inline(IntentIdSchema, { description: 'With `active_intent_exists`: the pending intent.' }),
    ),
    candidates: Type.Optional(
      Type.Array(inline(AmbiguousCandidateSchema), { description: 'With `ambiguous_pool_pair`.' }),
    ),
    settlementSafety: Type.Optional(
      inline(SettlementSafetySchema, { description: "With `settlement_safety`: the guard's." }),
    ),
    minimumAmount: Type.Optional(
      inline(AmountStringSchema, {
        description: 'With `amount_below_minimum`: the smallest deposit that is accepted.',
      }),
    ),
    networkFeeAmount: Type.Optional(
      inline(AmountStringSchema, {
        description: 'With `amount_below_minimum`: the network fee the deposit must exceed.',
      }),
    ),
    inputToken: Type.Optional(
      Type.String({ description: 'With `amount_below_minimum`: the token of both amounts.' }),
    ),
    retryAfter: Type.Optional(
      Type.Integer({ minimum: 0, description: 'With `rate_limited`: seconds to wait.' }),
    ),
  },
  { $id: 'Problem', description: 'An error (RFC 9457 `application/problem+json`).' },
);

export const PROBLEM_SCHEMAS = [
  AmbiguousCandidateSchema,
  ValidationIssueSchema,
  ProblemSchema,
] as const;
