/**
 * The decisions of liquidity's money flows (docs/spec/liquidity.md), pure: which intent a deposit
 * to an LP party belongs to, what an intent's state becomes as its sides arrive, what its
 * completion mints or refunds, and what a withdrawal burns and pays. The settlement engine reads,
 * asks one of these, and writes what it returns.
 */
import { Amount } from './amount.js';
import {
  MINIMUM_LOCKED_UNITS,
  type MintRefusal,
  minimumUnits,
  type PoolLiquidity,
  pairedUnits,
  planBurn,
  planMint,
  unitsOfShare,
} from './liquidity.js';
import { credit, debit, type Movement, type Side } from './pool-books.js';
import { integerSqrt } from './pricing.js';

/** What attribution knows of an intent: who may fund it, where, and what has arrived. */
export interface LiquidityCandidate {
  readonly liquidityIntentId: string;
  readonly poolId: string;
  readonly providerParty: string;
  readonly status: string;
  readonly expiresAt: Date;
  /** The sides already taken by a deposit (accepting, forwarding or forwarded). */
  readonly sidesTaken: readonly Side[];
}

export interface ObservedLiquidityDeposit {
  readonly poolId: string;
  readonly sender: string;
  /** Null when the pool does not trade the instrument. */
  readonly side: Side | null;
  readonly receivedAt: Date;
}

export type LiquidityUnmatchedReason =
  | 'wrong_instrument'
  | 'no_intent'
  | 'wrong_party'
  | 'wrong_pool'
  | 'intent_not_open'
  | 'intent_expired'
  | 'side_already_received';

export type LiquidityAttribution =
  | { readonly kind: 'take'; readonly side: Side; readonly becomes: 'partial' | 'joining' }
  | { readonly kind: 'return'; readonly reason: LiquidityUnmatchedReason };

/**
 * Whether `candidate` (the intent the deposit's reference names, else the sender's open intent
 * for the pool) takes the deposit, and the state it moves to: `partial` with its first side,
 * `joining` with its second. Anything else goes back to its sender whole.
 */
export function attributeLiquidityDeposit(
  deposit: ObservedLiquidityDeposit,
  candidate: LiquidityCandidate | null,
): LiquidityAttribution {
  const refuse = (reason: LiquidityUnmatchedReason) => ({ kind: 'return', reason }) as const;
  if (deposit.side === null) return refuse('wrong_instrument');
  if (candidate === null) return refuse('no_intent');
  if (candidate.providerParty !== deposit.sender) return refuse('wrong_party');
  if (candidate.poolId !== deposit.poolId) return refuse('wrong_pool');
  if (candidate.status !== 'pending' && candidate.status !== 'partial') {
    return refuse('intent_not_open');
  }
  if (deposit.receivedAt.getTime() >= candidate.expiresAt.getTime()) {
    return refuse('intent_expired');
  }
  if (candidate.sidesTaken.includes(deposit.side)) return refuse('side_already_received');
  const becomes = candidate.sidesTaken.length === 0 ? 'partial' : 'joining';
  return { kind: 'take', side: deposit.side, becomes };
}

/** The amounts of both sides forwarded to the swap party, in its books' `inflight`. */
export interface ForwardedSides {
  readonly a: Amount;
  readonly b: Amount;
}

export type LiquidityCompletionPlan =
  | {
      readonly kind: 'mint';
      readonly minted: Amount;
      /** Units locked forever (the pool's first deposit only). */
      readonly locked: Amount;
      readonly join: ForwardedSides;
      /** Returned to the provider: the over-supplied side's excess. */
      readonly excess: ForwardedSides;
      readonly movements: readonly Movement[];
    }
  | {
      readonly kind: 'refund';
      readonly failure: { readonly code: string; readonly message: string };
      readonly refund: ForwardedSides;
      readonly movements: readonly Movement[];
    };

const SIDES: readonly Side[] = ['a', 'b'];

/** `inflight` gives up what arrived; part joins the reserve, the rest leaves through `outgoing`. */
function completionMovements(forwarded: ForwardedSides, join: ForwardedSides): Movement[] {
  return SIDES.flatMap((side) => {
    const arrived = forwarded[side];
    const joined = join[side];
    const moves = [debit(side, 'inflight', arrived)];
    if (joined.isPositive()) moves.push(credit(side, 'reserve', joined));
    const back = arrived.sub(joined);
    if (back.isPositive()) moves.push(credit(side, 'outgoing', back));
    return moves;
  });
}

/**
 * Both sides are with the swap party: mint at the pool's reserves now, or refund both when the
 * mint is refused or its units fall below the intent's minimum.
 */
export function planLiquidityCompletion(
  pool: PoolLiquidity,
  forwarded: ForwardedSides,
  minimumUnits: Amount,
): LiquidityCompletionPlan {
  const plan = planMint(pool, forwarded.a, forwarded.b);
  const nothingJoins = { a: Amount.ZERO, b: Amount.ZERO };
  if (plan.kind === 'refused' || plan.minted.lt(minimumUnits)) {
    const failure =
      plan.kind === 'refused'
        ? { code: plan.reason, message: `The deposit could not mint units (${plan.reason}).` }
        : {
            code: 'minimum_units_not_met',
            message: `The deposit would mint ${plan.minted} units, below the minimum of ${minimumUnits}; both sides are returned.`,
          };
    return {
      kind: 'refund',
      failure,
      refund: forwarded,
      movements: completionMovements(forwarded, nothingJoins),
    };
  }
  const join = { a: plan.joinA, b: plan.joinB };
  return {
    kind: 'mint',
    minted: plan.minted,
    locked: plan.locked,
    join,
    excess: { a: plan.excessA, b: plan.excessB },
    movements: completionMovements(forwarded, join),
  };
}

/** A side forwarded after its intent stopped waiting: it goes back from the swap party. */
export function lateSideReturned(side: Side, amount: Amount): Movement[] {
  return [debit(side, 'inflight', amount), credit(side, 'outgoing', amount)];
}

/** What a provider asks to burn: a number of units, or a share of the position in basis points. */
export type BurnRequest =
  | { readonly units: Amount; readonly shareBps?: undefined }
  | { readonly shareBps: number; readonly units?: undefined };

/** The most basis points of a position a withdrawal can burn: all of it. */
const SHARE_BPS_MAX = 10_000;

export type BurnRequestDecision =
  | { readonly kind: 'burn'; readonly request: BurnRequest }
  | { readonly kind: 'refused'; readonly path: '/units' | '/shareBps'; readonly message: string };

/**
 * What a withdrawal asks to burn: exactly one of `units` (above zero) and `shareBps` (1–10 000).
 * A request for no units is malformed whatever the position holds, so it is refused as such
 * before any position is read, not answered as too few units held.
 */
export function burnRequestOf(given: {
  readonly units?: Amount;
  readonly shareBps?: number;
}): BurnRequestDecision {
  const refuse = (path: '/units' | '/shareBps', message: string) =>
    ({ kind: 'refused', path, message }) as const;
  if ((given.units === undefined) === (given.shareBps === undefined)) {
    return refuse('/units', 'Give exactly one of units and shareBps.');
  }
  if (given.units !== undefined) {
    if (!given.units.isPositive()) {
      return refuse('/units', 'units must be positive: a withdrawal burns more than zero units.');
    }
    return { kind: 'burn', request: { units: given.units } };
  }
  const share = given.shareBps as number;
  if (!Number.isInteger(share) || share < 1 || share > SHARE_BPS_MAX) {
    return refuse('/shareBps', `shareBps must be a whole number from 1 to ${SHARE_BPS_MAX}.`);
  }
  return { kind: 'burn', request: { shareBps: share } };
}

export interface PositionHolding {
  readonly units: Amount;
  readonly basisA: Amount;
  readonly basisB: Amount;
}

export type WithdrawalPlan =
  | {
      readonly kind: 'burn';
      readonly units: Amount;
      readonly pay: ForwardedSides;
      /** The share of what went in that leaves the position with the units. */
      readonly basis: ForwardedSides;
      readonly movements: readonly Movement[];
    }
  | {
      readonly kind: 'refused';
      readonly code: 'no_position' | 'insufficient_units' | 'minimum_not_met' | 'nothing_to_pay';
      readonly message: string;
    };

/**
 * Burns units of a position for both sides, rounded down, at the pool's reserves now; refused,
 * burning nothing, when the position holds fewer units or a side would pay less than its minimum.
 */
export function planWithdrawal(
  pool: PoolLiquidity,
  position: PositionHolding | null,
  request: BurnRequest,
  minimum: ForwardedSides,
): WithdrawalPlan {
  if (position === null || !position.units.isPositive()) {
    return {
      kind: 'refused',
      code: 'no_position',
      message: 'The party holds no units of this pool.',
    };
  }
  const units = request.units ?? unitsOfShare(position.units, request.shareBps);
  if (!units.isPositive() || units.gt(position.units)) {
    return {
      kind: 'refused',
      code: 'insufficient_units',
      message: `The position holds ${position.units} units; a withdrawal burns more than zero and at most that.`,
    };
  }
  const pay = planBurn(pool, units);
  if (pay === null || (!pay.payA.isPositive() && !pay.payB.isPositive())) {
    return { kind: 'refused', code: 'nothing_to_pay', message: 'Those units redeem for nothing.' };
  }
  if (pay.payA.lt(minimum.a) || pay.payB.lt(minimum.b)) {
    return {
      kind: 'refused',
      code: 'minimum_not_met',
      message: `The units redeem for ${pay.payA} and ${pay.payB} now, below the minimums ${minimum.a} and ${minimum.b}; nothing was burned.`,
    };
  }
  const share = (basis: Amount) => basis.mulDiv(units.units, position.units.units, 'down');
  const paid = { a: pay.payA, b: pay.payB };
  return {
    kind: 'burn',
    units,
    pay: paid,
    basis: { a: share(position.basisA), b: share(position.basisB) },
    movements: SIDES.flatMap((side) =>
      paid[side].isPositive()
        ? [debit(side, 'reserve', paid[side]), credit(side, 'outgoing', paid[side])]
        : [],
    ),
  };
}

/**
 * A position's worth now (what its units redeem for) against simply holding what went in, both
 * valued at the pool's price now in side B: the difference is what the position earned beyond
 * holding (fees, less any loss from the price moving).
 */
export function positionValue(
  pool: PoolLiquidity,
  position: PositionHolding,
): { readonly redeemable: ForwardedSides; readonly valueInB: Amount; readonly heldInB: Amount } {
  const pay = planBurn(pool, position.units) ?? { payA: Amount.ZERO, payB: Amount.ZERO };
  const inB = (a: Amount) =>
    pool.reserveA.isPositive()
      ? a.mulDiv(pool.reserveB.units, pool.reserveA.units, 'down')
      : Amount.ZERO;
  return {
    redeemable: { a: pay.payA, b: pay.payB },
    valueInB: inB(pay.payA).add(pay.payB),
    heldInB: inB(position.basisA).add(position.basisB),
  };
}

export type LiquidityIntentRefusal =
  | 'validation_error'
  | 'pool_has_no_price'
  | 'amount_out_of_range'
  | 'first_deposit_too_small';

export type LiquidityIntentTerms =
  | {
      readonly kind: 'terms';
      readonly expected: ForwardedSides;
      readonly expectedUnits: Amount;
      readonly minimumUnits: Amount;
    }
  | {
      readonly kind: 'refused';
      readonly code: LiquidityIntentRefusal;
      readonly message: string;
    };

/** The most basis points a slippage tolerance can be: everything may be lost, no more. */
const SLIPPAGE_BPS_MAX = 10_000;

/** The largest amount there is, for messages: 28 nines and 10 more after the point. */
const AMOUNT_MAX = Amount.fromUnits(10n ** 38n - 1n);

function refuseIntent(code: LiquidityIntentRefusal, message: string): LiquidityIntentTerms {
  return { kind: 'refused', code, message };
}

/** The other side of a one-sided intent at the pool's ratio, or why there is none. */
function otherSide(pool: PoolLiquidity, side: Side, given: Amount): Amount | LiquidityIntentTerms {
  const units = pairedUnits(pool, side, given);
  if (units === null) {
    return refuseIntent(
      'pool_has_no_price',
      'The pool has no liquidity yet: give both amounts, which set its price.',
    );
  }
  const paired = Amount.tryFromUnits(units);
  if (paired === null) {
    const [from, to] = side === 'a' ? ['A', 'B'] : ['B', 'A'];
    return refuseIntent(
      'amount_out_of_range',
      `At the pool's ratio, ${given} of token ${from} pairs with more token ${to} than an amount holds (at most ${AMOUNT_MAX}); give less.`,
    );
  }
  return paired;
}

/** Why these amounts mint nothing, in the words a provider can act on. */
function mintRefusal(reason: MintRefusal, a: Amount, b: Amount): LiquidityIntentTerms {
  switch (reason) {
    case 'first_deposit_too_small':
      return refuseIntent(
        'first_deposit_too_small',
        `A pool's first deposit must mint more than ${MINIMUM_LOCKED_UNITS} units, which stay locked forever; ` +
          `these amounts mint ${Amount.fromUnits(integerSqrt(a.units * b.units))} (the square root of amountA × amountB): give more of both.`,
      );
    case 'amount_out_of_range':
      return refuseIntent(
        'amount_out_of_range',
        `These amounts would take the pool's reserves or its units past ${AMOUNT_MAX}, the most an amount holds; give less.`,
      );
    default:
      return refuseIntent('validation_error', `These amounts mint no units (${reason}).`);
  }
}

/**
 * What an intent asks for: both amounts as given, or one and the other at the pool's ratio
 * (rounded up, so the given side limits the mint); the units that would mint now, and the fewest
 * accepted after `slippageBps`. A pool with no liquidity needs both amounts: they set its price.
 * Never throws: every amount it derives (the other side, the units, the pool after the mint) is
 * an amount, or the request is refused before anything is recorded.
 */
export function planLiquidityIntent(
  pool: PoolLiquidity,
  given: { readonly a?: Amount; readonly b?: Amount },
  slippageBps: number,
): LiquidityIntentTerms {
  if (given.a === undefined && given.b === undefined) {
    return refuseIntent('validation_error', 'Give amountA, amountB or both.');
  }
  if (!Number.isInteger(slippageBps) || slippageBps < 0 || slippageBps > SLIPPAGE_BPS_MAX) {
    return refuseIntent('validation_error', `slippageBps must be 0–${SLIPPAGE_BPS_MAX}.`);
  }
  const a = given.a ?? otherSide(pool, 'b', given.b as Amount);
  if (!(a instanceof Amount)) return a;
  const b = given.b ?? otherSide(pool, 'a', a);
  if (!(b instanceof Amount)) return b;
  const plan = planMint(pool, a, b);
  if (plan.kind === 'refused') return mintRefusal(plan.reason, a, b);
  return {
    kind: 'terms',
    expected: { a, b },
    expectedUnits: plan.minted,
    minimumUnits: minimumUnits(plan.minted, slippageBps),
  };
}
