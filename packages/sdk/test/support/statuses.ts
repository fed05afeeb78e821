/** SwapIntent and SwapStatus fixtures shaped like the service's answers. */
import { isTerminal, type SwapIntent, type SwapState, type SwapStatus } from '../../src/index.js';

const PARTY = `alice::1220${'a'.repeat(64)}`;
const POOL_PARTY = `pool::1220${'b'.repeat(64)}`;
const ADMIN = `dso::1220${'c'.repeat(64)}`;
const T0 = Date.parse('2026-11-22T13:40:00.000Z');

export function at(minutes: number): string {
  return new Date(T0 + minutes * 60_000).toISOString();
}

export function intentFixture(overrides: Partial<SwapIntent> = {}): SwapIntent {
  return {
    intentId: 'int_1',
    poolId: 'amulet-usdcx',
    depositAddress: POOL_PARTY,
    swapAddress: POOL_PARTY,
    depositReference: 'pp-7KQ2M9XC',
    inputToken: 'Amulet',
    inputTokenAdmin: ADMIN,
    outputToken: 'USDCx',
    outputTokenAdmin: ADMIN,
    expectedAmount: '100',
    quotedSwapAmount: '100',
    totalInputAmount: '100',
    poolFeeAmount: '0.3',
    lpFeeAmount: '0.225',
    platformFeeAmount: '0.075',
    inputAmountAfterPoolFee: '91.4',
    networkFeeAmount: '8.3',
    trafficFeeInInput: '8.3',
    expectedOutput: '13.2',
    minOutput: '12.54',
    slippageTolerance: 0.05,
    outputAddress: PARTY,
    expiresAt: at(24 * 60),
    status: 'pending',
    createdAt: at(0),
    instructions: {
      transferTo: POOL_PARTY,
      amount: '100',
      token: 'Amulet',
      tokenAdmin: ADMIN,
      reason: 'pp-7KQ2M9XC',
      expiresAt: at(24 * 60),
      note: 'Send exactly 100 Amulet',
    },
    ...overrides,
  };
}

/** The status after passing through `path` (pending first is implied). */
export function statusAfter(path: readonly SwapState[]): SwapStatus {
  const states: SwapState[] = ['pending', ...path];
  const current = states[states.length - 1] ?? 'pending';
  const completed = current === 'completed';
  return {
    kind: 'deposit',
    intentId: 'int_1',
    poolId: 'amulet-usdcx',
    status: current,
    terminal: isTerminal(current),
    inputToken: 'Amulet',
    inputTokenAdmin: ADMIN,
    outputToken: 'USDCx',
    outputTokenAdmin: ADMIN,
    expectedAmount: '100',
    expectedOutput: '13.2',
    minOutput: '12.54',
    actualOutput: completed ? '13.1' : null,
    slippageTolerance: 0.05,
    depositAddress: POOL_PARTY,
    depositReference: 'pp-7KQ2M9XC',
    outputAddress: PARTY,
    createdAt: at(0),
    matchedAt: path.includes('matched') ? at(1) : null,
    completedAt: completed ? at(6) : null,
    expiresAt: at(24 * 60),
    failureReason:
      isTerminal(current) && !completed ? { code: current, message: `ended ${current}` } : null,
    deposit: null,
    payout: completed
      ? { amount: '13.1', state: 'committed', updateId: 'u-payout', offerId: null, expiresAt: null }
      : null,
    refund: null,
    history: states.map((status, index) => ({ status, at: at(index) })),
  };
}
