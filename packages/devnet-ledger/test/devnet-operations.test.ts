/**
 * The devnet conveniences' own rules, apart from any server: what each ledger refusal means to a
 * client, how a token symbol names its instrument, how holdings sum to balances, and how a fault
 * change merges with the settings in force. The routes over them are tested where they are
 * served: the service's (packages/server/test/devnet-routes.test.ts) and this server's
 * (devnet-conveniences.test.ts).
 */
import { Amount, type Instrument, statusOf } from '@poolparty/core';
import { LedgerError, type LedgerErrorCode } from '@poolparty/ledger';
import { describe, expect, it } from 'vitest';
import {
  balancesOf,
  FAULTS_OFF,
  mergeFaults,
  problemOfLedgerError,
  resolveInstrument,
} from '../src/devnet/operations.js';

const admin = (name: string, digit: string) => `${name}::1220${digit.repeat(64)}`;
const AMULET: Instrument = { admin: admin('DSO', 'a'), id: 'Amulet' };
const USDCX_A: Instrument = { admin: admin('bankA', 'b'), id: 'USDCx' };
const USDCX_B: Instrument = { admin: admin('bankB', 'c'), id: 'USDCx' };

describe('ledger refusals as problems', () => {
  const expected: Record<LedgerErrorCode, [number, string]> = {
    unknown_party: [404, 'not_found'],
    unknown_instrument: [404, 'token_not_found'],
    insufficient_holdings: [409, 'insufficient_funds'],
    invalid_inputs: [400, 'validation_error'],
    unknown_contract: [400, 'input_holdings_unknown'],
    invalid_disclosure: [400, 'invalid_input_holdings'],
    invalid_amount: [400, 'validation_error'],
    metadata_limit_exceeded: [400, 'validation_error'],
    offer_not_found: [404, 'not_found'],
    offer_expired: [410, 'gone'],
    allocation_not_found: [404, 'not_found'],
    deadline_passed: [410, 'gone'],
    invalid_settlement: [400, 'validation_error'],
    not_authorized: [400, 'validation_error'],
    signature_invalid: [401, 'invalid_transaction_signature'],
    rejected: [503, 'ledger_unavailable'],
    timeout: [503, 'ledger_unavailable'],
    stream_dropped: [503, 'ledger_unavailable'],
    closed: [503, 'ledger_unavailable'],
  };

  it.each(Object.entries(expected))('%s → %j', (ledgerCode, [status, code]) => {
    const problem = problemOfLedgerError(new LedgerError(ledgerCode as LedgerErrorCode, 'why'));
    expect([statusOf(problem.code), problem.code]).toEqual([status, code]);
    expect(problem.extensions).toEqual({ ledgerError: ledgerCode });
  });

  it('tells a client to retry a timed-out command with the same id', () => {
    expect(problemOfLedgerError(new LedgerError('timeout', 'slow')).shortMessage).toContain(
      'same commandId',
    );
  });
});

describe('pure helpers', () => {
  it('resolves a symbol to its instrument, by admin when it has several', () => {
    const all = [AMULET, USDCX_A, USDCX_B];
    expect(resolveInstrument(all, 'Amulet')).toEqual(AMULET);
    expect(resolveInstrument(all, 'USDCx', USDCX_B.admin)).toEqual(USDCX_B);
    expect(() => resolveInstrument(all, 'USDCx')).toThrow(/several admins/);
    expect(() => resolveInstrument(all, 'Amulet', USDCX_A.admin)).toThrow(/No token Amulet/);
  });

  it('sums free and locked holdings separately, per instrument', () => {
    const holding = (instrument: Instrument, amount: string, locked: boolean) => ({
      holdingId: `${instrument.id}-${amount}`,
      owner: 'x',
      instrument,
      amount: Amount.parse(amount),
      lock: locked ? { offerId: 'o', expiresAt: new Date(0), context: null } : null,
    });
    const balances = balancesOf([
      holding(USDCX_A, '1', false),
      holding(AMULET, '2.5', false),
      holding(AMULET, '0.5', true),
      holding(AMULET, '1', false),
    ]);
    expect(balances).toEqual([
      { token: 'Amulet', admin: AMULET.admin, amount: '3.5', locked: '0.5' },
      { token: 'USDCx', admin: USDCX_A.admin, amount: '1', locked: '0' },
    ]);
  });

  it('merges fault changes, keeping what a change does not name', () => {
    const merged = mergeFaults({ ...FAULTS_OFF, latencyMs: 5 }, { rejectRate: 0.25, seed: 7 });
    expect(merged).toEqual({ ...FAULTS_OFF, latencyMs: 5, rejectRate: 0.25, seed: 7 });
    expect(mergeFaults(merged, { latencyMs: 0 })).toEqual({ ...merged, latencyMs: 0 });
  });
});
