/**
 * Swap intents, their status and tracking (docs/spec/lifecycle.md#intents,
 * docs/spec/lifecycle.md#swapstatus).
 *
 * The idempotency key travels only in the `Idempotency-Key` header
 * (docs/spec/protocol.md#idempotency), never in the body: one place for one fact, and a body that
 * carries it is refused like any unknown field rather than half-honoured. The SDK's
 * `idempotencyKey` option maps onto the header.
 */
import { type ObjectOptions, type Static, type TSchema, Type } from '@sinclair/typebox';
import { LEG_STATES } from '../lifecycle.js';
import {
  AmountStringSchema,
  amountField,
  enumOf,
  IntentIdSchema,
  inline,
  nullable,
  PartyIdSchema,
  PoolIdSchema,
  SlippageToleranceSchema,
  SwapStateSchema,
  TimestampSchema,
  TokenSymbolSchema,
  timestampField,
  UpdateIdSchema,
} from './common.js';

export const SLIPPAGE_TOLERANCE_DEFAULT = 0.05;

const DepositReferenceSchema = Type.String({
  $id: 'DepositReference',
  description: 'Short unguessable reference to pass as the deposit reason, e.g. `pp-7KQ2M9XC`.',
  pattern: '^[A-Za-z0-9_-]{1,32}$',
});

/** The longest `Idempotency-Key` accepted: room for a UUID with a prefix, or an order id. */
const IDEMPOTENCY_KEY_LENGTH_MAX = 255;

/** Printable ASCII without the space, as one header value can carry it unquoted. */
export const IdempotencyKeySchema = Type.String({
  $id: 'IdempotencyKey',
  description: `Client-chosen key that makes a retried POST safe: 1 to ${IDEMPOTENCY_KEY_LENGTH_MAX} printable ASCII characters, no spaces.`,
  pattern: `^[\\x21-\\x7E]{1,${IDEMPOTENCY_KEY_LENGTH_MAX}}$`,
});

export const CreateSwapBodySchema = Type.Object(
  {
    fromToken: inline(TokenSymbolSchema, { description: 'Input token symbol.' }),
    toToken: inline(TokenSymbolSchema, { description: 'Output token symbol.' }),
    amount: amountField("Exact deposit amount; becomes the intent's `expectedAmount`."),
    slippageTolerance: Type.Optional(
      inline(SlippageToleranceSchema, { default: SLIPPAGE_TOLERANCE_DEFAULT }),
    ),
    walletAddress: Type.Optional(
      inline(PartyIdSchema, { description: "The sender party; must be the wallet token's." }),
    ),
    poolId: Type.Optional(inline(PoolIdSchema, { description: 'Picks the pool explicitly.' })),
    fromAdmin: Type.Optional(inline(PartyIdSchema, { description: 'Admin of the input token.' })),
    toAdmin: Type.Optional(inline(PartyIdSchema, { description: 'Admin of the output token.' })),
    outputAddress: Type.Optional(
      Type.String({
        maxLength: 255,
        deprecated: true,
        description: 'Deprecated and ignored: output always goes to the depositor party.',
      }),
    ),
  },
  {
    $id: 'CreateSwapBody',
    description: 'Body of `POST /v1/swaps` (docs/spec/lifecycle.md#intents).',
    additionalProperties: false,
  },
);
export type CreateSwapBody = Static<typeof CreateSwapBodySchema>;

/** Header names are lower case as servers see them; other headers pass, so this stays open. */
export const IdempotencyHeadersSchema = Type.Object(
  {
    'idempotency-key': Type.Optional(
      inline(IdempotencyKeySchema, {
        description:
          'Makes a retry safe (docs/spec/protocol.md#idempotency): the same key with the same ' +
          'request replays the first success response, with `Idempotent-Replayed: true`, for ' +
          '24 h; another request under the key is 422 `idempotency_key_reused`, and a retry ' +
          'while the first still runs is 409 `idempotency_key_in_use`.',
      }),
    ),
  },
  {
    $id: 'IdempotencyHeaders',
    description: 'Headers, beyond authentication, of every POST that takes an `Idempotency-Key`.',
  },
);

const SwapInstructionsSchema = Type.Object(
  {
    transferTo: inline(PartyIdSchema, { description: 'The pool swap party to send to.' }),
    amount: amountField('Exactly this much.'),
    token: inline(TokenSymbolSchema, { description: 'Of this token.' }),
    tokenAdmin: inline(PartyIdSchema, { description: 'Under this admin.' }),
    reason: inline(DepositReferenceSchema, { description: 'As transfer reason, if possible.' }),
    expiresAt: timestampField('Before this time.'),
    note: Type.String({ description: 'The same, for people.' }),
  },
  { $id: 'SwapInstructions', description: 'What the wallet must do to fund the intent.' },
);
export type SwapInstructions = Static<typeof SwapInstructionsSchema>;

/** The pair a swap of either kind trades: each token by symbol and admin. */
export const swapPairFields = {
  inputToken: inline(TokenSymbolSchema),
  inputTokenAdmin: inline(PartyIdSchema),
  outputToken: inline(TokenSymbolSchema),
  outputTokenAdmin: inline(PartyIdSchema),
} as const;

const swapTerms = {
  intentId: inline(IntentIdSchema),
  poolId: inline(PoolIdSchema),
  depositAddress: inline(PartyIdSchema, { description: 'The pool swap party.' }),
  depositReference: inline(DepositReferenceSchema),
  ...swapPairFields,
  expectedAmount: amountField('The deposit to send, exactly.'),
  expectedOutput: amountField('Output at the quoted price.'),
  minOutput: amountField('floor(expectedOutput × (1 − slippageTolerance)).'),
  slippageTolerance: inline(SlippageToleranceSchema),
  outputAddress: inline(PartyIdSchema, { description: 'Where the output goes: the depositor.' }),
  expiresAt: timestampField('No deposit after this time.'),
} as const;

export const SwapIntentSchema = Type.Object(
  {
    ...swapTerms,
    status: inline(SwapStateSchema, { description: '`pending` when created.' }),
    swapAddress: inline(PartyIdSchema, { description: 'The pool swap party.' }),
    quotedSwapAmount: amountField('The deposit originally requested.'),
    totalInputAmount: amountField('Same as `expectedAmount`.'),
    poolFeeAmount: amountField('The pool fee deducted before pricing.'),
    lpFeeAmount: amountField('The part of the pool fee that stays in the pool.'),
    platformFeeAmount: amountField('The part of the pool fee the platform keeps.'),
    inputAmountAfterPoolFee: amountField('The amount priced into the pool.'),
    networkFeeAmount: amountField('Estimated network fee deducted from the deposit.'),
    trafficFeeInInput: amountField('Compatibility alias of `networkFeeAmount`.'),
    createdAt: timestampField('When the intent was created.'),
    instructions: inline(SwapInstructionsSchema),
  },
  {
    $id: 'SwapIntent',
    description: 'A created swap intent awaiting its deposit (docs/spec/lifecycle.md#intents).',
  },
);
export type SwapIntent = Static<typeof SwapIntentSchema>;

export const FailureReasonSchema = Type.Object(
  {
    code: Type.String({
      minLength: 1,
      description: 'The terminal state, or the guard code when the guard blocked the payout.',
    }),
    message: Type.String({ description: 'For people.' }),
  },
  { $id: 'FailureReason', description: 'Why a swap ended without a payout.' },
);
export type FailureReason = Static<typeof FailureReasonSchema>;

const DepositFactSchema = Type.Object(
  {
    amount: amountField('Amount deposited.'),
    updateId: inline(UpdateIdSchema),
    receivedAt: timestampField('When the deposit was seen on the ledger.'),
  },
  { $id: 'DepositFact', description: 'The deposit attributed to the intent.' },
);
export type DepositFact = Static<typeof DepositFactSchema>;

const legFields = {
  amount: amountField('Amount sent (or offered).'),
  state: enumOf(LEG_STATES, {
    description:
      '`offered`: a two-step offer the receiver must accept in their wallet; `committed`: it ' +
      'arrived; `rejected`: the receiver refused the offer; `expired`: the offer ran out unanswered.',
  }),
  updateId: nullable(UpdateIdSchema, {
    description:
      'The ledger update that last moved the leg: the one that made the offer, then the one that ' +
      'committed, rejected or expired it.',
  }),
  offerId: Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
    description: 'The offer to accept; null for a transfer that committed directly.',
  }),
  expiresAt: nullable(TimestampSchema, {
    description: 'When the offer expires unanswered; null for a direct transfer.',
  }),
};

const LegSchema = Type.Object(legFields, {
  $id: 'Leg',
  description:
    'A transfer to the depositor (docs/spec/lifecycle.md#payout-and-refund-legs). To a party ' +
    'without a transfer pre-approval it is an offer the party must accept; the swap waits while ' +
    'it is `offered`.',
});
export type Leg = Static<typeof LegSchema>;

const RefundLegSchema = Type.Object(
  {
    ...legFields,
    amount: amountField('Amount returned: the deposit minus the network fee.'),
    networkFeeAmount: amountField('Network fee kept for the refund transfer.'),
  },
  { $id: 'RefundLeg', description: 'The refund transfer: a `Leg` with the fee it kept.' },
);
export type RefundLeg = Static<typeof RefundLegSchema>;

/** One entry of a status's `history`, of either kind of swap: the state entered and when. */
export function historyEntryOf<T extends TSchema>(state: T, options: ObjectOptions) {
  return Type.Object(
    { status: inline(state), at: timestampField('When the state was entered.') },
    options,
  );
}

const HistoryEntrySchema = historyEntryOf(SwapStateSchema, {
  $id: 'HistoryEntry',
  description: 'One state change.',
});
export type HistoryEntry = Static<typeof HistoryEntrySchema>;

export const SwapStatusSchema = Type.Object(
  {
    kind: Type.Literal('deposit', {
      description:
        'A swap of the deposit flow; an atomic swap is `atomic` (AtomicSwapStatus). Where both ' +
        'kinds are answered, this tells them apart.',
    }),
    ...swapTerms,
    status: inline(SwapStateSchema),
    terminal: Type.Boolean({ description: 'True once the status can no longer change.' }),
    actualOutput: nullable(AmountStringSchema, { description: 'Output paid; null until then.' }),
    createdAt: timestampField('When the intent was created.'),
    matchedAt: nullable(TimestampSchema, { description: 'When a deposit was attributed.' }),
    completedAt: nullable(TimestampSchema, { description: 'When the swap reached `completed`.' }),
    failureReason: nullable(FailureReasonSchema),
    deposit: nullable(DepositFactSchema),
    payout: nullable(LegSchema, { description: 'The payout; null until offered or sent.' }),
    refund: nullable(RefundLegSchema, {
      description: 'The refund; null until offered or sent, or when none is owed.',
    }),
    history: Type.Array(inline(HistoryEntrySchema), { description: 'Oldest first.' }),
  },
  {
    $id: 'SwapStatus',
    description: 'The state of a swap with the facts of each stage; keys are always present.',
  },
);
export type SwapStatus = Static<typeof SwapStatusSchema>;

/**
 * What anyone holding a swap's id may read: its progress without the parties and the deposit
 * reference. Intent ids carry 130 random bits, so the id itself is the capability to read this.
 */
export const SwapProgressSchema = Type.Omit(
  SwapStatusSchema,
  ['depositAddress', 'depositReference', 'outputAddress'],
  {
    $id: 'SwapProgress',
    description:
      'The state of a swap as `GET /v1/swaps/{intentId}/progress` shows it to anyone with its ' +
      'id: a `SwapStatus` without `depositAddress`, `depositReference` and `outputAddress`.',
  },
);
export type SwapProgress = Static<typeof SwapProgressSchema>;

export const CancelResultSchema = Type.Object(
  { intentId: inline(IntentIdSchema), status: Type.Literal('cancelled') },
  { $id: 'CancelResult', description: 'Answer of `POST /v1/swaps/{intentId}/cancel`.' },
);
export type CancelResult = Static<typeof CancelResultSchema>;

export const SWAP_SCHEMAS = [
  DepositReferenceSchema,
  IdempotencyKeySchema,
  CreateSwapBodySchema,
  IdempotencyHeadersSchema,
  SwapInstructionsSchema,
  SwapIntentSchema,
  FailureReasonSchema,
  DepositFactSchema,
  LegSchema,
  RefundLegSchema,
  HistoryEntrySchema,
  SwapStatusSchema,
  SwapProgressSchema,
  CancelResultSchema,
] as const;
