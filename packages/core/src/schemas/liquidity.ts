/**
 * Liquidity intents, withdrawals and positions (docs/spec/liquidity.md): an extension beside the
 * public swap interface, under `/v1/liquidity`.
 */
import { type Static, Type } from '@sinclair/typebox';
import {
  amountField,
  DecimalStringSchema,
  enumOf,
  inline,
  nullable,
  PartyIdSchema,
  PoolIdSchema,
  TimestampSchema,
  TokenSymbolSchema,
  timestampField,
  UpdateIdSchema,
} from './common.js';

export const LIQUIDITY_STATES = [
  'pending',
  'partial',
  'joining',
  'completed',
  'refunding',
  'refunded',
  'expired',
  'cancelled',
  'refund_failed',
] as const;
export type LiquidityState = (typeof LIQUIDITY_STATES)[number];
export const LIQUIDITY_TERMINAL_STATES: readonly LiquidityState[] = [
  'completed',
  'refunded',
  'expired',
  'cancelled',
  'refund_failed',
];

/** A provider's slippage tolerance for the units minted, in basis points. */
export const LIQUIDITY_SLIPPAGE_BPS_DEFAULT = 50;
export const LIQUIDITY_LIST_LIMIT_DEFAULT = 20;

const SlippageBpsSchema = Type.Integer({
  minimum: 0,
  maximum: 5000,
  default: LIQUIDITY_SLIPPAGE_BPS_DEFAULT,
  description:
    'How far below the expected units the minted units may fall, in basis points (50 = 0.5 %); fewer and both sides are returned.',
});

const LiquidityIntentIdSchema = Type.String({
  $id: 'LiquidityIntentId',
  description: 'A liquidity intent id, `liq_` and 26 symbols.',
  pattern: '^liq_[0-9A-Z]{26}$',
});

export const CreateLiquidityIntentBodySchema = Type.Object(
  {
    poolId: inline(PoolIdSchema),
    amountA: Type.Optional(
      amountField("Token A to deposit. Give one side and the other follows the pool's ratio."),
    ),
    amountB: Type.Optional(
      amountField('Token B to deposit; both sides are needed for a pool with no liquidity.'),
    ),
    slippageBps: Type.Optional(SlippageBpsSchema),
  },
  {
    $id: 'CreateLiquidityIntentBody',
    description: 'What a liquidity provider will deposit to a pool.',
    additionalProperties: false,
  },
);
export type CreateLiquidityIntentBody = Static<typeof CreateLiquidityIntentBodySchema>;

const sideAmounts = (description: string) =>
  Type.Object({
    a: amountField(`${description}: token A.`),
    b: amountField(`${description}: token B.`),
  });

const LiquidityDepositSchema = Type.Object({
  side: enumOf(['a', 'b'] as const, { description: 'The pool side it funds.' }),
  amount: amountField('Amount received.'),
  status: enumOf(
    ['accepting', 'forwarding', 'forwarded', 'returning', 'returned', 'flagged'] as const,
    {
      description:
        '`accepting` an offer the service accepts; `forwarding` held by the LP party; `forwarded` in the pool; `returning`/`returned` going or gone back; `flagged` an operator decides.',
    },
  ),
  updateId: inline(UpdateIdSchema),
  receivedAt: timestampField('When the deposit was seen on the ledger.'),
});

export const LiquidityIntentSchema = Type.Object(
  {
    liquidityIntentId: inline(LiquidityIntentIdSchema),
    poolId: inline(PoolIdSchema),
    status: enumOf(LIQUIDITY_STATES, {
      description:
        '`pending` → `partial` (one side arrived) → `joining` → `completed`; or `refunding` → `refunded`; `expired`, `cancelled`, `refund_failed`.',
    }),
    providerParty: inline(PartyIdSchema, {
      description: 'The party that deposits and owns the units.',
    }),
    depositAddress: inline(PartyIdSchema, {
      description: "The pool's LP party: send both tokens here.",
    }),
    depositReference: Type.String({ description: 'Pass as the transfer reason of both deposits.' }),
    tokenA: inline(TokenSymbolSchema),
    tokenAAdmin: inline(PartyIdSchema),
    tokenB: inline(TokenSymbolSchema),
    tokenBAdmin: inline(PartyIdSchema),
    expected: sideAmounts('What to send'),
    expectedUnits: amountField(
      'Units that would mint at the reserves when the intent was created.',
    ),
    minimumUnits: amountField('The fewest units accepted; fewer and both sides are returned.'),
    slippageBps: SlippageBpsSchema,
    deposits: Type.Array(LiquidityDepositSchema, { description: 'What arrived, oldest first.' }),
    minted: nullable(
      Type.Object({
        units: amountField('Units credited to the provider.'),
        joined: sideAmounts('What joined the pool'),
        returned: sideAmounts('What was returned as excess'),
      }),
      { description: 'Set once completed.' },
    ),
    failure: nullable(Type.Object({ code: Type.String(), message: Type.String() }), {
      description: 'Why it was refunded, expired or failed.',
    }),
    instructions: Type.String({ description: 'What to do next, for people.' }),
    createdAt: timestampField('When the intent was created.'),
    expiresAt: timestampField('Deposits after this are returned; one side in by then is refunded.'),
    completedAt: nullable(inline(TimestampSchema), { description: 'When it ended.' }),
  },
  { $id: 'LiquidityIntent', description: 'A liquidity intent (docs/spec/liquidity.md#intents).' },
);
export type LiquidityIntent = Static<typeof LiquidityIntentSchema>;

export const LiquidityIntentIdParamsSchema = Type.Object({
  liquidityIntentId: inline(LiquidityIntentIdSchema),
});

export const LiquidityListQuerySchema = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100, default: LIQUIDITY_LIST_LIMIT_DEFAULT }),
    ),
  },
  { additionalProperties: false },
);

export const LiquidityIntentListSchema = Type.Object(
  { items: Type.Array(inline(LiquidityIntentSchema), { description: 'Newest first.' }) },
  { $id: 'LiquidityIntentList', description: "The wallet party's liquidity intents." },
);

export const CreateWithdrawalBodySchema = Type.Object(
  {
    poolId: inline(PoolIdSchema),
    units: Type.Optional(amountField('Units to burn.')),
    shareBps: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 10_000,
        description: 'Or a share of the position to burn, in basis points (10 000 = all).',
      }),
    ),
    minimumA: amountField('The least token A accepted; less and nothing is burned.'),
    minimumB: amountField('The least token B accepted; less and nothing is burned.'),
  },
  {
    $id: 'CreateWithdrawalBody',
    description: 'Units to burn (exactly one of `units` and `shareBps`) and the least accepted.',
    additionalProperties: false,
  },
);
export type CreateWithdrawalBody = Static<typeof CreateWithdrawalBodySchema>;

const PayoutSchema = Type.Object({
  amount: amountField('Paid from the pool.'),
  state: enumOf(['pending', 'offered', 'paid', 'flagged', 'none'] as const, {
    description:
      '`offered`: accept the transfer offer in your wallet; `flagged`: an operator will pay it; `none`: this side pays nothing.',
  }),
  updateId: nullable(inline(UpdateIdSchema), { description: 'The update that paid it.' }),
  offerId: nullable(Type.String({ minLength: 1 }), {
    description:
      'The transfer offer to accept when the payout became one; null when sent in one step.',
  }),
});

export const WithdrawalSchema = Type.Object(
  {
    withdrawalId: Type.String({ description: 'The withdrawal id, `wdr_…`.' }),
    poolId: inline(PoolIdSchema),
    providerParty: inline(PartyIdSchema),
    units: amountField('Units burned.'),
    status: enumOf(['paying', 'completed', 'flagged'] as const, {
      description: '`completed` once both payouts arrived; `flagged` when one needs an operator.',
    }),
    payoutA: PayoutSchema,
    payoutB: PayoutSchema,
    createdAt: timestampField('When the units were burned.'),
    completedAt: nullable(inline(TimestampSchema), { description: 'When both payouts ended.' }),
  },
  {
    $id: 'Withdrawal',
    description: 'Units burned for two payouts (docs/spec/liquidity.md#withdrawals).',
  },
);
export type Withdrawal = Static<typeof WithdrawalSchema>;

export const WithdrawalIdParamsSchema = Type.Object({
  withdrawalId: Type.String({ pattern: '^wdr_[A-Za-z0-9_-]{16}$' }),
});

const usdOrNull = (description: string) =>
  nullable(DecimalStringSchema, {
    description: `${description} in USD at its price now, cut to 10 decimals; null without a USD price.`,
  });

const FeesEarnedSchema = Type.Object(
  {
    a: amountField('LP fees earned in token A.'),
    b: amountField('LP fees earned in token B.'),
    aUsd: usdOrNull('The token A fees'),
    bUsd: usdOrNull('The token B fees'),
  },
  {
    description:
      'The LP fee share the units earned since they joined, per side, in the token it was paid in (docs/spec/liquidity.md#fees-earned). A report, not a separate balance: the fees joined the reserves, and `redeemable` includes them.',
  },
);

const PositionSchema = Type.Object(
  {
    poolId: inline(PoolIdSchema),
    tokenA: inline(TokenSymbolSchema),
    tokenAAdmin: inline(PartyIdSchema),
    tokenB: inline(TokenSymbolSchema),
    tokenBAdmin: inline(PartyIdSchema),
    units: amountField('Units held.'),
    shareOfSupply: Type.String({ description: 'Units over the pool supply, a decimal fraction.' }),
    redeemable: sideAmounts('What the units redeem for now'),
    deposited: sideAmounts('What went in for the units held'),
    valueInB: amountField('What they redeem for, valued in token B at the pool price now.'),
    depositedInB: amountField('What went in, valued in token B at the pool price now.'),
    earnedInB: Type.String({
      description:
        'Value vs holding: value now less simply holding what went in, in token B (the fees earned, less any loss from the price moving); may be negative. Not the fees: see `feesEarned`.',
    }),
    feesEarned: FeesEarnedSchema,
  },
  {
    $id: 'Position',
    description: "A provider's units of one pool (docs/spec/liquidity.md#positions).",
  },
);
export type Position = Static<typeof PositionSchema>;

export const WithdrawalListSchema = Type.Object(
  { items: Type.Array(inline(WithdrawalSchema), { description: 'Newest first.' }) },
  { $id: 'WithdrawalList', description: "The wallet party's withdrawals." },
);

export const PositionListSchema = Type.Object(
  { items: Type.Array(inline(PositionSchema), { description: 'By pool.' }) },
  { $id: 'PositionList', description: "The wallet party's liquidity positions." },
);

export const LIQUIDITY_SCHEMAS = [
  LiquidityIntentIdSchema,
  CreateLiquidityIntentBodySchema,
  LiquidityIntentSchema,
  LiquidityIntentListSchema,
  CreateWithdrawalBodySchema,
  WithdrawalSchema,
  WithdrawalListSchema,
  PositionSchema,
  PositionListSchema,
] as const;
