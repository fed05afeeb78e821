import { describe, expect, it } from 'vitest';
import type { TransferPayload } from '../src/legs.js';
import { planResend, type ResendCommand, type ResendInput, resendTargetOf } from '../src/resend.js';

const USDCX = { id: 'USDCx', admin: 'issuer::1220aa' };

const payout: TransferPayload = {
  kind: 'transfer',
  poolId: 'amulet-usdcx',
  side: 'b',
  sender: 'swap::1220bb',
  receiver: 'provider::1220cc',
  instrument: USDCX,
  amount: '120.5',
  reason: 'withdraw:wdr_1',
};

const given = (overrides: Partial<ResendCommand & { readonly payload: TransferPayload }> = {}) => ({
  commandId: 'wdr_1.b:lp_payout:0',
  leg: 'lp_payout',
  attempt: 0,
  status: 'failed' as const,
  offerId: null,
  updateId: null,
  liquidityDepositId: null,
  payload: payout,
  ...overrides,
});

/** A withdrawal's payout of side b given up on, its flag 7 open. */
function flaggedPayout(overrides: Partial<ResendInput> = {}): ResendInput {
  const command = given();
  return {
    flag: { id: 7, kind: 'withdrawal_payout_failed', resolution: null, resolved: false },
    command,
    attempts: [command],
    subject: { kind: 'withdrawal_side', state: 'flagged' },
    ...overrides,
  };
}

describe('re-sending a flagged payout', () => {
  it('records the next attempt of the same transfer, marked as the operator’s, and reopens the side', () => {
    expect(planResend(flaggedPayout())).toEqual({
      kind: 'resend',
      commandId: 'wdr_1.b:lp_payout:1',
      leg: 'lp_payout',
      attempt: 1,
      payload: { ...payout, operatorRetry: { flagId: 7, replaces: 'wdr_1.b:lp_payout:0' } },
      reopen: 'withdrawal_side',
    });
  });

  it('sends again a payout whose offer came back, after the attempts before it', () => {
    const earlier = given({ status: 'committed', offerId: 'offer-0' });
    const command = given({
      commandId: 'wdr_1.b:lp_payout:1',
      attempt: 1,
      status: 'committed',
      offerId: 'offer-1',
    });
    const plan = planResend(flaggedPayout({ command, attempts: [earlier, command] }));
    expect(plan).toMatchObject({ kind: 'resend', commandId: 'wdr_1.b:lp_payout:2', attempt: 2 });
  });

  it('refuses once anything it requires is gone: the flag, the failure, the flagged side, the latest attempt', () => {
    const refusals: [ResendInput, string][] = [
      [
        flaggedPayout({
          flag: {
            id: 7,
            kind: 'withdrawal_payout_failed',
            resolution: 're-sent as wdr_1.b:lp_payout:1',
            resolved: true,
          },
        }),
        'flag 7 is resolved already (re-sent as wdr_1.b:lp_payout:1): nothing was sent',
      ],
      [
        flaggedPayout({ command: given({ status: 'submitted' }) }),
        'command wdr_1.b:lp_payout:0 is still submitted: wait for its outcome',
      ],
      [
        flaggedPayout({ command: given({ status: 'committed', updateId: 'u-9' }) }),
        'command wdr_1.b:lp_payout:0 committed in update u-9: the amount was sent',
      ],
      [
        flaggedPayout({ subject: { kind: 'withdrawal_side', state: 'paid' } }),
        'the payout is paid, not flagged',
      ],
      [
        flaggedPayout({
          attempts: [given(), given({ commandId: 'wdr_1.b:lp_payout:1', attempt: 1 })],
        }),
        'wdr_1.b:lp_payout:1 was recorded after wdr_1.b:lp_payout:0: retry the flag raised for it, if any',
      ],
      [
        flaggedPayout({ command: given({ leg: 'lp_return' }) }),
        "flag 7 names no lp_payout command of the service's to send again",
      ],
      [
        flaggedPayout({
          flag: { id: 7, kind: 'late_confirmation', resolution: null, resolved: false },
        }),
        "flag 7 (late_confirmation) names no payout or return of the service's to send again; resolve it with admin flags resolve",
      ],
    ];
    for (const [input, reason] of refusals) {
      expect(planResend(input)).toEqual({ kind: 'refused', reason });
    }
  });
});

describe('re-sending a flagged liquidity leg', () => {
  const deposit = {
    kind: 'deposit' as const,
    status: 'flagged',
    sender: 'provider::1220cc',
    instrument: USDCX,
    amount: '40',
  };
  const forward = given({
    commandId: 'lp:u-3:0:forward:0',
    leg: 'forward',
    liquidityDepositId: 'lp:u-3:0',
    payload: {
      ...payout,
      poolId: null,
      side: null,
      sender: 'lp::1220dd',
      receiver: 'swap::1220bb',
      amount: '40',
      reason: 'forward:lp:u-3:0',
    },
  });

  it('returns a deposit whose forward failed from the LP party to its sender', () => {
    const plan = planResend({
      flag: { id: 3, kind: 'liquidity_forward_failed', resolution: null, resolved: false },
      command: forward,
      attempts: [],
      subject: deposit,
    });
    expect(plan).toEqual({
      kind: 'resend',
      commandId: 'lp:u-3:0:lp_return:0',
      leg: 'lp_return',
      attempt: 0,
      payload: {
        kind: 'transfer',
        poolId: null,
        side: null,
        sender: 'lp::1220dd',
        receiver: 'provider::1220cc',
        instrument: USDCX,
        amount: '40',
        reason: 'return:lp:u-3:0',
        operatorRetry: { flagId: 3, replaces: 'lp:u-3:0:forward:0' },
      },
      reopen: 'deposit',
    });
    expect(resendTargetOf(forward)).toEqual({ subjectId: 'lp:u-3:0', leg: 'lp_return' });
  });

  it('sends a return from the swap party again on its open flag alone, and refuses a deposit no longer flagged', () => {
    const fromSwapParty = given({
      commandId: 'liq_1.a:lp_return:0',
      leg: 'lp_return',
      payload: { ...payout, side: 'a', reason: 'return:liq_1' },
    });
    const flag = { id: 4, kind: 'liquidity_lp_return_failed', resolution: null, resolved: false };
    expect(
      planResend({
        flag,
        command: fromSwapParty,
        attempts: [fromSwapParty],
        subject: { kind: 'none' },
      }),
    ).toMatchObject({ kind: 'resend', commandId: 'liq_1.a:lp_return:1', reopen: null });
    expect(
      planResend({
        flag: { ...flag, kind: 'liquidity_forward_failed' },
        command: forward,
        attempts: [],
        subject: { ...deposit, status: 'returned' },
      }),
    ).toEqual({ kind: 'refused', reason: 'deposit lp:u-3:0 is returned, not flagged' });
  });
});
