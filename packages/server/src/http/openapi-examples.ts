/**
 * Example requests and answers for the OpenAPI document, taken from a devnet service (ids and
 * keys shortened to stay readable, but every value valid for its schema: the document lint
 * checks each example against the schema it illustrates).
 */
import { type ErrorCode, problemFor } from '@poolparty/core';

const FINGERPRINT = '1220035a791d845bbb8195615e7eccd7a57c2ec4075c2e88695f194bab4e0194a889';
const party = (hint: string) => `${hint}::${FINGERPRINT}`;

const ALICE = party('alice');
const BOB = party('bob');
const AMULET_ADMIN = party('DSO');
const USDCX_ADMIN = party('circle');
const USDCX_BRIDGE_ADMIN = party('usdx-bridge');
const POOL_ID = 'amulet-usdcx';
const INTENT_ID = 'swp_BAWB7Q3QWKX3FVSWGTWA536VN4';
const DEPOSIT_REFERENCE = 'pp-S3C31GRTTW9ND';
const SWAP_ADDRESS = party('amulet-usdcx-swap');
const CREATED_AT = '2026-11-22T13:40:00.000Z';
const EXPIRES_AT = '2026-11-23T13:40:00.000Z';
const REQUEST_ID = '3607b78d-8f70-4a42-97a2-3bde44fae88f';
const NONCE = '09-Z3p8rd-tNeEg7q-sMy6E_r3AmviwPaytePMxVbyA';
const SIGNATURE =
  'e0ALHGQDV/2bkpRylrugaTi+vR3vYYh6CnlluvVrPsVweAZu5NiuWmII/jkaxgH5KpTIhom0LvliyaL9bINCBQ==';
const PUBLIC_KEY = '11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=';

// --- market ---------------------------------------------------------------------------------

export const POOL_EXAMPLE = {
  poolId: POOL_ID,
  tokenA: { name: 'Amulet', admin: AMULET_ADMIN, reserve: '1000000' },
  tokenB: { name: 'USDCx', admin: USDCX_ADMIN, reserve: '145000' },
  fee: 0.003,
  lpSupply: '380788.6552931954',
  swapAddress: SWAP_ADDRESS,
  lpAddress: party('amulet-usdcx-lp'),
  status: 'active',
};

export const TOKEN_LIST_EXAMPLE = {
  tokens: [
    { name: 'Amulet', admin: AMULET_ADMIN },
    { name: 'USDCx', admin: USDCX_ADMIN },
    { name: 'USDCx', admin: USDCX_BRIDGE_ADMIN },
  ],
};

export const POOL_LIST_EXAMPLE = { count: 1, pools: [POOL_EXAMPLE] };

export const POOL_STATS_EXAMPLE = {
  poolId: POOL_ID,
  apr: '0.0412',
  apy: '0.042',
  volume24h: '18250.5',
  fees24h: '54.75',
  lpFees24h: '41.06',
  tvl: '290000',
  swapCount24h: 37,
  aprMeta: {
    lookbackDays: 7,
    from: '2026-11-15T13:40:00.000Z',
    to: CREATED_AT,
    supported: true,
    quoteToken: 'USDCx',
  },
};

export const POOL_HISTORY_EXAMPLE = {
  poolId: POOL_ID,
  period: '24h',
  from: '2026-11-21T13:40:00.000Z',
  to: CREATED_AT,
  points: [
    {
      hour: '2026-11-22T12:00:00.000Z',
      reserveA: '1000000',
      reserveB: '145000',
      price: '0.145',
      priceUsd: '0.145',
      tvl: '290000',
      volume: '1250.5',
      swapCount: 3,
    },
  ],
};

export const POOL_TRADES_EXAMPLE = {
  poolId: POOL_ID,
  trades: [
    {
      at: CREATED_AT,
      inputToken: 'Amulet',
      outputToken: 'USDCx',
      inputAmount: '100',
      outputAmount: '14.3517',
      volume: '14.5',
    },
  ],
};

export const TICKER_EXAMPLE = {
  poolId: POOL_ID,
  pair: 'Amulet/USDCx',
  price: '0.145',
  priceChange24h: '0.0123',
  volume24h: '18250.5',
  asOf: CREATED_AT,
};

export const POOL_GUARD_EXAMPLE = {
  state: 'clear',
  since: null,
  baseToken: 'Amulet',
  quoteToken: 'USDCx',
  price: '0.145',
  referencePrice: '0.145',
  deviation: '0',
  limit: '0.05',
  priceBand: { low: '0.1380952381', high: '0.15225' },
  allowedInputToken: null,
  clearsAt: null,
  referenceHalfLifeSeconds: 900,
};

export const POOL_DETAIL_EXAMPLE = { ...POOL_EXAMPLE, guard: POOL_GUARD_EXAMPLE };

export const QUOTE_EXAMPLE = {
  poolId: POOL_ID,
  inputToken: 'Amulet',
  inputTokenAdmin: AMULET_ADMIN,
  outputToken: 'USDCx',
  outputTokenAdmin: USDCX_ADMIN,
  totalInputAmount: '100',
  networkFeeAmount: '8.275862069',
  trafficFeeInInput: '8.275862069',
  poolFeeAmount: '0.2751724138',
  lpFeeAmount: '0.2063793104',
  platformFeeAmount: '0.0687931034',
  inputAmountAfterPoolFee: '91.4489655172',
  outputAmount: '13.2588874884',
  rate: '0.1449867411',
  effectiveRate: '0.1325888748',
  priceImpact: '0.0000914407',
  maxPriceImpact: 0.15,
  fee: 0.003,
  estimatedTrafficCost: { bytes: 20000, usd: '1.2', cc: '8.275862069' },
  networkFeePolicy: null,
  platformFeePolicy: null,
  settlementSafety: null,
  expiresIn: 30,
  networkFeeShare: '0.0828',
  minimumInputAmount: '8.2758620691',
  usd: {
    totalInputAmount: '14.5',
    outputAmount: '13.2588874884',
    networkFeeAmount: '1.2',
    poolFeeAmount: '0.0399',
    totalFeeAmount: '1.2399',
  },
  poolGuard: POOL_GUARD_EXAMPLE,
};

// --- swaps ----------------------------------------------------------------------------------

export const CREATE_SWAP_EXAMPLE = {
  fromToken: 'Amulet',
  toToken: 'USDCx',
  amount: '100',
  slippageTolerance: 0.01,
  poolId: POOL_ID,
};

const intentTerms = {
  intentId: INTENT_ID,
  poolId: POOL_ID,
  depositAddress: SWAP_ADDRESS,
  depositReference: DEPOSIT_REFERENCE,
  inputToken: 'Amulet',
  inputTokenAdmin: AMULET_ADMIN,
  outputToken: 'USDCx',
  outputTokenAdmin: USDCX_ADMIN,
  expectedAmount: '100',
  expectedOutput: '13.2588874884',
  minOutput: '13.1262986135',
  slippageTolerance: 0.01,
  outputAddress: ALICE,
  expiresAt: EXPIRES_AT,
};

export const SWAP_INTENT_EXAMPLE = {
  ...intentTerms,
  status: 'pending',
  swapAddress: SWAP_ADDRESS,
  quotedSwapAmount: '100',
  totalInputAmount: '100',
  poolFeeAmount: '0.2751724138',
  lpFeeAmount: '0.2063793104',
  platformFeeAmount: '0.0687931034',
  inputAmountAfterPoolFee: '91.4489655172',
  networkFeeAmount: '8.275862069',
  trafficFeeInInput: '8.275862069',
  createdAt: CREATED_AT,
  instructions: {
    transferTo: SWAP_ADDRESS,
    amount: '100',
    token: 'Amulet',
    tokenAdmin: AMULET_ADMIN,
    reason: DEPOSIT_REFERENCE,
    expiresAt: EXPIRES_AT,
    note:
      `Send exactly 100 Amulet (admin ${AMULET_ADMIN}) from ${ALICE} to ${SWAP_ADDRESS} before ` +
      `${EXPIRES_AT}. If the wallet supports transfer reasons, set ${DEPOSIT_REFERENCE} as the ` +
      'reason (metadata splice.lfdecentralizedtrust.org/reason); without it the deposit is ' +
      'matched by sender, pool and token. Any other amount or sender is refunded minus the ' +
      'network fee.',
  },
};

const SWAP_STATUS_EXAMPLE = {
  kind: 'deposit',
  ...intentTerms,
  status: 'pending',
  terminal: false,
  actualOutput: null,
  createdAt: CREATED_AT,
  matchedAt: null,
  completedAt: null,
  failureReason: null,
  deposit: null,
  payout: null,
  refund: null,
  history: [{ status: 'pending', at: CREATED_AT }],
};

/** A payout waiting as an offer: the receiver has no pre-approval and must accept it. */
export const SWAP_STATUS_PAYOUT_OFFERED_EXAMPLE = {
  ...SWAP_STATUS_EXAMPLE,
  status: 'sending_output',
  matchedAt: '2026-11-22T13:41:02.000Z',
  deposit: { amount: '100', updateId: 'update-000412', receivedAt: '2026-11-22T13:41:02.000Z' },
  payout: {
    amount: '13.2588874884',
    state: 'offered',
    updateId: 'update-000415',
    offerId: 'offer-000415-0',
    expiresAt: '2026-11-23T13:41:03.000Z',
  },
  history: [
    { status: 'pending', at: CREATED_AT },
    { status: 'matched', at: '2026-11-22T13:41:02.000Z' },
    { status: 'deposit_received', at: '2026-11-22T13:41:02.000Z' },
    { status: 'forwarded', at: '2026-11-22T13:41:02.000Z' },
    { status: 'processing', at: '2026-11-22T13:41:03.000Z' },
    { status: 'sending_output', at: '2026-11-22T13:41:03.000Z' },
  ],
};

/** What anyone with the swap's id reads: the status without the parties and the reference. */
export const SWAP_PROGRESS_EXAMPLE = (() => {
  const { depositAddress, depositReference, outputAddress, ...progress } =
    SWAP_STATUS_PAYOUT_OFFERED_EXAMPLE;
  return progress;
})();

export const CANCEL_RESULT_EXAMPLE = { intentId: INTENT_ID, status: 'cancelled' };

export const SWAP_EVENTS_EXAMPLE = `event: pending\nid: 1\ndata: ${JSON.stringify(SWAP_STATUS_EXAMPLE)}\n\n: heartbeat\n\n`;

// --- atomic swaps ---------------------------------------------------------------------------

const ATOMIC_SWAP_ID = 'atm_7KQ2M9XC4RT0W8N5PJ3HVB6D1F';
const TRADER_KEY_FINGERPRINT = FINGERPRINT;

export const CREATE_ATOMIC_SWAP_EXAMPLE = {
  fromToken: 'Amulet',
  toToken: 'USDCx',
  amount: '100',
  slippageTolerance: 0.01,
  keyFingerprint: TRADER_KEY_FINGERPRINT,
  poolId: POOL_ID,
};

/** The same request from a trader hosted on another participant: its input holding disclosed. */
export const CREATE_ATOMIC_SWAP_DISCLOSED_EXAMPLE = {
  ...CREATE_ATOMIC_SWAP_EXAMPLE,
  inputHoldings: [
    {
      contractId: '00f2c5b1a97e4d3c8b6a5f4e3d2c1b0a99887766554433221100ffeeddccbbaa99',
      templateId: '#splice-amulet:Splice.Amulet:Amulet',
      createdEventBlob:
        'CgMyLjESwQQKRQDyxbGpfk08i2pfTj0sGwqZiHdmVUQzIhEA/+7dzLuqmc8SDnNwbGljZS1hbXVsZXQ=',
      synchronizerId:
        'global-domain::1220be58c29e65de40bf273be1dc2b266d43a9a002ea5b18955aeef7aac881bb471a',
    },
  ],
};

export const ATOMIC_SWAP_PREPARED_EXAMPLE = {
  atomicSwapId: ATOMIC_SWAP_ID,
  poolId: POOL_ID,
  status: 'prepared',
  traderParty: ALICE,
  keyFingerprint: TRADER_KEY_FINGERPRINT,
  input: {
    sender: ALICE,
    receiver: SWAP_ADDRESS,
    token: 'Amulet',
    tokenAdmin: AMULET_ADMIN,
    amount: '100',
  },
  output: {
    sender: SWAP_ADDRESS,
    receiver: ALICE,
    token: 'USDCx',
    tokenAdmin: USDCX_ADMIN,
    amount: '14.157',
  },
  quotedOutput: '14.3',
  fees: {
    networkFeeAmount: '1',
    poolFeeAmount: '0.297',
    lpFeeAmount: '0.22275',
    platformFeeAmount: '0.07425',
    inputAmountAfterPoolFee: '98.703',
  },
  preparedTransaction: 'CgMyLjESATASATQaswoKATDCPqwKGqkKCgMyLjES',
  preparedTransactionHash: 'MJZf9eA8lfr46qk37NbwsQM203+hIozDjd7c4oNlQNs=',
  hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
  expiresAt: '2026-11-22T13:41:00.000Z',
  failure: null,
  updateId: null,
  excess: null,
  createdAt: CREATED_AT,
  updatedAt: CREATED_AT,
};

export const EXECUTE_ATOMIC_SWAP_EXAMPLE = { signature: SIGNATURE, publicKey: PUBLIC_KEY };

export const ATOMIC_SWAP_COMPLETED_EXAMPLE = {
  ...ATOMIC_SWAP_PREPARED_EXAMPLE,
  status: 'completed',
  updateId: '1220f4c0a6e4b5d3c2a19e8f7d6c5b4a39281706f5e4d3c2b1a0998877665544',
  excess: '0.112',
  updatedAt: '2026-11-22T13:40:12.000Z',
};

/** The completed atomic swap as the status routes and `track` answer it, beside SwapStatus. */
export const ATOMIC_SWAP_STATUS_EXAMPLE = {
  kind: 'atomic',
  intentId: ATOMIC_SWAP_ID,
  atomicSwapId: ATOMIC_SWAP_ID,
  poolId: POOL_ID,
  status: 'completed',
  terminal: true,
  inputToken: 'Amulet',
  inputTokenAdmin: AMULET_ADMIN,
  outputToken: 'USDCx',
  outputTokenAdmin: USDCX_ADMIN,
  expectedAmount: '100',
  expectedOutput: '14.3',
  minOutput: '14.157',
  actualOutput: '14.157',
  slippageTolerance: 0.01,
  traderParty: ALICE,
  createdAt: CREATED_AT,
  completedAt: ATOMIC_SWAP_COMPLETED_EXAMPLE.updatedAt,
  expiresAt: ATOMIC_SWAP_PREPARED_EXAMPLE.expiresAt,
  failureReason: null,
  updateId: ATOMIC_SWAP_COMPLETED_EXAMPLE.updateId,
  excess: ATOMIC_SWAP_COMPLETED_EXAMPLE.excess,
  history: [
    { status: 'prepared', at: CREATED_AT },
    { status: 'executing', at: '2026-11-22T13:40:11.000Z' },
    { status: 'completed', at: ATOMIC_SWAP_COMPLETED_EXAMPLE.updatedAt },
  ],
};

/** What anyone with the atomic swap's id reads: its status without the trader. */
export const ATOMIC_SWAP_PROGRESS_EXAMPLE = (() => {
  const { traderParty, ...progress } = ATOMIC_SWAP_STATUS_EXAMPLE;
  return progress;
})();

/** A party's swaps of both kinds, newest first. */
export const TRACK_RESULT_EXAMPLE = {
  partyId: ALICE,
  swaps: [ATOMIC_SWAP_STATUS_EXAMPLE, SWAP_STATUS_EXAMPLE],
  nextCursor: null,
};

export const ATOMIC_SWAP_CANCELLED_EXAMPLE = {
  ...ATOMIC_SWAP_PREPARED_EXAMPLE,
  status: 'cancelled',
  failure: { code: 'cancelled', message: 'cancelled by the trader before signing' },
  updatedAt: '2026-11-22T13:40:20.000Z',
};

export const ATOMIC_SWAP_EVENTS_EXAMPLE = `event: prepared\nid: 1\ndata: ${JSON.stringify(ATOMIC_SWAP_PREPARED_EXAMPLE)}\n\nevent: executing\nid: 2\ndata: ${JSON.stringify({ ...ATOMIC_SWAP_PREPARED_EXAMPLE, status: 'executing' })}\n\nevent: completed\nid: 3\ndata: ${JSON.stringify(ATOMIC_SWAP_COMPLETED_EXAMPLE)}\n\n`;

// --- liquidity ------------------------------------------------------------------------------

const LIQUIDITY_INTENT_ID = 'liq_01KAQ8ZP3M4VX6D2R7TNB9C5HE';
const LP_ADDRESS = party('amulet-usdcx-lp');

export const CREATE_LIQUIDITY_INTENT_EXAMPLE = { poolId: POOL_ID, amountA: '1000' };

export const LIQUIDITY_INTENT_EXAMPLE = {
  liquidityIntentId: LIQUIDITY_INTENT_ID,
  poolId: POOL_ID,
  status: 'pending',
  providerParty: ALICE,
  depositAddress: LP_ADDRESS,
  depositReference: 'pp-K7M2Q9D4XW1AF',
  tokenA: 'Amulet',
  tokenAAdmin: AMULET_ADMIN,
  tokenB: 'USDCx',
  tokenBAdmin: USDCX_ADMIN,
  expected: { a: '1000', b: '145' },
  expectedUnits: '380.7886552931',
  minimumUnits: '378.8847120166',
  slippageBps: 50,
  deposits: [],
  minted: null,
  failure: null,
  instructions: `To add liquidity, send 1000 of token A and 145 of token B from ${ALICE} to ${LP_ADDRESS} with the reason pp-K7M2Q9D4XW1AF, in either order, before ${EXPIRES_AT}.`,
  createdAt: CREATED_AT,
  expiresAt: EXPIRES_AT,
  completedAt: null,
};

export const LIQUIDITY_INTENT_COMPLETED_EXAMPLE = {
  ...LIQUIDITY_INTENT_EXAMPLE,
  status: 'completed',
  deposits: [
    {
      side: 'a',
      amount: '1000',
      status: 'forwarded',
      updateId: 'update-000512',
      receivedAt: '2026-11-22T13:41:10.000Z',
    },
    {
      side: 'b',
      amount: '150',
      status: 'forwarded',
      updateId: 'update-000514',
      receivedAt: '2026-11-22T13:41:40.000Z',
    },
  ],
  minted: {
    units: '380.7886552931',
    joined: { a: '1000', b: '145' },
    returned: { a: '0', b: '5' },
  },
  instructions: 'Units credited; see your positions.',
  completedAt: '2026-11-22T13:41:43.000Z',
};

export const LIQUIDITY_INTENT_CANCELLED_EXAMPLE = {
  ...LIQUIDITY_INTENT_EXAMPLE,
  status: 'cancelled',
  instructions: 'Nothing more to do.',
  completedAt: '2026-11-22T13:42:00.000Z',
};

export const LIQUIDITY_INTENT_LIST_EXAMPLE = { items: [LIQUIDITY_INTENT_COMPLETED_EXAMPLE] };

const PARTIAL_EXAMPLE = {
  ...LIQUIDITY_INTENT_EXAMPLE,
  status: 'partial',
  deposits: [LIQUIDITY_INTENT_COMPLETED_EXAMPLE.deposits[0]],
  instructions: `One side arrived; to complete, send the other side: 1000 of token A and 145 of token B from ${ALICE} to ${LP_ADDRESS} with the reason pp-K7M2Q9D4XW1AF, in either order, before ${EXPIRES_AT}.`,
};

export const LIQUIDITY_EVENTS_EXAMPLE =
  `event: pending\nid: 7\ndata: ${JSON.stringify(LIQUIDITY_INTENT_EXAMPLE)}\n\n` +
  `event: partial\nid: 9\ndata: ${JSON.stringify(PARTIAL_EXAMPLE)}\n\n: heartbeat\n\n`;

export const CREATE_WITHDRAWAL_EXAMPLE = {
  poolId: POOL_ID,
  shareBps: 5000,
  minimumA: '495',
  minimumB: '71.5',
};

const WITHDRAWAL = {
  withdrawalId: 'wdr_Qm3xT8vK1pZr9cWd',
  poolId: POOL_ID,
  providerParty: ALICE,
  units: '190.3943276465',
  createdAt: '2026-11-23T09:12:00.000Z',
};

export const WITHDRAWAL_EXAMPLE = {
  ...WITHDRAWAL,
  status: 'paying',
  payoutA: { amount: '500.0812345678', state: 'pending', updateId: null, offerId: null },
  payoutB: { amount: '72.5117732051', state: 'pending', updateId: null, offerId: null },
  completedAt: null,
};

export const WITHDRAWAL_COMPLETED_EXAMPLE = {
  ...WITHDRAWAL,
  status: 'completed',
  payoutA: { amount: '500.0812345678', state: 'paid', updateId: 'update-000731', offerId: null },
  payoutB: { amount: '72.5117732051', state: 'paid', updateId: 'update-000732', offerId: null },
  completedAt: '2026-11-23T09:12:04.000Z',
};

const WITHDRAWAL_OFFERED_EXAMPLE = {
  ...WITHDRAWAL_EXAMPLE,
  payoutA: { ...WITHDRAWAL_EXAMPLE.payoutA, state: 'offered', offerId: 'offer-000731' },
};

export const WITHDRAWAL_EVENTS_EXAMPLE =
  `event: paying\nid: 12\ndata: ${JSON.stringify(WITHDRAWAL_EXAMPLE)}\n\n` +
  `event: payout_offered\nid: 13\ndata: ${JSON.stringify(WITHDRAWAL_OFFERED_EXAMPLE)}\n\n` +
  ': heartbeat\n\n';

export const POSITION_LIST_EXAMPLE = {
  items: [
    {
      poolId: POOL_ID,
      tokenA: 'Amulet',
      tokenAAdmin: AMULET_ADMIN,
      tokenB: 'USDCx',
      tokenBAdmin: USDCX_ADMIN,
      units: '380.7886552931',
      shareOfSupply: '0.00099900',
      redeemable: { a: '1000.1624691356', b: '145.0235464102' },
      deposited: { a: '1000', b: '145' },
      valueInB: '290.0470928204',
      depositedInB: '290.0235561253',
      earnedInB: '0.0235366951',
      feesEarned: {
        a: '0.0812337213',
        b: '0.0117789893',
        aUsd: '0.0117788895',
        bUsd: '0.0117789893',
      },
    },
  ],
};

// --- wallet auth and portal -----------------------------------------------------------------

const challengeMessage = (purpose: string) =>
  `poolparty.example wants you to authenticate your Canton party:\n${ALICE}\n\n` +
  `Purpose: ${purpose}\nEnvironment: devnet\nNonce: ${NONCE}\n` +
  'Issued At: 2026-11-22T13:40:00.000Z\nExpiration Time: 2026-11-22T13:45:00.000Z';

export const CHALLENGE_REQUEST_EXAMPLE = { partyId: ALICE };

export const PORTAL_SESSION_SIGNED_IN_EXAMPLE = { signedIn: true, partyId: ALICE };
export const PORTAL_SESSION_SIGNED_OUT_EXAMPLE = { signedIn: false, partyId: null };

export const challengeExample = (purpose: string) => ({
  partyId: ALICE,
  nonce: NONCE,
  message: challengeMessage(purpose),
  expiresAt: '2026-11-22T13:45:00.000Z',
});

export const SIGNED_CHALLENGE_EXAMPLE = {
  partyId: ALICE,
  nonce: NONCE,
  signature: SIGNATURE,
  publicKey: PUBLIC_KEY,
};

export const WALLET_TOKEN_EXAMPLE = {
  partyId: ALICE,
  token:
    'eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhbGljZTo6MTIyMCJ9.pNBkFcDak5dY_TKw3isbRKcZXIoSeS0VaK1Fd-1a8aC3MSxBMPEshde2VZ9VW1mQgpqB2CRWAUc6nVdV-y4RCA',
  expiresAt: '2026-11-22T13:55:00.000Z',
};

export const DEVELOPER_SESSION_EXAMPLE = {
  token: 'bLfH4L5LLEaVyaifhfjJne9lNb5n23Ibf6GhEyT-aBc',
  expiresAt: '2026-11-23T01:40:00.000Z',
  partyId: ALICE,
};

export const SIGNED_OUT_EXAMPLE = { partyId: ALICE, signedOut: true };

export const API_KEY_CREATE_EXAMPLE = { name: 'web shop' };

const API_KEY_ENTRY_EXAMPLE = {
  keyId: 'key_qxb8fe5GLL_DG5jU',
  name: 'web shop',
  prefix: 'pp_test_qEoK',
  createdAt: CREATED_AT,
  lastUsedAt: '2026-11-22T14:02:11.318Z',
  revokedAt: null,
  requestCount: 412,
  working: true,
};

export const API_KEY_CREATED_EXAMPLE = {
  ...API_KEY_ENTRY_EXAMPLE,
  lastUsedAt: null,
  requestCount: 0,
  key: 'pp_test_qEoKy8VPF6yiXyBlO0oufC9TqO1Jke-CxIIU_idYimY',
};

export const API_KEY_LIST_EXAMPLE = { keys: [API_KEY_ENTRY_EXAMPLE] };

export const API_KEY_REVOKED_EXAMPLE = {
  ...API_KEY_ENTRY_EXAMPLE,
  revokedAt: '2026-11-22T15:00:00.000Z',
  working: false,
};

const DEVELOPER = party('developer');
const COLLECTION_ID = 'col_3nq0Zb1hVxJk2mTq';
const AMULET_FEES = { poolId: POOL_ID, token: 'Amulet', tokenAdmin: AMULET_ADMIN };

export const PORTAL_QUERY_EXAMPLE = { period: '7d' };

export const EARNINGS_EXAMPLE = {
  period: '7d',
  bucket: 'day',
  from: '2026-11-15T13:40:00.000Z',
  to: CREATED_AT,
  receiverParty: DEVELOPER,
  lines: [
    {
      ...AMULET_FEES,
      earned: '0.748875',
      unsettled: '0',
      swapCount: 2,
      collected: '0.3744375',
      collecting: '0',
      collectable: '0.3744375',
    },
  ],
  series: [
    { start: '2026-11-21T00:00:00.000Z', ...AMULET_FEES, earned: '0.3744375' },
    { start: '2026-11-22T00:00:00.000Z', ...AMULET_FEES, earned: '0.3744375' },
  ],
};

export const USAGE_EXAMPLE = {
  period: '24h',
  bucket: 'hour',
  from: '2026-11-21T13:00:00.000Z',
  to: CREATED_AT,
  series: [
    { start: '2026-11-21T13:00:00.000Z', swaps: 0, failures: 0, volumeUsd: '0' },
    { start: '2026-11-22T13:00:00.000Z', swaps: 2, failures: 1, volumeUsd: '290' },
  ],
  keys: [
    {
      keyId: API_KEY_ENTRY_EXAMPLE.keyId,
      name: 'web shop',
      prefix: 'pp_test_qEoK',
      requestCount: 42,
      lastUsedAt: '2026-11-22T14:02:11.318Z',
      revokedAt: null,
      working: true,
    },
  ],
};

export const COLLECTION_CREATE_EXAMPLE = { ...AMULET_FEES };

export const COLLECTION_PENDING_EXAMPLE = {
  collectionId: COLLECTION_ID,
  ...AMULET_FEES,
  amount: '0.3744375',
  status: 'pending',
  receiverParty: DEVELOPER,
  updateId: null,
  offerId: null,
  offerExpiresAt: null,
  createdAt: CREATED_AT,
  settledAt: null,
  error: null,
};

export const COLLECTION_COLLECTED_EXAMPLE = {
  ...COLLECTION_PENDING_EXAMPLE,
  status: 'collected',
  updateId: '1220f00dc0ffee54e1a4b2d9a1c3e5f7a9b0c2d4e6f8091a2b3c4d5e6f708192a3b4',
  settledAt: '2026-11-22T13:40:01.250Z',
};

export const COLLECTION_LIST_EXAMPLE = { collections: [COLLECTION_COLLECTED_EXAMPLE] };

// --- operations -----------------------------------------------------------------------------

export const HEALTH_EXAMPLE = { status: 'ok' };
export const READY_EXAMPLE = { status: 'ready', checks: { store: true, ledger: true } };
export const NOT_READY_EXAMPLE = { status: 'not_ready', checks: { store: true, ledger: false } };
export const METRICS_EXAMPLE =
  '# HELP poolparty_http_requests_total HTTP requests answered, by route and status\n' +
  '# TYPE poolparty_http_requests_total counter\n' +
  'poolparty_http_requests_total{method="GET",route="/v1/pools",status="200"} 42\n';

// --- devnet ---------------------------------------------------------------------------------

export const DEVNET_CREATE_PARTY_EXAMPLE = { partyHint: 'carol' };
export const DEVNET_PARTY_EXAMPLE = {
  partyId: party('carol'),
  publicKey: 'd+4Y55SbOcYp0euDIObUWkvxUn/hSmvLNAmu0c1KHLE=',
  privateKey: 'VYwU+fohjOSE4FR3s+3ixNkvCfmX0ltvcs7KYeN9Bx8=',
};
export const DEVNET_FAUCET_EXAMPLE = { partyId: ALICE, token: 'Amulet', amount: '1000' };
export const DEVNET_FAUCET_RESULT_EXAMPLE = {
  holdingId: 'holding-15-cbe8dbf819e02bc7',
  amount: '1000',
};
export const DEVNET_HOLDINGS_EXAMPLE = {
  holdings: [
    { token: 'Amulet', admin: AMULET_ADMIN, amount: '900', locked: '100' },
    { token: 'USDCx', admin: USDCX_ADMIN, amount: '13.2588874884', locked: '0' },
  ],
};
export const DEVNET_TRANSFER_EXAMPLE = {
  sender: ALICE,
  receiver: SWAP_ADDRESS,
  token: 'Amulet',
  amount: '100',
  reason: DEPOSIT_REFERENCE,
  commandId: 'deposit-swp_BAWB7Q3QWKX3FVSWGTWA536VN4',
  validUntil: '2026-11-22T13:50:00.000Z',
};
export const DEVNET_TRANSFER_RESULT_EXAMPLE = { updateId: 'update-000042', kind: 'direct' };
export const DEVNET_OFFERS_EXAMPLE = {
  offers: [
    {
      offerId: 'offer-17',
      sender: SWAP_ADDRESS,
      receiver: BOB,
      token: 'USDCx',
      admin: USDCX_ADMIN,
      amount: '13.2588874884',
      reason: 'pp-payout-S3C31GRTTW9ND',
      expiresAt: EXPIRES_AT,
    },
  ],
};
export const DEVNET_OFFER_ACTION_EXAMPLE = { partyId: BOB, validUntil: '2026-11-22T13:50:00.000Z' };
export const DEVNET_OFFER_ACTION_RESULT_EXAMPLE = {
  offerId: 'offer-17',
  updateId: 'update-000043',
};
export const DEVNET_CLOCK_ADVANCE_EXAMPLE = { advanceMs: 600000 };
export const DEVNET_CLOCK_EXAMPLE = { now: '2026-11-22T13:50:00.000Z' };
export const DEVNET_ORACLE_EXAMPLE = { amuletPriceUsd: '0.145' };
export const DEVNET_FAULTS_EXAMPLE = { latencyMs: 250, rejectRate: 0.1, seed: 7 };
export const DEVNET_FAULTS_IN_FORCE_EXAMPLE = {
  latencyMs: 250,
  rejectRate: 0.1,
  timeoutAfterCommitRate: 0,
  dropStreamRate: 0,
  duplicateDeliveryRate: 0,
  seed: 7,
};

// --- problems -------------------------------------------------------------------------------

interface ProblemCase {
  readonly detail: string;
  readonly extensions?: Readonly<Record<string, unknown>>;
}

/** A realistic `detail` (and the extension members that come with it) for every code. */
const PROBLEM_CASES: Readonly<Record<ErrorCode, ProblemCase>> = {
  validation_error: {
    detail: '/querystring/amount must match pattern "^\\d{1,28}(\\.\\d{1,10})?$"',
    extensions: {
      errors: [{ path: '/querystring/amount', message: 'must match pattern' }],
    },
  },
  malformed_request: { detail: "'/v1/pools/%E0%A4%A' is not a valid url component" },
  input_holdings_mismatch: {
    detail:
      'inputHoldingIds and inputHoldings name different holdings; give inputHoldings alone (it implies the ids) or both naming the same.',
  },
  input_holdings_unknown: {
    detail:
      "The pool's participant knows no holding 00a1b2… of the trader: it is gone, or the trader is hosted on another participant and did not disclose it in inputHoldings.",
  },
  invalid_input_holdings: {
    detail: 'The disclosed holding 00a1b2… is not the contract its id names.',
  },
  webhook_url_invalid: {
    detail:
      'The webhook URL https://user:pw@hooks.example.com/ is refused: a user name or password in the URL.',
  },
  webhook_url_not_allowed: {
    detail: 'The webhook URL https://10.0.0.5/hook is refused: 10.0.0.5 is a private address.',
  },
  webhook_event_unknown: {
    detail: 'swap.done is no webhook event type or kind; see GET /docs for the event types.',
    extensions: { pattern: 'swap.done' },
  },
  webhook_api_key_unknown: {
    detail: 'key_1a2b3c4d5e6f7a8b9c0d1e2f is not one of your API keys.',
    extensions: { apiKeyId: 'key_1a2b3c4d5e6f7a8b9c0d1e2f' },
  },
  webhook_endpoint_limit: {
    detail: 'You have 16 webhook endpoints, the most a developer may hold; delete one first.',
    extensions: { limit: 16 },
  },
  amount_below_minimum: {
    detail:
      'The amount must be larger than the network fee of 8.275862069 Amulet; send at least 8.2758620691.',
    extensions: { minimumAmount: '8.2758620691' },
  },
  price_impact_exceeded: {
    detail: 'The price impact of this swap is above the cap of 0.15; swap a smaller amount.',
    extensions: { maxPriceImpact: 0.15 },
  },
  amount_out_of_range: {
    detail:
      "At the pool's ratio, 99999999999999999999999 of token B pairs with more token A than an amount holds (at most 9999999999999999999999999999.9999999999); give less.",
  },
  first_deposit_too_small: {
    detail:
      "A pool's first deposit must mint more than 0.0000001 units, which stay locked forever; these amounts mint 0.00000003 (the square root of amountA × amountB): give more of both.",
  },
  settlement_safety: {
    detail: "The output is more than 10% of the pool's output reserve; try a smaller amount.",
    extensions: {
      settlementSafety: {
        code: 'output_reserve_share_exceeded',
        reason: 'share=0.14>0.1',
        message: "The output is more than 10% of the pool's output reserve; try a smaller amount.",
      },
    },
  },
  missing_api_key: { detail: 'Send your API key in the X-API-Key header.' },
  invalid_api_key: { detail: 'The API key is not valid.' },
  api_key_revoked: { detail: 'The API key was revoked.' },
  wrong_environment: { detail: 'This is the devnet service; the key is for mainnet.' },
  missing_wallet_token: { detail: 'Send the wallet token as Authorization: Bearer <token>.' },
  invalid_wallet_token: {
    detail: 'The wallet token expired; ask the wallet to sign a new challenge.',
  },
  invalid_signature: {
    detail: 'The signature does not verify with this key.',
    extensions: { reason: 'bad_signature' },
  },
  invalid_nonce: {
    detail:
      'The challenge cannot be answered (the nonce was already used); request a new challenge.',
    extensions: { reason: 'used' },
  },
  invalid_party_signature: {
    detail: `X-Party-Signature is not a signature of POST /devnet/transfers and its body by a signing key of ${ALICE}.`,
  },
  missing_session: {
    detail:
      'Sign in at POST /api/sdk/wallet-login; send the session as cookie pp_session or as Authorization: Bearer <token>.',
  },
  invalid_session: { detail: 'The session is unknown or has expired; sign in again.' },
  wallet_party_mismatch: {
    detail: "partyId must be the wallet token's party; a wallet sees its own swaps only.",
  },
  signature_expired: {
    detail:
      'The signed request was valid until 2026-11-22T13:40:00.000Z; the ledger clock is at 2026-11-22T13:41:00.000Z. Sign it again with a later validUntil.',
    extensions: { ledgerTime: '2026-11-22T13:41:00.000Z' },
  },
  invalid_transaction_signature: {
    detail:
      'The signature is not an Ed25519 signature of the prepared transaction hash by the key 1220c2f1… of the trader; nothing was submitted, and the swap is still prepared.',
  },
  origin_not_allowed: {
    detail:
      'POST /devnet/clock does not take requests from the browser origin https://evil.example; list it in POOLPARTY_DEVNET_CONTROL_ORIGINS to allow it.',
  },
  forbidden: { detail: 'Forbidden' },
  not_found: { detail: `No swap intent ${INTENT_ID}.` },
  pool_not_found: { detail: 'No pool amulet-doge.' },
  token_not_found: { detail: 'to: no pool trades a token DOGE.' },
  devnet_only: { detail: 'This endpoint exists on devnet only.' },
  request_timeout: { detail: 'The request was not received in time.' },
  active_intent_exists: {
    detail: `Intent ${INTENT_ID} of this party, pool and input token is still pending; fund or cancel it first.`,
    extensions: { intentId: INTENT_ID },
  },
  ambiguous_pool_pair: {
    detail: 'Amulet/USDCx matches 2 pools; pass poolId, or both fromAdmin and toAdmin.',
    extensions: {
      candidates: [
        { poolId: POOL_ID, fromAdmin: AMULET_ADMIN, toAdmin: USDCX_ADMIN },
        { poolId: 'amulet-usdcx-bridge', fromAdmin: AMULET_ADMIN, toAdmin: USDCX_BRIDGE_ADMIN },
      ],
    },
  },
  intent_not_cancellable: {
    detail: `Intent ${INTENT_ID} is completed; only a pending intent can be cancelled.`,
    extensions: { intentStatus: 'completed' },
  },
  pool_paused: { detail: `Pool ${POOL_ID} is paused; it takes no new swaps.` },
  price_moved: {
    detail:
      "The pool's curve pays 142.1 USDCx for 1000 Amulet now, below the signed output 142.5; nothing moved. Prepare the swap again for a new price.",
  },
  atomic_swap_expired: {
    detail:
      'The atomic swap expired at 2026-11-22T13:41:00.000Z before its signature arrived; nothing moved. Prepare it again.',
  },
  pool_holdings_busy: {
    detail: `Every USDCx holding of pool ${POOL_ID} is reserved by a prepared swap; try again when one ends (within 60 s).`,
  },
  nothing_to_collect: {
    detail: `No earnings of Amulet in pool ${POOL_ID} are left to collect.`,
  },
  collection_unavailable: {
    detail: `The fees pool ${POOL_ID} set aside in Amulet do not cover 0.375 now; an operator can tell why.`,
  },
  position_not_found: { detail: `The party holds no units of pool ${POOL_ID}.` },
  active_liquidity_intent_exists: {
    detail: `An open liquidity intent for pool ${POOL_ID} exists; finish or cancel it first.`,
  },
  liquidity_intent_not_cancellable: {
    detail: 'The liquidity intent is partial; only a pending intent can be cancelled.',
  },
  pool_has_no_price: {
    detail: `Pool ${POOL_ID} has no liquidity yet; give both amounts to set its price.`,
  },
  insufficient_units: {
    detail: 'The position holds 120.5 units; a withdrawal burns more than zero and at most that.',
  },
  withdrawal_minimum_not_met: {
    detail:
      'The units redeem for 99.1 and 9.8 now, below the minimums 100 and 10; nothing was burned.',
  },
  nothing_to_withdraw: { detail: 'Those units redeem for nothing.' },
  insufficient_funds: {
    detail: 'alice::1220… holds 12.5 unlocked Amulet, needs 50',
    extensions: { ledgerError: 'insufficient_holdings' },
  },
  api_key_limit_reached: {
    detail:
      'You have 25 working API keys (rotated keys count until their grace period ends), the most a developer may hold; revoke one (DELETE /api/sdk/keys/{keyId}) to free a place, or rotate an existing key.',
    extensions: { limit: 25 },
  },
  idempotency_key_in_use: {
    detail: 'A request with this Idempotency-Key is still running; retry after it finished.',
  },
  gone: {
    detail:
      'Developer registration is retired: sign in with your wallet at POST /api/sdk/wallet-login.',
  },
  precondition_failed: { detail: 'Precondition Failed' },
  payload_too_large: { detail: 'Request body is too large' },
  uri_too_long: { detail: "'/v1/pools/aaaa…' is exceeding the max param length" },
  unsupported_media_type: { detail: 'Unsupported Media Type: text/plain' },
  range_not_satisfiable: { detail: 'Range Not Satisfiable' },
  idempotency_key_reused: {
    detail:
      'This Idempotency-Key was used for a different request; use a new key for a new request.',
  },
  rate_limited: {
    detail: 'Rate limit of 1200 requests per minute reached; retry in 3 s.',
    extensions: { retryAfter: 3 },
  },
  headers_too_large: { detail: 'The request line and headers exceed the size the service reads.' },
  internal_error: { detail: 'The service failed to handle this request.' },
  not_implemented: { detail: 'This operation is not implemented by this service.' },
  ledger_unavailable: {
    detail:
      'The Amulet price and traffic parameters could not be read from the ledger yet; retry shortly.',
  },
  atomic_swaps_unavailable: {
    detail:
      'This service’s ledger prepares no transaction for a wallet to sign; use POST /v1/swaps (the deposit flow).',
  },
  store_unavailable: {
    detail: 'The service lost its connection to its store and is reconnecting. Retry shortly.',
    extensions: { retryAfterSeconds: 2 },
  },
};

const problemOf = problemFor as (code: ErrorCode, detail: string, extensions?: object) => object;

/** The body the service answers for `code`, as the example of a problem response. */
export function problemExample(code: ErrorCode): object {
  const { detail, extensions } = PROBLEM_CASES[code];
  return { ...problemOf(code, detail, extensions), requestId: REQUEST_ID };
}

// --- webhooks -----------------------------------------------------------------------------------

export const WEBHOOK_ENDPOINT_CREATE_EXAMPLE = {
  url: 'https://hooks.example.com/poolparty',
  events: ['swap.*', 'collection.paid'],
  apiKeyIds: null,
  description: 'Production receiver',
};

export const WEBHOOK_ENDPOINT_EXAMPLE = {
  id: 'we_3kT9vQx2LmN8pR4sW6yZ1a',
  url: 'https://hooks.example.com/poolparty',
  events: ['collection.paid', 'swap.*'],
  apiKeyIds: null,
  description: 'Production receiver',
  enabled: true,
  disabledReason: null,
  disabledAt: null,
  createdAt: '2026-01-15T10:00:00.000Z',
  updatedAt: '2026-01-15T10:00:00.000Z',
  secretRotatedAt: null,
  failingSince: null,
};

export const WEBHOOK_ENDPOINT_CREATED_EXAMPLE = {
  endpoint: WEBHOOK_ENDPOINT_EXAMPLE,
  secret: 'whsec_Zk3pQ9vT2mL8xR4sW6yN1aB5cD7eF0gH',
};

export const WEBHOOK_SECRET_ROTATED_EXAMPLE = {
  secret: 'whsec_Mn4bV8cX2zL6kJ0hG5fD9sA3pO7iU1yT',
  previousSecretExpiresAt: '2026-01-16T10:00:00.000Z',
};

export const WEBHOOK_DELIVERY_EXAMPLE = {
  id: 'wd_9fJ2kL5mN8pQ1rS4tU7vW0x',
  eventId: 'evt_swap_1042',
  eventType: 'swap.completed',
  state: 'delivered',
  attempts: [
    {
      at: '2026-01-15T10:05:00.000Z',
      statusCode: 200,
      latencyMs: 84,
      error: null,
      responseExcerpt: 'ok',
    },
  ],
  nextAttemptAt: null,
  createdAt: '2026-01-15T10:05:00.000Z',
};
