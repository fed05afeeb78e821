import { describe, expect, it } from 'vitest';
import {
  type CantonErrorBody,
  codeOfCantonError,
  codeOfFailure,
  isDuplicateCommand,
  type RequestFailure,
  type RequestKind,
} from '../src/canton/errors.js';
import { classifyFetchError } from '../src/canton/http.js';
import type { LedgerErrorCode } from '../src/port.js';

function canton(
  code: string,
  errorCategory: number,
  cause = 'refused',
  context: Record<string, string> = {},
): CantonErrorBody {
  return { code, cause, errorCategory, context };
}

/** A failure raised in Daml code: `DAML_FAILURE`, with the failure's id in the context. */
function damlFailure(errorId: string, errorCategory: number): CantonErrorBody {
  return canton('DAML_FAILURE', errorCategory, 'x', { error_id: errorId });
}

describe('a JsCantonError as a port error', () => {
  const cases: [string, CantonErrorBody, RequestKind, LedgerErrorCode][] = [
    ['state unknown', canton('REQUEST_TIME_OUT', 3), 'submit', 'timeout'],
    ['deadline exceeded, any code', canton('SOME_DEADLINE', 3), 'read', 'timeout'],
    ['transient', canton('SERVICE_NOT_RUNNING', 1), 'submit', 'rejected'],
    ['contention', canton('LOCAL_VERDICT_LOCKED_CONTRACTS', 2), 'submit', 'rejected'],
    [
      'already in flight: may still commit',
      canton('SUBMISSION_ALREADY_IN_FLIGHT', 2),
      'submit',
      'timeout',
    ],
    ['unauthenticated', canton('UNAUTHENTICATED', 6), 'read', 'not_authorized'],
    ['permission denied', canton('PERMISSION_DENIED', 7), 'submit', 'not_authorized'],
    ['daml authorization', canton('DAML_AUTHORIZATION_ERROR', 8), 'offer', 'not_authorized'],
    ['unknown party', canton('PARTY_NOT_KNOWN_ON_LEDGER', 11), 'submit', 'unknown_party'],
    ['unknown informees', canton('UNKNOWN_INFORMEES', 9), 'submit', 'unknown_party'],
    ['offer contract gone', canton('CONTRACT_NOT_FOUND', 11), 'offer', 'offer_not_found'],
    ['input holding gone', canton('CONTRACT_NOT_FOUND', 11), 'submit', 'rejected'],
    [
      'a disclosed contract that is not the one its id names',
      canton('DISCLOSED_CONTRACT_INVALID', 9),
      'read',
      'invalid_disclosure',
    ],
    ['internal error on a read', canton('INTERNAL', 4), 'read', 'rejected'],
    ['internal error on a submission', canton('INTERNAL', 4), 'submit', 'timeout'],
    ['invalid argument', canton('INVALID_ARGUMENT', 8), 'submit', 'rejected'],
    ['failed precondition', canton('SOMETHING_ELSE', 9), 'submit', 'rejected'],
    [
      'daml failure with the port code as id',
      damlFailure('insufficient_holdings', 9),
      'submit',
      'insufficient_holdings',
    ],
    ['daml failure: expired offer', damlFailure('offer_expired', 9), 'offer', 'offer_expired'],
    [
      'daml failure: metadata',
      damlFailure('metadata_limit_exceeded', 8),
      'submit',
      'metadata_limit_exceeded',
    ],
    ['daml failure: amount', damlFailure('invalid_amount', 8), 'submit', 'invalid_amount'],
    [
      'daml failure: instrument',
      damlFailure('unknown_instrument', 9),
      'submit',
      'unknown_instrument',
    ],
    [
      'daml failure: a retry code is not taken from the id',
      damlFailure('timeout', 9),
      'submit',
      'rejected',
    ],
    [
      'fail text: insufficient funds',
      canton('UNHANDLED_EXCEPTION', 9, 'Insufficient funds: 3 < 5'),
      'submit',
      'insufficient_holdings',
    ],
    [
      'fail text: expired',
      canton('DAML_INTERPRETATION_ERROR', 9, 'Transfer instruction expired'),
      'offer',
      'offer_expired',
    ],
    ['unknown failure text', canton('DAML_FAILURE', 9, 'something odd'), 'submit', 'rejected'],
  ];
  it.each(cases)('%s', (_label, body, kind, expected) => {
    expect(codeOfCantonError(body, kind)).toBe(expected);
  });
});

describe('any failed request as a port error', () => {
  const body = canton('CONTRACT_NOT_FOUND', 11);
  const cases: [string, RequestFailure, RequestKind, LedgerErrorCode][] = [
    [
      'never reached the server (read)',
      { kind: 'unreachable', detail: 'ECONNREFUSED' },
      'read',
      'rejected',
    ],
    [
      'never reached the server (submission)',
      { kind: 'unreachable', detail: 'ECONNREFUSED' },
      'submit',
      'rejected',
    ],
    ['lost after sending a read', { kind: 'lost', detail: 'socket hang up' }, 'read', 'rejected'],
    [
      'lost after sending a submission',
      { kind: 'lost', detail: 'socket hang up' },
      'submit',
      'timeout',
    ],
    ['lost after sending an offer choice', { kind: 'lost', detail: 'timeout' }, 'offer', 'timeout'],
    [
      '5xx without a Canton body (read)',
      { kind: 'status', status: 502, body: undefined },
      'read',
      'rejected',
    ],
    [
      '5xx without a Canton body (submission)',
      { kind: 'status', status: 503, body: undefined },
      'submit',
      'timeout',
    ],
    [
      '5xx with a Canton body is decided by the body',
      { kind: 'status', status: 503, body: canton('SERVICE_NOT_RUNNING', 1) },
      'submit',
      'rejected',
    ],
    ['400 text body', { kind: 'status', status: 400, body: undefined }, 'submit', 'rejected'],
    ['401', { kind: 'status', status: 401, body: undefined }, 'read', 'not_authorized'],
    ['403', { kind: 'status', status: 403, body: { error: 'no' } }, 'submit', 'not_authorized'],
    ['404 with a Canton body', { kind: 'status', status: 404, body }, 'offer', 'offer_not_found'],
  ];
  it.each(cases)('%s', (_label, failure, kind, expected) => {
    expect(codeOfFailure(failure, kind)).toBe(expected);
  });

  it('recognises a duplicate command only from its Canton code', () => {
    const duplicate = canton('DUPLICATE_COMMAND', 10);
    expect(isDuplicateCommand({ kind: 'status', status: 409, body: duplicate })).toBe(true);
    expect(isDuplicateCommand({ kind: 'status', status: 409, body })).toBe(false);
    expect(isDuplicateCommand({ kind: 'lost', detail: 'DUPLICATE_COMMAND' })).toBe(false);
  });
});

describe('fetch failures', () => {
  function fetchFailure(code: string): Error {
    const cause = Object.assign(new Error(`connect ${code}`), { code });
    return new TypeError('fetch failed', { cause });
  }
  it('a refused connection never reached the server', () => {
    expect(classifyFetchError(fetchFailure('ECONNREFUSED')).kind).toBe('unreachable');
    expect(classifyFetchError(fetchFailure('ENOTFOUND')).kind).toBe('unreachable');
  });
  it('a reset connection or a time limit may have delivered the request', () => {
    expect(classifyFetchError(fetchFailure('ECONNRESET')).kind).toBe('lost');
    const timeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    expect(classifyFetchError(timeout).kind).toBe('lost');
  });
});
