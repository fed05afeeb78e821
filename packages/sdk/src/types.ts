/**
 * The wire types of the client API. They are declared here rather than
 * imported so that the published declarations stand alone; `test/wire-types.test-d.ts` proves each
 * one equal to the service's schema type in @poolparty/core.
 *
 * Amounts are decimal strings (Daml Numeric 10), rates and USD values exact decimal strings, and
 * times ISO 8601 strings.
 */
import type {
  DISCOUNT_TARGET_TYPES,
  IN_PROGRESS_STATES,
  LEG_EVENT_NAMES,
  LEG_STATES,
  LIQUIDITY_STATES,
  SETTLEMENT_SAFETY_CODES,
  TERMINAL_STATES,
} from './catalogue.js';

/** A swap state that is not final. */
export type InProgressState = (typeof IN_PROGRESS_STATES)[number];
/** A final swap state: `completed` or one of the refund and failure outcomes. */
export type TerminalState = (typeof TERMINAL_STATES)[number];
/** Any swap state: in progress, or terminal. */
export type SwapState = InProgressState | TerminalState;
/** The events a swap object emits: every state but `pending`, where a swap starts. */
export type SwapEventName = Exclude<SwapState, 'pending'>;
/** Where a payout or refund is: `offered` waits for the user to accept it. */
export type LegState = (typeof LEG_STATES)[number];
/**
 * What happened to a payout or refund offer: `payout_offered`, `payout_accepted`,
 * `payout_rejected`, `payout_expired`, and the same for `refund_…`. Only legs that became offers
 * have these events.
 */
export type LegEventName = (typeof LEG_EVENT_NAMES)[number];
/** A settlement-safety guard code: the rule that would block a swap at settlement. */
export type SettlementSafetyCode = (typeof SETTLEMENT_SAFETY_CODES)[number];
/** What a fee discount policy targets. */
export type DiscountTargetType = (typeof DISCOUNT_TARGET_TYPES)[number];

/** A token: a symbol can exist under more than one admin. */
export interface Token {
  /** Token symbol, e.g. `Amulet`, `USDCx`. */
  name: string;
  /** The token's admin party. */
  admin: string;
}

/** Answer of `tokens.list()`. */
export interface TokenList {
  /** The tokens that can be swapped. */
  tokens: Token[];
}

/** One token of a pool with its effective reserve. */
export interface PoolSide {
  /** Token symbol. */
  name: string;
  /** The token's admin party. */
  admin: string;
  /** Effective reserve: holdings minus amounts committed but not settled. */
  reserve: string;
}

/** A constant-product pool. */
export interface Pool {
  /** The pool id; pass it as `poolId` to pick this pool. */
  poolId: string;
  /** The base token. */
  tokenA: PoolSide;
  /** The quote token. */
  tokenB: PoolSide;
  /** Nominal pool fee rate, e.g. 0.003. */
  fee: number;
  /** Liquidity-provider token supply. */
  lpSupply: string;
  /** The pool swap party: deposits go here. */
  swapAddress: string;
  /** The liquidity-provider party. */
  lpAddress: string;
  /** A paused pool refuses quotes and new swaps (409 `pool_paused`). */
  status: 'active' | 'paused';
  /** In `pools.get()`: the price-deviation guard's state. */
  guard?: PoolGuard;
}

/** A pool's price-deviation guard: whether it limits swaps now, and what lets them through. */
export interface PoolGuard {
  /** `limited`: only swaps that bring the price back (or end within the band) pass. */
  state: 'clear' | 'limited';
  /** When the pool became limited; null while clear. */
  since: string | null;
  /** Prices are of this token (tokenA)… */
  baseToken: string;
  /** …in this one (tokenB). */
  quoteToken: string;
  /** The spot price, tokenB per tokenA. */
  price: string;
  /** The reference price: an exponential moving average of the spot price. */
  referencePrice: string;
  /** max(price, reference) / min(price, reference) − 1, rounded up. */
  deviation: string;
  /** The largest deviation a swap may end at. */
  limit: string;
  /** Prices a swap may end at, whichever way it goes. */
  priceBand: { low: string; high: string };
  /** While limited, the token a swap must send to be let through; null while clear. */
  allowedInputToken: string | null;
  /** While limited, when the reference reaches the band if nothing trades. */
  clearsAt: string | null;
  /** The reference covers half its distance to the price in this time. */
  referenceHalfLifeSeconds: number;
}

/** Answer of `pools.list()`. */
export interface PoolList {
  /** Number of pools in `pools`. */
  count: number;
  /** All pools. */
  pools: Pool[];
}

/** How `apr` and `apy` were computed. */
export interface AprMeta {
  /** Days of LP fees the APR is from. */
  lookbackDays: number;
  /** Start of the lookback window. */
  from: string;
  /** End of the lookback window. */
  to: string;
  /** False when the pool has no USD-priced side. */
  supported: boolean;
  /** The token USD figures are quoted through, e.g. `USDCx`. */
  quoteToken: string;
}

/** Pool statistics from fee events and reserves. USD values are decimal strings. */
export interface PoolStats {
  /** The pool. */
  poolId: string;
  /** APR as a fraction; null when the pool has no USD-priced side. */
  apr: string | null;
  /** APY as a fraction; null when the pool has no USD-priced side. */
  apy: string | null;
  /** Swap volume of the last 24 hours, USD. */
  volume24h: string;
  /** All fees of the last 24 hours, USD. */
  fees24h: string;
  /** LP fees of the last 24 hours, USD. */
  lpFees24h: string;
  /** Value of the effective reserves, USD. */
  tvl: string;
  /** Swaps executed in 24 hours. */
  swapCount24h: number;
  /** How `apr` and `apy` were computed. */
  aprMeta: AprMeta;
}

/** Price ticker of a pool. */
export interface Ticker {
  /** The pool. */
  poolId: string;
  /** Base and quote symbol, e.g. `Amulet/USDCx`. */
  pair: string;
  /** USD price of the base token (tokenA). */
  price: string;
  /** Change of `price` over 24 hours as a fraction; null until about 24 h of history exist. */
  priceChange24h: string | null;
  /** Swap volume of the last 24 hours, USD. */
  volume24h: string;
  /** When the figures were taken. */
  asOf: string;
}

/** Why a swap of this size or timing would be blocked at settlement. */
export interface SettlementSafety {
  /** The guard rule that blocks. */
  code: SettlementSafetyCode;
  /** Stable machine-readable detail, e.g. `share=0.1432 limit=0.1`. */
  reason: string;
  /** For people. */
  message: string;
  /** With the price-deviation codes: the deviation the pool's price would end at, rounded up. */
  deviation?: string;
  /** With the price-deviation codes: the limit. */
  limit?: string;
}

/** The network-fee discount that applied to a quote. */
export interface NetworkFeePolicy {
  /** What the policy targets. */
  targetType: DiscountTargetType;
  /** Charged share in basis points; 5000 is a 50 % discount. */
  chargeBps: number;
  /** Network fee before the discount, in the input token. */
  estimatedNetworkFeeAmount: string;
  /** Network fee charged, in the input token. */
  chargedNetworkFeeAmount: string;
}

/** The platform-fee discount that applied to a quote. */
export interface PlatformFeePolicy {
  /** What the policy targets. */
  targetType: DiscountTargetType;
  /** Charged share in basis points; 7000 is a 30 % discount. */
  chargeBps: number;
  /** Platform fee rate without the discount. */
  fullPlatformFeeRate: string;
  /** Platform fee rate charged. */
  chargedPlatformFeeRate: string;
  /** 10000 − chargeBps. */
  discountBps: number;
}

/** The estimated traffic cost of the payout leg. */
export interface EstimatedTrafficCost {
  /** Traffic of the payout transfer. */
  bytes: number;
  /** Its cost in USD. */
  usd: string;
  /** Its cost in Amulet (CC). */
  cc: string;
}

/**
 * A priced swap. Identity: `totalInputAmount = networkFeeAmount + poolFeeAmount +
 * inputAmountAfterPoolFee`.
 */
export interface Quote {
  /** The pool that priced the swap. */
  poolId: string;
  /** Input token symbol. */
  inputToken: string;
  /** Admin of the input token. */
  inputTokenAdmin: string;
  /** Output token symbol. */
  outputToken: string;
  /** Admin of the output token. */
  outputTokenAdmin: string;
  /** The deposit to send; equals the requested amount. */
  totalInputAmount: string;
  /** Estimated payout-leg network fee, in the input token. */
  networkFeeAmount: string;
  /** Compatibility alias of `networkFeeAmount`. */
  trafficFeeInInput: string;
  /** The pool fee: `lpFeeAmount` + `platformFeeAmount`. */
  poolFeeAmount: string;
  /** The part of the pool fee that stays in the pool. */
  lpFeeAmount: string;
  /** The part of the pool fee the platform keeps. */
  platformFeeAmount: string;
  /** The amount priced into the pool. */
  inputAmountAfterPoolFee: string;
  /** Output of the priced swap, rounded down. */
  outputAmount: string;
  /** outputAmount / inputAmountAfterPoolFee, a decimal string. */
  rate: string;
  /** outputAmount / totalInputAmount: all fees included. */
  effectiveRate: string;
  /** 1 − rate / spot price, as a fraction; fees excluded. */
  priceImpact: string;
  /** The server's price-impact cap; a swap beyond it is refused. */
  maxPriceImpact: number;
  /** Nominal pool fee rate (0.003), unchanged by discounts. */
  fee: number;
  /** The estimated traffic cost of the payout leg. */
  estimatedTrafficCost: EstimatedTrafficCost;
  /** The network-fee discount applied; null when none. */
  networkFeePolicy: NetworkFeePolicy | null;
  /** The platform-fee discount applied; null when none. */
  platformFeePolicy: PlatformFeePolicy | null;
  /** Null when clear; otherwise a swap of this size or timing would be blocked. Check it first. */
  settlementSafety: SettlementSafety | null;
  /** Seconds the quote is indicative for. */
  expiresIn: number;
  /** networkFeeAmount / totalInputAmount, to 4 decimals rounded up. */
  networkFeeShare: string;
  /** The least deposit accepted; below it `amount_below_minimum`. */
  minimumInputAmount: string;
  /** The quote's amounts in USD. */
  usd: QuoteUsd;
  /** The pool's guard state now; null while the pool has no reference price. */
  poolGuard: PoolGuard | null;
}

/** A quote's amounts in USD at the prices it was priced with, cut to 10 decimals. */
export interface QuoteUsd {
  /** The deposit in USD. */
  totalInputAmount: string;
  /** The output in USD; null when the output token has no USD price. */
  outputAmount: string | null;
  /** The network fee in USD. */
  networkFeeAmount: string;
  /** The pool fee in USD. */
  poolFeeAmount: string;
  /** networkFeeAmount + poolFeeAmount, in USD. */
  totalFeeAmount: string;
}

/** What the wallet must do to fund an intent. */
export interface SwapInstructions {
  /** The pool swap party to send to. */
  transferTo: string;
  /** Exactly this much. */
  amount: string;
  /** Of this token. */
  token: string;
  /** Under this admin. */
  tokenAdmin: string;
  /** As transfer reason, if the wallet supports one. */
  reason: string;
  /** Before this time. */
  expiresAt: string;
  /** The same, for people. */
  note: string;
}

/** The pair a swap of either kind trades: each token by symbol and admin. */
export interface SwapPair {
  /** Input token symbol. */
  inputToken: string;
  /** Admin of the input token. */
  inputTokenAdmin: string;
  /** Output token symbol. */
  outputToken: string;
  /** Admin of the output token. */
  outputTokenAdmin: string;
}

/** What an intent and its status both say about a swap: the pair, the deposit and the price. */
export interface SwapTerms extends SwapPair {
  /** The intent id. */
  intentId: string;
  /** The pool that executes the swap. */
  poolId: string;
  /** The pool swap party: send the deposit here. Not the user's party. */
  depositAddress: string;
  /** Pass as the transfer's reason/reference where the wallet supports it. */
  depositReference: string;
  /** The deposit to send, exactly. */
  expectedAmount: string;
  /** Output at the quoted price. */
  expectedOutput: string;
  /** floor(expectedOutput × (1 − slippageTolerance)): the least output the swap may pay. */
  minOutput: string;
  /** Accepted shortfall of the output, as a fraction. */
  slippageTolerance: number;
  /** Where the output goes: the depositor party. */
  outputAddress: string;
  /** No deposit after this time; use it rather than a fixed timeout. */
  expiresAt: string;
  /** The state: `pending` when created. */
  status: SwapState;
  /** When the intent was created. */
  createdAt: string;
}

/** A created swap intent awaiting its deposit. */
export interface SwapIntent extends SwapTerms {
  /** The pool swap party. */
  swapAddress: string;
  /** The deposit originally requested. */
  quotedSwapAmount: string;
  /** Same as `expectedAmount`. */
  totalInputAmount: string;
  /** The pool fee deducted before pricing. */
  poolFeeAmount: string;
  /** The part of the pool fee that stays in the pool. */
  lpFeeAmount: string;
  /** The part of the pool fee the platform keeps. */
  platformFeeAmount: string;
  /** The amount priced into the pool. */
  inputAmountAfterPoolFee: string;
  /** Estimated network fee deducted from the deposit. */
  networkFeeAmount: string;
  /** Compatibility alias of `networkFeeAmount`. */
  trafficFeeInInput: string;
  /** What the wallet must do to fund the intent. */
  instructions: SwapInstructions;
}

/** Why a swap ended without a payout. */
export interface FailureReason {
  /** The terminal state, or the guard code when the guard blocked the payout. */
  code: string;
  /** For people. */
  message: string;
}

/** The deposit attributed to an intent. */
export interface DepositFact {
  /** Amount deposited. */
  amount: string;
  /** The ledger update that carried it. */
  updateId: string;
  /** When it was seen on the ledger. */
  receivedAt: string;
}

/**
 * A transfer to the depositor: the payout or the refund. To a party without a transfer
 * pre-approval for the token it is an offer the user must accept in their wallet; the swap waits
 * while it is `offered`.
 */
export interface Leg {
  /** Amount sent (or offered). */
  amount: string;
  /** `offered`: waiting for the user; `committed`: arrived; `rejected`; `expired` unanswered. */
  state: LegState;
  /** The ledger update that last moved the leg (the offer, then its acceptance or end). */
  updateId: string | null;
  /** The offer to accept; null for a transfer that arrived directly. */
  offerId: string | null;
  /** When the offer expires unanswered; null for a direct transfer. */
  expiresAt: string | null;
}

/** The refund transfer: a `Leg` with the network fee it kept. */
export interface RefundLeg extends Leg {
  /** Network fee kept for the refund transfer. */
  networkFeeAmount: string;
}

/** One state change of a swap. */
export interface HistoryEntry {
  /** The state entered. */
  status: SwapState;
  /** When. */
  at: string;
}

/** The state of a swap with the facts of each stage; keys are always present. */
export interface SwapStatus extends SwapTerms {
  /** A swap of the deposit flow; an atomic swap's status is `atomic` (`AtomicSwapStatus`). */
  kind: 'deposit';
  /** True once the status can no longer change. */
  terminal: boolean;
  /** Output paid; null until then. */
  actualOutput: string | null;
  /** When a deposit was attributed. */
  matchedAt: string | null;
  /** When the swap reached `completed`. */
  completedAt: string | null;
  /** Why the swap ended without a payout; null otherwise. */
  failureReason: FailureReason | null;
  /** The deposit; null until one is attributed. */
  deposit: DepositFact | null;
  /** The payout; null until offered or sent. */
  payout: Leg | null;
  /** The refund; null until offered or sent, or when none is owed. */
  refund: RefundLeg | null;
  /** Every state change, oldest first. */
  history: HistoryEntry[];
}

/** Answer of `swaps.cancel()`. */
export interface CancelResult {
  /** The intent. */
  intentId: string;
  /** Always `cancelled`. */
  status: 'cancelled';
}

/** The kinds of swap a party's list holds: the deposit flow's and the atomic ones. */
export type SwapKind = 'deposit' | 'atomic';

/** A swap's status of either kind, as `track` lists them: `kind` tells which. */
export type AnySwapStatus = SwapStatus | AtomicSwapStatus;

/** One page of the swaps of a party, of both kinds (or of the one `kind` asked for). */
export interface TrackResult<T extends AnySwapStatus = AnySwapStatus> {
  /** The wallet party. */
  partyId: string;
  /** Newest first; `kind` tells a `SwapStatus` from an `AtomicSwapStatus`. */
  swaps: T[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

/** A challenge for the wallet to sign. */
export interface Challenge {
  /** The party that is to sign. */
  partyId: string;
  /** Send back with the signature. */
  nonce: string;
  /** The text the wallet signs, as UTF-8 bytes. */
  message: string;
  /** The nonce is refused after this time. */
  expiresAt: string;
}

/** A short-lived wallet token for one party. */
export interface WalletToken {
  /** The party the token speaks for. */
  partyId: string;
  /** Pass as the client's `walletToken`. */
  token: string;
  /** The token is refused after this time. */
  expiresAt: string;
}

/** A pool an ambiguous token pair could mean, with what to pass to pick it. */
export interface AmbiguousCandidate {
  /** Pass as `poolId`… */
  poolId: string;
  /** …or pass this as `fromAdmin`… */
  fromAdmin: string;
  /** …and this as `toAdmin`. */
  toAdmin: string;
}

/**
 * A liquidity intent's state: `pending` → `partial` (one side arrived) → `joining` → `completed`,
 * or `refunding` → `refunded`; `expired`, `cancelled`, `refund_failed`.
 */
export type LiquidityState = (typeof LIQUIDITY_STATES)[number];

/** Amounts of a pool's two sides. */
export interface SideAmounts {
  /** Token A. */
  a: string;
  /** Token B. */
  b: string;
}

/** A deposit that reached the pool's LP party for a liquidity intent. */
export interface LiquidityDeposit {
  /** The pool side it funds. */
  side: 'a' | 'b';
  /** Amount received. */
  amount: string;
  /** Where the amount is: `forwarded` is in the pool; `returning`/`returned` going back. */
  status: 'accepting' | 'forwarding' | 'forwarded' | 'returning' | 'returned' | 'flagged';
  /** The ledger update that carried it. */
  updateId: string;
  /** When the deposit was seen on the ledger. */
  receivedAt: string;
}

/** What a completed liquidity intent minted. */
export interface LiquidityMint {
  /** Units credited to the provider. */
  units: string;
  /** What joined the pool. */
  joined: SideAmounts;
  /** What was returned as the excess of an over-supplied side. */
  returned: SideAmounts;
}

/** A liquidity intent: what a provider deposits to a pool, and what it minted. */
export interface LiquidityIntent {
  /** `liq_…`. */
  liquidityIntentId: string;
  /** The pool. */
  poolId: string;
  /** Its state. */
  status: LiquidityState;
  /** The party that deposits and owns the units. */
  providerParty: string;
  /** The pool's LP party: send both tokens here. */
  depositAddress: string;
  /** Pass as the transfer reason of both deposits. */
  depositReference: string;
  /** Token A's symbol. */
  tokenA: string;
  /** Token A's admin party. */
  tokenAAdmin: string;
  /** Token B's symbol. */
  tokenB: string;
  /** Token B's admin party. */
  tokenBAdmin: string;
  /** What to send of each side. */
  expected: SideAmounts;
  /** Units that would mint at the reserves when the intent was created. */
  expectedUnits: string;
  /** The fewest units accepted; fewer and both sides are returned. */
  minimumUnits: string;
  /** How far below `expectedUnits` the minted units may fall, in basis points. */
  slippageBps: number;
  /** What arrived, oldest first. */
  deposits: LiquidityDeposit[];
  /** Set once completed. */
  minted: LiquidityMint | null;
  /** Why it was refunded, expired or failed. */
  failure: { code: string; message: string } | null;
  /** What to do next, for people. */
  instructions: string;
  /** When it was created. */
  createdAt: string;
  /** Deposits after this are returned; one side in by then is refunded. */
  expiresAt: string;
  /** When it ended. */
  completedAt: string | null;
}

/** One side's payout of a withdrawal. */
export interface Payout {
  /** Paid from the pool. */
  amount: string;
  /** `offered`: accept the transfer offer in the wallet; `flagged`: an operator will pay it. */
  state: 'pending' | 'offered' | 'paid' | 'flagged' | 'none';
  /** The update that paid it. */
  updateId: string | null;
  /** The transfer offer to accept when the payout became one; null when sent in one step. */
  offerId: string | null;
}

/** Units burned for two payouts. */
export interface Withdrawal {
  /** `wdr_…`. */
  withdrawalId: string;
  /** The pool. */
  poolId: string;
  /** The provider paid. */
  providerParty: string;
  /** Units burned. */
  units: string;
  /** `completed` once both payouts arrived; `flagged` when one needs an operator. */
  status: 'paying' | 'completed' | 'flagged';
  /** Token A's payout. */
  payoutA: Payout;
  /** Token B's payout. */
  payoutB: Payout;
  /** When the units were burned. */
  createdAt: string;
  /** When both payouts ended. */
  completedAt: string | null;
}

/** A provider's units of one pool, valued at the pool's price now. */
export interface Position {
  /** The pool. */
  poolId: string;
  /** Token A's symbol. */
  tokenA: string;
  /** Token A's admin party. */
  tokenAAdmin: string;
  /** Token B's symbol. */
  tokenB: string;
  /** Token B's admin party. */
  tokenBAdmin: string;
  /** Units held. */
  units: string;
  /** Units over the pool supply, a decimal fraction. */
  shareOfSupply: string;
  /** What the units redeem for now. */
  redeemable: SideAmounts;
  /** What went in for the units held. */
  deposited: SideAmounts;
  /** What they redeem for, valued in token B. */
  valueInB: string;
  /** What went in, valued in token B. */
  depositedInB: string;
  /**
   * Value vs holding: value now less simply holding what went in, in token B (the fees earned,
   * less any loss from the price moving); may be negative. Not the fees: see `feesEarned`.
   */
  earnedInB: string;
  /**
   * The LP fee share the units earned since they joined, per side. A report, not a separate
   * balance: the fees joined the reserves, and `redeemable` includes them.
   */
  feesEarned: FeesEarned;
}

/** The LP fees a position earned, per side, in each token and in USD where a price exists. */
export interface FeesEarned {
  /** Earned in token A. */
  a: string;
  /** Earned in token B. */
  b: string;
  /** The token A fees in USD, cut to 10 decimals; null without a USD price. */
  aUsd: string | null;
  /** The token B fees in USD, cut to 10 decimals; null without a USD price. */
  bUsd: string | null;
}

/** State of an atomic swap: `prepared` and `executing` until it ends. */
export type AtomicSwapState =
  | 'prepared'
  | 'executing'
  | 'completed'
  | 'price_moved'
  | 'rejected'
  | 'expired'
  | 'cancelled';

/** One leg of an atomic swap: exactly what it moves. */
export interface AtomicSwapLeg {
  sender: string;
  receiver: string;
  token: string;
  tokenAdmin: string;
  amount: string;
}

/** An atomic swap: both legs in one transaction the wallet signs. */
export interface AtomicSwap {
  atomicSwapId: string;
  poolId: string;
  status: AtomicSwapState;
  traderParty: string;
  keyFingerprint: string;
  /** The trader pays the pool exactly this. */
  input: AtomicSwapLeg;
  /** The pool pays the trader exactly this: the quote's output less the slippage tolerance. */
  output: AtomicSwapLeg;
  quotedOutput: string;
  fees: {
    networkFeeAmount: string;
    poolFeeAmount: string;
    lpFeeAmount: string;
    platformFeeAmount: string;
    inputAmountAfterPoolFee: string;
  };
  /** Canton's `PreparedTransaction` (protobuf, base64). */
  preparedTransaction: string;
  /** What the wallet signs (base64). */
  preparedTransactionHash: string;
  hashingSchemeVersion: string;
  expiresAt: string;
  failure: { code: string; message: string } | null;
  updateId: string | null;
  excess: string | null;
  createdAt: string;
  updatedAt: string;
}

/** One state change of an atomic swap. */
export interface AtomicSwapHistoryEntry {
  /** The state entered. */
  status: AtomicSwapState;
  /** When. */
  at: string;
}

/**
 * An atomic swap as `track` and the status routes answer it, beside `SwapStatus`: the keys both
 * have mean the same; the deposit's (address, reference, legs) are not here.
 */
export interface AtomicSwapStatus extends SwapPair {
  /** An atomic swap; a swap of the deposit flow is `deposit` (`SwapStatus`). */
  kind: 'atomic';
  /** The atomic swap id, as `atomicSwapId`: the key a list of both kinds reads. */
  intentId: string;
  atomicSwapId: string;
  poolId: string;
  status: AtomicSwapState;
  /** True once the status can no longer change. */
  terminal: boolean;
  /** The signed input: what the input leg moves, exactly. */
  expectedAmount: string;
  /** The quote's output at prepare, before the slippage tolerance. */
  expectedOutput: string;
  /** The signed output: what the output leg moves, exactly. */
  minOutput: string;
  /** The output paid (the signed output) once `completed`; null until then. */
  actualOutput: string | null;
  slippageTolerance: number;
  /** Who signs, pays and receives. */
  traderParty: string;
  createdAt: string;
  /** When it reached `completed`. */
  completedAt: string | null;
  /** The signature must arrive strictly before this. */
  expiresAt: string;
  /** Why it ended with nothing moved; null otherwise. */
  failureReason: FailureReason | null;
  /** The one update both legs committed in. */
  updateId: string | null;
  /** What the curve paid above the signed output at execution: kept by the LPs. */
  excess: string | null;
  /** Every state change, oldest first. */
  history: AtomicSwapHistoryEntry[];
}
