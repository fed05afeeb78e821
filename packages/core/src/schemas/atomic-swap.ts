/**
 * Atomic swaps on the wire (docs/spec/atomic-swaps.md): the prepare request, the signature the
 * wallet sends back, and the swap as a client reads it — its legs, the prepared transaction to
 * decode and whose hash it signs, `expiresAt`, its state and, once executed, the update id and
 * the excess the pool kept.
 */
import { type Static, Type } from '@sinclair/typebox';
import { ATOMIC_SWAP_STATES } from '../atomic-swap.js';
import {
  AmountStringSchema,
  amountField,
  enumOf,
  inline,
  nullable,
  PartyIdSchema,
  PoolIdSchema,
  SlippageToleranceSchema,
  TimestampSchema,
  TokenSymbolSchema,
  timestampField,
  UpdateIdSchema,
} from './common.js';
import {
  FailureReasonSchema,
  historyEntryOf,
  SLIPPAGE_TOLERANCE_DEFAULT,
  swapPairFields,
} from './swap.js';

/** The longest base64 a prepared transaction may take on the wire (a two-leg one is ~10 kB). */
const PREPARED_TRANSACTION_LENGTH_MAX = 1_000_000;
/** The most input holdings a trader may name. */
export const INPUT_HOLDINGS_MAX = 20;
/** The longest created-event blob a disclosed holding may carry (a holding's is well under 10 kB). */
const CREATED_EVENT_BLOB_LENGTH_MAX = 100_000;

export const AtomicSwapIdSchema = Type.String({
  $id: 'AtomicSwapId',
  description: 'Atomic swap identifier, e.g. `atm_7KQ2M9XC4RT0W8N5PJ3HVB6D1F`.',
  pattern: '^atm_[0-9A-HJKMNP-TV-Z]{26}$',
});

const FingerprintSchema = Type.String({
  description: "The fingerprint of the trader's Ed25519 signing key: `1220` and 64 hex digits.",
  pattern: '^1220[0-9a-f]{64}$',
});

const Base64Schema = (description: string, maxLength: number) =>
  Type.String({ description, pattern: '^[A-Za-z0-9+/]*={0,2}$', maxLength });

export const AtomicSwapStateSchema = enumOf(ATOMIC_SWAP_STATES, {
  $id: 'AtomicSwapState',
  description: 'State of an atomic swap (docs/spec/atomic-swaps.md#states).',
});

/** One of the trader's holdings as its own participant discloses it (Canton's `DisclosedContract`). */
export const DisclosedHoldingSchema = Type.Object(
  {
    contractId: Type.String({
      minLength: 1,
      maxLength: 255,
      description: "The holding's contract id: the id the input leg names.",
    }),
    templateId: Type.String({
      minLength: 1,
      maxLength: 512,
      description: "The holding's template id, as the trader's participant reports it.",
    }),
    createdEventBlob: Base64Schema(
      "The holding's `createdEventBlob` as the trader's participant answers it (read with " +
        "`includeCreatedEventBlob`): opaque, passed on unchanged to the pool's participant.",
      CREATED_EVENT_BLOB_LENGTH_MAX,
    ),
    synchronizerId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description: 'The synchronizer the holding is assigned to.',
      }),
    ),
  },
  {
    $id: 'DisclosedHolding',
    description:
      "A holding of the trader disclosed to the pool's participant, which cannot read it itself " +
      '(docs/spec/atomic-swaps.md#input-holdings).',
    additionalProperties: false,
  },
);
export type DisclosedHoldingBody = Static<typeof DisclosedHoldingSchema>;

export const CreateAtomicSwapBodySchema = Type.Object(
  {
    fromToken: inline(TokenSymbolSchema, { description: 'Input token symbol.' }),
    toToken: inline(TokenSymbolSchema, { description: 'Output token symbol.' }),
    amount: amountField('Exact input, fees included: what the input leg moves.'),
    slippageTolerance: Type.Optional(
      inline(SlippageToleranceSchema, { default: SLIPPAGE_TOLERANCE_DEFAULT }),
    ),
    keyFingerprint: FingerprintSchema,
    poolId: Type.Optional(inline(PoolIdSchema, { description: 'Picks the pool explicitly.' })),
    fromAdmin: Type.Optional(inline(PartyIdSchema, { description: 'Admin of the input token.' })),
    toAdmin: Type.Optional(inline(PartyIdSchema, { description: 'Admin of the output token.' })),
    inputHoldingIds: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
        maxItems: INPUT_HOLDINGS_MAX,
        description:
          "The trader's holdings the input leg spends; the ledger picks when absent. With " +
          '`inputHoldings`, it must name the same holdings (or be left out: they imply it).',
      }),
    ),
    inputHoldings: Type.Optional(
      Type.Array(inline(DisclosedHoldingSchema), {
        maxItems: INPUT_HOLDINGS_MAX,
        description:
          "The trader's holdings the input leg spends, as disclosed contracts: for a trader " +
          "hosted on another participant than the pool's, whose holdings the pool's " +
          'participant cannot read. Implies `inputHoldingIds`.',
      }),
    ),
  },
  {
    $id: 'CreateAtomicSwapBody',
    description: 'Body of `POST /v1/atomic-swaps` (docs/spec/atomic-swaps.md#flow).',
    additionalProperties: false,
  },
);
export type CreateAtomicSwapBody = Static<typeof CreateAtomicSwapBodySchema>;

export const ExecuteAtomicSwapBodySchema = Type.Object(
  {
    signature: Base64Schema(
      "The Ed25519 signature (64 bytes, base64) of `preparedTransactionHash`'s bytes.",
      100,
    ),
    publicKey: Base64Schema(
      'The raw 32-byte Ed25519 public key that signed (base64): the key of `keyFingerprint`.',
      100,
    ),
  },
  {
    $id: 'ExecuteAtomicSwapBody',
    description: 'Body of `POST /v1/atomic-swaps/{atomicSwapId}/execute`.',
    additionalProperties: false,
  },
);
export type ExecuteAtomicSwapBody = Static<typeof ExecuteAtomicSwapBodySchema>;

export const AtomicSwapIdParamsSchema = Type.Object(
  { atomicSwapId: inline(AtomicSwapIdSchema) },
  {
    $id: 'AtomicSwapIdParams',
    description: 'Path parameters of one atomic swap.',
    additionalProperties: false,
  },
);

const LegSchema = (description: string) =>
  Type.Object(
    {
      sender: inline(PartyIdSchema),
      receiver: inline(PartyIdSchema),
      token: inline(TokenSymbolSchema),
      tokenAdmin: inline(PartyIdSchema),
      amount: amountField('Exactly what the leg moves.'),
    },
    { description },
  );

export const AtomicSwapSchema = Type.Object(
  {
    atomicSwapId: inline(AtomicSwapIdSchema),
    poolId: inline(PoolIdSchema),
    status: inline(AtomicSwapStateSchema),
    traderParty: inline(PartyIdSchema),
    keyFingerprint: FingerprintSchema,
    input: LegSchema('The input leg: the trader pays the pool the signed input.'),
    output: LegSchema(
      "The output leg: the pool pays the trader the signed output, the quote's output less the slippage tolerance.",
    ),
    quotedOutput: amountField("The quote's output at prepare, before the slippage tolerance."),
    fees: Type.Object(
      {
        networkFeeAmount: amountField('Network fee, in the input token.'),
        poolFeeAmount: amountField('Pool fee: LP fee plus platform fee.'),
        lpFeeAmount: amountField("The LPs' part of the pool fee."),
        platformFeeAmount: amountField("The platform's part of the pool fee."),
        inputAmountAfterPoolFee: amountField('What the curve prices.'),
      },
      { description: "The quote's fee breakdown; together with the priced input, the input." },
    ),
    preparedTransaction: Base64Schema(
      "Canton's `PreparedTransaction` (protobuf, base64): decode it and check the legs before signing.",
      PREPARED_TRANSACTION_LENGTH_MAX,
    ),
    preparedTransactionHash: Base64Schema('What the trader signs (base64).', 100),
    hashingSchemeVersion: Type.String({ description: 'e.g. `HASHING_SCHEME_VERSION_V2`.' }),
    expiresAt: timestampField(
      'The signature must arrive strictly before this; both legs expire then.',
    ),
    failure: nullable(Type.Object({ code: Type.String(), message: Type.String() }), {
      description: 'Why it ended with nothing moved; null otherwise.',
    }),
    updateId: nullable(UpdateIdSchema, { description: 'The one update both legs committed in.' }),
    excess: nullable(AmountStringSchema, {
      description: 'What the curve paid above the signed output at execution: kept by the LPs.',
    }),
    createdAt: timestampField('When it was prepared.'),
    updatedAt: timestampField('Its last change.'),
  },
  {
    $id: 'AtomicSwap',
    description: 'An atomic swap (docs/spec/atomic-swaps.md).',
  },
);
export type AtomicSwap = Static<typeof AtomicSwapSchema>;

const AtomicSwapHistoryEntrySchema = historyEntryOf(AtomicSwapStateSchema, {
  $id: 'AtomicSwapHistoryEntry',
  description: 'One state change of an atomic swap.',
});
export type AtomicSwapHistoryEntry = Static<typeof AtomicSwapHistoryEntrySchema>;

/**
 * An atomic swap as the status routes and `track` answer it, beside the deposit flow's
 * SwapStatus: the keys both kinds have mean the same (`intentId`, the pair, `expectedAmount` what
 * the trader pays, `minOutput` the least it receives, `history`), `kind` tells them apart, and
 * the keys of a deposit (its address, reference, legs) are not there.
 */
export const AtomicSwapStatusSchema = Type.Object(
  {
    kind: Type.Literal('atomic', {
      description: 'An atomic swap; a swap of the deposit flow is `deposit` (SwapStatus).',
    }),
    intentId: inline(AtomicSwapIdSchema, {
      description: 'The atomic swap id, as `atomicSwapId`: the key a list of both kinds reads.',
    }),
    atomicSwapId: inline(AtomicSwapIdSchema),
    poolId: inline(PoolIdSchema),
    status: inline(AtomicSwapStateSchema),
    terminal: Type.Boolean({ description: 'True once the status can no longer change.' }),
    ...swapPairFields,
    expectedAmount: amountField('The signed input: what the input leg moves, exactly.'),
    expectedOutput: amountField("The quote's output at prepare, before the slippage tolerance."),
    minOutput: amountField('The signed output: what the output leg moves, exactly.'),
    actualOutput: nullable(AmountStringSchema, {
      description: 'The output paid (the signed output) once `completed`; null until then.',
    }),
    slippageTolerance: inline(SlippageToleranceSchema),
    traderParty: inline(PartyIdSchema, { description: 'Who signs, pays and receives.' }),
    createdAt: timestampField('When it was prepared.'),
    completedAt: nullable(TimestampSchema, { description: 'When it reached `completed`.' }),
    expiresAt: timestampField('The signature must arrive strictly before this.'),
    failureReason: nullable(FailureReasonSchema, {
      description: 'Why it ended with nothing moved (`failure` of the AtomicSwap); null otherwise.',
    }),
    updateId: nullable(UpdateIdSchema, { description: 'The one update both legs committed in.' }),
    excess: nullable(AmountStringSchema, {
      description: 'What the curve paid above the signed output at execution: kept by the LPs.',
    }),
    history: Type.Array(inline(AtomicSwapHistoryEntrySchema), { description: 'Oldest first.' }),
  },
  {
    $id: 'AtomicSwapStatus',
    description:
      'The state of an atomic swap as `GET /v1/swaps/{intentId}` and `track` answer it ' +
      '(docs/spec/atomic-swaps.md#status-and-track); keys are always present.',
  },
);
export type AtomicSwapStatus = Static<typeof AtomicSwapStatusSchema>;

/** What anyone holding an atomic swap's id may read: its status without the trader. */
export const AtomicSwapProgressSchema = Type.Omit(AtomicSwapStatusSchema, ['traderParty'], {
  $id: 'AtomicSwapProgress',
  description:
    'The state of an atomic swap as `GET /v1/swaps/{intentId}/progress` shows it to anyone ' +
    'with its id: an `AtomicSwapStatus` without `traderParty`.',
});
export type AtomicSwapProgress = Static<typeof AtomicSwapProgressSchema>;

export const ATOMIC_SWAP_SCHEMAS = [
  AtomicSwapIdSchema,
  AtomicSwapStateSchema,
  DisclosedHoldingSchema,
  CreateAtomicSwapBodySchema,
  ExecuteAtomicSwapBodySchema,
  AtomicSwapIdParamsSchema,
  AtomicSwapSchema,
  AtomicSwapHistoryEntrySchema,
  AtomicSwapStatusSchema,
  AtomicSwapProgressSchema,
];
